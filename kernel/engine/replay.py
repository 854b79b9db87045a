"""One replay for every view: a scenario run from its recording, with a view's projections
folded as each tick is appended.

A view of a run (the report's day, the reflect modes, the plots, `village replay`) asks
`replay(sc, projections=...)` for its projections: the scenario runs through the engine's
one tick loop, answered from its recording and so by no model (nobody answers a world run),
and every projection given is folded beside the engine's own as each frame is appended. A
projection that reads rows (a projection.Follower) takes the engine's own memory and felt
projections, so a view neither folds perception again nor reads back the log it wrote. The
log goes to a temporary file, removed when the run ends, or to the path given. `follow(log,
projections)` is the same for a log on disk: it hands the followers one memory projection
and folds the log once. This module owns that call; it must not decide what a tick does
(kernel.engine.run) or what a view shows (kernel.report).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from kernel.engine.feature import Feature, Phase
from kernel.engine.features import FEATURES
from kernel.engine.felt import FeltProjection
from kernel.engine.projection import Folded, MemoryProjection, Projection, fold
from kernel.engine.run import RunReport
from kernel.engine.scenario import Scenario
from kernel.engine.start import run
from kernel.errors import VillageError
from kernel.laws.importance import Importance
from kernel.log import Header, read_header
from kernel.mind.reflect import Round
from kernel.mind.settings import Settings


@dataclass(frozen=True)
class Replay:
    """A replayed run: the engine's report (its rounds and nights), the oracle that answered
    it (what it read, what each call cost), the projections folded as it ran, the engine's
    own memory and felt projections as the run ended, and the header of the log it wrote
    (None when no tick reached the log)."""

    report: RunReport
    oracle: object | None
    projections: tuple[Projection, ...]
    memory: MemoryProjection
    felt: FeltProjection | None
    header: Header | None

    @property
    def stopped(self) -> BaseException | None:
        return self.report.stopped


class _Own:
    """A follower that keeps the engine's own memory and felt projections, and folds nothing."""

    memory: MemoryProjection
    felt: FeltProjection | None = None

    def follow_engine(self, memory: MemoryProjection, felt: FeltProjection | None) -> None:
        self.memory, self.felt = memory, felt

    def start(self) -> None:
        pass

    def apply(self, tick: int, events) -> None:
        pass


_RECORDING = object()
"""`replay`'s oracle when none is given: the scenario's recording, read in order."""


def recorded_oracle(sc: Scenario):
    """The oracle a replay of `sc` reads: its recording, in order; None for a world run."""
    if sc.world_only:
        return None
    if sc.exemplars is None:
        raise VillageError(f"scenario {sc.name} has no recording to replay")
    from kernel.oracle import make
    return make("replay", sc.models, replay_from=sc.exemplars)


def replay(sc: Scenario, *, projections: Sequence[Projection] = (),
           settings: Settings | None = None, oracle=_RECORDING,
           phases: Sequence[Feature | tuple[str, Phase]] = FEATURES,
           on_round: Callable[[Round], None] | None = None,
           progress: Callable[[int], None] | None = None,
           out: str | os.PathLike | None = None) -> Replay:
    """Run `sc` once, folding `projections` as it goes: a view's one call to the engine.

    `oracle` answers every model call (default: `recorded_oracle(sc)`); `settings`
    replaces the scenario's thought settings (a depth cap, say); `phases` the tick's
    features. An error in a tick ends the run quietly and is kept in the report
    (`report.stopped`): the projections hold every tick before it. The log is written
    to `out` (which must not exist yet), or to a temporary file removed at the end.
    """
    if oracle is _RECORDING:
        oracle = recorded_oracle(sc)
    own = _Own()
    every = (*projections, own)
    with tempfile.TemporaryDirectory(prefix="village-replay-") as d:
        path = Path(out) if out is not None else Path(d) / f"{sc.name}.log"
        report = run(sc, oracle, path, settings=settings, keep_going=True, projections=every,
                     phases=phases, on_round=on_round, progress=progress)
        header = read_header(path) if path.is_file() else None
    return Replay(report=report, oracle=oracle, projections=tuple(projections),
                  memory=own.memory, felt=own.felt, header=header)


def follow(log: str | os.PathLike, projections: Sequence[Projection], *,
           rules: Importance) -> tuple[MemoryProjection | None, Folded]:
    """Fold `projections` over a log on disk, once: what `replay` folds them over as it runs.

    The followers among them take one memory projection under `rules`, folded
    before them, as a replay hands them the engine's own (and no felt projection:
    a follower that needs felt state folds its own). The memory (None where nothing
    follows one, and none was folded), and where the fold ended.
    """
    followers = [f for f in (getattr(p, "follow_engine", None) for p in projections) if f]
    mem = MemoryProjection(rules) if followers else None
    for follow_engine in followers:
        follow_engine(mem, None)
    done = fold(log, [mem, *projections] if mem is not None else projections)
    return mem, done


def at(log: str | os.PathLike, tick: int | None, projections: Sequence[Projection]) -> Folded:
    """Fold `projections` over a log on disk, once, up to and with `tick` (None: its last):
    a view of a log as it stood at a tick (an interview's, the news') takes this one fold, as a
    view of a scenario takes `replay`. Where the fold ended says whether the log reached `tick`."""
    return fold(log, projections, until=tick)
