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


# A scenario of more than a hundred villagers is a slow replay, left to `make test`.
@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.slow) if len(msc.load(n).world.people) > 100 else n
    for n in msc.committed()])
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
    t = home_copy / "configs" / "reflect-questions.tmpl"   # what day-of-three renders
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
    before = t.read_bytes()
    t.write_bytes(before.replace(b"You ask yourself", b"you ask yourself", 1))
    assert t.read_bytes() != before, "the edit changes the template"
    res = CliRunner().invoke(main, ["replay", "day-of-three"])
    assert res.exit_code == 1
    assert "DIFFERS" in res.output and "statement" in res.output and "sha256" in res.output


def test_the_replay_command_passes_on_the_committed_recordings():
    res = CliRunner().invoke(main, ["replay", "day-of-three"])
    assert res.exit_code == 0, res.output
    assert "the committed digest, byte for byte" in res.output
    assert "requests rendered here that were the recorded bytes" in res.output


def _chain_scenario(tmp_path):
    """Halla alone, reflecting every 300 ticks with the cap off, on the committed world."""
    d = tmp_path / "chain"
    d.mkdir()
    shutil.copy(msc.find("five-days-of-halla") / "world.json", d / "world.json")
    t = json.loads((msc.find("five-days-of-halla") / "thought.json").read_text())
    t["reflection"]["every"] = 300
    assert t["reflection"]["depth"] == 0, "the chain is recorded with the cap off"
    (d / "thought.json").write_text(json.dumps(t))
    (d / "scenario.json").write_text(json.dumps({
        "name": "chain", "description": "Halla reflecting at ticks 299, 599 and 899, cap off",
        "ticks": 900, "head_sha256": "0" * 64, "thought": "thought.json", "reflecting": ["Halla"],
        "exemplars": str(tmp_path / "chain.json")}))
    return msc.load(d)


def test_a_cap_below_the_recorded_chain_cuts_it_and_the_replay_stops_at_the_first_prompt_that_differs(tmp_path):
    # A chain recorded from a script: each statement cites Halla's newest thought, so the
    # thoughts stand at depths 1, 2 and 3, whatever a model would have said.
    from kernel.oracle import RecordingOracle
    from kernel.testing import ScriptedOracle

    sc = _chain_scenario(tmp_path)
    newest: list[int] = []
    said: list[str] = []

    def answer(ask):
        if ask.purpose == "questions":
            return json.dumps({"questions": ["What changed today?", "Who was near?"]})
        # a line shown at several ids reads "[44, 14] ...": its first id is citable
        first = int(ask.prompt.split(b"[", 2)[1].split(b"]")[0].split(b",")[0])
        # a text of its own each time: a thought said again would be a restatement
        said.append(f"what came before turned the day, for the {len(said) + 1}th time")
        return json.dumps({"answer": said[-1], "numbers": [newest[-1] if newest else first]})

    live = RecordingOracle(ScriptedOracle([answer] * 9), sc.exemplars)
    full = engine.run(sc, live, tmp_path / "full.log",
                      on_round=lambda r: newest.extend(t.id for t in r.thoughts))
    live.save()
    depths = [s.verdict.depth for r in full.rounds for x in r.reflections for s in x.statements
              if s.verdict is not None and s.verdict.ok]
    assert depths == [1, 1, 2, 2, 3, 3], "each round's thoughts stand on the round before's"
    again = engine.run(sc, make("replay", replay_from=sc.exemplars), tmp_path / "again.log")
    assert again.head_hex == full.head_hex
    cap = 1   # cuts the second round, and the third finds the recording is not of this run
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
