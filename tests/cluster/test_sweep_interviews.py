"""A sweep that interviews its runs: each run, after it runs, is asked the battery at its last
tick through the run's own oracle, the calls recorded after the run's, and its scores are rows
of sweep.duckdb's `interviews` table; a replay of the run reads the interviews back.

The run is day-of-three as a sweep task makes it (its own home, its files written there), with
no Ray; its recording is day-of-three's own, followed by a scripted model's interview answers.
"""

from __future__ import annotations

import json

import duckdb
import pytest

from kernel import engine, sweep
from kernel.engine import scenario as msc
from kernel.errors import ConfigError
from kernel.interview import battery as ib
from kernel.interview import session as isn
from kernel.oracle import exemplar, make
from kernel.oracle.base import Oracle
from kernel.oracle.record import RecordingOracle
from kernel.sweep import table
from kernel.sweep.task import execute
from kernel.testing import ScriptedOracle

pytestmark = pytest.mark.slow   # a real process, server, model or browser each test


class _Then(Oracle):
    """The recording's answers while it has calls, then a scripted model's."""

    backend = "llamacpp"

    def __init__(self, first, then):
        super().__init__()
        self.first, self.then = first, then

    def _digest(self, model):
        return self.first.digest(model)

    def _generate(self, ask):
        return (self.first if self.first.unread else self.then).generate(ask)

    def _embed(self, model, texts, purpose):
        o = self.first if self.first.unread else self.then
        v = o.embed(model, texts, purpose=purpose)
        return v, 0, 0


def _answer(ask):
    # a line of memories opens with its numbers, "[125, 131] ...": the first line's first
    ids = [int(x.split("]")[0].split(",")[0]) for x in ask.prompt.decode().split("\n[")[1:]]
    return json.dumps({"numbers": ids[:1], "answer": "Ander gave it to me"})


def _spec(tmp_path, **interview):
    sc = msc.load("day-of-three")
    spec = tmp_path / "day.json"
    spec.write_text(json.dumps({"name": "day", "scenarios": ["day-of-three"],
                                "seeds": [sc.world.seed],
                                "interview": {"battery": "configs/interview.json", **interview}}))
    return sc, spec


def test_an_interviewed_run_gives_one_interviews_row_a_villager_and_category(tmp_path):
    sc, spec = _spec(tmp_path)
    (plan,) = sweep.plans(sweep.load(spec, out=tmp_path / "out"))
    assert plan.error is None, plan.error
    # the recording a live sweep run would have made: the run's calls, then the interviews'
    rec = RecordingOracle(_Then(make("replay", sc.models, replay_from=sc.exemplars),
                                ScriptedOracle([_answer] * 1000, dim=384)))
    log = tmp_path / "day.log"
    engine.run(sc, rec, log)
    rec.save(tmp_path / "run-calls.json")
    want = isn.ask(isn.at(log, sc, None, recording=tmp_path / "run-calls.json"),
                   ib.load("interview"), rec)
    recording = exemplar.dumps(rec.document())
    row = execute({**plan.key, "files": plan.files, "ticks": plan.ticks}, mode="replay",
                  sweep_key="interview-test", recording=recording)["row"]
    assert row["status"] == "ok", row["reason"]
    t = isn.table(want, ("variant", "villager", "category"))
    assert [(r["variant"], r["villager"], r["category"], r["correct"], r["known"])
            for r in row["interviews"]] == [(*k, v.correct, v.known) for k, v in sorted(t.items())]
    table.build(tmp_path, [row])
    with duckdb.connect(str(tmp_path / table.TABLE), read_only=True) as con:
        n, asked = con.execute("SELECT count(*), sum(asked) FROM interviews").fetchone()
    assert n == len(t) and asked == len(want.asked)


def test_a_sweep_that_interviews_names_a_variant_its_battery_holds(tmp_path):
    _, spec = _spec(tmp_path, variants=["no-such"])
    (plan,) = sweep.plans(sweep.load(spec, out=tmp_path / "out"))
    assert plan.error is not None and "no-such" in plan.error


def test_a_sweep_interview_block_must_name_a_battery(tmp_path):
    spec = tmp_path / "day.json"
    spec.write_text(json.dumps({"name": "day", "scenarios": ["day-of-three"], "seeds": [1],
                                "interview": {"variants": ["full"]}}))
    with pytest.raises(ConfigError, match="battery"):
        sweep.load(spec, out=tmp_path / "out")
