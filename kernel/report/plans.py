"""What became of each plan, beside the same day in a world told to ignore plans.

For every accepted plan of a run (a `Planned` event), on the day it was for: the ticks
the villager spent in sight of the one it sought or kept away from, the parcels it handed to
the one it shared with, the ticks it spent on or beside the cell it meant to forage on, or on
or beside its home (its founding cell). Each is measured twice, from the same start: in the
run's own world (stepped with the log's plans, and checked to give the log's world events
tick for tick), and in the ablation, the same world stepped from the first tick of `from_day`
with no plans at all. The world reads nothing of the mind but its plans, so the
ablation is exactly the world of a fork at that day whose thought file sets `carry_out` false,
whatever that fork's minds would go on to say; it needs no model.

This module owns those measures and their order; the world's rule is kernel.world.step's and
the plans are folded by kernel.mind.plans. It reads a log and its scenario and writes
nothing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

from kernel import events as ev
from kernel.engine.projection import fold
from kernel.errors import VillageError
from kernel.mind.plans import PlanBook
from kernel.world.step import World, initial, step

WORLD_KINDS = (ev.Founded, ev.Walked, ev.Ate, ev.Gathered, ev.Begged, ev.Gave, ev.Took,
               ev.CameIntoSight, ev.WentOutOfSight)
"""The kinds the world's step writes: what the re-stepped world is checked against."""

MEASURES = {"seek": "ticks in sight", "avoid": "ticks in sight", "share": "parcels given",
            "forage": "ticks on or beside the cell", "home": "ticks on or beside home"}


@dataclass(frozen=True, slots=True)
class Outcome:
    """One plan and what it came to: `kept` in the run, `ignored` in the ablation."""

    villager: int
    name: str
    day: int              # from 0
    act: str
    target: str           # the villager's name, the cell as "x,y", or "home"
    measure: str
    kept: int
    ignored: int


@dataclass(frozen=True, slots=True)
class Effect:
    """Every plan's outcome from `from_day` on, in the log's order, and totals by act."""

    from_day: int
    outcomes: tuple[Outcome, ...]

    def totals(self) -> list[tuple[str, str, int, int, int]]:
        """(act, measure, plans, total kept, total ignored), acts in their fixed order."""
        out = []
        for act, measure in MEASURES.items():
            xs = [o for o in self.outcomes if o.act == act]
            if xs:
                out.append((act, measure, len(xs), sum(o.kept for o in xs),
                            sum(o.ignored for o in xs)))
        return out


def _frames(sc, book: PlanBook | None, ticks: int, from_tick: int
            ) -> Iterator[tuple[int, World, tuple[ev.Event, ...]]]:
    st = sc.settings
    carried = st is not None and st.plan is not None and st.plan.carry_out
    cal = sc.world.calendar
    w = initial(sc.world)
    for t in range(ticks):
        plans = None
        if book is not None and carried and t < from_tick:
            plans = book.of_day(cal.day_of(t)) or None
        w, events = step(w, t, plans)
        yield t, w, events


class _Logged:
    """What the measure reads of a log, folded as a projection: its plans, and each
    tick's world events."""

    def __init__(self) -> None:
        self.start()

    def start(self) -> None:
        self.book = PlanBook()
        self.world: list[tuple[ev.Event, ...]] = []

    def apply(self, tick: int, events) -> None:
        self.book.apply(tick, events)
        self.world.append(tuple(e for e in events if isinstance(e, WORLD_KINDS)))


def effect(sc, log_path: str | os.PathLike, from_day: int = 1) -> Effect:
    """Every plan for `from_day` (counted from 0) and later, measured in the run's world
    and in the ablation from that day's first tick."""
    got = _Logged()
    fold(log_path, [got])
    book, logged = got.book, got.world
    ticks = len(logged)
    cal = sc.world.calendar
    start = from_day * cal.ticks_per_day
    days = cal.days_in(ticks)          # the days the log holds, the last one begun
    wanted = [(day, v, x) for day, by in sorted(book.days.items()) if from_day <= day < days
              for v, xs in sorted(by.items()) for x in xs]
    kept = _measure(sc, _frames(sc, book, ticks, ticks + 1), wanted, logged)
    ignored = _measure(sc, _frames(sc, book, ticks, start), wanted, None)
    names = {p.id: p.name for p in sc.world.people}
    out = []
    for (day, v, x), a, b in zip(wanted, kept, ignored, strict=True):
        target = (names.get(x.whom, str(x.whom)) if x.whom is not None
                  else f"{x.cell[0]},{x.cell[1]}" if x.cell is not None else "home")
        out.append(Outcome(villager=v, name=names.get(v, str(v)), day=day, act=x.act,
                           target=target, measure=MEASURES[x.act], kept=a, ignored=b))
    return Effect(from_day=from_day, outcomes=tuple(out))


def _measure(sc, frames, wanted, logged) -> list[int]:
    """Each wanted plan's measure over its day in `frames`; with `logged`, every frame's
    world events are checked against the log's."""
    cal = sc.world.calendar
    index = {p.id: i for i, p in enumerate(sc.world.people)}
    home = {p.id: (p.x, p.y) for p in sc.world.people}
    by_day: dict[int, list[int]] = {}
    for k, (day, _, _) in enumerate(wanted):
        by_day.setdefault(day, []).append(k)
    got = [0] * len(wanted)
    for t, w, events in frames:
        if logged is not None and tuple(e for e in events if isinstance(e, WORLD_KINDS)) != logged[t]:
            raise VillageError(f"the log's world at tick {t} is not what its scenario's world "
                               f"gives with the log's intentions: the log is not this scenario's")
        for k in by_day.get(cal.day_of(t), ()):
            _, v, x = wanted[k]
            got[k] += _count(w, events, v, x, index, home)
    return got


def _count(w: World, events, v: int, x, index, home) -> int:
    if x.act in ("seek", "avoid"):
        a, b = min(v, x.whom), max(v, x.whom)
        return 1 if (a, b) in w.sight else 0
    if x.act == "share":
        return sum(e.parcels for e in events
                   if isinstance(e, ev.Gave) and e.giver == v and e.receiver == x.whom)
    i = index[v]
    if not w.here[i]:
        return 0
    cx, cy = w.px[i] // 1000, w.py[i] // 1000
    tx, ty = x.cell if x.act == "forage" else home[v]
    return 1 if max(abs(cx - tx), abs(cy - ty)) <= 1 else 0
