"""Cases of the statement laws: a statement must say something, and not say a shown memory back."""

from __future__ import annotations

import pytest

from kernel import laws
from kernel.laws import LawError, Memory, StatementRefusal


def row(i: int, text: str, villager: int = 1) -> Memory:
    return Memory(id=i, villager=villager, tick=i, kind="saw", event="meal", text=text,
                  weight=3, about=())


SHOWN = [row(4, "Ander handed Halla 26 parcels, 13.0 grams"),
         row(9, "ate 50 mouthfuls on 9,3, 25.0 grams"),
         row(12, "Mose came into sight, 0.8 cells off")]


def test_a_verbatim_memory_line_is_a_restatement_of_that_memory():
    assert laws.restates("Ander handed Halla 26 parcels, 13.0 grams", SHOWN) == 4


def test_case_punctuation_and_spacing_do_not_hide_a_restatement():
    assert laws.restates("  ANDER handed halla 26 parcels 13.0 grams. ", SHOWN) == 4
    assert laws.restates("Mose came into sight — 0.8 cells off!", SHOWN) == 12
    assert laws.restates("ate 50 mouthfuls on 9 , 3 , 25.0 grams", SHOWN) is None  # spaces are words' borders


def test_compatibility_forms_are_the_letters_they_stand_for():
    # full-width letters and digits, and a ligature, fold to the plain ones
    assert laws.restates("Ａnder handed Halla ２６ parcels, 13.0 grams", SHOWN) == 4
    assert laws.plain("ﬁne day") == laws.plain("fine day")
    assert laws.plain("Straße") == laws.plain("STRASSE")


def test_a_statement_that_adds_to_a_memory_is_not_a_restatement():
    assert laws.restates("Ander handed Halla 26 parcels, 13.0 grams, and she was glad", SHOWN) is None


def test_every_memory_shown_counts_not_only_the_cited_ones():
    shown = {4: "Ander handed Halla 26 parcels, 13.0 grams", 30: "Halla rested by the well"}
    assert laws.restates("halla rested by the well", shown) == 30


def test_when_two_shown_memories_have_the_text_the_lowest_id_is_named():
    shown = {20: "ate 5 mouthfuls", 7: "Ate 5 mouthfuls.", 11: "something else"}
    assert laws.restates("ate 5 mouthfuls", shown) == 7


def test_nothing_shown_means_nothing_restated():
    assert laws.restates("Ander handed Halla 26 parcels", []) is None
    assert laws.restates("Ander handed Halla 26 parcels", {}) is None


def test_a_restatement_is_refused_as_a_restatement_of_memory_n_not_a_thought():
    v = laws.judge_statement("Ander handed Halla 26 parcels, 13.0 grams", SHOWN)
    assert v == StatementRefusal("restates", "a restatement of memory 4, not a thought", 4)


def test_a_bare_number_is_not_a_statement():
    assert laws.wordless("127")
    assert laws.judge_statement("127", SHOWN) == StatementRefusal("wordless", "not a statement")


@pytest.mark.parametrize("text", ["", "   ", "Halla", "a b c d", "I, a, o!", "9,3 13.0", "ok", "ok 1 2 3",
                                  "Halla 127", "1268 } 1268", "a1 b2"])
def test_a_statement_needs_two_words_of_two_letters(text):
    assert laws.wordless(text)


@pytest.mark.parametrize("text", ["ok so", "Halla ate", "I am tired", "Ander's parcels", "é è ça va",
                                  "Мосе ел", "naïve café"])
def test_two_words_of_two_letters_make_a_statement(text):
    assert not laws.wordless(text)


def test_a_word_is_what_spaces_separate_and_counts_by_its_letters():
    assert laws.words("Ander's 26 parcels, 13.0 grams") == ("Ander's", "parcels,", "grams")
    assert laws.words("x1 ab3cd } 9,3") == ("ab3cd",)
    assert not laws.wordless("I'm hungry")


def test_a_combining_mark_is_part_of_its_letter():
    # "cafe" written with a combining acute accent is the word "café"
    assert laws.words("cafe\u0301 time") == ("café", "time")


def test_a_wordless_statement_is_refused_before_it_is_compared():
    assert laws.judge_statement("13.0", {1: "13.0"}) == StatementRefusal("wordless", "not a statement")


def test_a_thought_that_says_something_new_stands():
    assert laws.judge_statement("Ander looks after Halla when food runs low", SHOWN) is None


@pytest.mark.parametrize("bad", [None, 12, b"bytes"])
def test_a_statement_must_be_text(bad):
    with pytest.raises(LawError, match="Expected text but got statement="):
        laws.restates(bad, SHOWN)
    with pytest.raises(LawError, match="Expected text but got statement="):
        laws.wordless(bad)


def test_the_shown_memories_must_be_rows_or_an_id_to_text_map():
    with pytest.raises(LawError, match="Expected the shown memories"):
        laws.restates("ate well", "ate well")
    with pytest.raises(LawError, match="Expected the shown memories as rows of Memory"):
        laws.restates("ate well", ["ate well"])
    with pytest.raises(LawError, match=r"Expected a shown memory id >= 0 but got"):
        laws.restates("ate well", {-1: "ate well"})
    with pytest.raises(LawError, match="Expected text but got the text of memory 3="):
        laws.restates("ate well", {3: None})


def test_the_reason_names_the_memory():
    assert laws.restatement(87) == "a restatement of memory 87, not a thought"
    with pytest.raises(LawError):
        laws.restatement(-1)


def test_a_question_asked_again_with_other_case_or_punctuation_is_a_repeat():
    qs = ["What did Halla eat?", "Who came by the well?", "what did halla eat"]
    assert laws.repeated(qs) == (0, 2)
    assert laws.repetition(0, 2) == "question 3 repeats question 1"


def test_distinct_questions_are_no_repeat():
    assert laws.repeated(["What did Halla eat?", "What did Ander eat?"]) is None
    assert laws.repeated([]) is None


def test_the_first_repeat_is_the_earliest_second_occurrence():
    assert laws.repeated(["b", "a", "a", "b"]) == (1, 2)


def test_the_questions_must_be_texts():
    with pytest.raises(LawError, match="Expected a list of texts"):
        laws.repeated("abc")
    with pytest.raises(LawError, match=r"Expected text but got texts\[1\]="):
        laws.repeated(["a", 3])
    with pytest.raises(LawError, match="Expected again >= 3"):
        laws.repetition(2, 1)
