"""The memory row every law reads, and the thought row's place on the importance table.

This module owns the `Memory` value (one row of a villager's stream, as the
rest of the kernel derives it from the log) and `ThoughtWeight`. It checks a
row's own columns when the row is made and nothing beyond them: whether a
row belongs in a stream is the business of the code that folds the log, and
this module must not import it, nor read files, clocks or models.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

from kernel.laws._errors import LawError, integer
from kernel.laws._errors import tick as _tick

KINDS = frozenset({"saw", "did", "heard", "thought", "given"})
"""What a row can be: the world writes saw, did and heard, a reflection a thought, and a
scenario gives a villager rows of its own kind (a backstory, a piece of news) at its founding."""

PROTECTED = frozenset({"thought", "given"})
"""The kinds the night never forgets or absorbs (EmoStack row 113): thoughts, and given rows."""


def _ascending(name: str, value: object) -> tuple[int, ...]:
    if isinstance(value, str | bytes) or not hasattr(value, "__iter__"):
        raise LawError(f"Expected a tuple of ids but got {name}={value!r}")
    ids = tuple(value)
    for i in ids:
        if isinstance(i, bool) or not isinstance(i, int):
            raise LawError(f"Expected a tuple of integer ids but got {name}={value!r}")
    # a set written as a sorted tuple has one spelling, so two equal rows hash alike
    if any(a >= b for a, b in zip(ids, ids[1:], strict=False)):
        raise LawError(f"Expected ids in ascending order, each once, but got {name}={value!r}")
    return ids


class _Fields(NamedTuple):
    id: int
    villager: int
    tick: int
    kind: str
    event: str
    text: str
    weight: int
    about: tuple[int, ...]
    drawn_from: tuple[int, ...] = ()


class Memory(_Fields):
    """One row of a villager's stream.

    `id` is dense and global to the run; `about` and `drawn_from` are sorted
    tuples of ids, each once; only a thought is drawn from other rows.

    A row is a typed tuple of its columns, in the order above: immutable,
    read by name, made in one step (a long run makes millions, and a frozen
    object's nine stores were most of what making one cost), and a column of
    many rows is one position of each. It is still a row, not a tuple: it
    equals only a row, and rows have no order of their own (sort them by a
    key). `Memory(...)` checks every column; `trusted` and `trusted_alike`
    are for code that made them right itself.
    """

    __slots__ = ()

    def __new__(cls, id: int, villager: int, tick: int, kind: str, event: str, text: str,
                weight: int, about: tuple[int, ...], drawn_from: tuple[int, ...] = ()) -> Memory:
        integer("id", id, at_least=0)
        integer("villager", villager)
        _tick("tick", tick)
        if kind not in KINDS:
            raise LawError(f"Expected a kind among {sorted(KINDS)} but got kind={kind!r}")
        if not isinstance(event, str) or not event:
            raise LawError(f"Expected an event name but got event={event!r}")
        if not isinstance(text, str):
            raise LawError(f"Expected text as a string but got text={text!r}")
        integer("weight", weight)
        if not 1 <= weight <= 10:
            raise LawError(f"Expected a weight in 1..10 but got weight={weight!r}")
        about = _ascending("about", about)
        drawn_from = _ascending("drawn_from", drawn_from)
        if drawn_from and kind != "thought":
            raise LawError(
                f"Expected drawn_from only on a thought but got kind={kind!r} "
                f"with drawn_from={drawn_from!r}"
            )
        return _new(cls, (id, villager, tick, kind, event, text, weight, about, drawn_from))

    def __eq__(self, other: object) -> bool:
        # a row equals a row, never a bare tuple that happens to hold the same values
        return type(other) is type(self) and tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = tuple.__hash__

    def _unordered(self, other: object):
        return NotImplemented

    __lt__ = __le__ = __gt__ = __ge__ = _unordered

    def _replace(self, **changes) -> Memory:
        """A copy with some columns changed, checked as `Memory(...)` checks."""
        return Memory(**{**self._asdict(), **changes})

    @property
    def is_thought(self) -> bool:
        return self.kind == "thought"

    @property
    def is_given(self) -> bool:
        return self.kind == "given"

    @classmethod
    def trusted(cls, id: int, villager: int, tick: int, kind: str, event: str, text: str,
                weight: int, about: tuple[int, ...], drawn_from: tuple[int, ...] = ()) -> Memory:
        """A row made with no checks, for code that builds rows it has already made right.

        Perception makes every world row of a run (a million for a long one), and
        checking each column of each was most of what the fold cost. The caller
        answers for what `Memory(...)` would check: integer columns, a kind in
        KINDS, a weight in 1..10, `about` and `drawn_from` as ascending tuples.
        Anything from outside (a thought event, a test) goes through `Memory(...)`.
        """
        return _new(cls, (id, villager, tick, kind, event, text, weight, about, drawn_from))

    @classmethod
    def trusted_alike(cls, first_id: int, villagers: list[int], weights: list[int], tick: int,
                      kind: str, event: str, text: str, about: tuple[int, ...]) -> list[Memory]:
        """`trusted` rows, one a villager, that differ only in id (from `first_id` on),
        villager and weight: what everyone who saw one event remembers of it."""
        return [_new(cls, (first_id + k, v, tick, kind, event, text, w, about, ()))
                for k, (v, w) in enumerate(zip(villagers, weights, strict=True))]


_new = tuple.__new__


@dataclass(frozen=True, slots=True)
class ThoughtWeight:
    """The importance table's row for a thought: its base, and the first-of-its-kind bonus."""

    base: int = 4
    first_bonus: int = 2

    def __post_init__(self) -> None:
        integer("base", self.base)
        integer("first_bonus", self.first_bonus)

    @classmethod
    def of(cls, table: ThoughtWeight | Mapping[str, int]) -> ThoughtWeight:
        """Accept the value itself or a mapping with keys "base" and "first_bonus"."""
        if isinstance(table, ThoughtWeight):
            return table
        if isinstance(table, Mapping):
            missing = {"base", "first_bonus"} - set(table)
            if missing:
                raise LawError(
                    f"Expected a table with keys 'base' and 'first_bonus' but got table={table!r}"
                )
            return cls(base=table["base"], first_bonus=table["first_bonus"])
        raise LawError(f"Expected a ThoughtWeight or a mapping but got table={table!r}")

    def weigh(self, first: bool) -> int:
        """The weight of a thought, clamped to the table's 1..10."""
        raw = self.base + (self.first_bonus if first else 0)
        return max(1, min(10, raw))
