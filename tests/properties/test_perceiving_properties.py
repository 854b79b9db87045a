"""A frame perceived in parts, as a tick's phases add their events, is the frame perceived whole."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernel import engine
from kernel import events as ev
from kernel.laws._errors import PerceptionError
from kernel.laws.perception import Perceiving, perceive, start
from tests.strategies import worlds

RULES = engine.load_rules()
SLOW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RUNS = (ev.Ate, ev.Walked)


def _first_part(events: tuple[ev.Event, ...]) -> int:
    """How many events the first part must hold: up to the frame's last meal or walk."""
    return max((i + 1 for i, e in enumerate(events) if isinstance(e, RUNS)), default=0)


@SLOW
@given(worlds(), st.integers(20, 120), st.data())
def test_a_frame_perceived_in_parts_gives_the_rows_and_state_of_the_frame_perceived_whole(
        cfg, ticks, data):
    state = start(RULES)
    for f in engine.world_frames(cfg, ticks):
        events = f.events
        least = _first_part(events)
        cuts = sorted(data.draw(st.lists(st.integers(least, len(events)), max_size=3)))
        p = Perceiving(state, f.tick)
        at = 0
        for c in (*cuts, len(events)):
            p.add(events[at:c])
            at = c
        whole_state, whole_rows = perceive(state, f.tick, events)
        assert p.rows == whole_rows
        assert p.after() == whole_state
        state = whole_state


@SLOW
@given(worlds(), st.integers(20, 120), st.data())
def test_the_state_of_a_frame_so_far_is_not_changed_by_the_events_after_it(cfg, ticks, data):
    state = start(RULES)
    for f in engine.world_frames(cfg, ticks):
        events = f.events
        cut = data.draw(st.integers(_first_part(events), len(events)))
        p = Perceiving(state, f.tick)
        p.add(events[:cut])
        mid = p.state()
        p.add(events[cut:])
        assert mid == perceive(state, f.tick, events[:cut])[0]
        state = p.after()


def test_a_later_part_of_a_frame_may_not_hold_a_walk():
    p = Perceiving(start(RULES), 0)
    p.add(())
    walk = ev.Walked(villager=1, from_x=0, from_y=0, to_x=1, to_y=0)
    with pytest.raises(PerceptionError, match="meals and walks come in its first part"):
        p.add((walk,))
