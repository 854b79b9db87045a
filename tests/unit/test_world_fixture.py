"""The committed day: its scenario is valid and a fresh run of its world gives its head hash."""

from __future__ import annotations

import json

import pytest

from kernel import config as configs
from kernel import engine, world
from kernel.errors import ConfigError
from kernel.laws.reflection import due

DAY = configs.home() / "fixtures" / "village-day"


def test_the_scenario_file_matches_its_schema():
    s = configs.load(DAY / "scenario.json")
    assert s["name"] == "village-day" and s["ticks"] == 2000


def test_a_scenario_with_a_field_the_schema_lacks_is_refused(tmp_path):
    value = json.loads((DAY / "scenario.json").read_text())
    value["mood"] = "sunny"
    p = tmp_path / "scenario.json"
    p.write_text(json.dumps(value))
    with pytest.raises(ConfigError, match="Additional properties are not allowed"):
        configs.load(p)


def test_a_scenario_may_carry_what_a_reflection_driver_adds(tmp_path):
    value = json.loads((DAY / "scenario.json").read_text())
    value.update(thought="configs/thought.json", models="configs/models.json",
                 exemplars="exemplars/day.json", oracle="replay", recorded_with={"x": 1}, days=1)
    p = tmp_path / "scenario.json"
    p.write_text(json.dumps(value))
    configs.load(p)


def test_everyone_in_the_day_is_due_to_reflect_at_its_last_tick():
    cfg = world.load(DAY / "world.json")
    last = configs.load(DAY / "scenario.json")["ticks"] - 1
    assert [p.name for p in cfg.people] == ["Halla", "Ander", "Mose"]
    assert all(due(p.founded, last, 2000) for p in cfg.people)


def test_a_fresh_run_of_the_day_gives_the_committed_head_hash(tmp_path):
    scenario = configs.load(DAY / "scenario.json")
    cfg = world.load(DAY / "world.json")
    res = engine.run_world(cfg, scenario["ticks"], tmp_path / "day.log")
    assert res.head_hex == scenario["head_sha256"], (
        f"the day's log has head {res.head_hex}, and fixtures/village-day/scenario.json "
        f"commits {scenario['head_sha256']}")
