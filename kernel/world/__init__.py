"""The village world: its config, its pure `step`, running it into a log, and memory from a log.

The package owns the world's state and policy (`step`), the edge that
writes a run's log (`run`, `frames`, `create_log`) and the edge that
rebuilds memory from a log (`memory_of`). The laws it calls (perception,
importance) live in kernel/laws and never import this package.
"""

from kernel.world.config import Person, Policy, WorldConfig, load
from kernel.world.run import Frame, RunResult, create_log, frames, run
from kernel.world.step import World, WorldError, distance, initial, step
from kernel.world.stream import MemoryState, load_rules, memory_of, rules_digest

__all__ = ["Frame", "MemoryState", "Person", "Policy", "RunResult", "World", "WorldConfig",
           "WorldError", "create_log", "distance", "frames", "initial", "load", "load_rules",
           "memory_of", "rules_digest", "run", "step"]
