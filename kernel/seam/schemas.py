"""The two answer shapes a reflection asks for, as the JSON Schema bytes the calls send.

`Asked` is the questions call's answer (exactly n strings); `Drawn` is the
statement call's (a statement and the numbers it is drawn from), built per
ask by `drawn_schema` from the ids that ask shows, so a grammar can only
cite a line the model saw; the same bytes are what the seam checks the
answer with, so the request and the check cannot disagree. The bytes are
canonical (fixed key order, no spaces) because their sha256 goes into every
recording: the same request must always be the same bytes. This module must
not parse answers (that is `shaped`) or state any citation rule (that is the
laws').
"""

from __future__ import annotations

import json
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
# The shortest text that can hold two words of two letters ("ab cd"): a grammar
# can carry this much of what a statement is; the seam judges the rest.
STATEMENT_MIN_CHARS = 5


def _bytes(schema: dict[str, Any]) -> bytes:
    # Insertion order is the key order: fixed by the code below, never sorted
    # by a reader, so the bytes (and their sha256) do not move.
    return json.dumps(schema, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def asked_schema(n: int) -> bytes:
    """The questions answer: `{"questions": [exactly n distinct strings]}` and no other field."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise SeamError(f"Expected a count of questions >= 1 but got n={n!r}")
    return _bytes({
        "type": "object",
        "properties": {
            "questions": {"type": "array",
                          "items": {"type": "string", "minLength": 1, "maxLength": QUESTION_CHARS},
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


def drawn_schema(shown: object, most: int = CITED, *, request: bool = True) -> bytes:
    """The statement answer of one ask: a statement of at most STATED_CHARS, drawn from 1 to
    `most` ids (at most as many as were shown).

    As the `request` the ask sends, each id is one of the ids `shown` (an `enum`, in the order
    shown), so a grammar cannot cite a line the model did not see. As the seam's check
    (`request=False`) the same shape without the `enum`: which ids a statement may cite is
    the laws' rule (`laws.cite`: exists, belongs, no later, once), judged after the shape, so
    a server that ignores the request gets each of those refusals by its own name."""
    if not isinstance(most, int) or isinstance(most, bool) or most < 1:
        raise SeamError(f"Expected a count of citations >= 1 but got most={most!r}")
    ids = ids_of(shown, "a statement call")
    an_id: dict[str, Any] = {"type": "integer", "enum": ids} if request else {"type": "integer"}
    return _bytes({
        "type": "object",
        "properties": {
            "statement": {"type": "string", "minLength": STATEMENT_MIN_CHARS,
                          "maxLength": STATED_CHARS},
            "drawn_from": {"type": "array", "items": an_id,
                           "minItems": 1, "maxItems": min(most, len(ids))},
        },
        "required": ["statement", "drawn_from"],
        "additionalProperties": False,
    })


DRAWN_SCHEMA: bytes = _bytes({
    "type": "object",
    "properties": {
        "statement": {"type": "string", "minLength": STATEMENT_MIN_CHARS,
                      "maxLength": STATEMENT_CHARS},
        "drawn_from": {"type": "array", "items": {"type": "integer"}, "maxItems": CITATIONS},
    },
    "required": ["statement", "drawn_from"],
    "additionalProperties": False,
})
