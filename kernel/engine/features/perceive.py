"""What the villagers perceive of the world's events, seen before anyone reflects on them: the
rows a round at this tick stands on (`TickState.seen`), read from the tick's view. No books."""

from __future__ import annotations

from collections.abc import Sequence

from kernel import events as ev
from kernel.engine.feature import EngineState, Feature, TickState


def perceive_phase(en: EngineState, ts: TickState, so_far: Sequence[ev.Event]) -> Sequence[ev.Event]:
    """The tick's rows so far, kept where somebody is due to reflect at it."""
    if en.due(ts.tick):
        ts.seen = ts.view.rows(so_far)
    return ()


FEATURE = Feature("perceive", perceive_phase)
