"""The two answer shapes a reflection asks for, as the JSON Schema bytes the calls send.

`Asked` is the questions call's answer (exactly n strings); `Drawn` is the
statement call's (the numbers of the lines it is drawn from, then the statement: `CITES`
and `SAID`), built per ask by `drawn_schema` from the ids that ask shows, so a grammar can
only cite a line the model saw; the same bytes are what the seam checks the
answer with, so the request and the check cannot disagree. The bytes are
canonical (fixed key order, no spaces) because their sha256 goes into every
recording: the same request must always be the same bytes. This module must
not parse answers (that is `shaped`) or state any citation rule (that is the
laws').
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kernel.seam.errors import SeamError

# Bounds on the answer's shape, not rules about its content. A schema on the
# wire becomes a grammar, and a grammar with a bound closes a string or a list
# where a small model would otherwise run on to the token limit; what the
# numbers in drawn_from mean is still judged by the seam, never here.
QUESTION_CHARS = 100
STATEMENT_CHARS = 240
CITATIONS = 16
# What a reader wants of one statement: a sentence, drawn from a few lines. The
# unbounded DRAWN_SCHEMA stays the shape of a statement where no ask says which
# ids were shown (a tool, a fuzz test); a round sends `drawn_schema`.
STATED_CHARS = 120
CITED = 3
# Under bounded requests a length is a bound, not a style: long enough that a sentence of a
# model that writes them ends where it ends, where at 120 the grammar cut the 1.5B's
# sentences mid-word ("I also ate barley at the mil") and at 100 its questions ("... Did").
BOUNDED_STATED_CHARS = STATEMENT_CHARS
BOUNDED_QUESTION_CHARS = 160
# A bounded request asks for one sentence and holds the answer to one: a count of the answer's
# sentences, as its citations are counted, and no word of it prescribed. Left free, the 1.5B
# wrote a second sentence of filler to half its statements ("This was a significant event for
# me because ...") and ran on until the length cut it mid-word ("... interested in A").
# A request, never a rule: the seam's check reads an answer of any number of sentences.


def one_sentence(chars: int) -> str:
    """The pattern of a bounded request's words: one sentence of at most `chars` characters,
    any characters but a sentence's end and what a JSON string must escape, then its end."""
    return rf'^[^.!?"\\\n\r\t]{{{STATEMENT_MIN_CHARS - 1},{chars - 1}}}[.!?]$'

# What a request asks a statement and a question to be made of: words, beginning with
# a capital, no figures (a statement is about what a day meant, never how much), in at
# most STATED_CHARS and QUESTION_CHARS. A grammar holds a model to it from the first
# character, where a small model otherwise opens a statement with the numbers it was
# shown. The seam does not refuse figures: a pattern is a request, never a rule.
WORD = "[A-Za-z']{1,11},?"
STATED_PATTERN = f"^[A-Z][a-z]{{0,11}}( {WORD}){{2,9}}$"
ASKED_PATTERN = f"^[A-Z][a-z]{{0,11}}( {WORD}){{2,7}}[?]$"
# Given the words of the lines an ask shows, a request also asks that a question or a
# statement hold one of them: it is about someone or something the villager remembers,
# not about the prompt. The most words offered, and the shortest a word must be.
NAMED_WORDS = 24
NAMED_LETTERS = 6


def line_words(texts: object, most: int = NAMED_WORDS) -> list[str]:
    """The names in `texts` (words beginning with a capital), then their other words of at
    least NAMED_LETTERS letters, each once, in the order they come (at most `most`): what a
    question or a statement about those lines may name."""
    seen: list[str] = []
    for t in texts if not isinstance(texts, str) else (texts,):
        for w in str(t).replace(",", " ").replace("'s", " ").split():
            if len(w) >= 2 and w.isascii() and w.isalpha() and w not in seen:
                seen.append(w)
    names = [w for w in seen if w[0].isupper()]
    rest = [w for w in seen if not w[0].isupper() and len(w) >= NAMED_LETTERS]
    return (names + rest)[:most]


def naming(words: list[str], before: int, after: int, end: str,
            first: str = "[A-Z][a-z]{0,10}") -> str:
    """A pattern of words holding one of `words`: a first word (`first`: any capitalised
    one), up to `before` words, the named word, up to `after` words, then `end`."""
    named = "|".join(words)
    return f"^{first}( {WORD}){{0,{before}}} ({named})( {WORD}){{0,{after}}}{end}$"


# How a question opens: asking why, or who, of what happened, where a small model left to
# itself asks how many or how much, which no line's words can answer.
ASKED_OPENING = "(Why|Who)"
# How a statement opens: with any capitalised word but one of a question's (What, Why, Who,
# When, Which: every word opening "Wh"), where a small model whose answer's first quote is
# written for it says its question back ("Why did Ysolde go out of sight").
STATED_OPENING = "([A-VX-Z][a-z]{0,10}|W[a-gi-z][a-z]{0,9})"
# The statement answer's two keys, in the order the answer is written: a key the model
# would write of itself is one token it picks, where a key it would not ("statement",
# "drawn_from") it spells out a piece at a time under the grammar (11 of a statement's 45
# tokens). Written first, the numbers are chosen before the words, so the words are about
# the lines they cite.
SAID = "answer"
CITES = "numbers"
# The shortest text that can hold two words of two letters ("ab cd"): a grammar
# can carry this much of what a statement is; the seam judges the rest.
STATEMENT_MIN_CHARS = 5


def canonical(schema: dict[str, Any]) -> bytes:
    # Insertion order is the key order: fixed by the code below, never sorted
    # by a reader, so the bytes (and their sha256) do not move.
    return json.dumps(schema, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def asked_schema(n: int, *, request: bool = False, words: object = (),
                 bounded: bool = False) -> bytes:
    """The questions answer: `{"questions": [exactly n distinct strings]}` and no other field;
    as the `request` a call sends under patterned requests, each string also a question of
    words (ASKED_PATTERN), and one naming a word of the lines shown where `words` are given
    (`line_words`); a `bounded` request is the answer's shape alone, its words the model's."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise SeamError(f"Expected a count of questions >= 1 but got n={n!r}")
    item: dict[str, Any] = {"type": "string", "minLength": 1,
                            "maxLength": BOUNDED_QUESTION_CHARS if bounded else QUESTION_CHARS}
    if request and not bounded:
        named = list(words) if not isinstance(words, str) else [words]
        item["pattern"] = naming(named, 3, 4, "[?]", ASKED_OPENING) if named else ASKED_PATTERN
    return canonical({
        "type": "object",
        "properties": {
            "questions": {"type": "array",
                          "items": item,
                          "minItems": n, "maxItems": n, "uniqueItems": True},
        },
        "required": ["questions"],
        "additionalProperties": False,
    })


def ids_of(shown: object, what: str) -> list[int]:
    """The distinct ids of what a call shows, in the order shown, as a schema's `enum`."""
    if isinstance(shown, str | bytes) or not hasattr(shown, "__iter__"):
        raise SeamError(f"Expected the ids {what} shows but got {shown!r:.80}")
    ids: list[int] = []
    for i in shown:
        if not isinstance(i, int) or isinstance(i, bool):
            raise SeamError(f"Expected the ids {what} shows to be integers but got {i!r}")
        if i not in ids:
            ids.append(i)
    if not ids:
        raise SeamError(f"a schema of {what} needs at least one id shown, and none was")
    return ids


def drawn_schema(shown: object, most: int = CITED, *, request: bool = True,
                 words: object = (), lines: Mapping[int, str] | None = None,
                 bounded: bool = False) -> bytes:
    """The statement answer of one ask: a statement of at most STATED_CHARS, drawn from 1 to
    `most` ids (at most as many as were shown).

    As the `request` the ask sends, each id is one of the ids `shown` (an `enum`, in the order
    shown), so a grammar cannot cite a line the model did not see, and the statement is words
    (STATED_PATTERN), naming one of `words` where they are given (`line_words` of the lines
    shown). As the seam's check (`request=False`) the same shape without the `enum`
    or the pattern: which ids a statement may cite is
    the laws' rule (`laws.cite`: exists, belongs, no later, once), judged after the shape, so
    a server that ignores the request gets each of those refusals by its own name.

    Given `lines` (each shown id's line), the request ties a statement's words to what it
    cites: one branch (`anyOf`) for each first id and count, the first id fixed
    (`prefixItems`), the statement naming a word of that id's line (`line_words`). A model
    that picked its numbers first then writes about the line it picked first, where with
    the words of every line shown it names any of them.

    A `bounded` request (a thought file's `requests: bounded`) is the request's structure
    alone: the ids an `enum` of those shown, 1 to `most` of them, the statement at most
    BOUNDED_STATED_CHARS; no pattern, no tie to a first line, every word the model's own;
    its check (`request=False, bounded=True`) is the same shape with that bound."""
    if not isinstance(most, int) or isinstance(most, bool) or most < 1:
        raise SeamError(f"Expected a count of citations >= 1 but got most={most!r}")
    ids = ids_of(shown, "a statement call")
    an_id: dict[str, Any] = {"type": "integer", "enum": ids} if request else {"type": "integer"}
    statement: dict[str, Any] = {"type": "string", "minLength": STATEMENT_MIN_CHARS,
                                 "maxLength": BOUNDED_STATED_CHARS if bounded else STATED_CHARS}
    if request and bounded:
        statement["pattern"] = one_sentence(BOUNDED_STATED_CHARS)
    if request and not bounded:
        named = list(words) if not isinstance(words, str) else [words]
        statement["pattern"] = (naming(named, 3, 5, "[.!]?", first=STATED_OPENING) if named
                                else STATED_PATTERN)
    if request and lines is not None and not bounded:
        return canonical({"anyOf": [_drawn(numbers, {**statement, "pattern": pattern})
                                 for numbers, pattern in _tied(ids, min(most, len(ids)), lines)]})
    return canonical(_drawn({"type": "array", "items": an_id, "minItems": 1,
                          "maxItems": min(most, len(ids))}, statement))


@dataclass(frozen=True, slots=True)
class SaidKind:
    """What kind of answer `said_schema` bounds: its name where its length is refused (`noun`)
    and where its ids are (`call`), and the words a patterned request asks of it: `drawn` of
    an answer drawn first from a line, `plain` where no line is given."""

    noun: str
    call: str
    drawn: Callable[[str], str]
    plain: str


def said_schema(shown: object, chars: int, most: int, kind: SaidKind, *, request: bool,
                lines: Mapping[int, str] | None, bounded: bool) -> bytes:
    """An answer of `kind` (an utterance, an interview answer) of at most `chars` characters
    drawn from 1 to `most` of the ids `shown`: the request an `enum` of them, with `lines`
    each first id's branch (`firsts`) naming a word of its line, a `bounded` request the
    `enum` and the bounds alone (one sentence, no tie); or the check of the same shape
    (`request=False`)."""
    if not isinstance(chars, int) or isinstance(chars, bool) or chars < STATEMENT_MIN_CHARS:
        raise SeamError(f"Expected {kind.noun} of at least {STATEMENT_MIN_CHARS} characters "
                        f"but got chars={chars!r}")
    if not isinstance(most, int) or isinstance(most, bool) or most < 1:
        raise SeamError(f"Expected a count of citations >= 1 but got most={most!r}")
    ids = ids_of(shown, kind.call)
    said: dict[str, Any] = {"type": "string", "minLength": STATEMENT_MIN_CHARS,
                            "maxLength": chars}
    if request and bounded:
        said["pattern"] = one_sentence(chars)
    n = min(most, len(ids))
    if request and lines is not None and not bounded:
        missing = [i for i in ids if i not in lines]
        if missing:
            raise SeamError(f"Expected the line of every shown id but got none for {missing[0]}")
        return canonical({"anyOf": [_drawn(numbers, {**said, "pattern": kind.drawn(lines[first])})
                                 for numbers, first in firsts(ids, n)]})
    if request and not bounded:
        said["pattern"] = kind.plain
    an_id: dict[str, Any] = {"type": "integer", "enum": ids} if request else {"type": "integer"}
    return canonical(_drawn({"type": "array", "items": an_id, "minItems": 1, "maxItems": n}, said))


def firsts(ids: list[int], most: int):
    """Each (numbers, first id) branch of a tied request: a first id, then 0 to most-1 others."""
    for first in ids:
        others = {"type": "integer", "enum": [i for i in ids if i != first]}
        for n in range(1, most + 1):
            yield ({"type": "array", "prefixItems": [{"const": first}] + [others] * (n - 1),
                    "items": False}, first)


def _drawn(numbers: dict[str, Any], statement: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {CITES: numbers, SAID: statement},
            "required": [CITES, SAID], "additionalProperties": False}


def _tied(ids: list[int], most: int, lines: Mapping[int, str]):
    """Each (numbers, pattern) branch of a tied request: a first id, then 0 to most-1 others."""
    for numbers, first in firsts(ids, most):
        if first not in lines:
            raise SeamError(f"Expected the line of every shown id but got none for {first}")
        named = line_words([lines[first]])
        yield numbers, (naming(named, 3, 5, "[.!]?", first=STATED_OPENING) if named
                        else STATED_PATTERN)


DRAWN_SCHEMA: bytes = canonical({
    "type": "object",
    "properties": {
        CITES: {"type": "array", "items": {"type": "integer"}, "maxItems": CITATIONS},
        SAID: {"type": "string", "minLength": STATEMENT_MIN_CHARS, "maxLength": STATEMENT_CHARS},
    },
    "required": [CITES, SAID],
    "additionalProperties": False,
})
