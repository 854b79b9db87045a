"""The world's config, its step and its run, case by case."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import kernel.world
from kernel import config as configs
from kernel import engine, world
from kernel import events as ev
from kernel import log as vlog
from kernel.errors import ConfigError, LogError

SHIPPED = configs.thaw(configs.load("world").value)


def write(tmp_path: Path, value: dict) -> Path:
    p = tmp_path / "world.json"
    p.write_text(json.dumps(value))
    return p


def test_the_shipped_world_is_halla_ander_and_mose_on_a_2000_tick_day():
    cfg = world.load()
    assert [(p.id, p.name) for p in cfg.people] == [(1, "Halla"), (2, "Ander"), (3, "Mose")]
    assert cfg.ticks_per_day == 2000 and cfg.ticks_per_second == 10
    assert cfg.sight == 3000 and cfg.reach == 1500  # millicells


def test_a_config_missing_a_field_is_refused_naming_its_path(tmp_path):
    bad = dict(SHIPPED)
    del bad["seed"]
    with pytest.raises(ConfigError, match=r"'seed' is a required property"):
        world.load(write(tmp_path, bad))


def test_a_negative_food_amount_is_refused_with_its_path(tmp_path):
    bad = json.loads(json.dumps(SHIPPED))
    bad["food"]["max_grams"] = -1
    with pytest.raises(ConfigError, match=r"\$\.food\.max_grams"):
        world.load(write(tmp_path, bad))


@pytest.mark.parametrize("change, says", [
    (lambda v: v["villagers"].append(dict(v["villagers"][0], name="Other")), "id 1, which an earlier"),
    (lambda v: v["villagers"].append(dict(v["villagers"][0], id=9)), "named 'Halla', as an earlier"),
    (lambda v: v["villagers"][0].update(x=99), "off the 12 by 10 grid"),
    (lambda v: v.update(reach_cells=4), "reach_cells 4 is beyond sight_cells 3"),
    (lambda v: v["food"].update(start_grams_max=99), "above max_grams"),
    (lambda v: v["policy"]["gift_parcels"].update(min=60), "min must not exceed max"),
])
def test_a_config_that_breaks_a_cross_field_rule_is_refused_saying_which(tmp_path, change, says):
    bad = json.loads(json.dumps(SHIPPED))
    change(bad)
    with pytest.raises(ConfigError, match=says):
        world.load(write(tmp_path, bad))


def test_step_refuses_a_tick_that_is_not_the_worlds_next():
    w = world.initial(world.load())
    with pytest.raises(world.WorldError, match=r"next tick, 0, but got tick=5"):
        world.step(w, 5)


def test_the_state_is_frozen():
    w = world.initial(world.load())
    with pytest.raises(AttributeError):
        w.tick = 3  # type: ignore[misc]


def test_the_first_tick_founds_everyone_and_shows_who_sees_whom():
    _, events = world.step(world.initial(world.load()), 0)
    assert [e.name for e in events if isinstance(e, ev.Founded)] == ["Halla", "Ander", "Mose"]
    sights = [e for e in events if isinstance(e, ev.CameIntoSight)]
    assert sights and all(0 < e.millicells <= 3000 for e in sights)
    # sight is mutual: each pair is one event for each viewer
    assert {(e.viewer, e.seen) for e in sights} == {(e.seen, e.viewer) for e in sights}


def test_the_food_layout_comes_from_the_seed():
    cfg = world.load()
    other = json.loads(json.dumps(SHIPPED))
    other["seed"] += 1
    a = world.initial(cfg).food
    b = world.initial(kernel.world.config.from_value(other, digest="x")).food
    assert a == world.initial(cfg).food and a != b


def test_a_run_writes_a_frame_for_every_tick_and_the_config_in_the_header(tmp_path):
    cfg = world.load()
    res = engine.run_world(cfg, 120, tmp_path / "r.log")
    s = vlog.verify(tmp_path / "r.log")
    assert s.ticks == 120 and s.first_tick == 0 and s.last_tick == 119
    assert s.header.config_digest == cfg.digest and s.header.seed == cfg.seed
    assert s.head_hex == res.head_hex and s.events == res.events


def test_a_run_refuses_to_write_over_a_log_that_exists(tmp_path):
    (tmp_path / "r.log").write_bytes(b"x")
    with pytest.raises(LogError, match="already exists"):
        engine.run_world(world.load(), 5, tmp_path / "r.log")


def test_a_phase_can_add_its_own_events_to_a_tick_before_it_is_appended(tmp_path):
    def late(en, ts, so_far):
        return [ev.Refusal(villager=1, purpose="questions", index=0, check="shaped",
                           reason="a test")] if ts.tick == 9 else []

    sc = engine.of_world(world.load(), ticks=10)
    engine.run(sc, None, tmp_path / "r.log", phases=(*engine.FEATURES, ("late", late)))
    last = list(vlog.read_ticks(tmp_path / "r.log"))[-1]
    assert last.tick == 9 and isinstance(last.events[-1], ev.Refusal)


def test_the_world_draws_from_numpy_and_never_from_the_random_module():
    pkg = Path(kernel.world.__file__).parent
    for path in pkg.glob("*.py"):
        tree = ast.parse(path.read_text())
        names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert "random" not in names and "time" not in names, path.name
