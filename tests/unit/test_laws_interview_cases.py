"""What the log knows of an interview's answer, case by case: the right villagers or places,
the rows that give them, the chance of answering at random, and whether an answer says it."""

from __future__ import annotations

import pytest

from kernel.laws import LawError
from kernel.laws.interview import Query, cell_of, correct, named, truth
from kernel.laws.memory import Memory

NAMES = {1: "Halla", 2: "Ander", 3: "Mose", 4: "Wren"}


def row(i, v, tick, kind, event, text, about=()):
    return Memory(i, v, tick, kind, event, text, 3, tuple(sorted(about)))


ROWS = [
    row(0, 1, 10, "saw", "gift", "Ander handed Halla 3 parcels", (1, 2)),
    row(1, 1, 2100, "saw", "gift", "Mose handed Halla 2 parcels", (1, 3)),
    row(2, 1, 2200, "saw", "gift", "Mose handed Wren 2 parcels", (3, 4)),
    row(3, 1, 30, "did", "meal", "ate 4 mouthfuls on 2,3, 2.0 grams"),
    row(4, 1, 40, "did", "meal", "ate 4 mouthfuls on 2,3, 2.0 grams"),
    row(5, 1, 2300, "did", "meal", "ate 4 mouthfuls on 11,9, 2.0 grams"),
    row(6, 2, 50, "saw", "gift", "Halla handed Ander 1 parcels", (1, 2)),
]


def test_who_gave_you_food_on_a_day_is_the_givers_that_day_with_the_villager_the_target():
    q = Query("saw", "gift", "who", target=True, day=2)
    t = truth(ROWS, 1, 3999, q, NAMES, 2000)
    assert t.right == {"Mose"} and t.rows == {1}
    assert t.chance == pytest.approx(1 / 3)


def test_where_did_you_eat_most_is_the_cell_the_most_meals_name():
    q = Query("did", "meal", "where", most=True)
    t = truth(ROWS, 1, 3999, q, NAMES, 2000)
    assert t.right == {"2,3"} and t.rows == {3, 4}
    assert t.candidates == {"2,3", "11,9"} and t.chance == 0.5


def test_the_truth_holds_no_row_after_the_interviews_tick_and_no_other_villagers():
    q = Query("saw", "gift", "who", target=True)
    assert truth(ROWS, 1, 2000, q, NAMES, 2000).right == {"Ander"}
    assert truth(ROWS, 2, 3999, q, NAMES, 2000).right == {"Halla"}


def test_a_question_whose_rows_the_villager_never_had_is_not_known_and_scores_nothing():
    q = Query("heard", "plea", "who")
    t = truth(ROWS, 1, 3999, q, NAMES, 2000)
    assert not t.known and t.chance == 0.0
    assert not correct("Ander asked", (), t, q, NAMES.values())


def test_an_answer_is_correct_when_it_names_a_right_villager_as_a_whole_word():
    q = Query("saw", "gift", "who", target=True)
    t = truth(ROWS, 1, 3999, q, NAMES, 2000)
    assert correct("It was ander, I think.", (), t, q, ["Ander", "Mose", "Wren"])
    assert not correct("Anderson gave it", (), t, q, ["Ander", "Mose", "Wren"])
    assert not correct("Wren gave it", (), t, q, ["Ander", "Mose", "Wren"])


def test_an_answer_that_cites_a_row_giving_a_right_villager_but_names_none_is_not_correct():
    q = Query("saw", "gift", "who", target=True)
    t = truth(ROWS, 1, 3999, q, NAMES, 2000)
    assert t.rows == {0, 1}
    assert not correct("Someone gave me food", (0, 1), t, q, ["Ander", "Mose", "Wren"])
    assert correct("Mose did", (), t, q, ["Ander", "Mose", "Wren"])


def test_an_answer_that_names_a_wrong_villager_beside_a_right_one_is_not_correct():
    q = Query("saw", "gift", "who", target=True, day=2)
    t = truth(ROWS, 1, 3999, q, NAMES, 2000)
    assert t.right == {"Mose"}
    assert not correct("Mose and Wren", (1,), t, q, ["Ander", "Mose", "Wren"])
    assert not correct("Ander, Mose and Wren", (1,), t, q, ["Ander", "Mose", "Wren"])
    assert correct("Mose, then mose again", (), t, q, ["Ander", "Mose", "Wren"])


def test_names_and_cells_are_read_in_the_order_an_answer_gives_them():
    assert named("Mose, then Halla and mose", Query("saw", "gift", "who"),
                 NAMES.values()) == ["Mose", "Halla"]
    assert named("on 2,3 and 11, 9", Query("did", "meal", "where"), ()) == ["2,3", "11,9"]
    assert cell_of("went from 6,6 to 8,5") == "8,5" and cell_of("Halla came") is None


def test_a_query_of_an_unknown_kind_or_answer_is_one_line():
    with pytest.raises(LawError, match="kind"):
        Query("felt", "gift", "who")
    with pytest.raises(LawError, match="gives"):
        Query("saw", "gift", "when")
    with pytest.raises(LawError, match="day"):
        Query("saw", "gift", "who", day=0)
