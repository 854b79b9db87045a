"""A world in words: its places, the rows perception words by them, and the times of day a
prompt tells rows at, as properties over seeded villages and random maps."""

from __future__ import annotations

import importlib.util
import re
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kernel import engine
from kernel import events as ev
from kernel.laws import LawError, Memory
from kernel.laws.hours import LABELS, PARTS, Hours, part_of, when
from kernel.laws.perception import perceive, start
from kernel.laws.places import PREPOSITIONS, Place, Places, mentions, parcels
from kernel.laws.window import LIVED, collapse
from kernel.world.config import WorldConfig
from tests.strategies import worlds

RULES = engine.load_rules()
SLOW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NAMES = ("the mill field", "the well", "the east meadow", "the orchard", "the bean rows",
         "the old mill", "the pond", "Ander's croft")
CROPS = ("barley", "watercress", "berries", "apples", "beans", "wild garlic")


def _reference():
    path = Path(__file__).parents[1] / "unit" / "perception_reference.py"
    spec = importlib.util.spec_from_file_location("_perception_reference_places", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


REF = _reference()


@st.composite
def rects_on(draw, width: int, height: int) -> tuple[int, int, int, int]:
    x0, y0 = draw(st.integers(0, width - 1)), draw(st.integers(0, height - 1))
    return (x0, y0, draw(st.integers(x0, width - 1)), draw(st.integers(y0, height - 1)))


def cells_of(r: tuple[int, int, int, int]) -> set[tuple[int, int]]:
    return {(x, y) for x in range(r[0], r[2] + 1) for y in range(r[1], r[3] + 1)}


@st.composite
def maps(draw, width: int, height: int) -> Places:
    """One to five places on a `width` by `height` grid, no cell in two: each rectangle drawn
    is kept only where it takes no cell already taken."""
    names = draw(st.permutations(NAMES))[:draw(st.integers(1, 5))]
    taken: set[tuple[int, int]] = set()
    out = []
    for name in names:
        rects = []
        for r in draw(st.lists(rects_on(width, height), min_size=1, max_size=3)):
            if not cells_of(r) & taken:
                taken |= cells_of(r)
                rects.append(r)
        if rects:
            out.append(Place(name=name, grows=draw(st.sampled_from(CROPS)), rects=tuple(rects),
                             preposition=draw(st.sampled_from(PREPOSITIONS))))
    assume(out)
    return Places.of(out, (width, height))


@st.composite
def worlds_in_words(draw) -> WorldConfig:
    cfg = draw(worlds())
    return replace(cfg, places=draw(maps(cfg.width, cfg.height)))


def fold(cfg: WorldConfig, ticks: int) -> list[Memory]:
    state, rows = start(RULES), []
    for fr in engine.world_frames(cfg, ticks):
        state, got = perceive(state, fr.tick, fr.events)
        rows += got
    return rows


@given(st.integers(2, 12), st.integers(2, 12), st.data())
def test_every_cell_is_in_at_most_one_place_and_one_in_none_is_near_the_nearest(w, h, data):
    places = data.draw(maps(w, h))
    for x in range(w):
        for y in range(h):
            holders = [p for p in places if p.holds(x, y)]
            got = places.where(x, y)
            assert len(holders) <= 1
            if holders:
                assert got.inside and got.place is holders[0]
                assert got.at == f"{got.place.preposition} {got.place.name}"
            else:
                near = min(p.distance2(x, y) for p in places)
                first = next(p for p in places if p.distance2(x, y) == near)
                assert not got.inside and got.place is first and got.at == f"near {first.name}"


@given(st.integers(2, 8), st.integers(2, 8),
       st.lists(st.tuples(st.sampled_from(NAMES[:4]), st.integers(0, 7), st.integers(0, 7),
                          st.integers(0, 7), st.integers(0, 7)), min_size=1, max_size=4,
                unique_by=lambda t: t[0]))
def test_places_are_refused_exactly_when_a_cell_is_in_two_of_them(w, h, drawn):
    ps = [Place(name=n, grows="barley", rects=((min(a, c), min(b, d), max(a, c), max(b, d)),))
          for n, a, b, c, d in drawn]
    off = any(p.rects[0][2] >= w or p.rects[0][3] >= h for p in ps)
    cells = [cells_of(p.rects[0]) for p in ps]
    twice = any(cells[i] & cells[j] for i in range(len(ps)) for j in range(i + 1, len(ps)))
    if off or twice:
        with pytest.raises(LawError, match="off the|every cell is in at most one place") as e:
            Places.of(ps, (w, h))
        assert "\n" not in str(e.value)
    else:
        assert Places.of(ps, (w, h)).places == tuple(ps)


@SLOW
@given(worlds(), st.integers(50, 400))
def test_a_world_that_names_no_places_words_every_row_as_the_fold_always_did(cfg, ticks):
    frames = list(engine.world_frames(cfg, ticks))
    state, ref, rows = start(RULES), REF.start(RULES), []
    want = []
    for fr in frames:
        state, got = perceive(state, fr.tick, fr.events)
        ref, old = REF.perceive(ref, fr.tick, fr.events)
        rows += got
        want += old
    assert not any(isinstance(e, ev.Placed) for fr in frames for e in fr.events)
    assert [(m.id, m.text) for m in rows] == [(m.id, m.text) for m in want]


@SLOW
@given(worlds_in_words(), st.integers(50, 400))
def test_no_row_of_a_world_in_words_holds_a_digit_or_a_figure(cfg, ticks):
    rows = fold(cfg, ticks)
    assert rows
    for m in rows:
        assert not re.search(r"\d", m.text), m.text
        assert not re.search(r"grams|mouthful|cells off", m.text), m.text


@SLOW
@given(worlds_in_words(), st.integers(50, 300))
def test_a_world_in_words_remembers_what_it_would_in_figures_and_only_words_it_otherwise(
        cfg, ticks):
    worded, plain = fold(cfg, ticks), fold(replace(cfg, places=Places()), ticks)
    assert [(m.id, m.villager, m.tick, m.kind, m.event, m.weight, m.about) for m in worded] == \
        [(m.id, m.villager, m.tick, m.kind, m.event, m.weight, m.about) for m in plain]


@SLOW
@given(worlds_in_words(), st.integers(50, 300))
def test_a_meal_or_a_gathering_says_what_grows_where_it_was_and_names_that_place(cfg, ticks):
    for m in fold(cfg, ticks):
        if (m.kind, m.event) in (("did", "meal"), ("did", "gather")):
            said = mentions(m.text, cfg.places.names)
            assert len(said) == 1
            place = cfg.places.named(said[0])
            assert place is not None and f" {place.grows} " in m.text


@given(st.integers(1, 5000), st.data())
def test_the_time_of_day_words_never_tell_an_older_row_as_newer(day, data):
    now = data.draw(st.integers(0, 60 * day))
    a = data.draw(st.integers(0, now))
    b = data.draw(st.integers(a, now))
    assert LABELS.index(when(a, now, day)) >= LABELS.index(when(b, now, day))


@given(st.integers(1, 5000), st.integers(0, 10**7))
def test_a_row_of_the_prompts_own_moment_is_told_as_this_part_of_the_day(day, now):
    assert when(now, now, day) == f"this {part_of(now, day)}"
    assert part_of(now, day) in PARTS


@given(st.integers(1, 5000), st.integers(0, 10**6), st.integers(1, 10**6))
def test_a_row_is_never_told_before_it_happened(day, now, later):
    with pytest.raises(LawError, match="before it happened"):
        when(now + later, now, day)


@st.composite
def lived_rows(draw) -> list[Memory]:
    n = draw(st.integers(0, 30))
    ids = draw(st.lists(st.integers(1, 500), min_size=n, max_size=n, unique=True))
    out = []
    for i in ids:
        kind = draw(st.sampled_from(("did", "saw", "heard", "thought", "given")))
        text = draw(st.sampled_from(("ate barley in the mill field", "Ander came into sight",
                                     'said to Ander: "the well is dry"')))
        out.append(Memory(i, 1, draw(st.integers(0, 6000)), kind,
                          "reflection" if kind == "thought" else "meal", text,
                          4 if kind == "thought" else 1, ()))
    return out


@given(lived_rows(), st.integers(6000, 40000))
def test_a_collapsed_line_holds_rows_of_one_line_told_at_one_time_and_every_id_once(rows, now):
    hours = Hours(now, 2000)
    shown = collapse(rows, hours)
    assert sorted(i for line in shown for i in line.ids) == sorted(m.id for m in rows)
    by = {m.id: m for m in rows}
    for line in shown:
        held = [by[i] for i in line.ids]
        assert len({m.text for m in held}) == 1
        lived = {m.kind in LIVED for m in held}
        assert len(lived) == 1
        if lived == {True}:
            assert len({hours.of(m.tick) for m in held}) == 1
            assert hours.of(held[0].tick) in line.text
            quote = held[0].text.find(': "')
            assert quote < 0 or line.text.endswith(held[0].text[quote:])
        else:
            assert line.text == held[0].text


@given(st.integers(0, 5000))
def test_a_count_of_parcels_in_words_holds_no_digit_and_one_is_a_parcel(n):
    words = parcels(n)
    assert not re.search(r"\d", words) and words.endswith(("parcel", "parcels"))
    assert (words == "a parcel") == (n == 1)


@given(st.sampled_from(NAMES), st.sampled_from(("", "In ", "we met at ")),
       st.sampled_from(("", ".", " at dawn")))
def test_a_place_is_named_by_its_name_in_any_case_and_a_long_one_by_its_words_alone(
        name, before, after):
    assert mentions(f"{before}{name.upper()}{after}", NAMES) == [name]
    words = name.split()
    if len(words) >= 3:
        assert mentions(f"{before}{' '.join(words[1:])}{after}", NAMES) == [name]
    else:
        assert mentions(f"{before}{words[-1]}{after}", NAMES) == []
