"""The bond book: every villager's bond toward every other, folded from its memory rows.

A `BondBook` follows a memory projection (applied before it, as the felt projection does):
each row perception gives is looked at once, and a row that is a passing between its
villager and another (kernel.laws.bonds.passing) pushes that ordered pair's bond by the
row's valence from the valence table, the nights between the pair's days fading it first
(kernel.laws.bonds). Days are the world's `ticks_per_day`, from 0; a row's day is its tick's.

The valence is the table's own for the row's (kind, event, role), before any temperament
bends it: a bond is what passed, as the scenario values it, alike for every villager. A
passing whose (kind, event, role) the table has no value for is counted in `unvalued` and
moves no bond (a log folded under a table without talk valences, say); the felt projection,
which reads the same table, is where such a table is refused in a run.

Asked: `bond(a, b, day)`, the bond as it stands at the start of `day` (after that night's
fading, before what passes that day); `now(a, b, tick)`, as it stands after every row folded
so far, at `tick`'s day (None where nothing has passed from a to b yet), which is what a talk
prompt names; `of(a, day)`, a's bonds at the start of a day; and `days()`, one `BondDay` per
ordered pair per day from its first passing to the last day folded, while the bond is not 0
or something passed that day.

This module owns that fold. It must not import the engine, write the log, call a model or
change what a row or a valence is.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from kernel import events as ev
from kernel.calendar import Calendar
from kernel.errors import VillageError
from kernel.laws import bonds as lb
from kernel.laws import felt as lf
from kernel.mind.felt import followed


@dataclass(frozen=True, slots=True)
class BondDay:
    """One ordered pair's bond on one day: as the day began, as it ended (before the night's
    fading), and how many of each passing (`lb.NAMES`, in order) it held that day."""

    villager: int
    other: int
    day: int
    start: int
    end: int
    counts: tuple[int, ...]

    @property
    def passed(self) -> int:
        return sum(self.counts)


class _Pair:
    """One ordered pair's days with a passing, in day order: [day, start, end, counts]."""

    __slots__ = ("days", "starts", "last_tick")

    def __init__(self) -> None:
        self.days: list[list] = []
        self.starts: list[int] = []      # the days, for bisect
        self.last_tick = -1


_INDEX = {name: i for i, name in enumerate(lb.NAMES)}


class BondBook:
    """Every ordered pair's bond, day by day, following a memory projection applied before it."""

    def __init__(self, valences: lf.Valences, ticks_per_day: int, laws: lb.Bonds = lb.LAWS):
        if type(ticks_per_day) is not int or ticks_per_day < 1:
            raise VillageError(f"Expected ticks_per_day >= 1 (an integer) but got "
                               f"ticks_per_day={ticks_per_day!r}")
        self.valences = valences
        self.ticks_per_day = ticks_per_day
        self.calendar = Calendar(ticks_per_day)
        self.laws = laws
        self._memory = None
        self.start()

    def start(self) -> None:
        self.pairs: dict[tuple[int, int], _Pair] = {}
        self.unvalued = 0
        self.last_tick: int | None = None
        self._looked = 0

    def follow(self, memory) -> BondBook:
        """Fold the rows of `memory` (a MemoryProjection, applied before this book)."""
        self._memory = memory
        self._looked = len(memory.rows) if self.last_tick is not None else 0
        return self

    def follow_engine(self, memory, felt: object | None) -> None:
        self.follow(memory)

    def apply(self, tick: int, events: Sequence[ev.Event]) -> None:
        rows = followed(self._memory, "the bond book")
        n = len(rows)
        for i in range(self._looked, n):
            m = rows[i]
            what = lb.passing(m.villager, m.kind, m.event, m.about)
            if what is not None:
                self._passed(m.villager, m.tick, m.kind, m.event, m.about, what)
        self._looked = n
        self.last_tick = tick

    def _passed(self, v: int, tick: int, kind: str, event: str, about: tuple[int, ...],
                what: str) -> None:
        val = self.valences._by.get((kind, event, lf.role(v, kind, about)))
        if val is None:
            self.unvalued += 1
            return
        day = self.calendar.day_of(tick)
        at = _INDEX[what]
        for o in lb.others(v, about):
            p = self.pairs.get((v, o))
            if p is None:
                p = self.pairs[(v, o)] = _Pair()
            last = p.days[-1] if p.days else None
            if last is None or last[0] != day:
                began = 0 if last is None else lb.faded(last[2], day - last[0], self.laws)
                last = [day, began, began, [0] * len(lb.NAMES)]
                p.days.append(last)
                p.starts.append(day)
            last[2] = lb.passed(last[2], val, self.laws)
            last[3][at] += 1
            p.last_tick = tick

    # -- what is asked ------------------------------------------------------------------

    def bond(self, a: int, b: int, day: int) -> int:
        """a's bond to b at the start of `day` (from 0): after the night before it, before
        anything that passes on it; 0 where nothing had passed before it."""
        if type(day) is not int or day < 0:
            raise VillageError(f"Expected a day >= 0 (an integer) but got day={day!r}")
        p = self.pairs.get((a, b))
        if p is None:
            return 0
        i = bisect_right(p.starts, day) - 1
        if i < 0:
            return 0
        d, start, end, _ = p.days[i]
        return start if d == day else lb.faded(end, day - d, self.laws)

    def now(self, a: int, b: int, tick: int) -> int | None:
        """a's bond to b as it stands after every row folded so far, at `tick`'s day (the
        nights since the pair's last passing faded); None where nothing has passed from a to
        b yet. `tick` may not be before a row already folded into the pair: that is a past
        day's bond, `bond(a, b, day)`."""
        if type(tick) is not int or tick < 0:
            raise VillageError(f"Expected a tick >= 0 (an integer) but got tick={tick!r}")
        p = self.pairs.get((a, b))
        if p is None:
            return None
        if tick < p.last_tick:
            raise VillageError(f"the bond of villager {a} to villager {b} was folded up to "
                               f"tick {p.last_tick}, after tick {tick}: ask bond(a, b, day) for "
                               f"a past day")
        d, _, end, _ = p.days[-1]
        return lb.faded(end, self.calendar.day_of(tick) - d, self.laws)

    def said(self, a: int, b: int, tick: int, name: str) -> str:
        """a's bond to b (named `name`) at `tick` as a talk prompt says it: a sentence of the
        bond's words (kernel.laws.bonds `words`)."""
        words = lb.words(self.now(a, b, tick), name)
        return words[:1].upper() + words[1:] + "."

    def of(self, a: int, day: int) -> dict[int, int]:
        """a's bond to each villager something has passed to before `day`, at its start, by id;
        a bond faded to 0 is left out."""
        got = {b: self.bond(a, b, day) for (v, b) in sorted(self.pairs) if v == a}
        return {b: x for b, x in got.items() if x}

    def days(self) -> tuple[BondDay, ...]:
        """One row per ordered pair per day, from its first passing to the last day folded,
        where the bond ended the day other than 0 or something passed on it; by day, then
        villager, then other."""
        if self.last_tick is None:
            return ()
        last_day = self.calendar.day_of(self.last_tick)
        out: list[BondDay] = []
        none = (0,) * len(lb.NAMES)
        for (v, o), p in self.pairs.items():
            held = {d[0]: d for d in p.days}
            b = 0
            for day in range(p.starts[0], last_day + 1):
                got = held.get(day)
                if got is not None:
                    out.append(BondDay(v, o, day, got[1], got[2], tuple(got[3])))
                    b = got[2]
                    continue
                b = lb.night(b, self.laws)
                if b == 0:
                    nxt = bisect_right(p.starts, day)
                    if nxt == len(p.starts):
                        break
                    continue
                out.append(BondDay(v, o, day, b, b, none))
        out.sort(key=lambda r: (r.day, r.villager, r.other))
        return tuple(out)
