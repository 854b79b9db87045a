"""What the `night` and `felt` reflect modes show, computed as data.

Both replay a scenario from its recording (no model) into a temporary log
and fold it with the felt projection. `nights` gives each night as it
happened: the plan as the model gave it, each group's checks and verdict,
the rows absorbed and forgotten, and the rows re-felt (or recurring) on
that day, each with its strength before and after. `felt_rows` gives one
villager's rows as they stand at a tick: intensity, valence, stored, last
felt, felt now and state. Values only; the CLI renders them. It must not
write anything but temporary logs.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kernel import engine
from kernel.engine.felt import FELT, FeltProjection, FeltState, felt_of
from kernel.engine.scenario import Scenario
from kernel.errors import VillageError
from kernel.laws.memory import Memory
from kernel.mind.night import Night, night_of
from kernel.oracle import make
from kernel.report import figures


@dataclass(frozen=True, slots=True)
class Change:
    """One felt event about one row: the strength before it and after it."""

    tick: int
    kind: str               # refelt, recurred, absorbed (an anchor), absorbed-into, forgotten
    villager: int
    id: int
    before: int
    after: int
    by: int | None = None   # the thought that re-felt it, or the anchor it went into


class Journal(FeltProjection):
    """The felt projection, keeping each felt event's before and after as it folds."""

    def start(self) -> None:
        super().start()
        self.changes: list[Change] = []

    def felt(self, tick: int, events) -> None:
        for e in events:
            if e.kind not in FELT:
                continue
            if e.kind in ("refelt", "recurred"):
                r = self.rows[e.id]
                self.changes.append(Change(tick, e.kind, e.villager, e.id, r.stored, e.stored,
                                           getattr(e, "by", None)))
            elif e.kind == "forgotten":
                r = self.rows[e.id]
                self.changes.append(Change(tick, "forgotten", e.villager, e.id, r.stored,
                                           r.stored))
            elif e.kind == "absorbed":
                self.changes.append(Change(tick, "anchor", e.villager, e.anchor, e.before,
                                           e.stored))
                for a in e.absorbed:
                    r = self.rows[a]
                    self.changes.append(Change(tick, "absorbed", e.villager, a, r.stored,
                                               r.stored, e.anchor))
            super().felt(tick, (e,))


@dataclass(frozen=True)
class FeltRun:
    """A replayed run with its felt fold: the report, every row, and the journal of changes."""

    scenario: Scenario
    report: engine.RunReport
    rows: dict[int, Memory]
    felt: dict[int, FeltState]
    changes: tuple[Change, ...]
    felt_now: dict[int, int]
    at: int
    names: dict[int, str] = field(default_factory=dict)


def replay(sc: Scenario, *, until: int | None = None) -> FeltRun:
    """Replay `sc` and fold the log with the felt projection (up to tick `until`)."""
    if sc.exemplars is None:
        raise VillageError(f"scenario {sc.name} has no recording to replay")
    mem = engine.MemoryProjection(sc.rules)
    journal = journal_of(sc, mem)
    oracle = make("replay", replay_from=sc.exemplars)
    with tempfile.TemporaryDirectory(prefix="village-felt-") as d:
        path = Path(d) / "run.log"
        report = engine.run(sc, oracle, path, keep_going=True)
        if report.stopped is not None:
            raise report.stopped
        done = engine.fold(path, [mem, journal], until=until)
    at = done.last_tick if until is None or done.last_tick is None else min(until, done.last_tick)
    at = at or 0
    names = {p.id: p.name for p in sc.world.people}
    return FeltRun(scenario=sc, report=report, rows={m.id: m for m in mem.rows},
                   felt=journal.snapshot(), changes=tuple(journal.changes),
                   felt_now={i: journal.felt_now(r, max(at, r.last_felt))
                             for i, r in journal.rows.items()}, at=at, names=names)


def journal_of(sc: Scenario, memory: engine.MemoryProjection) -> Journal:
    """A journal of `sc`'s felt events, following `memory` (applied before it in a fold)."""
    felt = felt_of(sc)
    if felt is None:
        raise VillageError(f"scenario {sc.name} has no felt memory: its importance table has "
                           f"no valence table")
    return Journal(felt.valences, sc.world.ticks_per_day).follow(memory)


def why_not_felt(sc: Scenario | None, digest: str = "") -> str | None:
    """Why a run under `sc` has no felt strength to show, as one sentence; None when it has.

    Felt memory acts in a run whose importance table has a valence table and
    whose thought settings either rank by felt strength or have a night: under
    `retrieval.importance: "weight"` with no night block, no row is ever
    re-felt, recurs, is absorbed or forgotten, whatever the valence table says.
    """
    if sc is None:
        return (f"no scenario of this home runs under the log's config digest {digest[:16]}, so "
                f"its valence table is unknown and no row has a felt strength")
    if sc.world_only or sc.settings is None:
        return (f"nobody reflects in {sc.name}, and a world run has no felt memory: no row has a "
                f"felt strength")
    if felt_of(sc) is None:
        return (f"{sc.name}'s importance table has no valence table, so its rows have no felt "
                f"strength")
    mode = sc.settings.retrieval.importance
    if mode != "felt" and night_of(sc) is None:
        return (f"{sc.name} ranks by retrieval.importance \"{mode}\" and has no night block, so "
                f"felt memory never acts in it: no row is re-felt, recurs, is absorbed or "
                f"forgotten")
    return None


def villager(sc: Scenario, who: str | None) -> tuple[int, str]:
    """The villager named `who` (any case) among those who reflect; the first when None."""
    people = [p for p in sc.world.people if p.name in sc.reflecting] or list(sc.world.people)
    for p in people:
        if who is None or p.name.lower() == who.lower():
            return p.id, p.name
    raise VillageError(f"no villager named {who!r} in scenario {sc.name}: there are "
                       f"{', '.join(p.name for p in people)}")


@dataclass(frozen=True)
class NightView:
    """One night of one scenario: the night's own record and the day's felt changes."""

    day: int
    night: Night
    changes: tuple[Change, ...]


def nights(run: FeltRun, who: str | None = None, day: int | None = None) -> list[NightView]:
    """Each night of the run (day numbers from 1), for `who` only when given."""
    days = run.scenario.world.calendar
    vid = villager(run.scenario, who)[0] if who is not None else None
    out: list[NightView] = []
    for n in run.report.nights:
        d = days.day_number(n.now)
        if day is not None and d != day:
            continue
        ch = tuple(c for c in run.changes if days.day_number(c.tick) == d
                   and (vid is None or c.villager == vid))
        if vid is not None:
            n = Night(now=n.now, villagers=tuple(v for v in n.villagers if v == vid),
                      plans=tuple(p for p in n.plans if p.villager == vid),
                      forgotten=tuple(f for f in n.forgotten if f.villager == vid),
                      events=tuple(e for e in n.events if getattr(e, "villager", None) == vid))
        out.append(NightView(day=d, night=n, changes=ch))
    if day is not None and not out:
        had = sorted({days.day_number(n.now) for n in run.report.nights})
        raise VillageError(f"scenario {run.scenario.name} has no night on day {day}: its nights "
                           f"are on days {', '.join(map(str, had)) or 'none'}")
    return out


def felt_rows(run: FeltRun, who: str) -> tuple[str, Sequence[tuple[Memory, FeltState, int]]]:
    """`who`'s rows at the run's tick, each with its felt state and what it is felt at then."""
    vid, name = villager(run.scenario, who)
    rows = [(run.rows[i], s, run.felt_now[i]) for i, s in sorted(run.felt.items())
            if s.villager == vid and s.tick <= run.at]
    return name, rows


def counts(run: FeltRun) -> dict[str, int]:
    """What the run did to felt memory, zeros included: the figures `village run` prints a
    night at a time and a sweep keeps, counted off the run's events by kernel.report.figures."""
    f = figures.of_report(run.report)
    return {"refelt": f["rows_refelt"], "recurred": f["recurrences"],
            "forgotten": f["rows_forgotten"], "absorbed": f["rows_absorbed"],
            "plans": f["night_plans"], "plans refused": f["plans_refused"],
            "groups accepted": f["groups_accepted"], "groups refused": f["groups_refused"]}


__all__ = ["Change", "FeltRun", "Journal", "NightView", "counts", "felt_rows", "journal_of",
           "nights", "replay", "villager", "why_not_felt"]
