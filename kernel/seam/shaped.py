"""Shaped: the only road from a model's text to a Python value.

This module owns turning one answer into one value, or refusing it whole.
It accepts exactly one JSON value that matches the schema the call sent,
with nothing after it but JSON whitespace, from an answer that stopped
because it was done (`done_reason == "stop"`). Everything else is refused
with `kernel.errors.Refused` and one line that names the model, because the
model produced it. Nothing is salvaged, trimmed or repaired: a schema on the
request is a request, and this is where we find out it was not honoured. It
must not know what a question or a citation means; the laws judge the value.
The strict JSON rules (a key twice, NaN, nesting past a bound) are
kernel.jsonstrict's, shared with the config reader; the words are ours.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Protocol

import jsonschema

from kernel import jsonstrict
from kernel.errors import Refused
from kernel.seam.errors import SeamError


class Answer(Protocol):
    """What `shaped` reads off an oracle's `Said`."""

    text: str
    done_reason: str
    model: str


_DETAIL = 160

MAX_DEPTH = 32
"""The deepest an answer may nest objects and arrays; every schema a call sends needs 2 or 3.
Past it the answer is refused before anything walks it, so no walk can run out of stack."""


@lru_cache(maxsize=64)
def _validator(schema: bytes) -> Any:
    if not isinstance(schema, bytes):
        raise SeamError(f"Expected the schema as the bytes the call sent but got {schema!r}")
    try:
        doc = json.loads(schema)
        jsonschema.Draft202012Validator.check_schema(doc)
    except (ValueError, jsonschema.SchemaError) as e:
        raise SeamError(f"the schema handed to shaped is not a JSON Schema: {_short(e)}") from None
    return jsonstrict.Strict(doc)


def _short(v: Any) -> str:
    s = str(v).replace("\n", "\\n").replace("\r", "\\r")
    return s if len(s) <= _DETAIL else s[:_DETAIL] + "..."


def _unpaired_surrogate(v: Any) -> bool:
    # A loop over a stack, not recursion: the value's depth is bounded already,
    # and this walk must not be the place where that bound is found wanting.
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            try:
                x.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return False


def _says(why: jsonstrict.Why) -> str:
    """What a model answered with, for a refusal of the strict reader (the line names the model)."""
    match why:
        case jsonstrict.Empty():
            return "answered with nothing"
        case jsonstrict.TooDeep():
            return (f"answered with objects and arrays nested more than {MAX_DEPTH} deep, "
                    f"deeper than any shape a call asks for")
        case jsonstrict.Twice(key=k):
            return f"answered with the key {_short(k)!r} twice in one object"
        case jsonstrict.NotANumber(name=name):
            return f"answered with {name}, which is not JSON"
        case jsonstrict.Infinite(literal=lit):
            return f"answered with the number {_short(lit)}, too large to be a finite number"
        case jsonstrict.Syntax(msg=msg, line=line, col=col):
            return f"answered with something that is not JSON: {msg} at line {line} column {col}"
        case jsonstrict.After(is_a_value=True):
            return "answered with more than one value"
        case jsonstrict.After(tail=tail):
            return f"answered with something after the value: {_short(tail)!r}"
        case jsonstrict.LoneSurrogate(escape=esc):
            return f"answered with a string holding a lone surrogate {esc}, which no UTF-8 text holds"
        case jsonstrict.Unreadable(detail=detail):
            # int() past its digit limit, or nesting deeper than the stack.
            return f"answered with something that cannot be read as JSON: {_short(detail)}"
    raise AssertionError(f"no words for {why!r}")


def shaped(said: Answer, schema: bytes) -> Any:
    """The value `said` holds if it is exactly one JSON value matching `schema`; else `Refused`.

    `said` is an oracle's `Said` (anything with `text`, `done_reason` and
    `model`); `schema` is the JSON Schema bytes the call sent.
    """
    validator = _validator(schema)
    model = getattr(said, "model", None) or "the model"
    text = getattr(said, "text", None)
    if not isinstance(text, str):
        raise SeamError(f"Expected an answer with text but got {said!r}")
    reason = getattr(said, "done_reason", None)

    def refuse(why: str) -> Refused:
        return Refused(f"{model} {why}")

    if reason == "length":
        raise refuse("stopped at the token limit (done_reason length): "
                     "the answer is cut off and is not an answer")
    if reason != "stop":
        raise refuse(f"stopped for {reason!r}, not because it was done (done_reason stop)")

    try:
        value = jsonstrict.decode(text, max_depth=MAX_DEPTH)
    except jsonstrict.Unstrict as e:
        raise refuse(_says(e.why)) from None

    if _unpaired_surrogate(value):
        raise refuse("answered with text holding an unpaired surrogate, which is not Unicode")

    error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if error is not None:
        raise refuse(f"answered with something that is not the shape asked for: "
                     f"at {jsonstrict.where(error.absolute_path)}: {_short(error.message)}")
    return value
