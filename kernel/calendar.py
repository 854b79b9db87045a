"""The calendar: which day a tick is in, and which ticks end a day.

A world's time is integer ticks from 0, and a day is `ticks_per_day` of
them: day 0 holds ticks 0 to ticks_per_day - 1, and its last tick is the
night (when a night block is set, minds have their night then, and the log
makes a commit point). This module owns that arithmetic, said once: the day
of a tick, whether a tick is the last of its day, the night that ends a
tick's day, the nights up to a tick, the days a run of ticks begins and
how many days long it is. It is pure (a frozen value, no clock, no I/O)
and imports nothing but kernel.errors; it must not know what a world, a
log or a night does.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from kernel.errors import CalendarError


def _tick(name: str, value: object) -> int:
    # bool is an int to Python, but a True tick is a bug, not a tick.
    if type(value) is not int or value < 0:
        raise CalendarError(f"Expected {name} >= 0 (an integer) but got {name}={value!r}")
    return value


DAY = 2000
"""A day's ticks where nothing says otherwise: the shipped world's, and what a log header, a
fold or a report takes when it is handed no world."""


@dataclass(frozen=True, slots=True)
class Calendar:
    """Days of `ticks_per_day` ticks, from tick 0."""

    ticks_per_day: int

    def __post_init__(self) -> None:
        n = self.ticks_per_day
        if type(n) is not int or n < 1:
            raise CalendarError(f"Expected ticks_per_day >= 1 (an integer) but got ticks_per_day={n!r}")

    def day_of(self, tick: int) -> int:
        """The day `tick` is in, counting from 0."""
        return _tick("tick", tick) // self.ticks_per_day

    def day_number(self, tick: int) -> int:
        """The day `tick` is in as a person counts it, from day 1 (what a report shows)."""
        return self.day_of(tick) + 1

    def first_tick_of_day(self, day: int) -> int:
        """The first tick of `day` (counting from 0)."""
        return _tick("day", day) * self.ticks_per_day

    def is_last_tick_of_day(self, tick: int) -> bool:
        """Whether `tick` is its day's last (a night): the next tick begins a new day."""
        return (_tick("tick", tick) + 1) % self.ticks_per_day == 0

    def last_tick_of_day(self, tick: int) -> int:
        """The last tick of the day `tick` is in: the night that ends its day."""
        return tick + (-(_tick("tick", tick) + 1)) % self.ticks_per_day

    def nights_up_to(self, tick: int) -> range:
        """Every day's last tick from tick 0 up to and including `tick`, in order."""
        return range(self.ticks_per_day - 1, _tick("tick", tick) + 1, self.ticks_per_day)

    def days_in(self, ticks: int) -> int:
        """How many days a run of `ticks` ticks from tick 0 reaches into (a day begun counts)."""
        return -(-_tick("ticks", ticks) // self.ticks_per_day)

    def length_in_days(self, ticks: int) -> Fraction:
        """How many days long a run of `ticks` ticks is, a part day as its exact fraction."""
        return Fraction(_tick("ticks", ticks), self.ticks_per_day)
