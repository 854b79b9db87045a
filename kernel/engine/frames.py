"""The world alone, tick by tick: frames of a world config stepped from tick 0 with nothing
logged, perceived or folded (what the property tests and a world's checks walk)."""

from __future__ import annotations

from dataclasses import dataclass

from kernel import events as ev
from kernel.errors import VillageError
from kernel.world.step import World, initial, step


@dataclass(frozen=True, slots=True)
class WorldFrame:
    """One tick of the world alone: its events, and the world after it."""

    tick: int
    events: tuple[ev.Event, ...]
    world: World


def world_frames(world_config, ticks: int):
    """The world's ticks as frames from tick 0, stepped and nothing else: nothing logged or folded."""
    if type(ticks) is not int or ticks < 0:
        raise VillageError(f"a run is a whole number of ticks >= 0, not ticks={ticks!r}")
    w = initial(world_config)
    for t in range(ticks):
        w, events = step(w, t)
        yield WorldFrame(tick=t, events=events, world=w)
