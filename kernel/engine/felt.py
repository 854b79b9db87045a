"""The felt projection: the felt book of every row, following the log like the memory streams.

This module owns the projection that keeps a `kernel.mind.felt.FeltBook`
in step with a run: each row a `MemoryProjection` (applied before it) has
given is born, and each frame's felt events are folded, at the frame's
tick. It also reads a scenario's valence table, and its villagers'
temperaments from the world config, to make one. The book's rules (what a
row is born with, what each felt event changes) are the mind's
(kernel.mind.felt); this module must not change them, write the log or
call a model.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from kernel import config
from kernel import events as ev
from kernel.engine import scenario as msc
from kernel.engine.projection import MemoryProjection
from kernel.laws import felt as lf
from kernel.mind.felt import FeltBook, FeltRow, bent, followed
from kernel.world.config import Temperament, WorldConfig


class FeltProjection(FeltBook):
    """Every row's felt state, by id, following a `MemoryProjection` applied before it."""

    def __init__(self, valences: lf.Valences, ticks_per_day: int, laws: lf.Felt = lf.LAWS, *,
                 temperaments: Mapping[int, Temperament] | None = None):
        super().__init__(valences, ticks_per_day, laws, temperaments=temperaments)
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
        mem = followed(self._memory, "the felt projection")
        n = len(mem)
        if self._looked < n:
            # `born`, inlined: every row of a run passes through here once
            rows, by_v, table = self.rows, self.by_villager, self.valences._by
            temper = self.temperaments
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
                t = temper.get(v) if temper else None
                if t is None:
                    r = FeltRow(m.id, v, m.tick, kind, m.weight * 100, val)
                else:
                    val, intensity = bent(t, val, m.weight * 100)
                    r = FeltRow(m.id, v, m.tick, kind, intensity, val)
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


def temperaments_of(world: WorldConfig) -> dict[int, Temperament]:
    """The world config's villagers' temperaments, by id, of those whose is not neutral."""
    return {p.id: p.temperament for p in world.people if not p.temperament.neutral}


def felt_of(sc) -> FeltProjection | None:
    """A felt projection for a scenario whose importance table has valences, its villagers
    born with their temperaments; else None."""
    if sc.valences is None:
        return None
    return FeltProjection(sc.valences, sc.world.ticks_per_day,
                          temperaments=temperaments_of(sc.world))
