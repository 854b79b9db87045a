"""The felt figures of a sweep's runs: counted off the run's events, one column each in `runs`.

The run here is week-of-three replayed from its recording as a sweep task
makes a run (its own home, its files written there), with no Ray: the
figures are the recorded week's, which the README states.
"""

from __future__ import annotations

import json

import duckdb
import pytest

from kernel import sweep
from kernel.engine import scenario as msc
from kernel.report import figures
from kernel.sweep import table
from kernel.sweep.task import execute

pytestmark = pytest.mark.slow   # a real process, server, model or browser each test

WEEK = {"night_plans": 21, "plans_refused": 0, "groups_accepted": 32, "groups_refused": 21,
        "rows_absorbed": 70, "rows_forgotten": 235, "rows_refelt": 44, "recurrences": 12}


def _week_row(tmp_path) -> dict:
    sc = msc.load("week-of-three")
    spec = tmp_path / "week.json"
    spec.write_text(json.dumps({"name": "week", "scenarios": ["week-of-three"],
                                "seeds": [sc.world.seed]}))
    (plan,) = sweep.plans(sweep.load(spec, out=tmp_path / "out"))
    assert plan.error is None, plan.error
    got = execute({**plan.key, "files": plan.files, "ticks": plan.ticks}, mode="replay",
                  sweep_key="felt-test", recording=sc.exemplars.read_bytes())
    return got["row"]


def test_a_runs_felt_figures_are_its_nights_and_rounds_events_counted(tmp_path):
    row = _week_row(tmp_path)
    assert row["status"] == "ok", row["reason"]
    assert row["head"] == msc.load("week-of-three").head_sha256
    assert {k: row[k] for k in figures.FELT} == WEEK

    table.build(tmp_path, [row])
    with duckdb.connect(str(tmp_path / table.TABLE), read_only=True) as con:
        got = con.execute(f"SELECT {', '.join(figures.FELT)} FROM runs").fetchone()
    assert dict(zip(figures.FELT, got, strict=True)) == WEEK


def test_a_run_without_felt_memory_has_felt_figures_of_zero_and_a_failed_run_none(tmp_path):
    # a world run: nobody reflects, so nobody has a night and no row is re-felt
    sc = msc.load("village-day")
    spec = tmp_path / "day.json"
    spec.write_text(json.dumps({"name": "day", "scenarios": ["village-day"],
                                "seeds": [sc.world.seed], "ticks": 2000}))
    (plan,) = sweep.plans(sweep.load(spec, out=tmp_path / "out"))
    ok = execute({**plan.key, "files": plan.files, "ticks": plan.ticks}, mode="replay",
                 sweep_key="felt-test")["row"]
    assert ok["status"] == "ok" and {ok[k] for k in figures.FELT} == {0}
    failed = {**plan.key, "run": "failed-run", "status": "failed", "reason": "a reason"}
    table.build(tmp_path, [ok, failed])
    with duckdb.connect(str(tmp_path / table.TABLE), read_only=True) as con:
        got = con.execute("SELECT run, rows_forgotten, night_plans FROM runs ORDER BY run").fetchall()
    assert sorted(got, key=lambda r: r[0] != ok["run"]) == [(ok["run"], 0, 0), ("failed-run", None, None)]


def test_a_sweep_table_written_before_the_felt_columns_keeps_its_runs_when_replays_are_added(
        tmp_path):
    old = tmp_path / table.TABLE
    with duckdb.connect(str(old)) as con:
        ddl = table.RUNS_DDL.split("host VARCHAR,")[0] + "host VARCHAR)"
        con.execute(ddl)
        con.execute(table.REFUSALS_DDL)
        con.execute("INSERT INTO runs (run, scenario, seed, override, overrides_digest, status, "
                    "reason) VALUES ('r1', 's', 1, 'as-is', 'd', 'ok', '')")
    table.build_replays(tmp_path, [{"run": "r1", "status": "ok", "head": "h"}])
    with duckdb.connect(str(old), read_only=True) as con:
        assert con.execute("SELECT run, rows_refelt FROM runs").fetchall() == [("r1", None)]
        assert con.execute("SELECT run, head FROM replays").fetchall() == [("r1", "h")]
