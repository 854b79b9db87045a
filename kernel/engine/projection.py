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

import gc
import os
from collections.abc import Callable, Collection, Iterable, Mapping, MutableMapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from typing import Protocol

import numpy as np

from kernel import events as ev
from kernel.errors import VillageError
from kernel.laws.importance import Importance
from kernel.laws.memory import Memory
from kernel.laws.perception import Perceiving, Perception, perceive, start
from kernel.log import read_ticks


class Projection(Protocol):
    """State derived from the log: started empty, then applied tick by tick."""

    def start(self) -> None: ...

    def apply(self, tick: int, events: Sequence[ev.Event]) -> object: ...


class Follower(Projection, Protocol):
    """An extra projection of a run that reads the rows the engine folds anyway.

    The engine calls `follow_engine(memory, felt)` with its own memory
    projection and its felt projection (None without felt memory) before
    the first tick, and applies both before the follower each tick; the
    follower then folds only what is its own."""

    def follow_engine(self, memory: MemoryProjection, felt: object | None) -> None: ...


class MemoryFollower:
    """A follower that reads the engine's memory projection (`memory`) and not its felt one,
    started when made; `grown` says whose rows the memory projection has folded since."""

    def __init__(self) -> None:
        self.memory: MemoryProjection | None = None
        self.start()

    def follow_engine(self, memory: MemoryProjection, felt: object | None) -> None:
        self.memory = memory

    def start(self) -> None:
        self._rows = 0

    def grown(self) -> list[int]:
        """The villagers, in order, with rows the memory projection folded since the last ask."""
        rows = self.memory.rows
        got = rows[self._rows:]
        self._rows = len(rows)
        return sorted({m.villager for m in got})


class _Grown:
    """One numpy column appended to in blocks: capacity doubles, so appending is linear."""

    __slots__ = ("data", "n")

    def __init__(self, dtype, width: int = 0, block: int = 4096):
        self.data = np.empty((block, width) if width else block, dtype=dtype)
        self.n = 0

    def extend(self, values: np.ndarray) -> None:
        k = len(values)
        if self.n + k > len(self.data):
            cap = max(2 * len(self.data), self.n + k)
            grown = np.empty((cap, *self.data.shape[1:]), dtype=self.data.dtype)
            grown[:self.n] = self.data[:self.n]
            self.data = grown
        self.data[self.n:self.n + k] = values
        self.n += k

    @property
    def view(self) -> np.ndarray:
        return self.data[:self.n]


@dataclass(frozen=True, slots=True)
class Columns:
    """Rows as columns, in the same order: ids, villagers, ticks and weights as numpy arrays.

    What a law that works on arrays (ranking, felt strength) reads instead of
    reading each row object's attributes. The arrays are views: read them,
    never write them.
    """

    ids: np.ndarray          # int64
    villagers: np.ndarray    # int64
    ticks: np.ndarray        # int64
    weights: np.ndarray      # int8, 1..10

    def __len__(self) -> int:
        return len(self.ids)


_COLUMNS = (("id", np.int64), ("villager", np.int64), ("tick", np.int64), ("weight", np.int8))


class MemoryProjection:
    """Perception and every villager's memory stream: the rows the log folds to, in id order.

    `rows` and `streams` hold the row objects, as the mind and the reports
    read them. `columns()` and `columns_of(villager)` hold the same rows as
    numpy columns, appended in blocks from the rows not yet columned when
    they are asked for, so a fold that never asks pays nothing for them;
    `streams` too is sorted out of `rows` when it is read.
    """

    def __init__(self, rules: Importance):
        self.rules = rules
        self.start()

    def start(self) -> None:
        self.state: Perception = start(self.rules)
        self.rows: list[Memory] = []
        self._streams: dict[int, list[Memory]] = {}
        self._streamed = 0                                   # rows sorted into `_streams`
        self.last_tick: int | None = None
        self._cols = [_Grown(t) for _, t in _COLUMNS]
        self._positions: dict[int, list[np.ndarray]] = {}   # villager -> blocks of row positions
        self._placed = 0                                     # rows whose positions are known

    def apply(self, tick: int, events: Sequence[ev.Event]) -> tuple[Memory, ...]:
        p = self.perceiving(tick)
        p.add(tuple(events))
        return self.take(tick, p)

    def perceiving(self, tick: int) -> Perceiving:
        """The frame of `tick` to perceive in parts, from the state as it is (kernel.engine.view
        perceives a tick's events once, as its phases add them)."""
        return Perceiving(self.state, tick)

    def take(self, tick: int, p: Perceiving) -> tuple[Memory, ...]:
        """Fold the frame `p` perceived (every event of tick `tick`, each once) as `apply` folds it."""
        self.state, got = p.after(), p.rows
        if got:
            self.rows.extend(got)
        self.last_tick = tick
        return got

    @property
    def streams(self) -> dict[int, list[Memory]]:
        """Every villager's rows, in id order, by villager: read it, never write it."""
        rows, streams = self.rows, self._streams
        if self._streamed < len(rows):
            for m in rows[self._streamed:]:
                s = streams.get(m.villager)
                if s is None:
                    s = streams[m.villager] = []
                s.append(m)
            self._streamed = len(rows)
        return streams

    def preview(self, tick: int, events: Sequence[ev.Event]) -> tuple[Memory, ...]:
        """The rows these events would give at `tick`, with the state left as it is."""
        return perceive(self.state, tick, events)[1]

    def looking(self, tick: int, events: Sequence[ev.Event]) -> tuple[Perception, tuple[Memory, ...]]:
        """`preview`, with the perception these events would leave (who has whom in sight)."""
        return perceive(self.state, tick, events)

    @property
    def next_id(self) -> int:
        return self.state.next_id

    def of(self, villager: int) -> tuple[Memory, ...]:
        return tuple(self.streams.get(villager, ()))

    def counts(self) -> dict[int, int]:
        return {v: len(rows) for v, rows in self.streams.items()}

    def _catch_up(self) -> None:
        done = self._cols[0].n
        fresh = self.rows[done:]
        if not fresh:
            return
        k = len(fresh)
        for (name, dtype), col in zip(_COLUMNS, self._cols, strict=True):
            at = itemgetter(Memory._fields.index(name))  # a row is a typed tuple of its columns
            col.extend(np.fromiter(map(at, fresh), dtype=dtype, count=k))

    def _place(self) -> None:
        """Each villager's positions among the columned rows not yet placed, in row order:
        worked out only when a villager's columns are asked for (an index never asks)."""
        self._catch_up()
        done, n = self._placed, self._cols[0].n
        if done == n:
            return
        who = self._cols[1].view[done:]
        order = np.argsort(who, kind="stable")
        vs, starts = np.unique(who[order], return_index=True)
        ends = [*starts[1:].tolist(), n - done]
        for v, a, b in zip(vs.tolist(), starts.tolist(), ends, strict=True):
            self._positions.setdefault(v, []).append(order[a:b] + done)
        self._placed = n

    def columns(self) -> Columns:
        """Every row so far as columns, in id order."""
        self._catch_up()
        return Columns(*(c.view for c in self._cols))

    def columns_of(self, villager: int) -> Columns:
        """`villager`'s stream as columns, in its order (the order of `of(villager)`)."""
        self._place()
        blocks = self._positions.get(villager)
        if not blocks:
            at = np.empty(0, dtype=np.int64)
        else:
            if len(blocks) > 1:
                blocks[:] = [np.concatenate(blocks)]
            at = blocks[0]
        return Columns(*(c.view[at] for c in self._cols))


Embedder = Callable[[Sequence[str]], Sequence[np.ndarray | None]]
"""A source of the run's embedding answers: texts in, one vector (or None: never embedded) each."""


class RecordedVectors:
    """The vectors a recording holds, by text: what a run's embedding calls answered (the
    first vector a text was given), leaving out the calls whose purpose is in `leaving_out`
    (an interview's, recorded after the run's)."""

    def __init__(self, exemplars: str | os.PathLike, *, leaving_out: Collection[str] = ()):
        from kernel.oracle import exemplar
        doc = exemplar.load(exemplars)
        self.path = Path(exemplars)
        self.by_text: dict[str, np.ndarray] = {}
        for call in doc["calls"]:
            if call["kind"] != "embed" or call["purpose"] in leaving_out:
                continue
            for text, vec in zip(call["texts"], exemplar.vectors(call), strict=True):
                self.by_text.setdefault(text, vec)

    def __call__(self, texts: Sequence[str]) -> list[np.ndarray | None]:
        return [self.by_text.get(t) for t in texts]


class VectorMatrix(MutableMapping):
    """Vectors by row id, held as one float32 matrix appended in blocks.

    A mapping (`by_id[row]`, `row in by_id`) for the code that reads one
    vector at a time, and `matrix` / `ids` / `rows_of(ids)` for code that
    reads them all at once. A vector is kept bit for bit: one that is not a
    float32 row of the matrix's width is held aside, as it came.
    """

    def __init__(self) -> None:
        self._mat: _Grown | None = None
        self._ids = _Grown(np.int64)
        self._at: dict[int, int] = {}            # row id -> matrix row
        self._aside: dict[int, np.ndarray] = {}

    def __getitem__(self, row: int) -> np.ndarray:
        at = self._at.get(row)
        if at is not None:
            return self._mat.data[at]  # type: ignore[union-attr]
        return self._aside[row]

    def __setitem__(self, row: int, v: np.ndarray) -> None:
        v = np.asarray(v)
        self._at.pop(row, None)
        self._aside.pop(row, None)
        if v.dtype != np.float32 or v.ndim != 1 or (self._mat is not None
                                                    and v.shape[0] != self._mat.data.shape[1]):
            self._aside[row] = v
            return
        if self._mat is None:
            self._mat = _Grown(np.float32, width=v.shape[0], block=1024)
        self._at[row] = self._mat.n
        self._mat.extend(v[None, :])
        self._ids.extend(np.array([row], dtype=np.int64))

    def update(self, other=(), /, **kw) -> None:  # one block, not one row at a time
        items = list(other.items() if isinstance(other, Mapping) else other) + list(kw.items())
        plain = [(r, v) for r, v in items
                 if isinstance(v, np.ndarray) and v.dtype == np.float32 and v.ndim == 1
                 and r not in self._at and r not in self._aside
                 and (self._mat is None or v.shape[0] == self._mat.data.shape[1])]
        width = {v.shape[0] for _, v in plain}
        if len(plain) < 2 or len(width) != 1 or len({r for r, _ in plain}) != len(plain):
            for r, v in items:
                self[r] = v
            return
        if self._mat is None:
            self._mat = _Grown(np.float32, width=width.pop(), block=1024)
        base = self._mat.n
        self._mat.extend(np.stack([v for _, v in plain]))
        self._ids.extend(np.fromiter((r for r, _ in plain), dtype=np.int64, count=len(plain)))
        for i, (r, _) in enumerate(plain):
            self._at[r] = base + i
        taken = {r for r, _ in plain}
        for r, v in items:
            if r not in taken:
                self[r] = v

    def __delitem__(self, row: int) -> None:
        if self._at.pop(row, None) is None:
            del self._aside[row]

    def __iter__(self):
        yield from self._at
        yield from self._aside

    def __len__(self) -> int:
        return len(self._at) + len(self._aside)

    def __contains__(self, row: object) -> bool:
        return row in self._at or row in self._aside

    @property
    def matrix(self) -> np.ndarray:
        """Every float32 vector, one row each, in the order they came (rows of `ids`)."""
        if self._mat is None:
            return np.zeros((0, 0), dtype=np.float32)
        return self._mat.view

    @property
    def ids(self) -> np.ndarray:
        """The row id of each row of `matrix` (a replaced vector's old row keeps its id)."""
        return self._ids.view

    def rows_of(self, ids: Sequence[int]) -> np.ndarray:
        """The matrix rows holding these ids' vectors, in that order; KeyError for one it lacks."""
        at = self._at
        return np.fromiter((at[i] for i in ids), dtype=np.int64, count=len(ids))


class VectorsProjection:
    """The vector of every row that was embedded, by row id (`by_id`, a `VectorMatrix`).

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
        self.by_id: VectorMatrix = VectorMatrix()
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
            got = {m.id: v for m, v in zip(fresh, self.source([m.text for m in fresh]), strict=True)
                   if v is not None}
            self.by_id.update(got)

    @property
    def matrix(self) -> np.ndarray:
        return self.by_id.matrix

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


@contextmanager
def _collector_paused():
    """The cyclic garbage collector off for a fold, and back as it was after.

    A fold makes rows that live to its end and hold no cycles; the collector
    walks every one of them again at each of its passes, which cost a long
    fold a fifth of its time. Reference counting still frees what dies.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


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
    with _collector_paused():
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
