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

from kernel.laws._errors import LawError, integer, tick

KINDS = frozenset({"saw", "did", "heard", "thought"})
"""What a row can be: the world writes the first three, a reflection the last."""


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


@dataclass(frozen=True, slots=True)
class Memory:
    """One row of a villager's stream.

    `id` is dense and global to the run; `about` and `drawn_from` are sorted
    tuples of ids, each once; only a thought is drawn from other rows.
    """

    id: int
    villager: int
    tick: int
    kind: str
    event: str
    text: str
    weight: int
    about: tuple[int, ...]
    drawn_from: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        integer("id", self.id, at_least=0)
        integer("villager", self.villager)
        tick("tick", self.tick)
        if self.kind not in KINDS:
            raise LawError(f"Expected a kind among {sorted(KINDS)} but got kind={self.kind!r}")
        if not isinstance(self.event, str) or not self.event:
            raise LawError(f"Expected an event name but got event={self.event!r}")
        if not isinstance(self.text, str):
            raise LawError(f"Expected text as a string but got text={self.text!r}")
        integer("weight", self.weight)
        if not 1 <= self.weight <= 10:
            raise LawError(f"Expected a weight in 1..10 but got weight={self.weight!r}")
        # frozen: the normalised tuples are written once, here, and never again
        object.__setattr__(self, "about", _ascending("about", self.about))
        object.__setattr__(self, "drawn_from", _ascending("drawn_from", self.drawn_from))
        if self.drawn_from and self.kind != "thought":
            raise LawError(
                f"Expected drawn_from only on a thought but got kind={self.kind!r} "
                f"with drawn_from={self.drawn_from!r}"
            )

    @property
    def is_thought(self) -> bool:
        return self.kind == "thought"

    @classmethod
    def trusted(cls, id: int, villager: int, tick: int, kind: str, event: str, text: str,
                weight: int, about: tuple[int, ...], drawn_from: tuple[int, ...] = ()) -> Memory:
        """A row made with no checks, for code that builds rows it has already made right.

        Perception makes every world row of a run (a million for a long one), and
        checking each column of each was most of what the fold cost. The caller
        answers for what `__post_init__` would check: integer columns, a kind in
        KINDS, a weight in 1..10, `about` and `drawn_from` as ascending tuples.
        Anything from outside (a thought event, a test) goes through `Memory(...)`.
        """
        m = _new(cls)
        _set_id(m, id)
        _set_villager(m, villager)
        _set_tick(m, tick)
        _set_kind(m, kind)
        _set_event(m, event)
        _set_text(m, text)
        _set_weight(m, weight)
        _set_about(m, about)
        _set_drawn_from(m, drawn_from)
        return m

    @classmethod
    def trusted_alike(cls, first_id: int, villagers: list[int], weights: list[int], tick: int,
                      kind: str, event: str, text: str, about: tuple[int, ...]) -> list[Memory]:
        """`trusted` rows, one a villager, that differ only in id (from `first_id` on),
        villager and weight: what everyone who saw one event remembers of it."""
        out = []
        append = out.append
        i = first_id
        for v, w in zip(villagers, weights, strict=True):
            m = _new(cls)
            _set_id(m, i)
            _set_villager(m, v)
            _set_tick(m, tick)
            _set_kind(m, kind)
            _set_event(m, event)
            _set_text(m, text)
            _set_weight(m, w)
            _set_about(m, about)
            _set_drawn_from(m, ())
            append(m)
            i += 1
        return out


# The slots' own setters: a frozen dataclass refuses `m.id = ...`, and going
# through object.__setattr__ by name costs half again as much.
_new = object.__new__
(_set_id, _set_villager, _set_tick, _set_kind, _set_event, _set_text, _set_weight, _set_about,
 _set_drawn_from) = (Memory.__dict__[f].__set__ for f in (
     "id", "villager", "tick", "kind", "event", "text", "weight", "about", "drawn_from"))


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
