"""What felt memory did in a run, counted from its events: the figures a sweep row keeps,
`village run` prints a night at a time and `village reflect --mode night` totals.

This module owns those counts: night plans asked and refused whole, groups
accepted and refused, rows absorbed, forgotten and re-felt, and thoughts
that recurred. They are counted off the events (a round's and a night's, or
a log's), so a run's report and its log give the same figures. It must not
judge anything: the checks are the night's and the round's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from kernel import events as ev
from kernel.events import Purpose

FELT = ("night_plans", "plans_refused", "groups_accepted", "groups_refused", "rows_absorbed",
        "rows_forgotten", "rows_refelt", "recurrences")
"""The felt figures, in the order a sweep row and a night's line give them."""


def felt(events: Iterable[ev.Event]) -> dict[str, int]:
    """The felt figures of `events`: a tick's, a night's, a run's."""
    n = dict.fromkeys(FELT, 0)
    counts = _COUNTS
    for e in events:
        count = counts.get(type(e))
        if count is not None:
            count(n, e)
    return n


def _answered(n: dict[str, int], e: ev.Answered) -> None:
    if e.purpose == Purpose.NIGHT:
        n["night_plans"] += 1


def _refusal(n: dict[str, int], e: ev.Refusal) -> None:
    if e.purpose == Purpose.NIGHT:
        n["plans_refused" if e.index == 0 else "groups_refused"] += 1


def _absorbed(n: dict[str, int], e: ev.Absorbed) -> None:
    n["groups_accepted"] += 1
    n["rows_absorbed"] += len(e.absorbed)


def _one(figure: str) -> Callable[[dict[str, int], ev.Event], None]:
    def count(n: dict[str, int], e: ev.Event) -> None:
        n[figure] += 1
    return count


_COUNTS: dict[type, Callable[[dict[str, int], ev.Event], None]] = {
    ev.Answered: _answered, ev.Refusal: _refusal, ev.Absorbed: _absorbed,
    ev.Forgotten: _one("rows_forgotten"), ev.Refelt: _one("rows_refelt"),
    ev.Recurred: _one("recurrences"),
}
"""What each event type adds to the felt figures, resolved once; other types add nothing."""


def of_report(report: Any) -> dict[str, int]:
    """A run's felt figures, from its report's rounds and nights."""
    return felt([*(e for r in report.rounds for e in r.events),
                 *(e for n in report.nights for e in n.events)])


def by_night(rounds: Sequence[Any], nights: Sequence[Any]) -> list[tuple[int, dict[str, int]]]:
    """Each night's tick and figures: its plans, groups, rows absorbed and forgotten, and the
    rows re-felt and thoughts recurring in the rounds since the night before (its day)."""
    out, last = [], -1
    for night in nights:
        day = [e for r in rounds if last < r.now <= night.now for e in r.events]
        out.append((night.now, felt([*day, *night.events])))
        last = night.now
    return out
