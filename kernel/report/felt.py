"""What the `night` and `felt` reflect modes show, computed as data.

`felt_run` replays a scenario from its recording (no model) once, with a
journal of its felt events (the felt projection, keeping each event's before
and after) folded as it runs. `nights` gives each night as it happened: the
plan as the model gave it, each group's checks and verdict, the rows
absorbed and forgotten, and the rows re-felt (or recurring) on that day,
each with its strength before and after. `felt_rows` gives one villager's
rows as they stand at a tick: intensity, valence, stored, last felt, felt
now and state. Values only (their shapes are kernel.report.views'); the CLI
renders them. It must not write anything but the replay's temporary log.
"""

from __future__ import annotations

from collections.abc import Sequence

from kernel import events as ev
from kernel.engine.felt import FeltProjection, felt_of
from kernel.engine.projection import MemoryProjection
from kernel.engine.replay import replay
from kernel.engine.scenario import Scenario
from kernel.errors import VillageError
from kernel.laws.memory import Memory
from kernel.mind.felt import FeltState
from kernel.mind.night import Night, night_of
from kernel.report import figures
from kernel.report.views import FeltChange, FeltRun, NightView


class Journal(FeltProjection):
    """The felt projection, keeping each felt event's before and after as it folds (up to
    tick `until`, when given). It follows the memory projection a replay or a fold hands it
    (a projection.Follower)."""

    def __init__(self, *args, until: int | None = None, **kw):
        self.until = until
        super().__init__(*args, **kw)

    def start(self) -> None:
        super().start()
        self.changes: list[FeltChange] = []

    def follow_engine(self, memory: MemoryProjection, felt: FeltProjection | None) -> None:
        self.follow(memory)

    def apply(self, tick: int, events) -> None:
        if self.until is None or tick <= self.until:
            super().apply(tick, events)

    def felt(self, tick: int, events) -> None:
        for e in events:
            note = _NOTES.get(type(e))
            if note is not None:
                note(self, tick, e)
                super().felt(tick, (e,))

    def _restored(self, tick: int, e: ev.Refelt | ev.Recurred) -> None:
        r = self.rows[e.id]
        self.changes.append(FeltChange(tick, e.kind, e.villager, e.id, r.stored, e.stored,
                                   getattr(e, "by", None)))

    def _forgotten(self, tick: int, e: ev.Forgotten) -> None:
        r = self.rows[e.id]
        self.changes.append(FeltChange(tick, "forgotten", e.villager, e.id, r.stored, r.stored))

    def _absorbed(self, tick: int, e: ev.Absorbed) -> None:
        self.changes.append(FeltChange(tick, "anchor", e.villager, e.anchor, e.before, e.stored))
        for a in e.absorbed:
            r = self.rows[a]
            self.changes.append(FeltChange(tick, "absorbed", e.villager, a, r.stored, r.stored,
                                       e.anchor))


# What the journal notes of each felt event type, resolved once, not by kind once an event.
_NOTES = {ev.Refelt: Journal._restored, ev.Recurred: Journal._restored,
          ev.Forgotten: Journal._forgotten, ev.Absorbed: Journal._absorbed}


def felt_run(sc: Scenario, *, until: int | None = None) -> FeltRun:
    """`sc` replayed once with its journal folded as it runs (up to tick `until`)."""
    if sc.exemplars is None:
        raise VillageError(f"scenario {sc.name} has no recording to replay")
    journal = journal_of(sc, until=until)
    rp = replay(sc, projections=[journal])
    if rp.stopped is not None:
        raise rp.stopped
    at = journal.last_tick or 0
    rows = rp.memory.rows if until is None else [m for m in rp.memory.rows if m.tick <= at]
    names = {p.id: p.name for p in sc.world.people}
    return FeltRun(scenario=sc, report=rp.report, rows={m.id: m for m in rows},
                   felt=journal.snapshot(), changes=tuple(journal.changes),
                   felt_now={i: journal.felt_now(r, max(at, r.last_felt))
                             for i, r in journal.rows.items()}, at=at, names=names)


def journal_of(sc: Scenario, *, until: int | None = None) -> Journal:
    """A journal of `sc`'s felt events (up to tick `until`), to follow a replay or a fold."""
    felt = felt_of(sc)
    if felt is None:
        raise VillageError(f"scenario {sc.name} has no felt memory: its importance table has "
                           f"no valence table")
    return Journal(felt.valences, sc.world.ticks_per_day, until=until,
                   temperaments=felt.temperaments)


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


__all__ = ["FeltChange", "FeltRun", "Journal", "NightView", "counts", "felt_rows", "felt_run",
           "journal_of", "nights", "villager", "why_not_felt"]
