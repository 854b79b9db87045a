"""Day arithmetic is said once, by the calendar; every other module asks it."""

from __future__ import annotations

import re
from pathlib import Path

from kernel.calendar import Calendar
from kernel.world import config as world_config

KERNEL = Path(__file__).resolve().parents[2] / "kernel"
# A tick divided by, or taken modulo, a day's ticks; or the nights counted out by hand.
DAY_ARITHMETIC = re.compile(r"(//|%|/)\s*\(?-?\s*(\w+\.)*(ticks_per_day|tpd)\b"
                            r"|range\(\s*(\w+\.)*(ticks_per_day|tpd)\s*-\s*1")


def test_day_arithmetic_is_written_only_in_the_calendar():
    # The laws' fading runs on continuous days (a Decimal age over a day's ticks), not on the calendar.
    found = [f"{p.relative_to(KERNEL)}:{i}" for p in sorted(KERNEL.rglob("*.py"))
             if p.name != "calendar.py" and "laws" not in p.parts
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if DAY_ARITHMETIC.search(line)]
    assert found == []


def test_a_worlds_calendar_has_the_worlds_days():
    w = world_config.load()
    assert w.calendar == Calendar(w.ticks_per_day)
    assert w.calendar.is_last_tick_of_day(w.ticks_per_day - 1)
