"""The answer shape of an utterance at a meeting, as the JSON Schema bytes its call sends.

An utterance is said as a statement is written: the numbers of the lines it draws on first,
then its words (`CITES`, then `SAID`), so the words are about the lines picked. As the request
an ask sends, each number is one of the ids its prompt showed (tied to the first, whose line's
words the utterance names, as `drawn_schema`'s request ties a statement), and the words are at
most the talk block's `chars`, opened in the first or second person (`SPOKEN_OPENING`). As the seam's check (`request=False`) the same shape with any
integer and any text of those bounds: which rows an utterance may cite (exists, is the
speaker's, no later than now, once) and whether it says a shown line back are the laws'
rules, judged after the shape. The bytes are canonical, because their sha256 goes into every
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

TALK = "talk.tmpl"
"""The template of an utterance at a meeting: a start, or the answer to what was just heard."""

# How an utterance opens, as the request asks it: said to someone, in the first or second
# person, where a small model left to itself copies the third-person line it cites ("Idris
# came into sight"). A request, never a rule: the seam reads any words.
SPOKEN_OPENING = "(I|You|We)"


def talk_schema(shown: object, chars: int, most: int = CITED, *, request: bool = True,
                lines: Mapping[int, str] | None = None, bounded: bool = False) -> bytes:
    """An utterance of at most `chars` characters drawn from 1 to `most` of the ids `shown`
    (the request: an `enum` of them, and with `lines` each first id's branch naming a word of
    its line; a `bounded` request the `enum` and the bounds alone, no pattern and no tie), or
    the check of the same shape (`request=False`)."""
    if not isinstance(chars, int) or isinstance(chars, bool) or chars < STATEMENT_MIN_CHARS:
        raise SeamError(f"Expected an utterance of at least {STATEMENT_MIN_CHARS} characters "
                        f"but got chars={chars!r}")
    if not isinstance(most, int) or isinstance(most, bool) or most < 1:
        raise SeamError(f"Expected a count of citations >= 1 but got most={most!r}")
    ids = ids_of(shown, "an utterance")
    said: dict[str, Any] = {"type": "string", "minLength": STATEMENT_MIN_CHARS,
                            "maxLength": chars}
    if request and bounded:
        said["pattern"] = one_sentence(chars)
    if request and lines is not None and not bounded:
        return _bytes({"anyOf": [_drawn(numbers, {**said, "pattern": _spoken(lines[first])})
                                 for numbers, first in _firsts(ids, min(most, len(ids)))]})
    if request and not bounded:
        said["pattern"] = SPOKEN_PATTERN
    an_id: dict[str, Any] = {"type": "integer", "enum": ids} if request else {"type": "integer"}
    return _bytes(_drawn({"type": "array", "items": an_id, "minItems": 1,
                          "maxItems": min(most, len(ids))}, said))


SPOKEN_PATTERN = f"^{SPOKEN_OPENING}( {_WORD}){{2,9}}[.!?]?$"


def _spoken(line: str) -> str:
    """The words of an utterance drawn first from `line`: opened as said to someone, naming
    one of the line's words (`line_words`)."""
    named = line_words([line])
    return _naming(named, 3, 5, "[.!?]?", first=SPOKEN_OPENING) if named else SPOKEN_PATTERN


def _firsts(ids: list[int], most: int):
    """Each (numbers, first id) branch of a tied request: a first id, then 0 to most-1 others."""
    for first in ids:
        others = {"type": "integer", "enum": [i for i in ids if i != first]}
        for n in range(1, most + 1):
            yield ({"type": "array", "prefixItems": [{"const": first}] + [others] * (n - 1),
                    "items": False}, first)
