"""The rows a villager is given at its founding (kernel.mind.given), right after the world's
step founds it, before it perceives anything. Always on; no books."""

from __future__ import annotations

from collections.abc import Sequence

from kernel import events as ev
from kernel.engine.feature import EngineState, Feature, TickState
from kernel.mind.given import given


def given_phase(en: EngineState, ts: TickState, so_far: Sequence[ev.Event]) -> Sequence[ev.Event]:
    """The given rows of every villager founded at this tick."""
    return given(so_far, en.cast.given)


FEATURE = Feature("given", given_phase)
