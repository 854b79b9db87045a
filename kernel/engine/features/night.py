"""The night at a day's last tick, after its reflections, for every villager who reflects, where
the thought settings have a night block (kernel.mind.night): consolidation, then forgetting.
Its part of the report is the night (`Night`). It reads the felt book, which a night needs."""

from __future__ import annotations

from collections.abc import Sequence

from kernel import events as ev
from kernel.engine.feature import EngineState, Feature, TickState
from kernel.mind.night import night_round


def night_phase(en: EngineState, ts: TickState, so_far: Sequence[ev.Event]) -> Sequence[ev.Event]:
    """The night of every villager who has one at this tick; none, no events."""
    who = en.nightly(ts.tick)
    if not who:
        return ()
    # what this tick gave so far (its world rows and its thoughts), as the log will hold it
    rows = ts.view.rows(so_far)
    ids = [d.villager for d in who]
    book = en.books["felt"].scratch(ids, ts.tick, rows, so_far)
    streams = ts.view.streams(so_far, ids)
    night = night_round(ts.tick, who, streams, book, en.oracle, en.settings, en.night)
    ts.made[FEATURE.name] = night
    return night.events


FEATURE = Feature("night", night_phase)
