"""Worked cases of the reflection laws: the cadence, the window, the seam's
refusals in its own words, and the thought row an accepted statement becomes."""

from __future__ import annotations

import pytest

from kernel import laws
from kernel.laws import LawError, Memory

HALLA, ANDER = 1, 2


def world(id_: int, tick: int, *, villager: int = HALLA, about=(HALLA,), weight: int = 1) -> Memory:
    return Memory(id_, villager, tick, "did", "meal", f"row {id_}", weight, tuple(about))


def thought(id_: int, tick: int, drawn_from, *, villager: int = HALLA) -> Memory:
    return Memory(
        id_,
        villager,
        tick,
        "thought",
        "reflection",
        f"thought {id_}",
        4,
        (HALLA,),
        tuple(sorted(drawn_from)),
    )


def test_a_villager_founded_at_901_reflects_first_at_2900_and_then_every_2000_ticks():
    assert laws.due(901, 2900, 2000)
    assert laws.due(901, 4900, 2000)
    assert not laws.due(901, 2899, 2000)
    assert not laws.due(901, 2901, 2000)
    assert not laws.due(901, 900, 2000)


def test_the_founding_tick_counts_as_the_first_tick_lived():
    assert laws.due(0, 0, 1)
    assert laws.due(5, 6, 2)
    assert not laws.due(5, 5, 2)


@pytest.mark.parametrize(
    ("args", "named"),
    [
        ((-1, 5, 2), "founded=-1"),
        ((0, -3, 2), "now=-3"),
        ((0, 5, 0), "every=0"),
        ((0, True, 2), "now=True"),
    ],
)
def test_due_refuses_bad_arguments_naming_the_argument_and_its_value(args, named):
    with pytest.raises(LawError, match=named):
        laws.due(*args)


@pytest.mark.parametrize(
    ("args", "named"),
    [((-1, 5, 2), "founded=-1"), ((0, -3, 2), "now=-3"), ((0, 5, 0), "every=0")],
)
def test_next_due_refuses_bad_arguments_naming_the_argument_and_its_value(args, named):
    with pytest.raises(LawError, match=named):
        laws.next_due(*args)


def test_next_due_skips_to_the_end_of_the_span_being_lived():
    assert laws.next_due(901, 0, 2000) == 2900
    assert laws.next_due(901, 2900, 2000) == 2900
    assert laws.next_due(901, 2901, 2000) == 4900


def test_a_row_equals_a_row_with_the_same_columns_and_never_a_bare_tuple():
    m = world(7, 40)
    assert m == world(7, 40) and hash(m) == hash(world(7, 40))
    assert m != tuple(m) and tuple(m) != m
    assert m != world(7, 41)


def test_rows_have_no_order_of_their_own_so_a_sort_must_name_its_key():
    with pytest.raises(TypeError):
        sorted([world(8, 40), world(7, 40)])
    assert [m.id for m in sorted([world(8, 40), world(7, 40)], key=lambda m: m.id)] == [7, 8]


def test_a_row_cannot_be_changed_and_a_changed_copy_is_checked_as_a_new_row_is():
    m = world(7, 40)
    with pytest.raises(AttributeError):
        m.weight = 3  # type: ignore[misc]
    assert m._replace(weight=3).weight == 3
    with pytest.raises(LawError, match="weight=11"):
        m._replace(weight=11)
    with pytest.raises(LawError, match="ascending"):
        m._replace(about=(3, 1))


def test_a_row_pickled_and_read_back_is_the_same_row():
    import pickle

    m = thought(9, 50, (1, 2))
    back = pickle.loads(pickle.dumps(m))
    assert back == m and type(back) is Memory


def test_the_window_is_sorted_by_tick_then_id_so_a_later_id_at_an_earlier_tick_comes_first():
    rows = [world(62, 2500), world(63, 2400), world(61, 2400), world(87, 2899), world(90, 2901)]
    assert [m.id for m in laws.recent(rows, 2900, 24)] == [61, 63, 62, 87]


def test_the_window_keeps_the_newest_n_and_zero_keeps_nothing():
    rows = [world(i, 10 * i) for i in range(30)]
    assert [m.id for m in laws.recent(rows, 1000, 3)] == [27, 28, 29]
    assert laws.recent(rows, 1000, 0) == ()
    assert laws.recent([], 5, 4) == ()


def test_a_world_row_stands_at_depth_0_and_a_thought_one_above_its_deepest_source():
    rows = [
        world(1, 1),
        world(2, 2),
        thought(3, 3, [1]),
        thought(4, 4, [2, 3]),
        thought(5, 5, [1, 4]),
    ]
    by_id = {m.id: m for m in rows}
    assert [laws.depth(by_id, m) for m in rows] == [0, 0, 1, 2, 3]


def test_depth_follows_a_chain_longer_than_the_recursion_limit():
    rows = [world(0, 0)] + [thought(i, i, [i - 1]) for i in range(1, 5001)]
    by_id = {m.id: m for m in rows}
    assert laws.depth(by_id, rows[-1]) == 5000


def test_depth_refuses_a_thought_drawn_from_a_row_that_is_not_there():
    with pytest.raises(LawError, match="memory 9"):
        laws.depth({}, thought(3, 3, [9]))


def test_depth_refuses_a_cycle_rather_than_looping():
    a = thought(1, 1, [2])
    b = thought(2, 2, [1])
    with pytest.raises(LawError, match="draws on itself"):
        laws.depth({1: a, 2: b}, a)


def halla_day() -> list[Memory]:
    ids = [1, 2, 8, 11, 13, 17, 25, 28, 35, 62, 73, 84, 86, 87]
    rows = [
        world(i, 901 + 20 * n, about=(HALLA, ANDER) if i in (1, 11, 25, 62, 73) else (HALLA,))
        for n, i in enumerate(ids)
    ]
    rows[-1] = world(87, 2899, about=(HALLA,))
    return rows


def test_a_citation_of_a_row_the_villager_does_not_have_is_refused_in_the_seams_words():
    v = laws.cite(halla_day(), 2900, [1, 989, 8], 2)
    assert v == laws.Verdict(False, "cites", "memory 989 is not one this villager has", 0)


def test_a_citation_of_another_villagers_row_reads_as_one_the_villager_does_not_have():
    # rows are only Halla's, so Ander's row 500 is not among them
    v = laws.cite(halla_day(), 2900, [500], 2)
    assert v.reason == "memory 500 is not one this villager has"


def test_a_citation_after_the_reflections_tick_is_refused_naming_both_ticks():
    v = laws.cite(halla_day(), 2898, [1, 87], 2)
    assert v == laws.Verdict(
        False, "cites", "memory 87 is at tick 2899, which is after tick 2898", 0
    )


def test_a_citation_given_twice_is_refused():
    v = laws.cite(halla_day(), 2900, [1, 11, 25, 62, 73, 84, 86, 87, 8, 8], 2)
    assert v == laws.Verdict(False, "cites", "memory 8 is cited twice", 0)


def test_a_statement_drawn_from_nothing_is_refused():
    assert laws.cite(halla_day(), 2900, [], 2) == laws.Verdict(
        False, "cites", "a statement drawn from nothing", 0
    )


def test_citations_are_checked_in_the_order_given_and_the_first_failure_is_the_verdict():
    rows = halla_day()
    assert laws.cite(rows, 2898, [8, 8, 87], 2).reason == "memory 8 is cited twice"
    assert (
        laws.cite(rows, 2898, [87, 8, 8], 2).reason
        == "memory 87 is at tick 2899, which is after tick 2898"
    )


def test_a_thought_deeper_than_the_cap_is_refused_by_depth_and_cap_0_means_no_cap():
    rows = halla_day() + [
        thought(89, 2900, [1, 11]),
        thought(90, 4900, [89, 2]),
        thought(91, 4900, [89, 8]),
    ]
    v = laws.cite(rows, 6900, [90, 91, 86], 2)
    assert v == laws.Verdict(False, "depth", "a thought at depth 3, and the cap is 2", 3)
    assert laws.cite(rows, 6900, [90, 91, 86], 0) == laws.Verdict(
        True, None, "accepted, at depth 3", 3
    )
    assert laws.cite(rows, 4900, [89, 2], 2) == laws.Verdict(True, None, "accepted, at depth 2", 2)


def test_cite_refuses_rows_of_two_villagers_as_a_bad_argument():
    with pytest.raises(LawError, match="one villager"):
        laws.cite([world(1, 1), world(2, 1, villager=ANDER)], 5, [1], 2)


def test_an_accepted_statement_becomes_halla_s_first_thought_weighing_6():
    rows = halla_day()
    cites = [87, 1, 11, 25, 62, 73, 84, 86]
    m = laws.reflected(
        rows, 2900, "It was a day of giving.", cites, laws.ThoughtWeight(), next_id=89
    )
    assert m == Memory(
        id=89,
        villager=HALLA,
        tick=2900,
        kind="thought",
        event="reflection",
        text="It was a day of giving.",
        weight=6,
        about=(HALLA, ANDER),
        drawn_from=(1, 11, 25, 62, 73, 84, 86, 87),
    )


def test_every_thought_after_the_first_weighs_the_base_alone():
    rows = halla_day() + [thought(89, 2900, [1])]
    m = laws.reflected(rows, 4900, "again", [89, 2], {"base": 4, "first_bonus": 2}, next_id=90)
    assert m.weight == 4


def test_a_thought_s_weight_is_clamped_to_the_table_s_range():
    rows = halla_day()
    assert (
        laws.reflected(rows, 2900, "s", [1], {"base": 9, "first_bonus": 5}, next_id=99).weight == 10
    )
    assert (
        laws.reflected(rows, 2900, "s", [1], {"base": -3, "first_bonus": 0}, next_id=99).weight == 1
    )


def test_reflected_refuses_a_statement_the_seam_refuses_and_an_id_already_taken():
    rows = halla_day()
    with pytest.raises(LawError, match="memory 8 is cited twice"):
        laws.reflected(rows, 2900, "s", [8, 8], laws.ThoughtWeight(), next_id=99)
    with pytest.raises(LawError, match="next_id=87"):
        laws.reflected(rows, 2900, "s", [8], laws.ThoughtWeight(), next_id=87)
    with pytest.raises(LawError, match="first_bonus"):
        laws.reflected(rows, 2900, "s", [8], {"base": 4}, next_id=99)
    with pytest.raises(LawError, match="villager 2"):
        laws.reflected(rows, 2900, "s", [8], laws.ThoughtWeight(), next_id=99, villager=ANDER)


def test_a_memory_refuses_columns_outside_its_domain():
    with pytest.raises(LawError, match="weight=11"):
        Memory(1, 1, 1, "did", "meal", "x", 11, ())
    with pytest.raises(LawError, match="kind='dreamt'"):
        Memory(1, 1, 1, "dreamt", "meal", "x", 1, ())
    with pytest.raises(LawError, match="about"):
        Memory(1, 1, 1, "did", "meal", "x", 1, (3, 2))
    with pytest.raises(LawError, match="drawn_from"):
        Memory(1, 1, 1, "did", "meal", "x", 1, (), (1,))
    with pytest.raises(LawError, match="tick >= 0"):
        Memory(1, 1, -1, "did", "meal", "x", 1, ())
    assert Memory(1, 1, 1, "did", "meal", "x", 1, [2, 3]).about == (2, 3)
