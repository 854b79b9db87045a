"""Properties of the statement laws over generated text: the comparison form, restatements, words."""

from __future__ import annotations

import unicodedata

from hypothesis import assume, given
from hypothesis import strategies as st

from kernel import laws

texts = st.text(max_size=40)
# spacing, punctuation and case that a model may change when it copies a line
noise = st.lists(st.sampled_from([" ", "  ", "\t", ".", ",", "!", "?", "—", "'", "\u3000", "\u00a0"]),
                 max_size=3).map("".join)
shown_maps = st.dictionaries(st.integers(0, 500), texts, max_size=8)


@given(texts)
def test_plain_is_a_fixed_point(text):
    once = laws.plain(text)
    assert laws.plain(once) == once


@given(texts)
def test_plain_holds_no_punctuation_no_upper_case_and_single_spaces(text):
    p = laws.plain(text)
    assert not any(unicodedata.category(ch).startswith("P") for ch in p)
    assert p == " ".join(p.split())
    assert p == unicodedata.normalize("NFKC", p)
    assert laws.plain(p.casefold()) == p


ascii_words = st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
                               min_size=1, max_size=8), min_size=1, max_size=6)


@given(ascii_words, st.lists(noise, min_size=7, max_size=7), st.booleans())
def test_a_line_copied_with_other_case_spaces_or_punctuation_is_still_a_restatement(ws, gaps, upper):
    line = " ".join(ws)
    # the copy keeps the words and their order; between and around them, any spacing and punctuation
    copy = gaps[0] + "".join(w + " " + g for w, g in zip(ws, gaps[1:], strict=False))
    copy = copy.upper() if upper else copy.lower()
    assert laws.restates(copy, {5: line}) == 5
    assert laws.restates(line, {5: line}) == 5


@given(texts, shown_maps)
def test_restates_names_a_shown_memory_with_the_same_plain_text_or_none(statement, shown):
    n = laws.restates(statement, shown)
    same = sorted(i for i, t in shown.items() if laws.plain(t) == laws.plain(statement))
    assert n == (same[0] if same else None)


@given(texts, shown_maps, st.randoms(use_true_random=False))
def test_the_order_memories_were_shown_in_does_not_change_the_verdict(statement, shown, rnd):
    items = list(shown.items())
    rnd.shuffle(items)
    assert laws.restates(statement, dict(items)) == laws.restates(statement, shown)


@given(texts, shown_maps, st.integers(501, 900), texts)
def test_showing_one_more_memory_never_unrestates_a_statement(statement, shown, extra_id, extra_text):
    before = laws.restates(statement, shown)
    after = laws.restates(statement, {**shown, extra_id: extra_text})
    assert before is None or after == before


@given(texts)
def test_a_statement_is_wordless_exactly_when_it_has_fewer_than_two_counted_words(text):
    ws = laws.words(text)
    assert all(sum(unicodedata.category(c).startswith("L") for c in w) >= 2 for w in ws)
    assert all(w in unicodedata.normalize("NFKC", text).split() for w in ws)
    assert laws.wordless(text) == (len(ws) < 2)


@given(st.text(alphabet=st.characters(categories=["Nd", "P", "Zs", "S"]), max_size=30))
def test_digits_punctuation_and_symbols_alone_are_never_a_statement(text):
    # a compatibility symbol may stand for letters ("㍱" is "hPa"): those are words
    assume(not any(unicodedata.category(c).startswith("L") for c in unicodedata.normalize("NFKC", text)))
    assert laws.wordless(text)


@given(texts, shown_maps)
def test_a_refusal_is_wordless_first_then_a_restatement_of_the_memory_named(statement, shown):
    v = laws.judge_statement(statement, shown)
    if laws.wordless(statement):
        assert v is not None and v.check == "wordless" and v.reason == "not a statement"
    elif (n := laws.restates(statement, shown)) is not None:
        assert v is not None and v.check == "restates" and v.memory == n
        assert v.reason == f"a restatement of memory {n}, not a thought"
    else:
        assert v is None


@given(st.lists(texts, max_size=8))
def test_repeated_names_the_first_pair_with_one_plain_text(qs):
    found = laws.repeated(qs)
    pairs = [(i, j) for j in range(len(qs)) for i in range(j) if laws.plain(qs[i]) == laws.plain(qs[j])]
    expected = min(pairs, key=lambda p: (p[1], p[0])) if pairs else None
    assert found == expected


@given(st.lists(texts, min_size=1, max_size=6), st.data())
def test_a_list_with_a_question_copied_into_it_always_repeats(qs, data):
    i = data.draw(st.integers(0, len(qs) - 1))
    at = data.draw(st.integers(i + 1, len(qs)))
    assert laws.repeated([*qs[:at], qs[i].upper() if qs[i].isascii() else qs[i], *qs[at:]]) is not None
