"""A night's basins update and plan for tomorrow against a scripted oracle: what is asked,
what the checks refuse, and what the events fold to."""

from __future__ import annotations

import dataclasses
import json
from types import SimpleNamespace

import pytest

from kernel import events as ev
from kernel import laws
from kernel.calendar import Calendar
from kernel.laws import basins as la
from kernel.mind.basins import BasinBook, basins_round, folded, view
from kernel.mind.plans import PlanBook, plan_round
from kernel.mind.reflect import Due
from kernel.mind.settings import BasinsSettings, PlanSettings, load
from kernel.oracle.base import Said
from kernel.seam import shaped
from kernel.seam.basins import plan_schema, update_schema
from kernel.testing import ScriptedOracle
from kernel.world.step import Plan

DAY = 2000
NOW = DAY - 1


@pytest.fixture
def st():
    s = load()
    return dataclasses.replace(s, basins=BasinsSettings("current", 8, 400, 160),
                               plan=PlanSettings(3, 96, True))


def seeded_state(*labels):
    return la.seed_basins(labels)


def rows(villager=1):
    return (laws.Memory(10, villager, 100, "did", "meal", "ate 3 mouthfuls on 4,5, 1.5 grams", 3, ()),
            laws.Memory(11, villager, 200, "saw", "sighting", "Ander came into sight, 1.0 cells off",
                        2, (2,)),
            laws.Memory(12, villager, 300, "thought", "reflection", "Ander shares his food", 4,
                        (2,), (10, 11)))


def night(st, answers, state=None):
    state = state or seeded_state("Food", "Ander")
    o = ScriptedOracle([json.dumps(a) for a in answers])
    got = basins_round(NOW, [Due(1, "Halla")], {1: rows()}, {1: state}, o, st, DAY, {1: "Halla", 2: "Ander"})
    return got, o


def test_a_touched_basin_moves_by_its_delta_clamped_to_three_tenths_as_the_answer_is_read(st):
    got, _ = night(st, [{"updates": [{"basin": "Food", "delta": 0.9, "add": ["berries"],
                                      "remove": []}],
                         "new": "none", "links": [], "patterns": [], "life": "as before"}])
    moved = [e for e in got.events if isinstance(e, ev.BasinsMoved)]
    assert len(moved) == 1 and moved[0].basins == ("food",) and moved[0].deltas == (300,)
    s = folded(seeded_state("Food", "Ander"), moved[0])
    assert s.basin("food").weight == pytest.approx(0.8)
    assert s.basin("ander").weight == pytest.approx(0.5 + (0.3 - 0.5) * 0.05)


def test_an_update_naming_a_basin_the_villager_does_not_have_is_refused_and_changes_it_nothing(st):
    got, _ = night(st, [{"updates": [{"basin": "Boats", "delta": 0.2, "add": [], "remove": []}],
                         "new": "none", "links": [["Food", "Boats"]], "patterns": [],
                         "life": "as before"}])
    refusals = [e for e in got.events if isinstance(e, ev.Refusal)]
    assert [(r.purpose, r.check) for r in refusals] == [("basins", "unknown"),
                                                        ("basin-link", "unknown")]
    moved = next(e for e in got.events if isinstance(e, ev.BasinsMoved))
    assert moved.basins == () and moved.linked_from == ()


def test_a_basin_moved_twice_or_by_a_number_that_is_not_finite_is_refused_by_its_check(st):
    got, _ = night(st, [{"updates": [{"basin": "Food", "delta": 0.1, "add": [], "remove": []},
                                     {"basin": "food", "delta": 0.2, "add": [], "remove": []}],
                         "new": "none", "links": [], "patterns": [], "life": "as before"}])
    assert [e.check for e in got.events if isinstance(e, ev.Refusal)] == ["twice"]
    moved = next(e for e in got.events if isinstance(e, ev.BasinsMoved))
    assert moved.deltas == (100,)


def test_an_answer_that_is_not_the_update_shape_is_refused_whole_and_nothing_relaxes(st):
    o = ScriptedOracle(["{\"updates\": 3}"])
    got = basins_round(NOW, [Due(1, "Halla")], {1: rows()}, {1: seeded_state("Food")}, o, st, DAY, {})
    assert [type(e).__name__ for e in got.events] == ["Answered", "Refusal"]
    assert got.events[1].check == "shaped"


def test_a_new_basin_joins_at_four_tenths_and_one_that_exists_is_refused_as_existing(st):
    got, _ = night(st, [{"updates": [], "new": "Ander", "links": [],
                         "patterns": [], "life": "as before"}])
    assert [e.check for e in got.events if isinstance(e, ev.Refusal)] == ["exists"]
    got, _ = night(st, [{"updates": [], "new": "River",
                         "links": [["River", "Food"]], "patterns": ["wet"],
                         "life": "turned around"}])
    moved = next(e for e in got.events if isinstance(e, ev.BasinsMoved))
    s = folded(seeded_state("Food", "Ander"), moved)
    assert s.basin("river").weight == 0.4 and s.basin("river").conversations == 1
    assert s.basin("food").connections == ("river",) and s.phase == 1


def test_keywords_are_consolidated_after_the_second_cap_hit_and_kept_when_the_answer_fails(st):
    s = seeded_state("Food")
    for k in range(2):
        s = la.update_basins(s, la.BasinsUpdate(basins=(la.BasinUpdate(
            "food", 0.1, add_keywords=tuple(f"w{k}{i}" for i in range(11))),)))
    assert la.consolidation_due(s.basin("food"))
    quiet = {"updates": [], "new": "none", "links": [], "patterns": [], "life": "as before"}
    got, o = night(st, [quiet, {"keywords": ["meals", "bread"]}], state=s)
    assert [a.purpose for a in o.asked] == ["basins", "keywords"]
    kept = next(e for e in got.events if isinstance(e, ev.KeywordsConsolidated))
    book = BasinBook()
    book.states[1] = s
    book.apply(NOW, got.events)
    assert book.of(1).basin("food").keywords == ("meals", "bread")
    assert book.of(1).basin("food").cap_hits == 0 and book.of(1).basin("food").consolidations == 1
    assert kept.basin == "food"
    got, _ = night(st, [quiet, "not json"], state=s)
    assert not any(isinstance(e, ev.KeywordsConsolidated) for e in got.events)
    assert any(isinstance(e, ev.Refusal) and e.purpose == "keywords" for e in got.events)


def test_the_book_reads_entropy_and_trajectory_at_every_night_a_villager_moved(st):
    book = BasinBook()
    book.apply(0, [ev.BasinsSeeded(villager=1, labels=("Food", "Ander"))])
    got, _ = night(st, [{"updates": [{"basin": "Food", "delta": 0.2, "add": [], "remove": []}],
                         "new": "none", "links": [], "patterns": [], "life": "as before"}])
    book.apply(NOW, got.events)
    (r,) = book.readings[1]
    assert r.tick == NOW and r.entropy == pytest.approx(la.entropy(book.of(1)))
    assert r.trajectory == la.trajectory(book.of(1))


def test_the_basins_view_keeps_to_its_budget_naming_the_lightest_only(st):
    s = seeded_state("Food", "Ander", "The far fields")
    full = view(s, st)
    assert "Food: 0.50, steady" in full
    tight = dataclasses.replace(st, basins=BasinsSettings("current", 8, 60, 160))
    short = view(s, tight)
    assert len(short) <= 60 and "resting" in short
    assert view(None, st) == "" and view(s, dataclasses.replace(st, basins=None)) == ""


def test_the_update_request_offers_only_the_villagers_basins_the_days_words_and_the_stated_steps():
    req = json.loads(update_schema([("Food", ()), ("Ander", ("bread",))], ["berries"], ["Mose"]))
    a, b = req["properties"]["updates"]["items"]["anyOf"]
    assert a["properties"]["basin"] == {"const": "Food"}
    assert b["properties"]["remove"]["items"] == {"enum": ["bread"]}
    assert a["properties"]["add"]["items"] == {"enum": ["berries"]}
    assert a["properties"]["delta"] == {"enum": [-0.2, -0.1, 0.1, 0.2]}
    assert req["properties"]["new"] == {"enum": ["none", "Mose"]}
    assert req["properties"]["links"]["items"] == {"enum": [["Food", "Ander"]]}


# --- the plan --------------------------------------------------------------------------


def plan(st, answer, stream=None):
    o = ScriptedOracle([json.dumps(answer)])
    world = SimpleNamespace(people=[SimpleNamespace(id=i, name=n) for i, n in
                                    ((1, "Halla"), (2, "Ander"), (3, "Mose"))],
                            calendar=Calendar(DAY))
    got = plan_round(NOW, [Due(1, "Halla")], {1: stream or rows()}, {}, None, o, st, world)
    return got, o


def test_a_plan_names_only_villagers_met_and_cells_eaten_on_in_its_request(st):
    _, o = plan(st, {"plan": [{"do": "home"}]})
    req = json.loads(o.asked[0].schema)
    branches = req["properties"]["plan"]["items"]["anyOf"]
    whos = {b["properties"]["do"]["const"]: b["properties"].get("who", b["properties"].get("at"))
            for b in branches}
    assert whos["seek"] == {"enum": ["Ander"]} and whos["forage"] == {"enum": ["4,5"]}
    assert whos["home"] is None


def test_an_accepted_plan_is_an_event_for_the_next_day(st):
    got, _ = plan(st, {"plan": [{"do": "seek", "who": "Ander"}, {"do": "forage", "at": "4,5"}]})
    kept = [e for e in got.events if isinstance(e, ev.Planned)]
    assert [(e.act, e.whom, e.x, e.y, e.day) for e in kept] == [("seek", 2, None, None, 1),
                                                               ("forage", None, 4, 5, 1)]
    book = PlanBook()
    book.apply(NOW, got.events)
    assert book.of_day(1) == {1: (Plan("seek", whom=2), Plan("forage", cell=(4, 5)))}


def test_a_plan_naming_the_unknown_twice_or_against_an_earlier_one_is_refused(st):
    st = dataclasses.replace(st, plan=PlanSettings(6, 96, True))
    got, _ = plan(st, {"plan": [{"do": "seek", "who": "Mose"}, {"do": "forage", "at": "9,9"},
                                {"do": "share", "who": "Ander"}, {"do": "avoid", "who": "Ander"},
                                {"do": "share", "who": "Ander"}, {"do": "home", "who": "Ander"}]})
    checks = [(e.index, e.check) for e in got.events if isinstance(e, ev.Refusal)]
    assert checks == [(1, "unknown"), (2, "unknown"), (4, "conflict"), (5, "twice"), (6, "act")]
    assert [e.act for e in got.events if isinstance(e, ev.Planned)] == ["share"]


def test_a_plan_that_is_not_the_shape_is_refused_whole_and_plans_nothing(st):
    got, _ = plan(st, {"plan": [{"do": "dance"}]})
    assert [type(e).__name__ for e in got.events] == ["Answered", "Refusal"]
    assert got.events[1].check == "shaped"


def test_the_plan_check_reads_any_plan_of_the_closed_set():
    check = plan_schema(3)
    said = Said(text='{"plan":[{"do":"seek","who":"Zed"}]}', done_reason="stop", tokens_in=1,
                tokens_out=1, took_ns=1, load_ns=0, model="m", digest="d")
    assert shaped(said, check) == {"plan": [{"do": "seek", "who": "Zed"}]}
