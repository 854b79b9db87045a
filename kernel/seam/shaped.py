"""Shaped: the only road from a model's text to a Python value.

This module owns turning one answer into one value, or refusing it whole.
It accepts exactly one JSON value that matches the schema the call sent,
with nothing after it but JSON whitespace, from an answer that stopped
because it was done (`done_reason == "stop"`). Everything else is refused
with `kernel.errors.Refused` and one line that names the model, because the
model produced it. Nothing is salvaged, trimmed or repaired: a schema on the
request is a request, and this is where we find out it was not honoured. It
must not know what a question or a citation means; the laws judge the value.
"""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from typing import Any, Protocol

import jsonschema
import jsonschema.validators

from kernel.errors import Refused
from kernel.seam.errors import SeamError


class Answer(Protocol):
    """What `shaped` reads off an oracle's `Said`."""

    text: str
    done_reason: str
    model: str


# JSON's own whitespace; str.isspace() would also let through vertical tabs
# and Unicode spaces, which JSON does not allow between tokens.
_WS = " \t\n\r"
_DETAIL = 160

MAX_DEPTH = 32
"""The deepest an answer may nest objects and arrays; every schema a call sends needs 2 or 3.
Past it the answer is refused before anything walks it, so no walk can run out of stack."""


def _is_int(_checker: Any, v: Any) -> bool:
    # Draft 2020-12 lets 1.0 pass as an integer; a citation that arrives as
    # a float is not the shape asked for, and downstream wants exact ints.
    return isinstance(v, int) and not isinstance(v, bool)


_Strict = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_int),
)


@lru_cache(maxsize=64)
def _validator(schema: bytes) -> Any:
    if not isinstance(schema, bytes):
        raise SeamError(f"Expected the schema as the bytes the call sent but got {schema!r}")
    try:
        doc = json.loads(schema)
        jsonschema.Draft202012Validator.check_schema(doc)
    except (ValueError, jsonschema.SchemaError) as e:
        raise SeamError(f"the schema handed to shaped is not a JSON Schema: {_short(e)}") from None
    return _Strict(doc)


class _Why(Exception):
    """A reason to refuse found while decoding (raised from the decoder's hooks)."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _Why(f"the key {_short(k)!r} twice in one object")
        out[k] = v
    return out


def _constant(name: str) -> Any:
    raise _Why(f"{name}, which is not JSON")


def _float(s: str) -> float:
    f = float(s)
    if not math.isfinite(f):
        raise _Why(f"the number {_short(s)}, too large to be a finite number")
    return f


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_constant,
                            parse_float=_float, strict=True)


def _short(v: Any) -> str:
    s = str(v).replace("\n", "\\n").replace("\r", "\\r")
    return s if len(s) <= _DETAIL else s[:_DETAIL] + "..."


def _where(path: Any) -> str:
    out = "$"
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


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


def _too_deep(text: str) -> int:
    """The bracket depth of `text` outside JSON strings if it passes MAX_DEPTH, else 0."""
    level = 0
    for c in _NOT_BRACKET.sub("", _STRING.sub("", text)):
        if c in "[{":
            level += 1
            if level > MAX_DEPTH:
                return level
        elif level:
            level -= 1
    return 0


# A JSON string with its escapes, and everything that is not a bracket.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


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

    start = len(text) - len(text.lstrip(_WS))
    if start == len(text):
        raise refuse("answered with nothing")
    if _too_deep(text):
        raise refuse(f"answered with objects and arrays nested more than {MAX_DEPTH} deep, "
                     f"deeper than any shape a call asks for")
    try:
        value, end = _DECODER.raw_decode(text, start)
    except _Why as e:
        raise refuse(f"answered with {e}") from None
    except json.JSONDecodeError as e:
        raise refuse(f"answered with something that is not JSON: {e.msg} "
                     f"at line {e.lineno} column {e.colno}") from None
    except (ValueError, RecursionError) as e:
        # int() past its digit limit, or nesting deeper than the stack.
        raise refuse(f"answered with something that cannot be read as JSON: {_short(e)}") from None

    rest = text[end:]
    tail = rest.lstrip(_WS)
    if tail:
        try:
            _DECODER.raw_decode(tail)
            raise refuse("answered with more than one value")
        except (_Why, ValueError, RecursionError):
            raise refuse(f"answered with something after the value: {_short(tail)!r}") from None

    if _unpaired_surrogate(value):
        raise refuse("answered with text holding an unpaired surrogate, which is not Unicode")

    error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if error is not None:
        raise refuse(f"answered with something that is not the shape asked for: "
                     f"at {_where(error.absolute_path)}: {_short(error.message)}")
    return value
