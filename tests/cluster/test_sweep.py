"""Sweeps as Ray tasks: every run written whole, one row a run, replayed to its head, and a killed worker's run made again."""

from __future__ import annotations

import json
import os
import shutil
import signal
import threading
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from kernel import config, sweep
from kernel.cli import main
from kernel.engine import scenario as msc
from kernel.sweep.runner import key_of
from kernel.sweep.task import scratch_root

pytestmark = [pytest.mark.cluster, pytest.mark.slow]


def _short_scenario(tmp: Path) -> Path:
    """day-of-three's world for 300 ticks, with Halla the one who reflects (each run stays short)."""
    src = msc.find("day-of-three")
    d = tmp / "halla-300"
    d.mkdir()
    shutil.copy(src / "world.json", d / "world.json")
    v = json.loads((src / "scenario.json").read_text())
    for k in ("exemplars", "recorded_with"):
        v.pop(k, None)
    v.update(name="halla-300", ticks=300, reflecting=["Halla"], models="models-smollm2.json",
             description="day-of-three's first 300 ticks, Halla reflecting")
    (d / "scenario.json").write_text(json.dumps(v))
    return d


def _spec(tmp: Path, name: str) -> Path:
    _short_scenario(tmp) if not (tmp / "halla-300").exists() else None
    every = {"every": 100, "questions": 1, "limit": 48}
    spec = {"name": name, "scenarios": ["halla-300"], "seeds": [1, 2],
            "overrides": [{"name": "cap-1", "thought": {"reflection": {**every, "depth": 1}}},
                          {"name": "cap-2", "thought": {"reflection": {**every, "depth": 2}}}]}
    p = tmp / f"{name}.json"
    p.write_text(json.dumps(spec))
    return p


@pytest.fixture(scope="module")
def made(ray_local, tmp_path_factory):
    """The short sweep, made once with the embedded model: 2 seeds x 2 caps."""
    tmp = tmp_path_factory.mktemp("sweep")
    s = sweep.load(_spec(tmp, "caps"), out=tmp / "out")
    return tmp, s, sweep.run(s, backend="llamacpp", threads=1, show=False)


def _heads(rows):
    return {r["run"]: r["head"] for r in rows}


@pytest.mark.embedded
@pytest.mark.slow
def test_a_sweep_writes_one_log_and_one_row_a_run_and_its_replay_reaches_every_head(made):
    tmp, s, o = made
    assert [r["status"] for r in o.rows] == ["ok"] * 4, [r.get("reason") for r in o.rows]
    runs = sorted(p.name for p in (s.out / "runs").iterdir())
    assert runs == sorted(_heads(o.rows)), "no hidden part folder is left beside the runs"
    for r in o.rows:
        d = s.out / "runs" / r["run"]
        assert (d / "run.log").is_file() and (d / "recording.json").is_file()
        assert r["calls"] > 0, "every run made real model calls"
    with duckdb.connect(str(s.out / sweep.TABLE), read_only=True) as con:
        got = con.execute("SELECT run, scenario, seed, head, ticks, calls FROM runs ORDER BY run"
                          ).fetchall()
    assert [(g[0], g[3]) for g in got] == sorted(_heads(o.rows).items())
    assert {g[2] for g in got} == {1, 2} and {g[4] for g in got} == {300}
    assert len(set(_heads(o.rows).values())) == 4

    again = sweep.replay(s, show=False)
    assert [r["status"] for r in again.rows] == ["ok"] * 4
    assert _heads(again.rows) == _heads(o.rows)
    with duckdb.connect(str(s.out / sweep.TABLE), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM replays WHERE head = recorded_head").fetchone() == (4,)
        assert con.execute("SELECT count(*) FROM runs").fetchone() == (4,)


@pytest.mark.embedded
@pytest.mark.slow
def test_a_worker_killed_mid_run_is_run_again_from_the_start_to_the_same_head(made):
    tmp, first, o = made
    s = sweep.load(tmp / "caps.json", out=tmp / "killed")
    victim = sorted(_heads(o.rows))[0]
    # mid-run: a third of the way through what the same run took in the first sweep
    after = max(0.5, min(4.0, next(r for r in o.rows if r["run"] == victim)["wall_seconds"] / 3))
    starts: list[tuple[str, int]] = []

    def on_start(run: str, host: str, pid: int) -> None:
        starts.append((run, pid))
        if run == victim and sum(1 for r, _ in starts if r == victim) == 1:
            threading.Timer(after, os.kill, (pid, signal.SIGKILL)).start()

    k = sweep.run(s, backend="llamacpp", threads=1, show=False, on_start=on_start)
    assert [r["status"] for r in k.rows] == ["ok"] * 4, [r.get("reason") for r in k.rows]
    assert _heads(k.rows) == _heads(o.rows)
    assert sum(1 for r, _ in starts if r == victim) >= 2, "the killed run was made again"
    assert sorted(p.name for p in (s.out / "runs").iterdir()) == sorted(_heads(o.rows))
    assert not scratch_root(key_of(s)).exists(), "no part of a log is left"


def test_a_run_that_fails_for_its_own_reason_is_a_row_and_the_sweep_goes_on(ray_local, tmp_path):
    spec = {"name": "world", "scenarios": ["village-day"], "seeds": [3, 4], "ticks": 40,
            "overrides": [{"name": "as-is"},
                          {"name": "no-grid", "world": {"grid": {"width": 0}}}]}
    p = tmp_path / "world.json"
    p.write_text(json.dumps(spec))
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["sweep", str(p), "--out", str(out)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    rows = {x["run"]: x for x in sweep.load_rows(out)}
    assert {k: v["status"] for k, v in rows.items()} == {
        "village-day.s3.as-is": "ok", "village-day.s3.no-grid": "failed",
        "village-day.s4.as-is": "ok", "village-day.s4.no-grid": "failed"}
    assert "grid" in rows["village-day.s3.no-grid"]["reason"]
    assert "\n" not in rows["village-day.s3.no-grid"]["reason"]
    assert not (out / "runs" / "village-day.s3.no-grid" / "run.log").exists()
    assert rows["village-day.s3.as-is"]["head"] != rows["village-day.s4.as-is"]["head"]
    with duckdb.connect(str(out / sweep.TABLE), read_only=True) as con:
        assert con.execute("SELECT count(*), count(head) FROM runs").fetchone() == (4, 2)

    r = CliRunner().invoke(main, ["sweep", str(p), "--out", str(out), "--oracle", "replay"])
    assert r.exit_code == 0, r.output
    # a head changed after the fact is a difference the replay names
    row = out / "runs" / "village-day.s4.as-is" / "row.json"
    v = json.loads(row.read_text())
    v["head"] = "0" * 64
    row.write_text(json.dumps(v))
    r = CliRunner().invoke(main, ["sweep", str(p), "--out", str(out), "--oracle", "replay"])
    assert r.exit_code == 1 and "village-day.s4.as-is" in r.output


def test_a_sweep_spec_is_checked_against_its_schema(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text(json.dumps({"name": "x", "scenarios": [], "seeds": [1]}))
    r = CliRunner().invoke(main, ["sweep", str(p)])
    assert r.exit_code == 1 and r.output.startswith("Error: ") and "scenarios" in r.output


def test_the_shipped_sweep_specs_resolve_into_their_runs():
    for p in sorted((config.shipped() / "configs").glob("sweep-*.json")):
        s = sweep.load(p, out="/nonexistent")
        plans = sweep.plans(s)
        assert len(plans) == len(s.scenarios) * len(s.seeds) * len(s.overrides)
        assert all(pl.error is None for pl in plans), [pl.error for pl in plans]
