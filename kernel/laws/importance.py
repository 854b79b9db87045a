"""Importance: the integer weight of a memory row, from the table in configs/importance.json.

A row weighs its base by (kind, event), plus the first-of-its-kind bonus
when it is the first row of that kind and event in a villager's life, plus
the highest grams band its grams reach, clamped to 1..10. A thought is
weighed on the same table (the `thought`/`reflection` row) with no band,
because no grams move in one. This module owns the table's value and that
arithmetic; it takes the table as a value (the edge reads the file) and
must not read files, the log or a clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kernel.laws._errors import LawError, integer
from kernel.laws.memory import ThoughtWeight

LOWEST, HIGHEST = 1, 10


@dataclass(frozen=True, slots=True)
class Importance:
    """The importance table, and how a memory groups what it perceives.

    `base` maps (kind, event) to a base weight; `bands` are (milligrams at
    least, add) in ascending order; `meal_run` and `journey_run` are the
    most mouthfuls and steps one row holds.
    """

    base: tuple[tuple[tuple[str, str], int], ...]
    first_bonus: int
    bands: tuple[tuple[int, int], ...]
    meal_run: int = 50
    journey_run: int = 12
    _by: dict = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        # a lookup built once, because every row of a run is weighed through it
        object.__setattr__(self, "_by", dict(self.base))
        integer("first_bonus", self.first_bonus, at_least=0)
        integer("meal_run", self.meal_run, at_least=1)
        integer("journey_run", self.journey_run, at_least=1)
        for (kind, event), b in self.base:
            integer(f"base[{kind}][{event}]", b, at_least=LOWEST)
        for at, add in self.bands:
            integer("bands' milligrams", at, at_least=0)
            integer("bands' add", add, at_least=0)
        if list(self.bands) != sorted(self.bands):
            raise LawError(f"Expected grams bands in ascending order but got bands={self.bands!r}")

    @classmethod
    def from_value(cls, value: Mapping) -> Importance:
        """The table from configs/importance.json's value (grams there, milligrams here)."""
        try:
            base = tuple(sorted(((kind, event), int(b))
                                for kind, row in value["base"].items()
                                for event, b in row.items()))
            bands = tuple(sorted((int(b["grams_at_least"]) * 1000, int(b["add"]))
                                 for b in value["grams_bands"]))
            return cls(base=base, first_bonus=int(value["first_bonus"]), bands=bands,
                       meal_run=int(value["meal_run_mouthfuls"]),
                       journey_run=int(value["journey_run_steps"]))
        except (KeyError, TypeError, AttributeError) as e:
            raise LawError(f"Expected an importance table shaped like configs/importance.json "
                           f"but got value={value!r} (missing or wrong: {e})") from None

    def base_of(self, kind: str, event: str) -> int:
        b = self._by.get((kind, event))
        if b is not None:
            return b
        raise LawError(f"Expected a (kind, event) the importance table has but got "
                       f"kind={kind!r}, event={event!r}")

    def band(self, milligrams: int) -> int:
        """The add of the highest band `milligrams` reaches; 0 below the lowest."""
        integer("milligrams", milligrams, at_least=0)
        add = 0
        for at, a in self.bands:
            if milligrams >= at:
                add = a
        return add

    def weigh(self, kind: str, event: str, *, first: bool, milligrams: int = 0) -> int:
        """A row's weight: base + first bonus + grams band, clamped to 1..10."""
        raw = self.base_of(kind, event) + (self.first_bonus if first else 0) + self.band(milligrams)
        return max(LOWEST, min(HIGHEST, raw))

    def thought(self) -> ThoughtWeight:
        """The table's row for a reflection, as the reflection laws take it."""
        return ThoughtWeight(base=self.base_of("thought", "reflection"), first_bonus=self.first_bonus)
