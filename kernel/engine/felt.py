"""The felt projection: the felt book of every row, following the log like the memory streams.

This module owns the projection that keeps a `kernel.mind.felt.FeltBook`
in step with a run: each row a `MemoryProjection` (applied before it) has
given is born, and each frame's felt events are folded, at the frame's
tick. It also reads a scenario's valence table to make one. The book's
rules (what a row is born with, what each felt event changes) are the
mind's (kernel.mind.felt); this module must not change them, write the log
or call a model.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from kernel import config
from kernel import events as ev
from kernel.engine import scenario as msc
from kernel.engine.projection import MemoryProjection
from kernel.errors import VillageError
from kernel.laws import felt as lf
from kernel.mind.felt import FeltBook, FeltRow


class FeltProjection(FeltBook):
    """Every row's felt state, by id, following a `MemoryProjection` applied before it."""

    def __init__(self, valences: lf.Valences, ticks_per_day: int, laws: lf.Felt = lf.LAWS):
        super().__init__(valences, ticks_per_day, laws)
        self._memory: MemoryProjection | None = None
        self.start()

    def start(self) -> None:
        self.rows = {}
        self.by_villager = {}
        self._looked = 0
        self.last_tick: int | None = None

    def follow(self, memory: MemoryProjection) -> FeltProjection:
        self._memory = memory
        return self

    def apply(self, tick: int, events: Sequence[ev.Event]) -> None:
        if self._memory is None:
            raise VillageError("the felt projection folds the rows of a MemoryProjection: "
                               "follow one applied before it")
        mem = self._memory.rows
        n = len(mem)
        if self._looked < n:
            # `born`, inlined: every row of a run passes through here once
            rows, by_v, table = self.rows, self.by_villager, self.valences._by
            for i in range(self._looked, n):
                m = mem[i]
                kind, v = m.kind, m.villager
                if kind == "thought":
                    val = lf.mean_valence(rows[c].valence for c in m.drawn_from)
                else:
                    role = "actor" if kind == "did" else "target" if v in m.about else "witness"
                    val = table.get((kind, m.event, role))
                    if val is None:
                        val = self.valences.of(kind, m.event, role)   # refused, with the reason
                r = FeltRow(m.id, v, m.tick, kind, m.weight * 100, val)
                rows[m.id] = r
                got = by_v.get(v)
                if got is None:
                    by_v[v] = [r]
                else:
                    got.append(r)
            self._looked = n
        self.felt(tick, events)
        self.last_tick = tick


def valences_of(importance: str | os.PathLike = "importance") -> lf.Valences | None:
    """The valence table of an importance file, or None where it has none. A scenario's is
    `Scenario.valences`, read when it was loaded."""
    return msc.valences(config.load(importance, schema="importance"))


def felt_of(sc) -> FeltProjection | None:
    """A felt projection for a scenario whose importance table has valences; else None."""
    return None if sc.valences is None else FeltProjection(sc.valences, sc.world.ticks_per_day)
