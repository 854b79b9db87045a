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
from typing import Any

from kernel.seam.errors import SeamError
from kernel.seam.schemas import (
    _WORD,
    CITED,
    STATEMENT_MIN_CHARS,
    _bytes,
    _drawn,
    _naming,
    ids_of,
    line_words,
    one_sentence,
)
from kernel.seam.talk import _firsts

INTERVIEW = "interview.tmpl"
"""The template of one interview question put to one villager."""

ANSWER_CHARS = 160
"""The most characters an interview answer may run to, as the battery leaves it."""

# An answer opens with any capitalised word and runs to a sentence; the seam reads any words.
ANSWERED_PATTERN = f"^[A-Z][a-z]{{0,11}}( {_WORD}){{1,14}}[.!?]?$"


def _answered(line: str) -> str:
    """The words of an answer drawn first from `line`: naming one of the line's words."""
    named = line_words([line])
    return _naming(named, 3, 8, "[.!?]?") if named else ANSWERED_PATTERN


def interview_schema(shown: object, chars: int = ANSWER_CHARS, most: int = CITED, *,
                     request: bool = True, lines: Mapping[int, str] | None = None,
                     bounded: bool = False) -> bytes:
    """An answer of at most `chars` characters drawn from 1 to `most` of the ids `shown` (the
    request: an `enum` of them, and with `lines` each first id's branch naming a word of its
    line; a `bounded` request the `enum` and the bounds alone, no pattern and no tie), or the
    check of the same shape (`request=False`)."""
    if not isinstance(chars, int) or isinstance(chars, bool) or chars < STATEMENT_MIN_CHARS:
        raise SeamError(f"Expected an answer of at least {STATEMENT_MIN_CHARS} characters "
                        f"but got chars={chars!r}")
    if not isinstance(most, int) or isinstance(most, bool) or most < 1:
        raise SeamError(f"Expected a count of citations >= 1 but got most={most!r}")
    ids = ids_of(shown, "an interview")
    said: dict[str, Any] = {"type": "string", "minLength": STATEMENT_MIN_CHARS,
                            "maxLength": chars}
    if request and bounded:
        said["pattern"] = one_sentence(chars)
    n = min(most, len(ids))
    if request and lines is not None and not bounded:
        missing = [i for i in ids if i not in lines]
        if missing:
            raise SeamError(f"Expected the line of every shown id but got none for {missing[0]}")
        return _bytes({"anyOf": [_drawn(numbers, {**said, "pattern": _answered(lines[first])})
                                 for numbers, first in _firsts(ids, n)]})
    if request and not bounded:
        said["pattern"] = ANSWERED_PATTERN
    an_id: dict[str, Any] = {"type": "integer", "enum": ids} if request else {"type": "integer"}
    return _bytes(_drawn({"type": "array", "items": an_id, "minItems": 1, "maxItems": n}, said))
