"""Basins and plans as a reader sees them: each villager's basin weights over the
nights, each night's update with its entropy and trajectory, each day's plan and what became of
it, for the HTML report and `village plot --what basins`.

`BasinsGather` is a projection folded with a view's others, once (over a replay as it runs, or a
log): the mind's own book of basins (kernel.mind.basins.BasinBook), so a weight, an entropy or
a trajectory here is the one the run held, and the night's calls, refusals and accepted
plans as the log has them. `villagers` lays that out per villager; `measured` asks
kernel.report.plans what became of each plan (the run's world against the world
told to ignore plans), and says why where it cannot; `view` joins the two for the report.
Values only (their shapes are kernel.report.views'); it renders nothing and writes nothing.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Mapping, Sequence

from kernel import events as ev
from kernel.calendar import Calendar
from kernel.errors import VillageError
from kernel.events import Purpose
from kernel.laws import basins as la
from kernel.mind.basins import BasinBook
from kernel.report.views import (
    BasinLine,
    BasinNightView,
    BasinsView,
    EffectTotal,
    PlanDay,
    PlanView,
    VillagerBasins,
)

FROM_DAY = 1
"""The first day (from 0) whose plans are measured: plans are made at night for the next."""

PURPOSES = (Purpose.BASINS, Purpose.NEW_BASIN, Purpose.BASIN_LINK, Purpose.KEYWORDS)
"""The refusals of a night's basins calls, by purpose; a plan's are purpose "plan"."""


class BasinsGather:
    """A projection of the log for the basins and plans: the book of basins, a snapshot of
    every villager's weights at its seeding and after each night it moved, each night's update
    and plan calls, their refusals, and every accepted plan."""

    def __init__(self) -> None:
        self.book = BasinBook()
        self.start()

    def start(self) -> None:
        self.book.start()
        self.seeded: dict[int, int] = {}
        self.snaps: dict[int, list[tuple[int, la.BasinsState]]] = defaultdict(list)
        self.moved: dict[tuple[int, int], ev.BasinsMoved] = {}
        self.asked: dict[str, set[tuple[int, int]]] = defaultdict(set)   # purpose -> (tick, v)
        self.refused: dict[tuple[str, int, int], list[ev.Refusal]] = defaultdict(list)
        self.planned: list[tuple[int, ev.Planned]] = []
        self.rules: dict[str, None] = {}
        self.names: dict[int, str] = {}

    def apply(self, tick: int, events: Sequence[ev.Event]) -> None:
        mine = [e for e in events if type(e) in _KINDS]
        if not mine:
            return
        touched = set()
        for e in mine:
            t = type(e)
            if t is ev.Founded:
                self.names.setdefault(e.villager, e.name)
            elif t is ev.Answered:
                self.asked[e.purpose].add((tick, e.villager))
            elif t is ev.Refusal:
                if e.purpose == Purpose.PLAN or e.purpose in PURPOSES:
                    kind = Purpose.PLAN if e.purpose == Purpose.PLAN else Purpose.BASINS
                    self.refused[(kind, tick, e.villager)].append(e)
            elif t is ev.Planned:
                self.planned.append((tick, e))
            elif self._folded(tick, e):
                touched.add(e.villager)
                if t is ev.BasinsSeeded:
                    self.seeded.setdefault(e.villager, tick)
                elif t is ev.BasinsMoved:
                    self.moved[(tick, e.villager)] = e
                    self.rules.setdefault(e.rule)
        for v in sorted(touched):
            self.snaps[v].append((tick, self.book.states[v]))

    def _folded(self, tick: int, e: ev.Event) -> bool:
        """Fold one basins event into the book: False, and the book as it was, for one the
        basins' laws refuse (a log no run of the kernel writes)."""
        try:
            self.book.apply(tick, (e,))
        except (la.LawError, KeyError):
            return False
        return True

    @property
    def any(self) -> bool:
        """Whether the run holds any basins or any plan call."""
        return bool(self.seeded or self.planned or self.asked.get("plan"))


_KINDS = frozenset({ev.Founded, ev.BasinsSeeded, ev.BasinsMoved, ev.KeywordsConsolidated, ev.Planned,
                    ev.Answered, ev.Refusal})


def why_not(sc) -> str:
    """Why a run of scenario `sc` (None: not found) holds no basins, in one clause."""
    if sc is None:
        return "no villager's basins were seeded in the log"
    if sc.settings is None:
        return f"{sc.name} is a world run: nobody reflects, so nobody holds basins"
    if sc.settings.basins is None:
        return f"{sc.name}'s thought settings have no attractor block, so nobody holds basins"
    if not any(p.basins for p in sc.world.people):
        return f"{sc.name}'s world config gives no villager basins"
    return f"no villager's basins were seeded in {sc.name}'s log"


def _lines(snaps: Sequence[tuple[int, la.BasinsState]]) -> tuple[BasinLine, ...]:
    """Each basin's weight at every snapshot that holds it, in the order basins were first held."""
    points: dict[str, tuple[str, list[int], list[float]]] = {}
    keywords: dict[str, tuple[str, ...]] = {}
    for tick, s in snaps:
        for b in s.basins:
            label, xs, ys = points.setdefault(b.slug, (b.label, [], []))
            if xs and xs[-1] == tick:
                ys[-1] = b.weight
            else:
                xs.append(tick)
                ys.append(b.weight)
            keywords[b.slug] = b.keywords
    return tuple(BasinLine(slug, label, tuple(xs), tuple(ys), keywords[slug])
                 for slug, (label, xs, ys) in points.items())


def _said(refusals: Sequence[ev.Refusal]) -> tuple[str, ...]:
    return tuple(f"{r.check}: {r.reason}" for r in refusals)


def _nights(g: BasinsGather, v: int, cal: Calendar) -> tuple[BasinNightView, ...]:
    """Each night villager `v` was asked to update its basins, as it went."""
    out = []
    readings = {r.tick: r for r in g.book.readings.get(v, ())}
    states = dict(g.snaps.get(v, ()))
    for tick in sorted(t for t, w in g.asked.get("basins", ()) if w == v):
        m = g.moved.get((tick, v))
        refused = _said(g.refused.get((Purpose.BASINS, tick, v), ()))
        s = states.get(tick)
        r = readings.get(tick)
        label = {b.slug: b.label for b in s.basins} if s is not None else {}
        out.append(BasinNightView(
            tick=tick, day=cal.day_number(tick),
            outcome="moved" if m is not None else "refused whole",
            moved=tuple((label.get(b, b), d) for b, d in zip(m.basins, m.deltas, strict=True))
            if m is not None else (),
            born=m.born if m is not None else "", refused=refused,
            entropy=r.entropy if m is not None and r is not None else None,
            trajectory=r.trajectory if m is not None and r is not None else None,
            basins=len(s.basins) if s is not None else len(_last(g, v, tick).basins),
            phase=s.phase if s is not None else _last(g, v, tick).phase))
    return tuple(out)


def _last(g: BasinsGather, v: int, tick: int) -> la.BasinsState:
    """Villager `v`'s basins as they stood at `tick` (the last snapshot at or before it)."""
    got = la.BasinsState()
    for t, s in g.snaps.get(v, ()):
        if t > tick:
            break
        got = s
    return got


def target(e: ev.Planned, names: Mapping[int, str]) -> str:
    """What a plan names, as kernel.report.plans writes it."""
    if e.whom is not None:
        return names.get(e.whom, str(e.whom))
    if e.x is not None and e.y is not None:
        return f"{e.x},{e.y}"
    return "home"


def _plans(g: BasinsGather, v: int, names: Mapping[int, str], cal: Calendar,
           outcomes: Mapping[tuple, tuple[str, int, int]]) -> tuple[PlanDay, ...]:
    """Each plan villager `v` was asked for, by the night it was made at."""
    from kernel.report.plans import MEASURES

    mine: dict[int, list[ev.Planned]] = defaultdict(list)
    for tick, e in g.planned:
        if e.villager == v:
            mine[tick].append(e)
    out = []
    for tick in sorted(t for t, w in g.asked.get("plan", ()) if w == v):
        shown = []
        for e in mine.get(tick, ()):
            aim = target(e, names)
            got = outcomes.get((v, e.day, e.act, aim))
            shown.append(PlanView(e.act, aim, MEASURES.get(e.act, ""),
                                       got[1] if got else None, got[2] if got else None))
        out.append(PlanDay(tick=tick, day=cal.day_of(tick) + 2, plans=tuple(shown),
                           refused=_said(g.refused.get((Purpose.PLAN, tick, v), ()))))
    return tuple(out)


def villagers(g: BasinsGather, people: Sequence[tuple[int, str]], ticks_per_day: int,
              effect=None) -> tuple[VillagerBasins, ...]:
    """Every villager (`people`: (id, name), in order) that holds basins or was asked for a
    plan, with what `effect` (kernel.report.plans.Effect, or None) measured of its plans."""
    cal = Calendar(ticks_per_day)
    names = dict(people)
    outcomes = {}
    if effect is not None:
        outcomes = {(o.villager, o.day, o.act, o.target): (o.measure, o.kept, o.ignored)
                    for o in effect.outcomes}
    planned = {w for _, w in g.asked.get("plan", ())}
    out = []
    for v, name in people:
        if v not in g.seeded and v not in planned:
            continue
        out.append(VillagerBasins(v, name, g.seeded.get(v), _lines(g.snaps.get(v, ())),
                                  _nights(g, v, cal), _plans(g, v, names, cal, outcomes)))
    return tuple(out)


def measured(g: BasinsGather, sc, log: str | os.PathLike | None):
    """What became of the run's plans, `(effect, None)`, or `(None, why not)`; `(None,
    None)` for a run with none. `log` is the run's log, whose world is stepped again."""
    if not g.planned:
        return None, None
    if sc is None or log is None:
        return None, ("the run's scenario was not found, so its world cannot be stepped again "
                      "without the intentions")
    from kernel.report.plans import effect

    try:
        return effect(sc, log, from_day=FROM_DAY), None
    except VillageError as e:
        return None, f"the intentions were not measured: {' '.join(str(e).split())}"


def view(g: BasinsGather, people: Sequence[tuple[int, str]], ticks_per_day: int, effect,
         note: str | None) -> BasinsView | None:
    """The report's section of basins and plans; None for a run with neither."""
    if not g.any:
        return None
    totals = tuple(EffectTotal(*t) for t in effect.totals()) if effect is not None else ()
    return BasinsView(villagers(g, people, ticks_per_day, effect), totals, FROM_DAY + 1, note,
                      tuple(g.rules))
