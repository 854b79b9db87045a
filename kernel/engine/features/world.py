"""The world's step: every villager acts by the seeded policy, choosing by the day's plans
where the thought settings carry plans out (kernel.world.step). Always on; no books."""

from __future__ import annotations

from collections.abc import Sequence

from kernel import events as ev
from kernel.engine.feature import EngineState, Feature, TickState
from kernel.world.step import step


def world_phase(en: EngineState, ts: TickState, so_far: Sequence[ev.Event]) -> Sequence[ev.Event]:
    """The world steps: its events are the tick's first."""
    en.world, events = step(en.world, ts.tick, en.plans(ts.tick))
    return events


FEATURE = Feature("world", world_phase)
