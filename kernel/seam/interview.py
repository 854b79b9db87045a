"""The answer shape of an interview, as the JSON Schema bytes its call sends.

An interview's answer is given as a statement is written: the numbers of the lines it draws
on first, then its words (`CITES`, then `SAID`), so the words are about the lines picked. As
the request an ask sends, each number is one of the ids its prompt showed, the first tied to
the words (a branch per first id, whose line's words the answer names: `line_words`, names
first), and the words are at most `chars`. As the seam's check (`request=False`) the same
shape with any integer and any text of those bounds: which rows an answer may cite (exists,
is the villager's, no later than the interview's tick, once, not forgotten) is the laws' rule,
judged after the shape. The bytes are canonical, because their sha256 goes into every
recording.
"""

from __future__ import annotations

from collections.abc import Mapping

from kernel.seam.schemas import CITED, WORD, SaidKind, line_words, naming, said_schema

INTERVIEW = "interview.tmpl"
"""The template of one interview question put to one villager."""

ANSWER_CHARS = 160
"""The most characters an interview answer may run to, as the battery leaves it."""

# An answer opens with any capitalised word and runs to a sentence; the seam reads any words.
ANSWERED_PATTERN = f"^[A-Z][a-z]{{0,11}}( {WORD}){{1,14}}[.!?]?$"


def _answered(line: str) -> str:
    """The words of an answer drawn first from `line`: naming one of the line's words."""
    named = line_words([line])
    return naming(named, 3, 8, "[.!?]?") if named else ANSWERED_PATTERN


ANSWER = SaidKind("an answer", "an interview", _answered, ANSWERED_PATTERN)
"""An interview answer, as `said_schema` bounds it."""


def interview_schema(shown: object, chars: int = ANSWER_CHARS, most: int = CITED, *,
                     request: bool = True, lines: Mapping[int, str] | None = None,
                     bounded: bool = False) -> bytes:
    """An answer of at most `chars` characters drawn from 1 to `most` of the ids `shown` (the
    request: an `enum` of them, and with `lines` each first id's branch naming a word of its
    line; a `bounded` request the `enum` and the bounds alone, one sentence and no tie), or
    the check of the same shape (`request=False`)."""
    return said_schema(shown, chars, most, ANSWER, request=request, lines=lines,
                       bounded=bounded)
