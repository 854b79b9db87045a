"""Properties of the rule that a line spoken to its villager becomes its own words
(kernel.laws.person): no "you" is left outside quotation marks, what is quoted is untouched,
and a line with no "you" is the line."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from kernel import laws

WORDS = st.lists(st.sampled_from(["you", "your", "Your", "yours", "yourself", "Ander", "took",
                                  "parcels", "out", "of", "hands", "the", "well", "ate", "young",
                                  "youth", ",", "I", "my"]), max_size=10).map(" ".join)
QUOTE = st.lists(st.sampled_from(["I", "you", "your", "ate", "bread", "saw"]), max_size=5).map(" ".join)


@given(WORDS, st.lists(st.tuples(QUOTE, WORDS), max_size=2))
def test_no_you_is_left_outside_quotation_marks_and_every_quote_is_untouched(head, rest):
    line = head + "".join(f' "{q}" {w}' for q, w in rest)
    own = laws.first_person(line)
    pieces = own.split('"')
    assert not any(re.search(r"\b(you|your|yours|yourself)\b", p, re.IGNORECASE)
                   for p in pieces[::2])
    assert pieces[1::2] == line.split('"')[1::2]


@given(WORDS)
def test_a_line_with_no_you_is_the_line_and_the_rule_is_done_once(line):
    own = laws.first_person(line)
    assert laws.first_person(own) == own
    if not re.search(r"\b(you|your|yours|yourself)\b", line, re.IGNORECASE):
        assert own == line
