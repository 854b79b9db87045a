"""Strict JSON: the one reader of JSON text and the one strict schema validator.

This module owns how JSON text becomes a value when a config, a recording
or a model's answer is read: a key given twice, NaN or Infinity, a number
too large to be finite, an integer past a digit bound, a string UTF-8
cannot hold (a lone surrogate, which only a \\u escape can write), nesting
past a depth bound (found by a scan, without recursion, before anything
walks the text), empty text and anything after the value are each a refusal. A
refusal is `Unstrict`, whose `why` is a value saying which rule and what
broke it, so the reader of a config and the reader of an answer (which
speak to different people) each put it in their own words while the rules
stay one. It also owns the Draft 2020-12 validator for which an integer is
a whole number written without a point. It imports only the standard
library, jsonschema and kernel.errors; it must not know what a config,
a model or a file is.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import jsonschema
import jsonschema.validators

from kernel.errors import Unstrict

WS = " \t\n\r"
"""JSON's own whitespace; str.isspace() would also let through vertical tabs and
Unicode spaces, which JSON does not allow between tokens."""


# -- why a text is refused: one value per rule ---------------------------------


@dataclass(frozen=True, slots=True)
class Empty:
    """Nothing but whitespace where one value was expected."""


@dataclass(frozen=True, slots=True)
class TooDeep:
    depth: int          # how deep the text nests objects and arrays
    bound: int          # the most the reader allows


@dataclass(frozen=True, slots=True)
class Twice:
    key: str            # a key given twice in one object


@dataclass(frozen=True, slots=True)
class NotANumber:
    name: str           # NaN, Infinity or -Infinity


@dataclass(frozen=True, slots=True)
class Infinite:
    literal: str        # a number literal too large to be a finite float


@dataclass(frozen=True, slots=True)
class TooManyDigits:
    literal: str        # the integer literal
    digits: int
    bound: int


@dataclass(frozen=True, slots=True)
class Syntax:
    """Not JSON at all: the decoder's own message and where it stopped."""

    msg: str
    line: int
    col: int


@dataclass(frozen=True, slots=True)
class Unreadable:
    """The decoder gave up another way (a belt and braces case: the bounds come first)."""

    detail: str


@dataclass(frozen=True, slots=True)
class After:
    """Something after the value: where it starts, what it is, and whether it is a value too."""

    line: int
    col: int
    tail: str
    is_a_value: bool


@dataclass(frozen=True, slots=True)
class LoneSurrogate:
    """A string (a key or a value) holding half of a UTF-16 pair: no UTF-8 text can hold it."""

    path: tuple[str | int, ...]     # where the string is, as `where` names it
    escape: str                     # the half, as JSON writes it: \ud800


Why = (Empty | TooDeep | Twice | NotANumber | Infinite | TooManyDigits | Syntax | Unreadable | After
       | LoneSurrogate)
STRICT = (Twice, NotANumber, Infinite, TooManyDigits, LoneSurrogate)
"""The reasons that are JSON a lax reader would take, refused here by rule."""


class _Hook(Exception):
    """Raised from the decoder's hooks and caught by `decode`; never leaves this module."""

    def __init__(self, why: Why):
        self.why = why


# -- the reader ------------------------------------------------------------------


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _Hook(Twice(k))
        out[k] = v
    return out


def _constant(name: str) -> Any:
    raise _Hook(NotANumber(name))


def _float(s: str) -> float:
    f = float(s)
    if not math.isfinite(f):
        raise _Hook(Infinite(s))
    return f


@lru_cache(maxsize=8)
def _decoder(max_digits: int | None) -> json.JSONDecoder:
    def bounded_int(s: str) -> int:
        digits = len(s.lstrip("-"))
        if digits > max_digits:
            raise _Hook(TooManyDigits(s, digits, max_digits))
        return int(s)

    return json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_constant, parse_float=_float,
                            parse_int=None if max_digits is None else bounded_int, strict=True)


# A JSON string (with its escapes), and everything that is not a bracket.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def depth(text: str) -> int:
    """How deep brackets nest in JSON text, outside strings; found without recursion."""
    deepest = level = 0
    for c in _NOT_BRACKET.sub("", _STRING.sub("", text)):
        if c in "[{":
            level += 1
            if level > deepest:
                deepest = level
        elif level:
            level -= 1
    return deepest


def line_col(text: str, pos: int) -> tuple[int, int]:
    """The 1-based line and column of offset `pos` in `text`."""
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _is_a_value(text: str, decoder: json.JSONDecoder) -> bool:
    try:
        decoder.raw_decode(text)
    except (_Hook, ValueError, RecursionError):
        return False
    return True


# Only a \u escape can put a surrogate into a decoded string: UTF-8 bytes cannot hold one.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _surrogate(s: str) -> str | None:
    for c in s:
        if 0xD800 <= ord(c) <= 0xDFFF:
            return f"\\u{ord(c):04x}"
    return None


def lone_surrogate(value: Any) -> LoneSurrogate | None:
    """The first string in `value` (keys too) that UTF-8 cannot encode, found without recursion."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    while stack:
        v, path = stack.pop()
        if isinstance(v, str):
            if (esc := _surrogate(v)) is not None:
                return LoneSurrogate(path, esc)
        elif isinstance(v, Mapping):
            for k, x in reversed(list(v.items())):
                if isinstance(k, str) and (esc := _surrogate(k)) is not None:
                    return LoneSurrogate((*path, k), esc)
                stack.append((x, (*path, k)))
        elif isinstance(v, list | tuple):
            stack.extend((x, (*path, i)) for i, x in reversed(list(enumerate(v))))
    return None


def decode(text: str, *, max_depth: int, max_digits: int | None = None) -> Any:
    """The one JSON value `text` holds, read strictly; else `Unstrict` saying why.

    `max_depth` bounds nesting (checked by a scan before the decoder recurses);
    `max_digits`, when given, bounds an integer literal's digits (else Python's
    own int() limit applies, and passing it is `Unreadable`).
    """
    d = depth(text)
    if d > max_depth:
        raise Unstrict(TooDeep(d, max_depth))
    start = len(text) - len(text.lstrip(WS))
    if start == len(text):
        raise Unstrict(Empty())
    decoder = _decoder(max_digits)
    try:
        value, end = decoder.raw_decode(text, start)
    except _Hook as e:
        raise Unstrict(e.why) from None
    except json.JSONDecodeError as e:
        raise Unstrict(Syntax(e.msg, e.lineno, e.colno)) from None
    except (ValueError, RecursionError) as e:
        raise Unstrict(Unreadable(str(e))) from None
    tail = text[end:].lstrip(WS)
    if tail:
        line, col = line_col(text, len(text) - len(tail))
        raise Unstrict(After(line, col, tail, _is_a_value(tail, decoder)))
    if _SURROGATE_ESCAPE.search(text) and (lone := lone_surrogate(value)) is not None:
        raise Unstrict(lone)
    return value


# -- the validator ---------------------------------------------------------------


def _is_int(_checker: Any, v: Any) -> bool:
    # Draft 2020-12 lets 1.0 pass as an integer; the same value must be the
    # same bytes, and downstream wants exact ints, so here it does not.
    return isinstance(v, int) and not isinstance(v, bool)


Strict = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_int),
)
"""The Draft 2020-12 validator for which an integer is an int (never 2.0, never True)."""


def where(path: Any) -> str:
    """A JSON path as a refusal names it: `$.villagers[2].name`."""
    out = "$"
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    # A key holding a lone surrogate is named by its escape, so the refusal itself can be printed.
    return out.encode("utf-8", "backslashreplace").decode("utf-8")
