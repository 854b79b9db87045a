"""The one entry to the engine: a run of a scenario, by the tick loop or by the fork.

`run(scenario, oracle, out, ...)` gathers its keywords into one
`RunOptions` value and hands it on: a scenario that is not a fork runs
from tick 0 through the tick loop (kernel.engine.run); a forked one
(`parent` and `fork_at` in its scenario.json) goes to kernel.engine.fork,
whose parent's recording answers before the fork and `oracle` after.
`run_world` is a world run: the same entry with nobody reflecting.

This module owns that choice and nothing else: the loop is
kernel.engine.run's, rebuilding a fork's state kernel.engine.fork's, and
what a scenario holds kernel.engine.scenario's. It is the only engine
module that imports both the loop and the fork.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from kernel.engine import fork
from kernel.engine.phases import PHASES, Phase
from kernel.engine.projection import Projection
from kernel.engine.run import RunOptions, RunReport, run_loop
from kernel.engine.scenario import Scenario, of_world
from kernel.mind.reflect import Round
from kernel.mind.settings import Settings


def run(sc: Scenario, oracle, out: str | os.PathLike, *, settings: Settings | None = None,
        ticks: int | None = None, progress: Callable[[int], None] | None = None,
        on_round: Callable[[Round], None] | None = None, keep_going: bool = False,
        projections: Sequence[Projection] = (), phases: Sequence[tuple[str, Phase]] = PHASES,
        commit_every: int = 0) -> RunReport:
    """Run `sc` into a new log at `out`, with `oracle` answering every model call.

    With `keep_going`, an error in a phase ends the run quietly (the log holds
    every tick before the failing one) and is kept in the report; without,
    it is raised. `projections` are folded alongside the engine's own;
    `phases` replaces the tick's phases (PHASES, in order). See `RunOptions`.
    """
    return run_with(sc, oracle, out, RunOptions(
        settings=settings, ticks=ticks, progress=progress, on_round=on_round,
        keep_going=keep_going, projections=tuple(projections), phases=tuple(phases),
        commit_every=commit_every))


def run_with(sc: Scenario, oracle, out: str | os.PathLike, options: RunOptions) -> RunReport:
    """Run `sc` under `options`: a forked scenario by the fork, any other from tick 0."""
    if sc.parent is not None:
        return fork.run_forked_scenario(sc, oracle, out, options)
    return run_loop(sc, oracle, out, options)


def run_world(world_config, ticks: int, out: str | os.PathLike, *,
              progress: Callable[[int], None] | None = None) -> RunReport:
    """A world run: the engine with nobody reflecting, from a world config (a path or its value)."""
    return run_with(of_world(world_config, ticks=ticks), None, out, RunOptions(progress=progress))
