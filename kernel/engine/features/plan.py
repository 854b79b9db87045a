"""Tomorrow's plans (kernel.mind.plans), where the thought settings have a plan block: at a
night, after the basins, each villager who reflects proposes its plan for tomorrow. Its book is
the plans the world carries out ("plans", kept in every run, so a fork that drops the plan
block still carries out the plans made before it); its part of the report the night's plans."""

from __future__ import annotations

from collections.abc import Sequence

from kernel import events as ev
from kernel.engine.feature import EngineState, Feature, Makers, TickState
from kernel.engine.scenario import Scenario
from kernel.mind.plans import PlanBook, plan_round
from kernel.mind.settings import Settings


def _on(settings: Settings | None) -> bool:
    return settings is not None and settings.plan is not None


def _books(sc: Scenario, settings: Settings | None) -> Makers:
    return {"plans": lambda sc, memory: PlanBook()}


def plan_phase(en: EngineState, ts: TickState, so_far: Sequence[ev.Event]) -> Sequence[ev.Event]:
    """The plans of every villager who has a night at this tick; none, no events."""
    who = en.nightly(ts.tick)
    if not who:
        return ()
    ids = [d.villager for d in who]
    rows = ts.view.rows(so_far)
    streams = ts.view.streams(so_far, ids)
    basins, felt = en.books.get("basins"), en.books.get("felt")
    states = basins.after(so_far) if basins is not None else {}
    book = felt.scratch(ids, ts.tick, rows, so_far) if felt else None
    plans = plan_round(ts.tick, who, streams, states, book, en.oracle, en.settings, en.scenario.world)
    ts.made[FEATURE.name] = plans
    return plans.events


FEATURE = Feature("plan", plan_phase, on=_on, books=_books)
