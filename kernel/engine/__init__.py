"""The engine: one driver for every run, its tick phases, and the projections it folds.

`run(scenario, oracle, out)` steps a scenario tick by tick through the
phases world, perceive, reflect and night, appends one frame a tick, and
folds each frame into its projections. `fold(log, projections)` derives the
same projections from a log on disk. `scenario.load` resolves a scenario's
files once into typed values; `scenario.of_world` makes a world run one.
"""

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
from kernel.engine.run import (
    PHASES,
    Engine,
    Frame,
    RunReport,
    TickState,
    run,
    run_world,
    world_frames,
)
from kernel.engine.scenario import Scenario, committed, load_rules, of_world, rules_digest
from kernel.engine.scenario import load as load_scenario

__all__ = ["PHASES", "Engine", "Folded", "Frame", "MemoryProjection", "MemoryState", "Projection",
           "RecordedVectors", "RunReport", "Scenario", "TickState", "VectorsProjection",
           "committed", "fold", "load_rules", "load_scenario", "memory_of", "of_world",
           "rules_digest", "run", "run_world", "world_frames"]
