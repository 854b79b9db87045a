"""A tick frame's payload, encoded fast: the bytes of `events.pack([tick, [to_map(e), ...]])`.

The codec in kernel.events is the definition of an event's bytes: every
value checked, every map sorted, and checked again when the frame is
packed. A run writes thousands of frames a day, and most of their events
are of a kind whose fields are all integers, text or tuples of integers.
For those this module builds the sorted map straight from the fields, each
field's type checked by identity, and packs the frame once. An event it
cannot vouch for (another type in a field, a kind it does not know) goes
through `events.to_map`, which refuses what the codec refuses, with its
words. The bytes are the codec's either way, and a property test holds
them to it on random events of every kind.

This module owns that shortcut and nothing else: it must not decide what an
event holds (kernel.events) or how a frame is framed and chained (frame.py).
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterable
from operator import attrgetter

import msgpack

from kernel import events as ev

TEXTS = "tuple of texts"
NESTED = "tuple of tuples of texts"
MAYBE_INT = "an integer or None"


@dataclasses.dataclass(frozen=True, slots=True)
class Plain:
    """How an event kind whose fields are plain is laid out as its canonical map."""

    kind: str
    names: tuple[str, ...]          # the map's keys, sorted, "kind" among them
    fields: tuple[str, ...]         # the fields, sorted
    types: tuple[object, ...]       # each field's type: int, str, bool, tuple (of ints), or one
    #                                 of TEXTS, NESTED and MAYBE_INT
    kind_at: int                    # where "kind" falls among the keys
    read: typing.Callable[[ev.Event], tuple]


def _layout(t: object) -> object | None:
    """A field's type as `Plain` checks it, or None for a type it does not know."""
    if t is int or t is str or t is bool:
        return t
    args = typing.get_args(t)
    if typing.get_origin(t) is tuple:
        if args == (int, ...):
            return tuple
        if args == (str, ...):
            return TEXTS
        if len(args) == 2 and args[1] is ... and typing.get_args(args[0]) == (str, ...):
            return NESTED
    if set(args) == {int, type(None)}:
        return MAYBE_INT
    return None


def plain(cls: type) -> Plain | None:
    """The layout of an event kind whose every field is of a type `_layout` knows; else None."""
    hints = typing.get_type_hints(cls)
    fields = tuple(sorted(f.name for f in dataclasses.fields(cls)))
    types: list[object] = []
    for n in fields:
        t = _layout(hints[n])
        if t is None:
            return None
        types.append(t)
    if not fields or "kind" in fields:
        return None
    names = tuple(sorted((*fields, "kind")))
    getter = attrgetter(*fields)
    read = getter if len(fields) > 1 else (lambda e: (getter(e),))
    return Plain(cls.kind, names, fields, tuple(types), names.index("kind"), read)


PLAIN: dict[type, Plain | None] = {cls: plain(cls) for cls in ev.KINDS.values()}
"""Every known kind's layout, by its class (None for a kind with other fields)."""


def _texts(v: object) -> bool:
    return type(v) is tuple and all(type(x) is str for x in v)


def values(p: Plain, e: ev.Event) -> tuple | None:
    """`e`'s fields in sorted order when each is exactly of its declared type; else None."""
    vals = p.read(e)
    for v, t in zip(vals, p.types, strict=True):
        if t is tuple:
            if type(v) is not tuple:
                return None
            for x in v:
                if type(x) is not int:
                    return None
        elif t is TEXTS:
            if not _texts(v):
                return None
        elif t is NESTED:
            if type(v) is not tuple or not all(_texts(x) for x in v):
                return None
        elif t is MAYBE_INT:
            if v is not None and type(v) is not int:
                return None
        elif type(v) is not t:
            return None
    return vals


def to_map(e: ev.Event) -> dict:
    """`events.to_map(e)`: built straight from the fields where the kind is plain."""
    p = PLAIN.get(type(e))
    if p is not None:
        vals = values(p, e)
        if vals is not None:
            at = p.kind_at
            return dict(zip(p.names, (*vals[:at], p.kind, *vals[at:]), strict=True))
    return ev.to_map(e)


def payload(tick: int, events: Iterable[ev.Event]) -> bytes:
    """The bytes of one tick frame's payload: `events.pack([tick, [events.to_map(e), ...]])`."""
    if type(tick) is not int:
        return ev.pack([tick, [ev.to_map(e) for e in events]])
    # every map is sorted and holds only what the codec's check passes: packed as it stands
    return msgpack.packb([tick, [to_map(e) for e in events]], use_bin_type=True)
