"""The village world: its config and its pure `step`.

The package owns the world's state and policy (`step`) and its typed
config. Running it into a log is the engine's (kernel.engine), which steps
it as the first phase of every tick; the laws it feeds (perception,
importance) live in kernel/laws and never import this package.
"""

from kernel.world.config import Person, Policy, WorldConfig, load
from kernel.world.step import World, WorldError, distance, initial, step

__all__ = ["Person", "Policy", "World", "WorldConfig", "WorldError", "distance", "initial",
           "load", "step"]
