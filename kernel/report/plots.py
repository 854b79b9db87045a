"""The series behind `village plot`: memory rows per villager, model time per call, refusals by check.

Each function returns plain values (ticks, counts, seconds); drawing them
is the CLI's. Rows and refusals come from the log alone; the time a call
took is not in the log (it would make a recording and its replay different
bytes), so it comes from the recording. Felt strength has no series yet:
felt memory is not built, and `STRENGTHS_MISSING` says so.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kernel import engine
from kernel.engine.scenario import Scenario
from kernel.errors import VillageError
from kernel.log import read_header, verify

STRENGTHS_MISSING = ("felt memory is not built yet, so no row has a felt strength to plot: "
                     "`--what strengths` works once the felt state is a projection of the log")


@dataclass(frozen=True)
class Run:
    log: Path
    scenario: Scenario | None     # the scenario whose configs the log ran under, when found


@contextlib.contextmanager
def run_log(run: str | os.PathLike) -> Iterator[Run]:
    """The log of RUN: the file itself, or a scenario's replay into a temporary log."""
    from kernel.engine import scenario as msc
    from kernel.engine.fork import by_digest
    from kernel.oracle import make

    p = Path(run)
    if p.is_file():
        yield Run(p, by_digest(read_header(p).config_digest))
        return
    sc = msc.load(run)
    if not sc.world_only and sc.exemplars is None:
        raise VillageError(f"scenario {sc.name} has no recording to replay, so there is no run to "
                           f"plot: run it (village run), then plot its log")
    with tempfile.TemporaryDirectory(prefix="village-plot-") as d:
        log = Path(d) / f"{sc.name}.log"
        oracle = None if sc.world_only else make("replay", replay_from=sc.exemplars)
        engine.run(sc, oracle, log, keep_going=True)
        if not log.is_file():
            raise VillageError(f"scenario {sc.name} did not replay a single tick")
        yield Run(log, sc)


@dataclass(frozen=True)
class Series:
    label: str
    x: tuple[int, ...]
    y: tuple[float, ...]


class _Rows:
    """Follows a MemoryProjection: each villager's row count at every tick it grew."""

    def __init__(self, mem: engine.MemoryProjection):
        self.mem = mem
        self.start()

    def start(self) -> None:
        self.names: dict[int, str] = {}
        self.points: dict[int, list[tuple[int, int]]] = {}
        self.last = 0
        self._rows = 0

    def apply(self, tick: int, events) -> None:
        self.last = tick
        for e in events:
            if e.kind == "founded":
                self.names.setdefault(e.villager, e.name)
        got = self.mem.rows[self._rows:]
        self._rows = len(self.mem.rows)
        for v in sorted({m.villager for m in got}):
            self.points.setdefault(v, [(0, 0)]).append((tick, len(self.mem.streams[v])))


def rows(r: Run) -> tuple[Series, ...]:
    """Memory rows per villager over ticks: one step series a villager, from tick 0 to the last."""
    rules = r.scenario.rules if r.scenario is not None else engine.load_rules()
    mem = engine.MemoryProjection(rules)
    got = _Rows(mem)
    engine.fold(r.log, [mem, got])
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
    def start(self) -> None:
        self.by: dict[str, Counter] = {}

    def apply(self, tick: int, events) -> None:
        for e in events:
            if e.kind == "refusal":
                self.by.setdefault(e.check, Counter())[e.purpose] += 1


def refusals(r: Run) -> dict[str, Counter]:
    """Refusals by check, each counted by the call it refused (questions or statement)."""
    got = _Refusals()
    engine.fold(r.log, [got])
    return dict(sorted(got.by.items()))


@dataclass(frozen=True, slots=True)
class CallTime:
    n: int
    kind: str
    purpose: str
    model: str
    seconds: float


def recording_of(r: Run | None, exemplars: str | os.PathLike | None) -> Path:
    """The recording a cost plot reads: given, or the scenario's (when the log is its recorded run)."""
    if exemplars is not None:
        p = Path(exemplars)
        if not p.is_file():
            raise VillageError(f"--exemplars names a recording, and {p} is not a file")
        return p
    sc = r.scenario if r is not None else None
    if sc is None or sc.exemplars is None:
        raise VillageError("the time a call took is in the run's recording, not its log: give the "
                           "recording with --exemplars")
    if r.log.exists() and sc.head_sha256 != verify(r.log).head_hex:
        raise VillageError(f"the log runs under scenario {sc.name}'s configs but is not its "
                           f"recorded run: give the run's own recording with --exemplars")
    return sc.exemplars


def cost(recording: str | os.PathLike) -> tuple[CallTime, ...]:
    """Every call of a recording in order: what it was, which model, and the seconds it took."""
    from kernel.oracle import exemplar
    doc = exemplar.load(recording)
    return tuple(CallTime(i, c["kind"], c["purpose"], c["model"], c["took_ns"] / 1e9)
                 for i, c in enumerate(doc["calls"], start=1))
