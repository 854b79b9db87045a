"""A real server process: llama-cpp-python's OpenAI-compatible server on the embedded backend's GGUF.

The server is started as its own process (`python -m kernel.oracle.serve`, which is
`python -m llama_cpp.server` with the embedded backend's AMX-safe weight buffers) on a
free loopback port, and stopped after. The same weights, grammar and sampling are asked
once in process and once over HTTP, so the two answers can be compared byte for byte.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from kernel import config
from kernel.errors import OracleError
from kernel.oracle import Ask
from kernel.oracle.base import Decoding
from kernel.oracle.llamacpp import LlamaCppOracle, find_gguf, json_gbnf
from kernel.seam import drawn_schema

pytestmark = [pytest.mark.embedded, pytest.mark.slow]

WINDOW = 32       # the server's repeat window is a setting of the process, not of a request


def _missing(why: str):
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true and the server test cannot run: {why}", pytrace=False)
    pytest.skip(why)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _post(url: str, body: dict, timeout: float = 120.0) -> dict:
    req = urllib.request.Request(url, json.dumps(body).encode(),
                                 {"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    try:
        import llama_cpp.server  # noqa: F401
    except ImportError as e:
        _missing(f"llama-cpp-python's server extra is not installed ({e})")
    cfg = config.load("models")
    lc = cfg["llamacpp"]
    try:
        gguf = find_gguf(lc["module"], lc["gguf"], lc["package"])
    except OracleError as e:
        _missing(str(e))
    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "kernel.oracle.serve", "--model", str(gguf),
             "--host", "127.0.0.1", "--port", str(port), "--model_alias", "smollm2",
             "--n_threads", str(lc["threads"]), "--n_threads_batch", str(lc["threads"]),
             "--n_ctx", str(cfg["context"]), "--last_n_tokens_size", str(WINDOW)],
            stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                pytest.fail(f"the server exited with {proc.returncode}: "
                            f"{log.read_text(errors='replace')[-2000:]}")
            try:
                with urllib.request.urlopen(base + "/models", timeout=2) as r:
                    models = json.loads(r.read())
                break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                if time.monotonic() > deadline:
                    pytest.fail("the server did not answer its model list within 120 s")
                time.sleep(0.25)
        yield base, models, proc, log
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _ask(prompt: str, seed: int) -> Ask:
    return Ask(purpose="statement", model="smollm2:135m-instruct", prompt=prompt.encode(),
               schema=drawn_schema([3, 5]), seed=seed, temperature=0.0, limit=48, context=2048,
               decoding=Decoding(repeat_penalty=1.2, repeat_last_n=WINDOW))


PROMPTS = ["You are Ada, a baker. Today you gave bread to Bo (memory 3) and saw rain "
           "(memory 5). Say one thing you learned, citing a memory by its number.",
           "You are Bo, a smith. Ada gave you bread (memory 3). The forge was cold (memory 5). "
           "What do you think of your day? Cite a memory."]


def test_the_server_lists_the_one_model_it_was_started_with(server):
    _, models, _, _ = server
    assert [m["id"] for m in models["data"]] == ["smollm2"]


@pytest.mark.parametrize("i", range(len(PROMPTS)))
def test_the_server_answers_an_ask_with_the_bytes_the_embedded_backend_answers_it_with(server, i):
    base, _, proc, log = server
    cfg = config.load("models")
    try:
        local = LlamaCppOracle.from_config(cfg)
    except OracleError as e:
        _missing(str(e))
    a = _ask(PROMPTS[i], seed=2000 + i)
    d = a.decoding
    r = _post(base + "/chat/completions", {
        "model": "smollm2", "messages": [{"role": "user", "content": a.prompt_text}],
        "temperature": a.temperature, "seed": a.seed, "max_tokens": a.limit,
        "repeat_penalty": d.repeat_penalty, "top_k": d.top_k, "top_p": d.top_p,
        "min_p": d.min_p, "grammar": json_gbnf(a.schema)})
    assert proc.poll() is None, log.read_text(errors="replace")[-2000:]
    over_http = r["choices"][0]["message"]["content"]
    in_process = local.generate(a).text
    assert over_http == in_process
    json.loads(over_http)
