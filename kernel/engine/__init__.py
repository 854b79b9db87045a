"""The engine: one entry for every run, its tick loop and phases, the fork, and the projections it folds.

`run(scenario, oracle, out)` (kernel.engine.start) is the one entry: it
gathers a run's options into one `RunOptions` value and hands a scenario to
the tick loop (kernel.engine.run), which steps it tick by tick through the
phases of its features (kernel.engine.features: world, given, talk, perceive,
reflect, night, basins, plan), appends one frame a tick and
folds each frame into its projections, or, for a forked scenario, to the
fork (kernel.engine.fork), which rebuilds the parent's first ticks and
runs on the loop. `fold(log, projections)` derives the same projections
from a log on disk. `replay(scenario, projections=...)` (kernel.engine.replay)
is every view's one call: a scenario run from its recording with the view's
projections folded as it runs. `scenario.load` resolves a scenario's files once into
typed values; `scenario.of_world` makes a world run one.
"""

from kernel.engine.feature import Feature, TickState
from kernel.engine.features import FEATURES
from kernel.engine.frames import WorldFrame, world_frames
from kernel.engine.projection import (
    Folded,
    MemoryProjection,
    MemoryState,
    Projection,
    RecordedVectors,
    VectorsProjection,
    fold,
    memory_of,
)
from kernel.engine.replay import Replay, follow, replay
from kernel.engine.run import Engine, RunOptions, RunReport
from kernel.engine.scenario import Scenario, committed, load_rules, of_world, rules_digest
from kernel.engine.scenario import load as load_scenario
from kernel.engine.start import run, run_with, run_world

__all__ = ["FEATURES", "Engine", "Feature", "Folded", "WorldFrame", "MemoryProjection", "MemoryState", "Projection",
           "RecordedVectors", "Replay", "RunOptions", "RunReport", "Scenario", "TickState",
           "VectorsProjection", "committed", "fold", "follow", "load_rules", "load_scenario", "memory_of",
           "of_world", "replay", "rules_digest", "run", "run_with", "run_world", "world_frames"]
