"""Reading a tick frame's event maps back into events, fast, with the codec's rules intact.

A long log holds millions of events, and the codec's general reader
(kernel.events.from_map: a type hint looked up and coerced per field) was
most of what reading one cost. Here each kind gets a reader of its own,
written once from its fields, that takes a map only when it is exactly
what the codec would accept with nothing to coerce (its own keys, plain
integers and text, lists of integers) and builds the same event from it.
Anything else, good or bad, goes to `from_map`, so what is refused, and
the words it is refused in, stay the codec's. This module must not decide
what an event may hold (kernel.events does) nor read files.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kernel import events as ev
from kernel.log import encode

Reader = Callable[[dict], "ev.Event"]


class Other(Exception):
    """A map a kind's reader does not take as it is: `from_map` reads it, or refuses it."""


def _reader(cls: type) -> Reader | None:
    """A reader for `cls` whose fields are all int, str or tuple[int, ...] (a kind the log's
    encoder lays out as plain); None for any other.

    It fills the event's slots itself, as the frozen dataclass's `__init__`
    would with the same values and nothing else (these classes have no
    `__post_init__`; a kind that gains one is read by `from_map`).
    """
    layout = encode.PLAIN.get(cls)  # the log's own word on which kinds are plain
    if layout is None or "__post_init__" in vars(cls) or not hasattr(cls, "__slots__"):
        return None
    if any(t not in (int, str, tuple) for t in layout.types):
        return None     # a kind of the night's, with texts, flags or none: few, read the long way
    names = layout.fields
    lines, sets = [], []
    for i, (n, t) in enumerate(zip(names, layout.types, strict=True)):
        v = f"v{i}"
        if t is tuple:
            lines.append(f"    {v} = d[{n!r}]\n    if type({v}) is not list:\n        raise Other\n"
                         f"    for x in {v}:\n        if type(x) is not int:\n            raise Other\n"
                         f"    {v} = tuple({v})\n")
        else:
            lines.append(f"    {v} = d[{n!r}]\n    if type({v}) is not {t.__name__}:\n"
                         f"        raise Other\n")
        sets.append(f"    set{i}(e, {v})\n")
    # The map holds the kind and every field, and so nothing else, when its length is
    # theirs; a field it lacks raises KeyError, which the frame's reader also takes as Other.
    src = (f"def read(d):\n    if len(d) != {len(names) + 1}:\n        raise Other\n"
           + "".join(lines) + "    e = new(cls)\n" + "".join(sets) + "    return e\n")
    scope: dict[str, Any] = {"cls": cls, "new": object.__new__, "Other": Other}
    for i, n in enumerate(names):
        scope[f"set{i}"] = vars(cls)[n].__set__
    exec(compile(src, f"<reader of {cls.kind}>", "exec"), scope)  # our own source, from fields
    return scope["read"]


_READERS: dict[str, Reader] = {}
for _kind, _cls in ev.KINDS.items():
    _r = _reader(_cls)
    if _r is not None:
        _READERS[_kind] = _r


def events_of(maps: Sequence[Any]) -> tuple[ev.Event, ...]:
    """The events a frame's maps describe, in order; refused exactly as `from_map` refuses."""
    readers = _READERS
    try:
        return tuple([readers[d["kind"]](d) for d in maps])
    except (Other, KeyError, TypeError, IndexError):
        pass
    # Something in the frame is not the plain shape: each map the long way where it must be.
    out = []
    for d in maps:
        e = None
        if type(d) is dict and type(d.get("kind")) is str and d["kind"] in readers:
            try:
                e = readers[d["kind"]](d)
            except (Other, KeyError):
                e = None
        out.append(e if e is not None else ev.from_map(d))
    return tuple(out)
