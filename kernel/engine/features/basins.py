"""The basins (kernel.mind.basins), where the thought settings have an `attractor`
block: each villager who reflects and is founded at a tick is seeded with its world config's
basins; at a night, after consolidation, each one holding basins has its update. Its book is
the basins each villager holds ("basins"); its part of the report the night's update."""

from __future__ import annotations

from collections.abc import Sequence

from kernel import events as ev
from kernel.engine.feature import EngineState, Feature, Makers, TickState
from kernel.engine.scenario import Scenario
from kernel.mind.basins import BasinBook, basins_round, seeded
from kernel.mind.settings import Settings


def _on(settings: Settings | None) -> bool:
    return settings is not None and settings.basins is not None


def _books(sc: Scenario, settings: Settings | None) -> Makers:
    return {"basins": lambda sc, memory: BasinBook()} if _on(settings) else {}


def basins_phase(en: EngineState, ts: TickState, so_far: Sequence[ev.Event]) -> Sequence[ev.Event]:
    """The seeds of the villagers founded at this tick, then a night's update."""
    book = en.books["basins"]
    events = seeded(so_far, en.cast.seeds)
    who = en.nightly(ts.tick)
    if not who:
        return events
    states = book.after(events)
    streams = ts.view.streams(so_far, [d.villager for d in who])
    update = basins_round(ts.tick, who, streams, states, en.oracle, en.settings,
                          en.scenario.world.ticks_per_day, en.cast.names)
    ts.made[FEATURE.name] = update
    return (*events, *update.events)


FEATURE = Feature("basins", basins_phase, on=_on, books=_books)
