"""The series behind `village plot` and the report's figures: memory rows per villager, felt
strength over time, model time per call, refusals by check, basin weights over the nights.

Each function returns plain values (ticks, counts, thousandths, seconds;
their shapes are kernel.report.views'); drawing them is the CLI's and the
report's. Rows, refusals and felt strengths come from the run's events
alone, folded once: a log from disk, or a scenario's replay as it runs
(kernel.engine.replay); felt strengths with the valence table of the
scenario the log ran under; basin weights as the mind's book of basins folds
them (kernel.report.basins). The time a call took is not in the log (it
would make a recording and its replay different bytes), so it comes from
the recording. A felt strength is computed here only through
kernel.laws.felt, so the figures fade by the rule the run did. It must
not write anything but a replay's temporary log.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from kernel import events as ev
from kernel.calendar import DAY
from kernel.engine.projection import MemoryFollower, MemoryProjection
from kernel.engine.replay import follow, replay
from kernel.engine.scenario import Scenario, load_rules
from kernel.errors import VillageError
from kernel.laws import felt as lf
from kernel.laws.importance import Importance
from kernel.log import read_header, verify
from kernel.report import basins as rba
from kernel.report import felt as rf
from kernel.report.views import CallTime, Curve, Series, Strengths, VillagerBasins

SAMPLES = 200            # a strength curve is sampled at about this many ticks over the run
TOP = 5                  # the strongest rows drawn per villager, unless told otherwise


@dataclass(frozen=True)
class OpenRun:
    """A run to draw: a log on disk, or a scenario (log None), replayed once for a figure."""

    log: Path | None
    scenario: Scenario | None     # the scenario whose configs the log ran under, when found


def run_of(run: str | os.PathLike) -> OpenRun:
    """RUN as a figure reads it: the log itself, or a scenario with a run to replay."""
    from kernel.engine import scenario as msc
    from kernel.engine.scenario import by_digest

    p = Path(run)
    if p.is_file():
        return OpenRun(p, by_digest(read_header(p).config_digest))
    sc = msc.load(run)
    if not sc.world_only and sc.exemplars is None:
        raise VillageError(f"scenario {sc.name} has no recording to replay, so there is no run to "
                           f"plot: run it (village run), then plot its log")
    return OpenRun(None, sc)


def _folded(r: OpenRun, views: list, rules: Importance) -> MemoryProjection | None:
    """Fold `views` over the run once: its log from disk, or its scenario's replay as it runs.
    The memory projection the views followed (None when none of them follows one)."""
    if r.log is not None:
        return follow(r.log, views, rules=rules)[0]
    rp = replay(r.scenario, projections=views)
    if rp.header is None:
        raise VillageError(f"scenario {r.scenario.name} did not replay a single tick")
    return rp.memory


class _RowCounts(MemoryFollower):
    """Follows a MemoryProjection: each villager's row count at every tick it grew."""

    def start(self) -> None:
        super().start()
        self.names: dict[int, str] = {}
        self.points: dict[int, list[tuple[int, int]]] = {}
        self.last = 0

    def apply(self, tick: int, events) -> None:
        self.last = tick
        for e in events:
            if type(e) is ev.Founded:
                self.names.setdefault(e.villager, e.name)
        for v in self.grown():
            self.points.setdefault(v, [(0, 0)]).append((tick, len(self.memory.streams[v])))


def rows(r: OpenRun) -> tuple[Series, ...]:
    """Memory rows per villager over ticks: one step series a villager, from tick 0 to the last."""
    got = _RowCounts()
    _folded(r, [got], r.scenario.rules if r.scenario is not None else load_rules())
    names = {p.id: p.name for p in r.scenario.world.people} if r.scenario is not None else {}
    names = got.names | names
    out = []
    for v in sorted(set(names) | set(got.points)):
        pts = list(got.points.get(v, [(0, 0)]))
        pts.append((got.last, pts[-1][1]))
        out.append(Series(names.get(v, f"villager {v}"), tuple(x for x, _ in pts),
                          tuple(float(y) for _, y in pts)))
    return tuple(out)


class _Refusals:
    """Refusals by check and purpose, folded from the events alone."""

    def __init__(self) -> None:
        self.start()

    def start(self) -> None:
        self.by: dict[str, Counter] = {}

    def apply(self, tick: int, events) -> None:
        for e in events:
            if type(e) is ev.Refusal:
                self.by.setdefault(e.check, Counter())[e.purpose] += 1


def refusals(r: OpenRun) -> dict[str, Counter]:
    """Refusals by check, each counted by the call it refused (questions or statement)."""
    got = _Refusals()
    _folded(r, [got], r.scenario.rules if r.scenario is not None else load_rules())
    return dict(sorted(got.by.items()))


def recording_of(r: OpenRun | None, exemplars: str | os.PathLike | None) -> Path:
    """The recording a cost plot reads: given, or the scenario's (for the scenario itself, or a log
    that is its recorded run)."""
    if exemplars is not None:
        p = Path(exemplars)
        if not p.is_file():
            raise VillageError(f"--exemplars names a recording, and {p} is not a file")
        return p
    sc = r.scenario if r is not None else None
    if sc is None or sc.exemplars is None:
        raise VillageError("the time a call took is in the run's recording, not its log: give the "
                           "recording with --exemplars")
    if r.log is not None and sc.head_sha256 != verify(r.log).head_hex:
        raise VillageError(f"the log runs under scenario {sc.name}'s configs but is not its "
                           f"recorded run: give the run's own recording with --exemplars")
    return sc.exemplars


def cost(recording: str | os.PathLike) -> tuple[CallTime, ...]:
    """Every call of a recording in order: what it was, which model, and the seconds it took."""
    from kernel.oracle import exemplar
    doc = exemplar.load(recording)
    return tuple(CallTime(i, c["kind"], c["purpose"], c["model"], c["took_ns"] / 1e9)
                 for i, c in enumerate(doc["calls"], start=1))


# --- felt strength over time -----------------------------------------------------------


def _segments(journal: rf.Journal) -> dict[int, list[tuple[int, int, int]]]:
    """Each row's (from tick, stored, last felt) in force from each felt event on."""
    segs = {i: [(r.tick, r.intensity, r.tick)] for i, r in journal.rows.items()}
    for c in journal.changes:
        if c.kind in ("refelt", "recurred"):
            segs[c.id].append((c.tick, c.after, c.tick))
        elif c.kind == "anchor":          # consolidation sets the strength, not the last felt
            segs[c.id].append((c.tick, c.after, segs[c.id][-1][2]))
    return segs


def _curve(r, segs: list[tuple[int, int, int]], last: int, step: int, tpd: int,
           laws: lf.Felt, text: str) -> Curve:
    end, stop = None, last
    if r.forgotten_at is not None:
        end, stop = "forgotten", r.forgotten_at
    elif r.absorbed_into is not None:
        end, stop = "absorbed", r.absorbed_at
    xs: list[int] = []
    ys: list[int] = []
    for k, (a, stored, felt_at) in enumerate(segs):
        b = segs[k + 1][0] if k + 1 < len(segs) else stop
        # the segment's own points: its start, the sample ticks inside it, and its end
        # (the value just before the next jump, or at the row's last tick)
        for t in (a, *range((a // step + 1) * step, b, step), b):
            v = lf.felt_now(stored, felt_at, t, r.valence, tpd, laws)
            if not (xs and xs[-1] == t and ys[-1] == v):
                xs.append(t)
                ys.append(v)
    area = sum((x1 - x0) * (y0 + y1)
               for x0, x1, y0, y1 in zip(xs, xs[1:], ys, ys[1:], strict=False)) // 2
    return Curve(r.villager, r.id, r.kind, text, r.tick, tuple(xs), tuple(ys), end, stop,
                 r.absorbed_into, len(segs) - 1, area)


def curves(journal: rf.Journal, rows: dict[int, str], names: dict[int, str], last: int, *,
           top: int = TOP, who: int | None = None) -> tuple[Strengths, ...]:
    """Each villager's `top` strongest rows (or `who`'s alone) as felt-now curves up to `last`.

    `journal` has folded the run; `rows` gives each row's text. Strongest is the
    largest area under the curve over the run (ties: the higher peak, then the
    lower id), so a row felt strongly for a long time ranks above one felt
    strongly for an afternoon.
    """
    step = max(1, (last + 1) // SAMPLES)
    segs = _segments(journal)
    out = []
    for v in sorted(journal.by_villager):
        if who is not None and v != who:
            continue
        mine = [_curve(r, segs[r.id], last, step, journal.ticks_per_day, journal.laws,
                       rows.get(r.id, ""))
                for r in journal.of(v) if r.tick <= last]
        mine.sort(key=lambda c: (-c.felt, -c.peak, c.id))
        out.append(Strengths(v, names.get(v, f"villager {v}"), len(mine), tuple(mine[:top])))
    return tuple(out)


def strengths(r: OpenRun, *, top: int = TOP, who: str | None = None) -> tuple[Strengths, ...]:
    """Felt strength over time: each villager's strongest rows (or `who`'s), from the log.

    A run with no felt memory is refused with the one sentence saying why.
    """
    digest = read_header(r.log).config_digest if r.log is not None else ""
    why = rf.why_not_felt(r.scenario, digest)
    if why is not None:
        raise VillageError(f"no felt strength to plot: {why}")
    sc = r.scenario
    vid = rf.villager(sc, who)[0] if who is not None else None
    if not 1 <= top <= 100:
        raise VillageError(f"--top is how many rows a villager shows, 1 to 100, not {top}")
    journal = rf.journal_of(sc)
    mem = _folded(r, [journal], sc.rules)
    names = {p.id: p.name for p in sc.world.people}
    return curves(journal, {m.id: m.text for m in mem.rows}, names, mem.last_tick or 0,
                  top=top, who=vid)


# --- basin weights over the nights -----------------------------------------------------


def basins(r: OpenRun) -> tuple[VillagerBasins, ...]:
    """Every villager's basins over the run, each basin's weight at its seeding and after
    every night its villager's basins moved. A run where nobody holds basins is refused with
    the one sentence saying why."""
    got = rba.BasinsGather()
    _folded(r, [got], r.scenario.rules if r.scenario is not None else load_rules())
    sc = r.scenario
    people = ([(p.id, p.name) for p in sc.world.people] if sc is not None
              else sorted(got.names.items()))
    shown = tuple(v for v in rba.villagers(got, people, sc.world.ticks_per_day if sc else DAY)
                  if v.lines)
    if not shown:
        raise VillageError(f"no basins to plot: {rba.why_not(sc)}")
    return shown
