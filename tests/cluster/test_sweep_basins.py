"""A sweep over the basins' two update rules gathers each run's basin nights into sweep.duckdb.

The runs here are made as a sweep task makes them (each in a home of its own, its files
written there, no Ray), replayed from a recording made first of the same files against the
scripted oracle of tests/basins_scenario.py: no model is called.
"""

from __future__ import annotations

import json

import duckdb
import pytest

from kernel import config, engine, sweep
from kernel.engine import scenario as msc
from kernel.mind.basins import BasinBook
from kernel.oracle.record import RecordingOracle
from kernel.sweep import table
from kernel.sweep.spec import SCENARIO_DIR
from kernel.sweep.task import execute
from kernel.testing import ScriptedOracle
from tests.basins_scenario import answer, make

pytestmark = pytest.mark.slow   # a real process, server, model or browser each test

RULES = ("current", "single")


def _spec(tmp_path):
    make(tmp_path / "three-basins", days=3)
    spec = tmp_path / "rules.json"
    spec.write_text(json.dumps({
        "name": "rules", "scenarios": ["three-basins"], "seeds": [7],
        "overrides": [{"name": r, "thought": {"attractor": {"rule": r}}} for r in RULES]}))
    return sweep.load(spec, out=tmp_path / "out")


def _recorded(plan, where) -> tuple[bytes, BasinBook]:
    """The plan's run recorded against the script, in a home of its own; and its book of basins."""
    home = where / plan.id
    for rel, data in plan.files:
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_bytes(data)
    config.set_home(home)
    try:
        sc = msc.load(home / SCENARIO_DIR)
        oracle = RecordingOracle(ScriptedOracle([answer] * 10_000, dim=64), where / f"{plan.id}.json")
        book = BasinBook()
        engine.run(sc, oracle, where / f"{plan.id}.log", projections=[book])
        oracle.save()
    finally:
        config.set_home(None)
    return (where / f"{plan.id}.json").read_bytes(), book


def test_a_sweep_over_the_two_update_rules_gathers_both_runs_basin_nights(tmp_path):
    plans = sweep.plans(_spec(tmp_path))
    assert [p.override for p in plans] == list(RULES) and all(p.error is None for p in plans)
    rows, books = [], {}
    for p in plans:
        thought = json.loads(dict(p.files)[f"{SCENARIO_DIR}/thought.json"])
        assert thought["attractor"]["rule"] == p.override
        recording, books[p.id] = _recorded(p, tmp_path / "made")
        got = execute({**p.key, "files": p.files, "ticks": p.ticks}, mode="replay",
                      sweep_key="basins-test", recording=recording)
        assert got["row"]["status"] == "ok", got["row"]["reason"]
        rows.append(got["row"])
    table.build(tmp_path, rows)
    with duckdb.connect(str(tmp_path / table.TABLE), read_only=True) as con:
        nights = con.execute("SELECT run, villager, tick, entropy, trajectory FROM basin_nights "
                             "ORDER BY run, villager, tick").fetchall()
        rules = con.execute("SELECT DISTINCT run FROM basin_nights ORDER BY run").fetchall()
    assert [r for (r,) in rules] == sorted(p.id for p in plans)
    for p in plans:
        want = sorted((p.id, v, r.tick, r.entropy, r.trajectory)
                      for v, rs in books[p.id].readings.items() for r in rs)
        assert want and [n for n in nights if n[0] == p.id] == want
    # the two rules move the same answers' basins to different weights
    by = {p.override: [n[1:] for n in nights if n[0] == p.id] for p in plans}
    assert [n[:2] for n in by["current"]] == [n[:2] for n in by["single"]]
    assert [n[2] for n in by["current"]] != [n[2] for n in by["single"]]


def test_a_sweep_table_replayed_keeps_its_basin_nights(tmp_path):
    night = {"villager": 1, "name": "Halla", "tick": 199, "day": 0, "entropy": 0.9,
             "trajectory": "stable", "basins": 2, "phase": 0}
    table.build(tmp_path, [{"run": "r1", "scenario": "s", "seed": 1, "override": "as-is",
                            "overrides_digest": "d", "status": "ok", "basin_nights": [night]}])
    table.build_replays(tmp_path, [{"run": "r1", "status": "ok", "head": "h"}])
    with duckdb.connect(str(tmp_path / table.TABLE), read_only=True) as con:
        assert con.execute("SELECT run, name, tick, entropy FROM basin_nights").fetchall() == [
            ("r1", "Halla", 199, 0.9)]
