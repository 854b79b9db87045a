"""Properties of the window law: a repeated line is shown once, and every id it stands for stays."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kernel import laws
from kernel.laws import LawError, Memory

LINES = ("ate 50 mouthfuls on 9,3, 25.0 grams", "Ander came into sight, 0.8 cells off",
         "handed Ander 50 parcels, 25.0 grams", "")


@st.composite
def streams(draw) -> list[Memory]:
    """Rows with distinct ids, each line drawn from a few, some of them thoughts."""
    n = draw(st.integers(0, 30))
    ids = draw(st.lists(st.integers(0, 400), min_size=n, max_size=n, unique=True))
    rows = []
    for i in ids:
        thought = draw(st.booleans())
        rows.append(Memory(i, 1, 5, "thought" if thought else "saw",
                           "reflection" if thought else "sighting", draw(st.sampled_from(LINES)),
                           4 if thought else 1, ()))
    return rows


@given(streams())
def test_every_id_given_is_in_exactly_one_shown_line(rows):
    shown = laws.collapse(rows)
    ids = [i for line in shown for i in line.ids]
    assert sorted(ids) == sorted(m.id for m in rows)
    assert len(ids) == len(set(ids))


@given(streams())
def test_a_line_is_shown_once_for_thoughts_and_once_for_what_was_lived(rows):
    shown = laws.collapse(rows)
    keys = [(line.text, line.thought) for line in shown]
    assert len(keys) == len(set(keys))
    for line in shown:
        held = [m for m in rows if m.id in line.ids]
        assert all(m.text == line.text and m.is_thought == line.thought for m in held)
        assert line.count == len(line.ids) == len(held)


@given(streams())
def test_lines_keep_the_order_of_their_first_row_and_ids_the_order_given(rows):
    shown = laws.collapse(rows)
    order = [m.id for m in rows]
    firsts = [order.index(line.id) for line in shown]
    assert firsts == sorted(firsts)
    for line in shown:
        assert [order.index(i) for i in line.ids] == sorted(order.index(i) for i in line.ids)


@given(streams())
def test_collapsing_what_has_no_repeat_changes_nothing_but_the_shape(rows):
    alone = {}
    for m in rows:
        alone.setdefault((m.text, m.is_thought), m)
    single = list(alone.values())
    assert [(line.ids, line.text) for line in laws.collapse(single)] == [((m.id,), m.text)
                                                                      for m in single]


def test_the_same_row_given_twice_is_refused_naming_it():
    m = Memory(7, 1, 5, "saw", "sighting", "x", 1, ())
    with pytest.raises(LawError, match="memory 7 is given twice"):
        laws.collapse([m, m])
