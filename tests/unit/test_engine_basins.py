"""Basins and plans in a run: seeded at founding, moved each night, plans carried out by the
world the next day, all folded back from the log; and none of it where the settings say none."""

from __future__ import annotations

import pytest
from felt_scenario import ATTRACTOR, BASINS, PLAN, answer, make

from kernel import engine
from kernel import events as ev
from kernel.engine import scenario as msc
from kernel.log import read_ticks
from kernel.mind.basins import BasinBook
from kernel.mind.plans import PlanBook
from kernel.report.plans import WORLD_KINDS, effect
from kernel.testing import ScriptedOracle


def run(tmp_path, name, **kw):
    sc = msc.load(make(tmp_path / name, **kw))
    oracle = ScriptedOracle([answer] * 10_000, dim=64)
    path = tmp_path / f"{name}.log"
    report = engine.run(sc, oracle, path, projections=[])
    return sc, oracle, report, path


def events(path, kinds=None):
    return [e for t in read_ticks(path) for e in t.events if kinds is None or isinstance(e, kinds)]


@pytest.fixture(scope="module")
def planned(tmp_path_factory):
    return run(tmp_path_factory.mktemp("basins"), "planned", basins=BASINS,
               attractor=ATTRACTOR, plan=PLAN)


def test_each_villager_with_basins_is_seeded_at_its_founding_and_moved_at_every_night(planned):
    sc, oracle, report, path = planned
    seeded = events(path, ev.BasinsSeeded)
    assert [(e.villager, e.labels) for e in seeded] == [
        (p.id, tuple(BASINS[p.name])) for p in sc.world.people]
    moved = events(path, ev.BasinsMoved)
    assert len(moved) == 3 * 3 and all(e.rule == "current" for e in moved)
    assert [a.purpose for a in oracle.asked].count("basins") == 9


def test_every_night_asks_a_plan_of_every_villager_who_reflects_for_the_next_day(planned):
    sc, oracle, report, path = planned
    planned = events(path, ev.Planned)
    assert {(e.villager, e.day) for e in planned} == {(p.id, d) for p in sc.world.people
                                                      for d in (1, 2, 3)}
    assert [p.counts["asked"] for p in report.plans] == [3, 3, 3]


def test_the_basins_and_plans_folded_from_the_log_are_the_runs_own(planned):
    sc, oracle, report, path = planned
    basins, plans = BasinBook(), PlanBook()
    engine.fold(path, [basins, plans])
    live = engine.Engine(sc, oracle)
    for t in read_ticks(path):
        live.books["basins"].apply(t.tick, t.events)
    assert basins.states == live.books["basins"].states and basins.readings == live.books["basins"].readings
    assert plans.of_day(1) and set(plans.of_day(1)) == {p.id for p in sc.world.people}


def test_the_world_carries_the_plans_out_and_the_ablation_is_the_world_without_them(tmp_path,
                                                                                  planned):
    sc, _, _, path = planned
    off = dict(PLAN, carry_out=False)
    sc2, _, _, path2 = run(tmp_path, "ignored", basins=BASINS, attractor=ATTRACTOR, plan=off)
    _, _, _, path3 = run(tmp_path, "unplanned", basins=BASINS, attractor=ATTRACTOR)
    world = [tuple(e for e in t.events if isinstance(e, WORLD_KINDS)) for t in read_ticks(path)]
    ignored = [tuple(e for e in t.events if isinstance(e, WORLD_KINDS)) for t in read_ticks(path2)]
    unplanned = [tuple(e for e in t.events if isinstance(e, WORLD_KINDS))
                 for t in read_ticks(path3)]
    # carry_out false: plans are asked and logged, and the world is as if there were none
    assert events(path2, ev.Planned) and ignored == unplanned
    assert world[:200] == ignored[:200] and world != ignored
    got = effect(sc, path)
    assert got.outcomes and all(o.day >= 1 for o in got.outcomes)
    # the ablation of the recorded run is, day for day, the world of the run that ignored them
    assert effect(sc2, path2).outcomes and all(
        o.kept == o.ignored for o in effect(sc2, path2).outcomes)


def test_a_world_config_with_basins_and_a_thought_file_without_an_attractor_block_seeds_none(
        tmp_path):
    _, oracle, _, path = run(tmp_path, "unseeded", basins=BASINS)
    _, _, _, plain = run(tmp_path, "plain")
    assert not events(path, (ev.BasinsSeeded, ev.BasinsMoved, ev.Planned))
    assert events(path) == events(plain)
    assert {a.purpose for a in oracle.asked} == {"questions", "statement", "night"}


def test_a_villagers_basins_are_in_its_questions_prompt_from_its_first_reflection(planned):
    _, oracle, _, _ = planned
    first = next(a for a in oracle.asked if a.purpose == "questions")
    assert b"What you care about, strongest first:\n- Food: 0.50, steady\n" in first.prompt
