"""The calendar's laws: days of ticks_per_day ticks from tick 0, and the last tick of each is a night."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kernel.calendar import Calendar, CalendarError

calendars = st.integers(1, 5000).map(Calendar)
ticks = st.integers(0, 10**9)


@given(calendars, ticks)
def test_a_tick_is_in_the_day_whose_span_holds_it(cal, t):
    d = cal.day_of(t)
    assert d * cal.ticks_per_day <= t < (d + 1) * cal.ticks_per_day
    assert cal.day_number(t) == d + 1


@given(calendars, ticks)
def test_a_tick_is_the_last_of_its_day_exactly_when_the_next_tick_begins_a_new_day(cal, t):
    assert cal.is_last_tick_of_day(t) == (cal.day_of(t + 1) == cal.day_of(t) + 1)


@given(calendars, ticks)
def test_the_night_ending_a_ticks_day_is_the_first_last_tick_at_or_after_it(cal, t):
    n = cal.last_tick_of_day(t)
    assert n >= t and cal.day_of(n) == cal.day_of(t) and cal.is_last_tick_of_day(n)
    assert not any(cal.is_last_tick_of_day(u) for u in range(t, n))


@given(st.integers(1, 300).map(Calendar), st.integers(0, 3000))
def test_the_nights_up_to_a_tick_are_every_last_tick_of_a_day_up_to_it_in_order(cal, t):
    assert list(cal.nights_up_to(t)) == [u for u in range(t + 1) if cal.is_last_tick_of_day(u)]


@given(st.integers(1, 300).map(Calendar), st.integers(0, 3000))
def test_a_run_of_ticks_reaches_into_as_many_days_as_its_ticks_fall_in(cal, n):
    assert cal.days_in(n) == len({cal.day_of(t) for t in range(n)})


@given(st.one_of(st.integers(max_value=0), st.booleans(), st.floats(), st.text(max_size=3)))
def test_days_of_no_ticks_or_of_something_not_an_integer_are_refused_naming_the_value(n):
    with pytest.raises(CalendarError, match=r"^Expected ticks_per_day >= 1 .* but got ticks_per_day="):
        Calendar(n)


@given(calendars, st.one_of(st.integers(max_value=-1), st.booleans(), st.floats()))
def test_a_tick_before_tick_0_or_not_an_integer_is_refused_naming_the_value(cal, t):
    for ask in (cal.day_of, cal.is_last_tick_of_day, cal.last_tick_of_day, cal.nights_up_to):
        with pytest.raises(CalendarError, match=r"^Expected tick >= 0 .* but got tick="):
            ask(t)
