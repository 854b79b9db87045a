"""Committed recordings replay byte for byte, and stop at the first byte that differs."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from kernel import engine
from kernel import log as vlog
from kernel.cli import main
from kernel.engine import scenario as msc
from kernel.errors import ReplayMismatch
from kernel.oracle import make


def test_there_are_committed_recordings_to_replay():
    assert {"day-of-three", "five-days-of-halla", "day-of-twenty-four"} <= set(msc.committed())


@pytest.mark.parametrize("name", msc.committed())
def test_every_committed_scenario_replays_to_its_committed_head_hash(name, tmp_path):
    sc = msc.load(name)
    oracle = None if sc.world_only else make("replay", replay_from=sc.exemplars)
    report = engine.run(sc, oracle, tmp_path / "run.log")
    assert report.head_hex == sc.head_sha256
    if oracle is not None:
        assert oracle.unread == 0 and oracle.matched == oracle.read == oracle.total
    assert vlog.verify(tmp_path / "run.log").head_hex == sc.head_sha256


def test_every_recording_is_labelled_with_backend_model_and_digest():
    for name in msc.committed():
        sc = msc.load(name)
        if sc.world_only:
            continue
        doc = json.loads(sc.exemplars.read_text())
        assert doc["backend"] in ("llamacpp", "ollama"), name
        assert doc["models"] and all(m["digest"] for m in doc["models"].values()), name
        assert sc.recorded_with["backend"] == doc["backend"], name
        for call in doc["calls"]:
            assert call["backend"] == doc["backend"] and call["digest"], name


@pytest.fixture
def home_copy(tmp_path, monkeypatch):
    """A copy of the configs, fixtures and exemplars, so a test can change one byte of them."""
    from kernel import config
    src = config.home()
    for d in ("configs", "fixtures", "exemplars"):
        shutil.copytree(src / d, tmp_path / d)
    monkeypatch.setenv("VILLAGE_HOME", str(tmp_path))
    return tmp_path


def test_one_changed_byte_of_a_template_stops_the_replay_at_the_first_call_naming_both_digests(home_copy):
    t = home_copy / "configs" / "reflect-questions.tmpl"
    b = bytearray(t.read_bytes())
    i = b.rindex(b"day")
    b[i] = ord("D")  # one byte of the words, not of the template's syntax
    t.write_bytes(bytes(b))
    sc = msc.load("day-of-three")
    oracle = make("replay", replay_from=sc.exemplars)
    out = home_copy / "run.log"
    with pytest.raises(ReplayMismatch) as e:
        engine.run(sc, oracle, out)
    msg = str(e.value)
    assert "call 1" in msg and "questions" in msg
    doc = json.loads(sc.exemplars.read_text())
    assert doc["calls"][0]["prompt_sha256"][:8] in msg
    # Nothing of the round's tick was written: the log ends at the tick before and verifies.
    s = vlog.verify(out)
    first_round = min(p.founded for p in sc.world.people) + sc.settings.every - 1
    assert s.last_tick == first_round - 1
    assert not any(e.kind in ("answered", "thought", "refusal") for _, e in vlog.read_events(out))


def test_the_replay_command_names_the_first_difference_and_exits_non_zero(home_copy):
    t = home_copy / "configs" / "reflect-statement.tmpl"
    t.write_bytes(t.read_bytes().replace(b"The question", b"the question", 1))
    res = CliRunner().invoke(main, ["replay", "day-of-three"])
    assert res.exit_code == 1
    assert "DIFFERS" in res.output and "statement" in res.output and "sha256" in res.output


def test_the_replay_command_passes_on_the_committed_recordings():
    res = CliRunner().invoke(main, ["replay", "day-of-three"])
    assert res.exit_code == 0, res.output
    assert "the committed digest, byte for byte" in res.output
    assert "requests rendered here that were the recorded bytes" in res.output


def test_a_cap_below_the_recorded_chain_cuts_it_and_the_replay_stops_at_the_first_prompt_that_differs(tmp_path):
    sc = msc.load("five-days-of-halla")
    assert sc.settings.cap == 0, "the chain was recorded with the cap off"
    full = engine.run(sc, make("replay", replay_from=sc.exemplars), tmp_path / "full.log")
    depths = [s.verdict.depth for r in full.rounds for x in r.reflections for s in x.statements
              if s.verdict is not None and s.verdict.ok]
    deepest = max(depths)
    assert deepest >= 2, "the recording holds a thought drawn from a thought"
    cap = deepest - 1
    oracle = make("replay", replay_from=sc.exemplars)
    cut = engine.run(sc, oracle, tmp_path / "cut.log", settings=sc.settings.with_cap(cap), keep_going=True)
    refused = [s for r in cut.rounds for x in r.reflections for s in x.statements
               if s.verdict is not None and s.verdict.check == "depth"]
    assert refused and all(s.row is None for s in refused)
    assert f"the cap is {cap}" in refused[0].verdict.reason
    # The refused thought was never written (nor embedded), so a later call is not the recorded one.
    assert isinstance(cut.stopped, ReplayMismatch)
    assert "the recording is not a recording of this code" in str(cut.stopped) and oracle.unread > 0
    s = vlog.verify(tmp_path / "cut.log")
    assert s.last_tick < sc.ticks - 1 and not s.tail.torn
