"""A world in words, case by case: its config's places, checked; the rows perception words by
them; the times of day a prompt tells; a where-question's answer; a plan's places; the index."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from folded_rows import fold, lines
from hypothesis import given, settings
from hypothesis import strategies as st

from kernel import config as configs
from kernel import engine, store, world
from kernel import events as ev
from kernel.errors import ConfigError
from kernel.laws import Memory
from kernel.laws.hours import Hours
from kernel.laws.interview import Query, correct, named, truth
from kernel.laws.perception import PerceptionError, perceive
from kernel.laws.places import Place, Places
from kernel.laws.window import collapse
from kernel.mind.plans import Planning, judge, places

RULES = engine.load_rules()
REPO = Path(__file__).resolve().parents[2]
SHIPPED = configs.thaw(configs.load("world").value)
HALLA, ANDER, MOSE = 1, 2, 3
MAP = Places.of([Place("the mill field", "barley", ((0, 0, 4, 3),)),
                 Place("the well", "watercress", ((5, 4, 6, 5),), preposition="by"),
                 Place("the east meadow", "berries", ((8, 0, 11, 4),))], (12, 10))


def write(tmp_path: Path, value: dict) -> Path:
    p = tmp_path / "world.json"
    p.write_text(json.dumps(value))
    return p


def place(name="the mill field", grows="barley", cells=((0, 0, 4, 3),), **more) -> dict:
    return {"name": name, "grows": grows,
            "cells": [{"from": [a, b], "to": [c, d]} for a, b, c, d in cells], **more}


@pytest.mark.parametrize("places, says", [
    ([place(), place("the well", cells=((4, 3, 5, 4),))],
     r"places\[1\] \(the well\) overlaps places\[0\] \(the mill field\) on the cell 4,3: every "
     r"cell is in at most one place"),
    ([place(cells=((0, 0, 2, 2), (2, 2, 3, 3)))],
     r"places\[0\] \(the mill field\) cells\[1\] overlaps its cells\[0\] on the cell 2,2"),
    ([place(cells=((9, 8, 12, 9),))],
     r"places\[0\] \(the mill field\) cells\[0\] reaches the cell 12,9, which is off the 12 "
     r"by 10 grid"),
    ([place(name="")], r"places\[0\] has the empty name '': a place is named"),
    ([place(name="   ")], r"places\[0\] has the empty name '   '"),
    ([place(), place("The Mill  Field".replace("  ", " "), cells=((6, 6, 7, 7),))],
     r"places\[1\] is named 'The Mill Field', as places\[0\] is: each place has a name of its own"),
    ([place(name="field 9")], r"places\[0\] is named 'field 9': a place's name is words"),
    ([place(grows="")], r"places\[0\] \(the mill field\) grows '': what grows in a place is words"),
    ([place(cells=((4, 3, 0, 0),))],
     r"cells\[0\] runs from 4,3 to 0,0: 'from' must not pass 'to'"),
    ([place(preposition="under")], r"\$\.places\[0\]\.preposition"),
    ([place(cells=())], r"\$\.places\[0\]\.cells"),
    ([place(name="the far north meadow")], r"\$\.places\[0\]\.name"),
])
def test_a_world_whose_places_break_a_rule_is_refused_in_one_line_naming_the_rule_and_value(
        tmp_path, places, says):
    bad = json.loads(json.dumps(SHIPPED))
    bad["places"] = places
    with pytest.raises(ConfigError, match=says) as e:
        world.load(write(tmp_path, bad))
    assert "\n" not in str(e.value) and str(write(tmp_path, bad)) in str(e.value)


RECORDED = ("day-of-three", "day-of-twenty-four", "five-days-of-halla", "five-days-of-halla-cap-1",
            "village-of-eight", "week-of-three")


def test_the_shipped_world_the_bench_worlds_and_every_recorded_scenario_name_their_places():
    for w in ("configs/world.json", *(f"bench/worlds/{b}/world.json" for b in
              ("day-of-four", "day-of-seven", "days-of-three", "talk-of-four", "talk-of-six")),
              *(f"fixtures/{f}/world.json" for f in RECORDED)):
        cfg = world.load(REPO / w)
        assert len(cfg.places) >= 5 and cfg.in_words is not None, w
        assert all(cfg.places.where(p.x, p.y) for p in cfg.people)
    # SmolLM2's held-out day, and the worlds no model speaks in, as they were recorded
    for w in ("bench/worlds/day-of-six", "fixtures/village-day", "fixtures/town-of-1536"):
        assert not world.load(REPO / w / "world.json").places, w


def test_a_world_names_its_places_at_tick_0_before_anyone_is_founded_and_nowhere_else():
    cfg = world.load()
    frames = list(engine.world_frames(cfg, 3))
    first = frames[0].events
    assert [e.name for e in first if isinstance(e, ev.Placed)] == list(cfg.places.names)
    assert all(isinstance(e, ev.Placed) for e in first[:len(cfg.places)])
    assert isinstance(first[len(cfg.places)], ev.Founded)
    assert not any(isinstance(e, ev.Placed) for f in frames[1:] for e in f.events)
    assert ev.decode(ev.encode(first[1])) == first[1]


def placed(ps: Places = MAP) -> list[ev.Event]:
    return [ev.Placed(index=i, name=p.name, grows=p.grows, preposition=p.preposition,
                      cells=p.flat) for i, p in enumerate(ps)]


def test_rows_of_a_world_in_words_say_where_by_its_places_hold_no_figure_and_say_you_to_their_villager():
    founded = [ev.Founded(villager=HALLA, name="Halla", x=2, y=1),
               ev.Founded(villager=ANDER, name="Ander", x=5, y=5),
               ev.Founded(villager=MOSE, name="Mose", x=7, y=2)]
    sights = [ev.CameIntoSight(viewer=a, seen=b, millicells=800)
              for a in (1, 2, 3) for b in (1, 2, 3) if a != b]
    frames = [(0, [*placed(), *founded, *sights]),
              *((t, [ev.Ate(villager=HALLA, x=2, y=1, mouthfuls=1, milligrams=500)])
                for t in range(1, 4)),
              (5, [ev.Walked(villager=HALLA, from_x=2, from_y=1, to_x=3, to_y=2)]),
              (7, [ev.Walked(villager=HALLA, from_x=5, from_y=4, to_x=6, to_y=4),
                   ev.Walked(villager=MOSE, from_x=7, from_y=2, to_x=8, to_y=1)]),
              (8, [ev.Walked(villager=HALLA, from_x=6, from_y=4, to_x=8, to_y=3)]),
              (10, [ev.Gathered(villager=HALLA, x=9, y=2, parcels=20, milligrams=10_000),
                    ev.Begged(villager=ANDER, x=5, y=5),
                    ev.Gave(giver=HALLA, receiver=ANDER, parcels=2, milligrams=1000),
                    ev.Gave(giver=MOSE, receiver=ANDER, parcels=1, milligrams=500),
                    ev.Took(taker=ANDER, owner=MOSE, parcels=3, milligrams=1500)])]
    _, rows = fold(frames)
    assert lines(rows, HALLA) == [
        "you came to live in the mill field", "you saw Ander come near", "you saw Mose come near",
        "you ate barley in the mill field", "you walked about the mill field",
        "you walked from the well to the east meadow", "you gathered berries in the east meadow",
        "you heard Ander ask for food", "you handed Ander two parcels", "Mose handed Ander a parcel",
        "Ander took three parcels out of Mose's hands"]
    assert lines(rows, ANDER)[:1] + lines(rows, ANDER)[-4:] == [
        "you came to live by the well", "you asked for food by the well",
        "Halla handed you two parcels", "Mose handed you a parcel",
        "you took three parcels out of Mose's hands"]
    assert "you walked about the east meadow" in lines(rows, MOSE)
    assert not any(re.search(r"\d|grams|cells off", m.text) for m in rows)


def test_a_cell_in_no_place_is_near_the_nearest_and_grows_what_it_grows():
    _, rows = fold([(0, [*placed(), ev.Founded(villager=HALLA, name="Halla", x=6, y=8)]),
                    (1, [ev.Ate(villager=HALLA, x=7, y=3, mouthfuls=1, milligrams=500)]),
                    (3, [])])
    assert lines(rows, HALLA) == ["you came to live near the well",
                                  "you ate berries near the east meadow"]


def test_a_place_named_once_the_world_has_begun_is_refused_as_no_log_of_a_run():
    state, _ = fold([(0, [ev.Founded(villager=HALLA, name="Halla", x=2, y=1)])])
    with pytest.raises(PerceptionError, match=r"named at tick 1, after the world began"):
        perceive(state, 1, placed())
    with pytest.raises(PerceptionError, match=r"each place has a name of its own"):
        fold([(0, [*placed(), *placed()[:1]])])


def row(i, tick, kind="did", event="meal", text="ate barley in the mill field"):
    return Memory(i, HALLA, tick, kind, event, text, 3, ())


def test_a_prompt_tells_a_lived_rows_time_of_day_and_leaves_thoughts_and_given_rows_be():
    rows = [row(1, 100), row(2, 150), row(3, 2100), row(4, 3900), row(5, 3950),
            row(6, 3960, "thought", "reflection", "I ate well"),
            row(7, 0, "given", "backstory", "Halla came from the hills"),
            row(8, 3990, "did", "talk", 'said to Ander: "the well is dry"')]
    shown = collapse(rows, Hours(3999, 2000))
    assert [(line.ids, line.text) for line in shown] == [
        ((1, 2), "ate barley in the mill field yesterday morning"),
        ((3,), "ate barley in the mill field this morning"),
        ((4, 5), "ate barley in the mill field this evening"),
        ((6,), "I ate well"), ((7,), "Halla came from the hills"),
        ((8,), 'said to Ander this evening: "the well is dry"')]
    assert collapse(rows) == collapse(rows, None)
    assert [line.text for line in collapse(rows[:3])][:1] == ["ate barley in the mill field"]


def sight(i, tick, name, came=True):
    return row(i, tick, "saw", "sighting" if came else "parting",
               f"you saw {name} come near" if came else f"you lost sight of {name}")


def test_with_company_a_time_of_days_sightings_are_one_line_of_whom_the_villager_was_near():
    rows = [sight(1, 100, "Ander"), row(2, 150), sight(3, 160, "Mose"),
            sight(4, 170, "Ander", came=False), sight(5, 1900, "Mose", came=False),
            row(6, 1950, "saw", "gift", "Ander handed you two parcels")]
    shown = collapse(rows, Hours(1999, 2000), company=True)
    assert [(line.ids, line.text) for line in shown] == [
        ((1, 3, 4), "you were near Ander and Mose this morning"),
        ((2,), "ate barley in the mill field this morning"),
        ((5,), "you were near Mose this evening"),
        ((6,), "Ander handed you two parcels this evening")]
    # without company, or in a world in no words, every sighting is its own line as before
    assert [line.ids for line in collapse(rows, Hours(1999, 2000))] == [(i,) for i in range(1, 7)]
    assert collapse(rows, None, company=True) == collapse(rows)


def test_an_answer_citing_a_folded_sighting_reads_the_line_its_prompt_showed():
    from kernel.laws import judge_grounded, near_lines

    rows = [sight(1, 1900, "Ander"), sight(2, 1910, "Mose")]
    shown = collapse(rows, Hours(1999, 2000), company=True)
    assert near_lines(shown) == {1: "you were near Ander and Mose this evening",
                                 2: "you were near Ander and Mose this evening"}
    said = "I was glad to be near Ander and Mose this evening."
    alone = judge_grounded(said, speaker="Halla", names={"Halla", "Ander", "Mose"},
                           cited=[rows[0].text])
    assert alone is not None and "Mose is named" in alone.reason
    assert judge_grounded(said, speaker="Halla", names={"Halla", "Ander", "Mose"},
                          cited=[rows[0].text, near_lines(shown)[1]]) is None
    assert near_lines(collapse(rows, Hours(1999, 2000))) == {}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1999), st.sampled_from(["Ander", "Mose", "Tove"]),
                          st.sampled_from(["came", "went", "meal"])), max_size=30))
def test_folding_sightings_cites_every_row_once_and_names_each_villager_seen_then(drawn):
    rows = [row(i, t) if what == "meal" else sight(i, t, who, came=what == "came")
            for i, (t, who, what) in enumerate(drawn, start=1)]
    hours = Hours(1999, 2000)
    shown = collapse(rows, hours, company=True)
    assert sorted(i for line in shown for i in line.ids) == [m.id for m in rows]
    for line in shown:
        if line.text.startswith("you were near"):
            seen = [m for m in rows if m.id in line.ids]
            assert {m.kind for m in seen} == {"saw"} and len({hours.of(m.tick) for m in seen}) == 1
            assert all(re.search(rf"\b{who}\b", line.text) for who in
                       {m.text.split()[-1] if m.event == "parting" else m.text.split()[2]
                        for m in seen})


def test_a_world_in_words_gives_its_thought_settings_the_clock_of_its_prompts():
    sc = engine.load_scenario(REPO / "bench/worlds/day-of-four")
    assert sc.settings is not None and sc.settings.words == sc.world.in_words
    assert sc.settings.hours(1999) == Hours(1999, 2000)
    old = engine.load_scenario(REPO / "bench/worlds/day-of-six")     # a world in no words
    assert old.settings is not None and old.settings.words is None and old.settings.hours(5) is None


def test_a_where_question_in_a_world_in_words_is_answered_by_the_places_name():
    rows = [row(1, 10), row(2, 20), row(3, 30, text="you ate berries near the east meadow"),
            row(4, 40, text="walked from the mill field to the well", event="walk")]
    q = Query(kind="did", event="meal", gives="where", most=True, places=MAP.names)
    t = truth(rows, HALLA, 100, q, {HALLA: "Halla", ANDER: "Ander"}, 2000)
    assert t.right == {"the mill field"} and t.rows == {1, 2}
    assert t.candidates == {"the mill field", "the east meadow", "the well"}
    assert named("Mostly in the Mill Field, near the well.", q, ["Ander"]) == ["the mill field",
                                                                             "the well"]
    assert correct("In the mill field.", (), t, q, ["Ander"])
    assert not correct("By the well.", (1,), t, q, ["Ander"])
    cells = Query(kind="did", event="meal", gives="where", most=True)
    assert truth([row(1, 10, text="ate 5 mouthfuls on 3,4, 2.5 grams")], HALLA, 100, cells,
                 {HALLA: "Halla"}, 2000).right == {"3,4"}


def test_a_plan_in_a_world_in_words_forages_at_a_place_by_name_and_goes_to_its_anchor():
    stream = [row(1, 10), row(2, 20, text="you ate berries near the east meadow"), row(3, 30)]
    got = places(stream, None, MAP)
    assert got == ("the mill field", "the east meadow")
    x = Planning(villager=HALLA, name="Halla", now=1999, seed=2000, prompt=None,  # type: ignore[arg-type]
                 schema=b"", people={}, places=got, where=MAP)
    assert judge({"do": "forage", "at": "the east meadow"}, x, []) == ("forage", (9, 2))
    refused = judge({"do": "forage", "at": "the well"}, x, [])
    assert refused.check == "unknown" and "remembers eating in no place 'the well'" in refused.reason
    assert places(stream, None) == ()


def test_the_index_of_a_world_in_words_keeps_every_figure_in_the_events_table(tmp_path):
    cfg = world.load()
    log = tmp_path / "words.log"
    engine.run_world(cfg, 400, log)
    res = store.build(log, rules=RULES, rules_digest=engine.rules_digest())
    texts = store.query(res.db_path, "SELECT text FROM memory").rows
    assert texts and not any(re.search(r"\d", t) for (t,) in texts)
    ate = store.query(res.db_path, "SELECT fields->>'x', fields->>'y', fields->>'mouthfuls', "
                                   "milligrams FROM events WHERE kind = 'ate' LIMIT 1").rows
    assert ate and all(v is not None for v in ate[0])
    named_places = store.query(res.db_path, "SELECT fields->>'name' FROM events "
                                            "WHERE kind = 'placed' ORDER BY seq").rows
    assert [n for (n,) in named_places] == list(cfg.places.names)
