"""The one entry to the engine: a run of a scenario, by the tick loop or by the fork.

`run(scenario, oracle, out, ...)` gathers its keywords (`RunOptions`' fields)
into one `RunOptions` value and hands it on: a scenario that is not a fork
runs from tick 0 through the tick loop (kernel.engine.run); a forked one
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
from collections.abc import Callable
from typing import Any

from kernel.engine import fork
from kernel.engine.run import RunOptions, RunReport, run_loop
from kernel.engine.scenario import Scenario, of_world


def run(sc: Scenario, oracle, out: str | os.PathLike, **options: Any) -> RunReport:
    """Run `sc` into a new log at `out`, with `oracle` answering every model call.

    `options` are `RunOptions`' fields by name (a name it has not is a TypeError, as
    for any call): with `keep_going`, an error in a phase ends the run quietly (the
    log holds every tick before the failing one) and is kept in the report; without,
    it is raised. `projections` are folded alongside the engine's own; `phases`
    replaces the tick's features (FEATURES, in order). See `RunOptions`.
    """
    return run_with(sc, oracle, out, RunOptions(**options))


def run_with(sc: Scenario, oracle, out: str | os.PathLike, options: RunOptions) -> RunReport:
    """Run `sc` under `options`: a forked scenario by the fork, any other from tick 0."""
    if sc.parent is not None:
        return fork.run_forked_scenario(sc, oracle, out, options)
    return run_loop(sc, oracle, out, options)


def run_world(world_config, ticks: int, out: str | os.PathLike, *,
              progress: Callable[[int], None] | None = None) -> RunReport:
    """A world run: the engine with nobody reflecting, from a world config (a path or its value)."""
    return run_with(of_world(world_config, ticks=ticks), None, out, RunOptions(progress=progress))
