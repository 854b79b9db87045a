"""Frames folded by perception alone, for the tests of how rows are worded."""

from __future__ import annotations

from kernel import engine
from kernel.laws.perception import perceive, start

RULES = engine.load_rules()


def fold(frames, rules=RULES):
    """The perception after `frames` (tick, events), and every row they gave."""
    state, rows = start(rules), []
    for t, events in frames:
        state, got = perceive(state, t, events)
        rows.extend(got)
    return state, rows


def lines(rows, villager):
    """The texts of `villager`'s rows."""
    return [m.text for m in rows if m.villager == villager]
