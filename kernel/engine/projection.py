"""Projections of a log, and the one fold that builds them.

A projection is state derived from the log and from nothing else: it has
`start()` and `apply(tick, events)`, and the engine applies every tick it
appends to each of its projections, in order. `fold(log, projections)` does
the same from a log on disk, so a live run, a replay and an offline rebuild
derive their state by the same code. Perception and the memory streams are
`Memory`; the vectors rows were embedded with are `Vectors`, which need the
run's embedding answers (its recording, or the pinned embedder) because
the log holds only integers and text; the DuckDB index is a projection in
kernel.store. This module is the only caller of perception's fold; it must
not decide what a row says or weighs (kernel.laws does) or write the log.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from kernel import events as ev
from kernel.errors import VillageError
from kernel.laws.importance import Importance
from kernel.laws.memory import Memory
from kernel.laws.perception import Perception, perceive, start
from kernel.log import read_ticks


class Projection(Protocol):
    """State derived from the log: started empty, then applied tick by tick."""

    def start(self) -> None: ...

    def apply(self, tick: int, events: Sequence[ev.Event]) -> object: ...


class MemoryProjection:
    """Perception and every villager's memory stream: the rows the log folds to, in id order."""

    def __init__(self, rules: Importance):
        self.rules = rules
        self.start()

    def start(self) -> None:
        self.state: Perception = start(self.rules)
        self.rows: list[Memory] = []
        self.streams: dict[int, list[Memory]] = {}
        self.last_tick: int | None = None

    def apply(self, tick: int, events: Sequence[ev.Event]) -> tuple[Memory, ...]:
        self.state, got = perceive(self.state, tick, events)
        self.rows.extend(got)
        for m in got:
            self.streams.setdefault(m.villager, []).append(m)
        self.last_tick = tick
        return got

    def preview(self, tick: int, events: Sequence[ev.Event]) -> tuple[Memory, ...]:
        """The rows these events would give at `tick`, with the state left as it is."""
        return perceive(self.state, tick, events)[1]

    @property
    def next_id(self) -> int:
        return self.state.next_id

    def of(self, villager: int) -> tuple[Memory, ...]:
        return tuple(self.streams.get(villager, ()))

    def counts(self) -> dict[int, int]:
        return {v: len(rows) for v, rows in self.streams.items()}


Embedder = Callable[[Sequence[str]], Sequence[np.ndarray | None]]
"""A source of the run's embedding answers: texts in, one vector (or None: never embedded) each."""


class RecordedVectors:
    """The vectors a recording holds, by text: what a run's embedding calls answered."""

    def __init__(self, exemplars: str | os.PathLike):
        from kernel.oracle import exemplar
        doc = exemplar.load(exemplars)
        self.path = Path(exemplars)
        self.by_text: dict[str, np.ndarray] = {}
        for call in doc["calls"]:
            if call["kind"] != "embed":
                continue
            for text, vec in zip(call["texts"], exemplar.vectors(call), strict=True):
                self.by_text.setdefault(text, vec)

    def __call__(self, texts: Sequence[str]) -> list[np.ndarray | None]:
        return [self.by_text.get(t) for t in texts]


class VectorsProjection:
    """The vector of every row that was embedded, by row id.

    In a live run the reflect phase adds what the oracle answered (`add`).
    Folded from a log, the vectors come from `source`: the log alone cannot
    give them, and a fold without a source says so.
    """

    needs = "embeddings"

    def __init__(self, source: Embedder | None = None):
        self.source = source
        self._memory: MemoryProjection | None = None
        self.start()

    def start(self) -> None:
        self.by_id: dict[int, np.ndarray] = {}
        self._looked = 0                       # rows of `memory` already looked up

    def follow(self, memory: MemoryProjection) -> VectorsProjection:
        """Take each tick's new rows from `memory`, which must be applied before this one."""
        self._memory = memory
        return self

    def add(self, vectors: Mapping[int, np.ndarray]) -> None:
        self.by_id.update(vectors)

    def apply(self, tick: int, events: Sequence[ev.Event]) -> None:
        if self.source is None or self._memory is None:
            return
        fresh = self._memory.rows[self._looked:]
        self._looked = len(self._memory.rows)
        if fresh:
            for m, v in zip(fresh, self.source([m.text for m in fresh]), strict=True):
                if v is not None:
                    self.by_id[m.id] = v

    def vector(self, row: int) -> np.ndarray:
        try:
            return self.by_id[row]
        except KeyError:
            raise VillageError(f"memory {row} has no vector: the run never embedded it") from None


@dataclass(frozen=True, slots=True)
class Folded:
    """Where a fold ended: the head hash, the last tick folded, and how many ticks."""

    head_hex: str
    last_tick: int | None
    ticks: int


def fold(log: str | os.PathLike, projections: Iterable[Projection], *,
         until: int | None = None) -> Folded:
    """Start every projection and apply every tick frame of `log` to each, in order.

    `until` stops after that tick. A projection that needs a source the log
    cannot give (vectors) must have been given one.
    """
    ps = list(projections)
    for p in ps:
        if getattr(p, "needs", None) and getattr(p, "source", None) is None:
            raise VillageError(f"{type(p).__name__} needs the run's {p.needs}, which are not in "
                               f"the log: give it the run's recording or the pinned embedder")
        p.start()
    for p in ps:
        if isinstance(p, VectorsProjection) and p._memory is None:
            mem = next((q for q in ps if isinstance(q, MemoryProjection)), None)
            if mem is None:
                raise VillageError("VectorsProjection folds the rows of a MemoryProjection: "
                                   "put one before it")
            p.follow(mem)
    head, last, n = "", None, 0
    for t in read_ticks(log):
        if until is not None and t.tick > until:
            break
        for p in ps:
            p.apply(t.tick, t.events)
        head, last, n = t.chain.hex(), t.tick, n + 1
    if not head:
        from kernel.log import verify
        head = verify(log).head_hex
    return Folded(head_hex=head, last_tick=last, ticks=n)


@dataclass(frozen=True, slots=True)
class MemoryState:
    """Every row of a run in id order, perception after the last frame folded, and the head."""

    rows: tuple[Memory, ...]
    perception: Perception
    head_hex: str
    last_tick: int | None

    def of(self, villager: int) -> tuple[Memory, ...]:
        return tuple(m for m in self.rows if m.villager == villager)

    def up_to(self, tick: int) -> tuple[Memory, ...]:
        return tuple(m for m in self.rows if m.tick <= tick)

    @property
    def next_id(self) -> int:
        return self.perception.next_id


def memory_of(log: str | os.PathLike, *, rules: Importance | None = None,
              until: int | None = None) -> MemoryState:
    """Fold a log into memory (up to tick `until`, if given): the rows and where perception stands."""
    if rules is None:
        from kernel.engine.scenario import load_rules
        rules = load_rules()
    mem = MemoryProjection(rules)
    done = fold(log, [mem], until=until)
    return MemoryState(rows=tuple(mem.rows), perception=mem.state, head_hex=done.head_hex,
                       last_tick=done.last_tick)
