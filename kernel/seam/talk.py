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

from kernel.seam.schemas import CITED, WORD, SaidKind, line_words, naming, said_schema

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
    its line; a `bounded` request the `enum` and the bounds alone, one sentence and no tie),
    or the check of the same shape (`request=False`)."""
    return said_schema(shown, chars, most, UTTERANCE, request=request, lines=lines,
                       bounded=bounded)


SPOKEN_PATTERN = f"^{SPOKEN_OPENING}( {WORD}){{2,9}}[.!?]?$"


def _spoken(line: str) -> str:
    """The words of an utterance drawn first from `line`: opened as said to someone, naming
    one of the line's words (`line_words`)."""
    named = line_words([line])
    return naming(named, 3, 5, "[.!?]?", first=SPOKEN_OPENING) if named else SPOKEN_PATTERN


UTTERANCE = SaidKind("an utterance", "an utterance", _spoken, SPOKEN_PATTERN)
"""An utterance, as `said_schema` bounds it."""
