"""What the embedded backend may fill: the rule for cutting forced text back, and the compact layout.

The look ahead itself needs a model and is tried in tests/embedded/test_fill.py;
these are the laws it stands on, tried on any bytes.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kernel.oracle.fill import OPTIONAL_SPACE, compact, trimmed


def _word_or_space(b: int) -> bool:
    return b >= 0x80 or chr(b).isalnum() or chr(b).isspace()


@given(st.binary(max_size=80))
def test_filled_text_is_a_prefix_of_what_was_forced_and_ends_on_ascii_punctuation(forced):
    cut = trimmed(forced)
    assert forced.startswith(cut)
    assert cut == b"" or not _word_or_space(cut[-1])


@given(st.binary(max_size=80))
def test_only_a_words_letters_spaces_and_bytes_past_ascii_are_cut_and_cutting_twice_cuts_nothing(forced):
    cut = trimmed(forced)
    assert all(_word_or_space(b) for b in forced[len(cut):])
    assert trimmed(cut) == cut


@pytest.mark.parametrize(("forced", "filled"), [
    (b'{"questions":["Wh', b'{"questions":["'),
    (b'"Who', b'"'),
    (b" ", b""),
    (b'"anchor":', b'"anchor":'),
    (b'","answer":"', b'","answer":"'),
    ('"Åse'.encode(), b'"'),
])
def test_forced_text_is_never_filled_into_a_word_or_a_space(forced, filled):
    assert trimmed(forced) == filled


def test_the_compact_layout_takes_away_the_optional_space_and_nothing_else():
    gbnf = f'root ::= "{{" space "}}" space\n{OPTIONAL_SPACE}\n'
    assert compact(gbnf) == 'root ::= "{" space "}" space\nspace ::= ""\n'


def test_a_grammar_without_the_optional_space_rule_is_refused_by_name():
    with pytest.raises(ValueError, match="space ::="):
        compact('root ::= "{}"')
