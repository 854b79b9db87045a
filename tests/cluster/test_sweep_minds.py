"""The measure of the minds of a sweep's runs: one column each in `runs`, the run's own measure.

The run here is day-of-three replayed from its recording as a sweep task makes a run (its own
home, its files written there), with no Ray: its columns are the measure `village minds`
prints for the scenario.
"""

from __future__ import annotations

import json

import duckdb
import pytest

from kernel import sweep
from kernel.engine import scenario as msc
from kernel.report import minds as rm
from kernel.sweep import table
from kernel.sweep.task import execute

pytestmark = pytest.mark.slow   # a real process, server, model or browser each test


def test_a_runs_minds_are_columns_of_the_sweep_table_and_the_scenarios_own_measure(tmp_path):
    sc = msc.load("day-of-three")
    spec = tmp_path / "day.json"
    spec.write_text(json.dumps({"name": "day", "scenarios": ["day-of-three"],
                                "seeds": [sc.world.seed]}))
    (plan,) = sweep.plans(sweep.load(spec, out=tmp_path / "out"))
    assert plan.error is None, plan.error
    row = execute({**plan.key, "files": plan.files, "ticks": plan.ticks}, mode="replay",
                  sweep_key="minds-test", recording=sc.exemplars.read_bytes())["row"]
    assert row["status"] == "ok", row["reason"]
    want = rm.figures(rm.minds("day-of-three"))
    assert {k: row[k] for k in rm.MINDS} == want
    assert (want["answers"], want["answers_degenerate"], want["statements_kept"]) == (12, 0, 5)

    table.build(tmp_path, [row, {**plan.key, "run": "failed", "status": "failed", "reason": "x"}])
    with duckdb.connect(str(tmp_path / table.TABLE), read_only=True) as con:
        got = con.execute(f"SELECT {', '.join(rm.MINDS)} FROM runs ORDER BY run = 'failed'")
        ok, failed = got.fetchall()
    assert dict(zip(rm.MINDS, ok, strict=True)) == want
    assert set(failed) == {None}
