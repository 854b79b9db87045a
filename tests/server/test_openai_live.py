"""A live day through a real OpenAI-protocol server: recorded, replayed, and its faults.

`village run day-of-three --oracle openai --record` runs in a project home of `village
init`, against llama-cpp-python's own server (`python -m kernel.oracle.serve`) on the
embedded backend's GGUF; the recording replays byte for byte, and every answer is asked
again of the embedded backend in process. A server killed mid-run, one that answers 503
and one that never answers each stop the run with one line and the log at its last whole
tick. Concurrent asks of that server answer as asks made one at a time.
"""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

import pytest

from kernel import config
from kernel.oracle import Ask, exemplar
from kernel.oracle.base import Decoding
from kernel.oracle.fanout import Retry
from kernel.oracle.openai_api import OpenAIOracle, OpenAIServers
from tests.process import env, one_error_line, sha256_of, start, village

from .conftest import WINDOW, Proxy, missing, serve

pytestmark = [pytest.mark.embedded, pytest.mark.slow]

MODEL = "smollm2:135m-instruct"
NOTE = "llama-cpp-python at 127.0.0.1:"


def _environ(base: str) -> dict[str, str]:
    return env(drop=("VILLAGE_HOME", "OPENAI_BASE_URLS", "OPENAI_API_KEY"),
               OPENAI_BASE_URL=base)


def _home(root: Path, *, timeout_s: float | None = None) -> Path:
    r = village("init", "p", cwd=root, environ=env(drop=("VILLAGE_HOME",)))
    assert r.returncode == 0, r.stderr
    home = root / "p"
    # the live day is SmolLM2's (the server's model, quick): day-of-three asks it by its models file
    sc = home / "fixtures" / "day-of-three" / "scenario.json"
    sv = json.loads(sc.read_text())
    sv["models"] = "models-smollm2.json"
    sc.write_text(json.dumps(sv, indent=2))
    if timeout_s is not None:
        p = home / "configs" / "models-smollm2.json"
        value = json.loads(p.read_text())
        value["timeout_s"] = timeout_s
        p.write_text(json.dumps(value, indent=2))
    return home


@pytest.fixture(scope="module")
def live(server, tmp_path_factory):
    """A home whose day-of-three was run live through the server and recorded."""
    home = _home(tmp_path_factory.mktemp("live"))
    r = village("run", "day-of-three", "--oracle", "openai", "--record", "--out", "live.log",
                cwd=home, environ=_environ(server.base), timeout=1800)
    assert r.returncode == 0, (r.stdout[-3000:], r.stderr[-3000:], server.tail())
    return home, r


def test_a_live_run_through_the_server_says_at_pre_flight_what_the_server_is_not_sent(live):
    _, r = live
    first = r.stdout.splitlines()[0]
    assert "oracle openai (" + NOTE in first, first
    assert "schema as grammar; not sent: fill; set by the server process: repeat_last_n" in first


def test_its_recording_names_the_backend_the_host_and_every_models_pin(live):
    home, _ = live
    doc = json.loads((home / "exemplars" / "day-of-three.json").read_text())
    cfg = config.load("models-smollm2", schema="models")
    assert doc["backend"] == "openai"
    assert doc["models"][MODEL] == {"digest": cfg["llamacpp"]["sha256"], "backend": "openai"}
    assert set(doc["models"]) == {MODEL, cfg["embed"]}
    served = doc["served"]
    assert served["host"].startswith("127.0.0.1:") and served["dialect"] == "llama-cpp-python"
    assert served["not_sent"] == ["fill", "repeat_last_n"]
    assert served["in_process"] == [cfg["embed"]]


def test_a_live_run_through_the_server_replays_byte_for_byte_from_its_recording(live):
    home, _ = live
    r = village("run", "day-of-three", "--out", "replay.log", cwd=home,
                environ=env(drop=("VILLAGE_HOME",)), timeout=300)
    assert r.returncode == 0, r.stderr
    assert (home / "replay.log").read_bytes() == (home / "live.log").read_bytes()


def test_every_answer_over_http_is_the_embedded_backends_answer_to_the_same_ask_without_fill(live):
    # The server samples every token itself, so the one option of the ask it cannot be sent
    # is `fill` (the embedded backend writing the text a grammar forces); asked without it,
    # the embedded backend answers every call with the server's bytes.
    from kernel.errors import OracleError
    from kernel.oracle.llamacpp import LlamaCppOracle

    home, _ = live
    doc = exemplar.load(home / "exemplars" / "day-of-three.json")
    try:
        local = LlamaCppOracle.from_config(config.load("models-smollm2", schema="models"))
    except OracleError as e:
        missing(str(e))
    calls = [c for c in doc["calls"] if c["kind"] == "generate"]
    assert calls
    differ = []
    for c in calls:
        a = exemplar.ask(c)
        assert a.prompt_sha256 == c["prompt_sha256"] and a.decoding.fill
        off = dataclasses.replace(a, decoding=dataclasses.replace(a.decoding, fill=False))
        said = local.generate(off).text
        if said != c["answer"]:
            differ.append((c["purpose"], said, c["answer"]))
    assert differ == [], differ


# -- faults ---------------------------------------------------------------------------------

def _verify_whole(home: Path, log: str) -> str:
    """`village log verify` of a log a fault stopped: intact, and stopped short of the day's end."""
    r = village("log", "verify", log, cwd=home, environ=env(drop=("VILLAGE_HOME",)))
    assert r.returncode == 0 and "intact" in r.stdout, (r.stdout, r.stderr)
    ticks = next(x for x in r.stdout.splitlines() if x.startswith("ticks"))
    assert not ticks.endswith(".. 1999"), ticks
    return ticks


def test_a_server_killed_mid_run_stops_it_with_one_line_and_the_log_at_its_last_whole_tick(
        tmp_path):
    home = _home(tmp_path)
    recording = home / "exemplars" / "day-of-three.json"
    before = sha256_of(recording)
    s = serve(tmp_path / "server.log")
    try:
        p = start("run", "day-of-three", "--oracle", "openai", "--record", "--out", "gone.log",
                  cwd=home, environ=_environ(s.base))
        deadline = time.monotonic() + 600
        while s.requests() < 2 and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert s.requests() >= 2, s.tail()
        s.proc.kill()
        s.proc.wait()
        _, err = p.communicate(timeout=300)
    finally:
        s.stop()
    assert p.returncode == 1, err
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"Error: no server at {s.base} answered the "), lines[0]
    _verify_whole(home, "gone.log")
    assert sha256_of(recording) == before, "a run that stopped writes no recording"


@pytest.mark.parametrize("mode,said", [
    ("busy", "stayed busy (503: the server is busy) through 4 attempts at the questions call"),
    ("hang", "did not answer the questions call to smollm2 within 3 s"),
])
def test_a_busy_or_hung_server_stops_the_run_with_one_line_and_the_log_whole(
        server, tmp_path, mode, said):
    home = _home(tmp_path, timeout_s=3)
    proxy = Proxy(server.base, mode)
    try:
        r = village("run", "day-of-three", "--oracle", "openai", "--out", f"{mode}.log",
                    cwd=home, environ=_environ(proxy.base), timeout=600)
    finally:
        proxy.close()
    line = one_error_line(r, printed=r.stdout)
    assert said in line, line
    assert proxy.hits == (4 if mode == "busy" else 1)
    _verify_whole(home, f"{mode}.log")


PROMPTS = ["You are Ada, a baker. Today you gave bread to Bo (memory 3) and saw rain (memory 5). "
           "Say one thing you learned, citing a memory by its number.",
           "You are Bo, a smith. Ada gave you bread (memory 3). The forge was cold (memory 5). "
           "What do you think of your day? Cite a memory.",
           "You are Cy, a fisher. The nets tore (memory 3); Ada sang by the pier (memory 5). "
           "Say what stayed with you, citing a memory.",
           "You are Di, a weaver. Bo mended your loom (memory 3); the wool ran out (memory 5). "
           "Say one thing about today, citing a memory."]


def _asks(n: int) -> list[Ask]:
    from kernel.seam import drawn_schema

    return [Ask(purpose="statement", model=MODEL, prompt=PROMPTS[i % len(PROMPTS)].encode(),
                schema=drawn_schema([3, 5]), seed=3000 + i, temperature=0.0, limit=48,
                context=2048, decoding=Decoding(repeat_penalty=1.2, repeat_last_n=WINDOW))
            for i in range(n)]


def _oracle(base: str) -> OpenAIOracle:
    cfg = config.load("models-smollm2", schema="models")
    pin = cfg["openai"]["models"][MODEL]["weights_sha256"]
    return OpenAIOracle(base_url=base, models={MODEL: ("smollm2", None, pin)}, timeout=600)


def test_two_busy_answers_are_waited_out_and_the_third_ask_is_answered_as_if_never_busy(
        server):
    ask = _asks(1)[0]
    straight = _oracle(server.base).generate(ask).text
    proxy = Proxy(server.base, "busy-twice")
    try:
        waits: list[float] = []
        o = _oracle(proxy.base)
        o.retry = Retry(sleep=waits.append)
        assert o.generate(ask).text == straight
    finally:
        proxy.close()
    assert proxy.hits == 3 and waits == [0.25, 0.5]


def test_asks_made_together_of_a_server_of_one_slot_answer_as_asks_made_one_at_a_time(server):
    # llama-cpp-python's server answers one request at a time, so asks in flight together
    # are queued, never batched: the pool may put several on it and get the same bytes.
    asks = _asks(4)
    alone = [_oracle(server.base).generate(a).text for a in asks]
    pool = OpenAIServers([_oracle(server.base)], slots=len(asks))
    try:
        together = [s.text for s in pool.generate_many(asks)]
    finally:
        pool.close()
    assert together == alone
