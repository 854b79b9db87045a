"""When a row happened, in the words a person would use at the tick a prompt is asked.

This module owns the one rule for telling a row's time: `when(tick, now, ticks_per_day)` is
"this morning", "this afternoon" or "this evening" for a row of the prompt's own day (a day's
ticks in three equal parts), "yesterday morning" and so on for the day before, "two days
ago" to "six days ago", "a week ago", "two weeks ago", "three weeks ago", and "long ago"
past four weeks. `LABELS` holds every one of them, newest first, and an older row is never
told as newer than a younger one (the label's place in `LABELS` never falls as a row's age
grows). `Hours` is the clock of one prompt, which `kernel.laws.window.collapse` words lines
by, only where the world is in words (kernel.laws.places). Pure: integers in, words out; it
reads no clock, and it must not know what a row says or where it happened.
"""

from __future__ import annotations

from dataclasses import dataclass

from kernel.laws._errors import LawError, integer
from kernel.laws._errors import tick as _tick

PARTS = ("morning", "afternoon", "evening")
"""A day's ticks in three equal parts, in order."""

_DAYS = ("", "", "two", "three", "four", "five", "six")
_WEEKS = ("", "a", "two", "three")

LABELS: tuple[str, ...] = (
    *(f"this {p}" for p in reversed(PARTS)),
    *(f"yesterday {p}" for p in reversed(PARTS)),
    *(f"{w} days ago" for w in _DAYS[2:]),
    *(f"{w} week{'s' if i > 1 else ''} ago" for i, w in enumerate(_WEEKS) if w),
    "long ago",
)
"""Every time a row may be told at, from the newest to the oldest."""


def part_of(tick: int, ticks_per_day: int) -> str:
    """The part of its day `tick` falls in: morning, afternoon or evening."""
    return PARTS[(tick % ticks_per_day) * len(PARTS) // ticks_per_day]


def when(tick: int, now: int, ticks_per_day: int) -> str:
    """A row of tick `tick` as told at tick `now`, in a world of `ticks_per_day`-tick days."""
    _tick("tick", tick)
    _tick("now", now)
    integer("ticks_per_day", ticks_per_day, at_least=1)
    if tick > now:
        raise LawError(f"a row at tick {tick} is told at tick {now}, before it happened")
    days = now // ticks_per_day - tick // ticks_per_day
    if days == 0:
        return f"this {part_of(tick, ticks_per_day)}"
    if days == 1:
        return f"yesterday {part_of(tick, ticks_per_day)}"
    if days < 7:
        return f"{_DAYS[days]} days ago"
    weeks = days // 7
    if weeks < len(_WEEKS):
        return f"{_WEEKS[weeks]} week{'s' if weeks > 1 else ''} ago"
    return "long ago"


@dataclass(frozen=True, slots=True)
class Hours:
    """The clock a prompt asked at tick `now` tells its rows' times by."""

    now: int
    ticks_per_day: int

    def __post_init__(self) -> None:
        _tick("now", self.now)
        integer("ticks_per_day", self.ticks_per_day, at_least=1)

    def of(self, tick: int) -> str:
        return when(tick, self.now, self.ticks_per_day)
