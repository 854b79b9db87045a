"""The two answer shapes a reflection asks for, as the JSON Schema bytes the calls send.

`Asked` is the questions call's answer (exactly n strings); `Drawn` is the
statement call's (a statement and the numbers it is drawn from). The bytes are
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
QUESTION_CHARS = 160
STATEMENT_CHARS = 240
CITATIONS = 16
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
