"""The engine's shipped features, in the order their phases run at each tick: the world's step,
given rows, talk, perceive, reflect, night, basins, plan (kernel.engine.feature says what a
feature is). A feature is one module here, its place in `FEATURES`, and its config's block:
the engine makes its books, runs its phase where the settings turn it on, and keeps what the
phase made in the run's report under its name, with no edit of its own.
"""

from kernel.engine.features import basins, given, night, perceive, plan, reflect, talk, world

FEATURES = tuple(m.FEATURE for m in (world, given, talk, perceive, reflect, night, basins, plan))

__all__ = ["FEATURES"]
