"""The felt book: every row's felt columns, and the two folds that change them.

A row is born when perception gives it: intensity = weight / 10, a valence
from the importance table's `valence` (by kind, event and the row's role;
a thought's is the mean of its cited rows'), stored = intensity, last felt =
its tick. A villager with a temperament (EmoStack row 60) is born with both
bent by it, once, at birth (`laws.felt.bent_valence`, `bent_strength`); one
with none is born as the numbers say. After that only events change it: `refelt` and `recurred` write a
new stored strength and make now its last felt, `absorbed` gives an anchor
its combined strength and its members an `absorbed_into`, `forgotten` a
`forgotten_at`. Felt now is never stored: it is `laws.felt.felt_now` of
those columns at the tick asked about. Strengths are integer thousandths,
as the events carry them.

This module owns that state and the questions the mind asks of it (who is
living, why a row cannot be cited, what a row is felt at now); the round
and the night change a scratch copy of it as they go, and the engine's
projection (kernel.engine.felt) is a book that follows the log, as the bond book does
(`followed` gives such a book its memory projection's rows). It takes
the numbers an event carries as they are, because the log is the truth;
the code that writes those events computes them with kernel.laws.felt. It
must not import the engine, write the log, call a model or decide when a
night falls.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kernel import events as ev
from kernel.errors import VillageError
from kernel.laws import felt as lf
from kernel.laws.memory import Memory

if TYPE_CHECKING:
    from kernel.world.config import Temperament


class FeltRow:
    """One row's felt columns; mutable inside a book, copied out as `FeltState`."""

    __slots__ = ("id", "villager", "tick", "kind", "intensity", "valence", "stored", "last_felt",
                 "forgotten_at", "absorbed_into", "absorbed_at", "refelt")

    def __init__(self, id: int, villager: int, tick: int, kind: str, intensity: int,
                 valence: int):
        self.id = id
        self.villager = villager
        self.tick = tick
        self.kind = kind
        self.intensity = intensity
        self.valence = valence
        self.stored = intensity
        self.last_felt = tick
        self.forgotten_at: int | None = None
        self.absorbed_into: int | None = None
        self.absorbed_at: int | None = None
        self.refelt = 0

    @property
    def living(self) -> bool:
        return self.forgotten_at is None and self.absorbed_into is None

    @property
    def is_thought(self) -> bool:
        return self.kind == "thought"

    @property
    def state(self) -> str:
        if self.forgotten_at is not None:
            return "forgotten"
        if self.absorbed_into is not None:
            return "absorbed"
        return "living"

    def frozen(self) -> FeltState:
        return FeltState(*(getattr(self, k) for k in FeltRow.__slots__))


@dataclass(frozen=True, slots=True)
class FeltState:
    """A row's felt columns at one moment, as a value to compare and show."""

    id: int
    villager: int
    tick: int
    kind: str
    intensity: int
    valence: int
    stored: int
    last_felt: int
    forgotten_at: int | None
    absorbed_into: int | None
    absorbed_at: int | None
    refelt: int


class FeltBook:
    """Felt rows by id and by villager, and the two folds that change them: a row born, and
    the felt events of a frame. The projection is one; a round's scratch copy is another."""

    def __init__(self, valences: lf.Valences, ticks_per_day: int, laws: lf.Felt = lf.LAWS, *,
                 temperaments: Mapping[int, Temperament] | None = None):
        if not isinstance(valences, lf.Valences):
            raise VillageError(f"felt memory needs the valence table, not {valences!r}")
        self.valences = valences
        self.ticks_per_day = ticks_per_day
        self.laws = laws
        self.temperaments = _temperaments(temperaments)
        self.rows: dict[int, FeltRow] = {}
        self.by_villager: dict[int, list[FeltRow]] = {}

    def born(self, m: Memory) -> FeltRow:
        rows = self.rows
        if m.kind == "thought":
            val = lf.mean_valence(rows[c].valence for c in m.drawn_from)
        else:
            val = self.valences.of_row(m.villager, m.kind, m.event, m.about)
        intensity = m.weight * 100
        t = self.temperaments.get(m.villager)
        if t is not None:
            val, intensity = bent(t, val, intensity)
        r = FeltRow(m.id, m.villager, m.tick, m.kind, intensity, val)
        rows[m.id] = r
        self.by_villager.setdefault(m.villager, []).append(r)
        return r

    def felt(self, tick: int, events: Iterable[ev.Event]) -> None:
        """Fold the felt events of a frame at `tick` (other kinds are passed over)."""
        ev.by_kind(_FOLDS, self, tick, events)

    def _refelt(self, tick: int, e: ev.Refelt | ev.Recurred) -> None:
        r = self._row(e.id, e)
        r.stored = e.stored
        r.last_felt = tick
        r.refelt += 1

    def _forgotten(self, tick: int, e: ev.Forgotten) -> None:
        self._row(e.id, e).forgotten_at = tick

    def _absorbed(self, tick: int, e: ev.Absorbed) -> None:
        self._row(e.anchor, e).stored = e.stored
        for a in e.absorbed:
            r = self._row(a, e)
            r.absorbed_into = e.anchor
            r.absorbed_at = tick

    def _row(self, i: int, e: ev.Event) -> FeltRow:
        r = self.rows.get(i)
        if r is None:
            raise VillageError(f"a {e.kind} event names memory {i}, which no frame has given")
        return r

    def scratch(self, villagers: Iterable[int], tick: int, seen: Iterable[Memory] = (),
                events: Iterable[ev.Event] = ()) -> FeltBook:
        """A copy of these villagers' rows, with `seen` (rows of this tick, thoughts
        included, in id order) born and the felt `events` folded at `tick`: what a
        phase reads before its frame is appended. The copy changes nothing here."""
        book = FeltBook(self.valences, self.ticks_per_day, self.laws,
                        temperaments=self.temperaments)
        keep = set(villagers)
        for v in sorted(keep):
            for r in self.by_villager.get(v, ()):
                c = copy.copy(r)
                book.rows[c.id] = c
                book.by_villager.setdefault(v, []).append(c)
        for m in seen:
            if m.villager in keep:
                book.born(m)
        book.felt(tick, (e for e in events if type(e) in _FOLDS and e.villager in keep))
        return book

    # -- what the mind and the reports ask --------------------------------------

    def of(self, villager: int) -> list[FeltRow]:
        return self.by_villager.get(villager, [])

    def living(self, villager: int) -> Iterator[FeltRow]:
        return (r for r in self.of(villager) if r.living)

    def felt_now(self, row: int | FeltRow, now: int) -> int:
        r = self.rows[row] if isinstance(row, int) else row
        return lf.felt_now(r.stored, r.last_felt, now, r.valence, self.ticks_per_day, self.laws)

    def gone(self, villager: int) -> dict[int, str]:
        """Why each of `villager`'s rows that has left its memory can no longer be cited."""
        out: dict[int, str] = {}
        for r in self.of(villager):
            if r.forgotten_at is not None:
                out[r.id] = f"memory {r.id} was forgotten at tick {r.forgotten_at}"
            elif r.absorbed_into is not None:
                out[r.id] = (f"memory {r.id} was absorbed into memory {r.absorbed_into} "
                             f"at tick {r.absorbed_at}")
        return out

    def snapshot(self) -> dict[int, FeltState]:
        return {i: r.frozen() for i, r in self.rows.items()}


def followed(memory: Any, book: str) -> Sequence[Memory]:
    """The rows of the memory projection a book follows (`memory`, applied before it); a book
    that follows none is refused, `book` naming it."""
    if memory is None:
        raise VillageError(f"{book} folds the rows of a MemoryProjection: follow one applied "
                           f"before it")
    return memory.rows


def bent(t: Temperament, val: int, intensity: int) -> tuple[int, int]:
    """A row's valence and intensity as its villager's temperament `t` is born with them."""
    return (lf.bent_valence(val, t.valence_bias),
            lf.bent_strength(intensity, t.intensity_amplification))


def _temperaments(given: Mapping[int, Temperament] | None) -> dict[int, Temperament]:
    """The non-neutral temperaments by villager, each checked by the laws at the door; a
    neutral one is left out, so its villager is born as one without a temperament is."""
    out: dict[int, Temperament] = {}
    for v, t in (given or {}).items():
        b = lf.bias(f"villager {v}'s valence_bias", t.valence_bias)
        a = lf.amplification(f"villager {v}'s intensity_amplification", t.intensity_amplification)
        if (b, a) != (0, lf.FULL):
            out[v] = t
    return out


# The fold of each event type that changes a row's felt state, keyed by type as perception's are.
_FOLDS = {ev.Refelt: FeltBook._refelt, ev.Recurred: FeltBook._refelt,
          ev.Forgotten: FeltBook._forgotten, ev.Absorbed: FeltBook._absorbed}

FELT = frozenset(t.kind for t in _FOLDS)
"""The event kinds that change a row's felt state."""
