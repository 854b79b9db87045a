"""The index's tables of basins and plans: `basins`, `basin_nights` and `intentions` (the
table of plans keeps its old name, as every reader of an index knows it).

`MindTables` folds them from the log's basins events (`BasinsSeeded`, `BasinsMoved`,
`KeywordsConsolidated`) and its `Planned` events, through the mind's own projection of
basins (kernel.mind.basins.BasinBook), so a weight, an entropy or a trajectory in SQL is the
one the villager's prompts were shown, never computed a second time here. A night's rows are
taken at the end of the tick its basins moved, after the night's keyword consolidations. A run
without basins or plans has the three tables, empty. A basins event the basins' laws refuse
(one no run of the kernel writes: an unknown rule, a label with no letter) is left out of
them, as the book could never have shown it; the `events` table still holds it. The index projection (kernel.store.index)
folds this beside its events, and a sweep's run (kernel.sweep.task) folds it on its own for
its `basin_nights` rows. This module owns the tables' shapes; it must not write the log or
decide anything about a basin or a plan.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from kernel import events as ev
from kernel.calendar import DAY, Calendar
from kernel.laws import basins as la
from kernel.mind.basins import BasinBook

BASINS_DDL = """CREATE TABLE basins (
    villager INTEGER NOT NULL, name VARCHAR NOT NULL, tick BIGINT NOT NULL, day INTEGER NOT NULL,
    slug VARCHAR NOT NULL, label VARCHAR NOT NULL, weight DOUBLE NOT NULL,
    keywords VARCHAR[] NOT NULL)"""

NIGHTS_DDL = """CREATE TABLE basin_nights (
    villager INTEGER NOT NULL, name VARCHAR NOT NULL, tick BIGINT NOT NULL, day INTEGER NOT NULL,
    entropy DOUBLE NOT NULL, trajectory VARCHAR NOT NULL, basins INTEGER NOT NULL,
    phase INTEGER NOT NULL)"""

PLANS_DDL = """CREATE TABLE intentions (
    villager INTEGER NOT NULL, name VARCHAR NOT NULL, tick BIGINT NOT NULL, day INTEGER NOT NULL,
    "index" INTEGER NOT NULL, act VARCHAR NOT NULL, whom INTEGER, whom_name VARCHAR, x INTEGER,
    y INTEGER)"""

NIGHT_COLUMNS = ("villager", "name", "tick", "day", "entropy", "trajectory", "basins", "phase")
"""A `basin_nights` row's columns, in order: what a sweep's row carries for each night."""

KINDS = frozenset({ev.BasinsSeeded, ev.BasinsMoved, ev.KeywordsConsolidated, ev.Planned})
"""The event kinds these tables are folded from; any other adds nothing."""


class MindTables:
    """The rows of `basins`, `basin_nights` and `intentions`, folded tick by tick.

    `basins`: one row a basin a villager holds after each night its basins moved (the night's
    tick, its day counted from 0, the basin's slug, label, weight and keywords). `basin_nights`:
    one row a villager a night its basins moved (normalised entropy, trajectory, how many
    basins, the phase count). `intentions`: one row an accepted plan (the night it was
    made at, the day it is for, from 0, its place in the plan, the act and what it names)."""

    def __init__(self, ticks_per_day: int = DAY):
        self.calendar = Calendar(ticks_per_day)
        self.book = BasinBook()
        self.start()

    def start(self) -> None:
        self.book.start()
        self.weights: list[tuple[int, int, int, str, str, float, tuple[str, ...]]] = []
        self.nights: list[tuple[int, int, int, float, str, int, int]] = []
        self.planned: list[tuple[int, ev.Planned]] = []

    def apply(self, tick: int, events: Sequence[ev.Event]) -> None:
        mine = [e for e in events if type(e) in KINDS]
        if not mine:
            return
        moved: set[int] = set()
        for e in mine:
            if type(e) is ev.Planned:
                self.planned.append((tick, e))
            elif self._folded(tick, e) and type(e) is ev.BasinsMoved:
                moved.add(e.villager)
        day = self.calendar.day_of(tick)
        for v in sorted(moved):
            s = self.book.states[v]
            r = self.book.readings[v][-1]
            self.weights.extend((v, tick, day, b.slug, b.label, b.weight, b.keywords)
                                for b in s.basins)
            self.nights.append((v, tick, day, r.entropy, r.trajectory, len(s.basins), s.phase))

    def _folded(self, tick: int, e: ev.Event) -> bool:
        """Fold one basins event into the book: False, and the book as it was, for one the
        basins' laws refuse."""
        try:
            self.book.apply(tick, (e,))
        except (la.LawError, KeyError):
            return False
        return True

    def night_rows(self, names: Mapping[int, str]) -> list[dict[str, Any]]:
        """Every `basin_nights` row as a mapping of its columns (a sweep row's list)."""
        return [dict(zip(NIGHT_COLUMNS, (v, _name(names, v), *rest), strict=True))
                for v, *rest in self.nights]

    def tables(self, names: Mapping[int, str]) -> dict[str, pa.Table]:
        """The three tables as Arrow, by name, villagers named by `names` (id -> name)."""
        basins = _night_table(self.weights, names, (
            ("slug", pa.string()), ("label", pa.string()), ("weight", pa.float64()),
            ("keywords", pa.list_(pa.string()))))
        nights = _night_table(self.nights, names, (
            ("entropy", pa.float64()), ("trajectory", pa.string()), ("basins", pa.int32()),
            ("phase", pa.int32())))
        return {"basins": basins, "basin_nights": nights,
                "intentions": _plan_rows(self.planned, names)}


def _name(names: Mapping[int, str], v: int | None) -> str | None:
    if v is None:
        return None
    return names.get(v, f"villager {v}")


def _night_table(rows: Sequence[tuple], names: Mapping[int, str],
                 rest: Sequence[tuple[str, pa.DataType]]) -> pa.Table:
    """A table of a villager's rows of a night, (villager, tick, day, ...): the villager, its
    name by `names`, the tick and the day, then the row's other values, each column of `rest`
    (its name and Arrow type) in turn."""
    columns = {
        "villager": pa.array([r[0] for r in rows], pa.int32()),
        "name": pa.array([_name(names, r[0]) for r in rows], pa.string()),
        "tick": pa.array([r[1] for r in rows], pa.int64()),
        "day": pa.array([r[2] for r in rows], pa.int32()),
    }
    for at, (column, kind) in enumerate(rest, start=3):
        columns[column] = pa.array([r[at] for r in rows], kind)
    return pa.table(columns)


def _plan_rows(rows: Sequence[tuple[int, ev.Planned]], names: Mapping[int, str]) -> pa.Table:
    return pa.table({
        "villager": pa.array([e.villager for _, e in rows], pa.int32()),
        "name": pa.array([_name(names, e.villager) for _, e in rows], pa.string()),
        "tick": pa.array([t for t, _ in rows], pa.int64()),
        "day": pa.array([e.day for _, e in rows], pa.int32()),
        "index": pa.array([e.index for _, e in rows], pa.int32()),
        "act": pa.array([e.act for _, e in rows], pa.string()),
        "whom": pa.array([e.whom for _, e in rows], pa.int32()),
        "whom_name": pa.array([_name(names, e.whom) for _, e in rows], pa.string()),
        "x": pa.array([e.x for _, e in rows], pa.int32()),
        "y": pa.array([e.y for _, e in rows], pa.int32()),
    })


DDL = {"basins": BASINS_DDL, "basin_nights": NIGHTS_DDL, "intentions": PLANS_DDL}
"""Each table's DDL, by name, in the order written."""
