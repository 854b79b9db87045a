"""The index's table of bonds: `bonds`, one row per ordered pair of villagers per day.

`BondTables` folds it through the mind's own bond book (kernel.mind.bonds.BondBook),
following the index's memory projection, so a bond in SQL is the one a talk prompt was
shown, never computed a second time here. A row is one villager's bond to another on one
day (from 0), from the pair's first passing to the log's last day, wherever the bond ended
the day other than 0 or something passed between them that day: `bond` as the day ended
(after what passed on it, before the night's fading) and `bond_at_start` as it began, both
as DOUBLE in -1..1 (thousandths / 1000), and the day's count of each passing (gave, got,
took, lost, pleas, said, heard: kernel.laws.bonds.PASSINGS). A run whose importance table
has no valence table, or in which nothing passed between villagers, has the table, empty.
The index projection (kernel.store.index) folds this beside its others. This module owns
the table's shape; it must not write the log or decide anything about a bond.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pyarrow as pa

from kernel import events as ev
from kernel.calendar import DAY
from kernel.laws import bonds as lb
from kernel.laws.felt import Valences
from kernel.mind.bonds import BondBook

BONDS_DDL = """CREATE TABLE bonds (
    villager INTEGER NOT NULL, name VARCHAR NOT NULL, other INTEGER NOT NULL,
    other_name VARCHAR NOT NULL, day INTEGER NOT NULL, bond DOUBLE NOT NULL,
    bond_at_start DOUBLE NOT NULL, """ + ", ".join(f"{n} INTEGER NOT NULL" for n in lb.NAMES) + ")"

COLUMNS = ("villager", "name", "other", "other_name", "day", "bond", "bond_at_start", *lb.NAMES)
"""A `bonds` row's columns, in order."""


class BondTables:
    """The rows of `bonds`, folded tick by tick from a memory projection applied before it;
    with no valence table, none."""

    def __init__(self, valences: Valences | None, ticks_per_day: int = DAY):
        self.book = None if valences is None else BondBook(valences, ticks_per_day)

    def follow(self, memory) -> BondTables:
        if self.book is not None:
            self.book.follow(memory)
        return self

    def start(self) -> None:
        if self.book is not None:
            self.book.start()

    def apply(self, tick: int, events: Sequence[ev.Event]) -> None:
        if self.book is not None:
            self.book.apply(tick, events)

    def tables(self, names: Mapping[int, str]) -> dict[str, pa.Table]:
        """`bonds` as Arrow, each villager named by `names` (id -> name)."""
        rows = self.book.days() if self.book is not None else ()

        def name(v: int) -> str:
            return names.get(v, f"villager {v}")

        cols = {
            "villager": pa.array([r.villager for r in rows], pa.int32()),
            "name": pa.array([name(r.villager) for r in rows], pa.string()),
            "other": pa.array([r.other for r in rows], pa.int32()),
            "other_name": pa.array([name(r.other) for r in rows], pa.string()),
            "day": pa.array([r.day for r in rows], pa.int32()),
            "bond": pa.array([r.end / lb.FULL for r in rows], pa.float64()),
            "bond_at_start": pa.array([r.start / lb.FULL for r in rows], pa.float64()),
        }
        for i, n in enumerate(lb.NAMES):
            cols[n] = pa.array([r.counts[i] for r in rows], pa.int32())
        return {"bonds": pa.table(cols)}


DDL = {"bonds": BONDS_DDL}
"""The table's DDL, by name."""
