"""What each of the home's scenarios is and what its recording did: the rows `village scenarios`
prints and `make docs` writes to docs/scenarios.md.

A scenario's row holds its files' figures (villagers, ticks, its length in
days by its world's calendar, who reflects, its committed head) and, for a
recorded one, what its replay did: the recording's generate and embed
calls, and the questions, statements, thoughts, nights, groups and rows
re-felt and forgotten, with its refusals by call and check. Those are
counted by a projection (`ScenarioTally`) folded as each tick of its one replay
(kernel.engine.replay, answered from the recording, no model) is
appended, so the figures are the recording's own, never typed in. A
world-only scenario is not run, since nothing in its row needs its events
(`village replay` checks its head). This module owns those counts; it
must not format or print them (the CLI renders), judge an event (the
checks are the round's and the night's) or write anything but the
replay's temporary log.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from kernel import events as ev
from kernel.engine.replay import replay
from kernel.engine.scenario import Scenario
from kernel.events import Purpose
from kernel.report.figures import FELT, felt

Refused = tuple[tuple[str, str, int], ...]
"""Refusals by the call refused and the check that refused it: (call, check, refusals)."""


@dataclass(frozen=True)
class ScenarioRow:
    """One scenario's line of the table: its files' figures and, if recorded, its replay's."""

    name: str
    villagers: int
    ticks: int
    days: float
    reflecting: int
    head: str
    description: str = ""
    calls: tuple[int, int] | None = None        # the recording's generate and embed calls
    counts: dict[str, int] = field(default_factory=dict)
    refused: Refused = ()                       # (call, check, refusals)
    differs: str | None = None                  # why the replay is not the recording, if it is not


def _call(e: ev.Refusal) -> str:
    """The call a refusal refused: a night's plan (its first call) or one of its groups."""
    if e.purpose != Purpose.NIGHT:
        return e.purpose
    return "night plan" if e.index == 0 else "night group"


def _answered(t: ScenarioTally, e: ev.Answered) -> None:
    t.n[e.purpose] += 1


def _refusal(t: ScenarioTally, e: ev.Refusal) -> None:
    t.n[f"{e.purpose} refused"] += 1
    t.by[(_call(e), e.check)] += 1


def _thought(t: ScenarioTally, e: ev.Thought) -> None:
    t.n["thoughts"] += 1


_TALLY: dict[type, Callable[[ScenarioTally, ev.Event], None]] = {
    ev.Answered: _answered, ev.Refusal: _refusal, ev.Thought: _thought,
}
"""What each event type adds to the mind's counts, resolved once; other types add nothing."""


class ScenarioTally:
    """A projection: what a run's mind did, counted off its events as each tick is appended."""

    def __init__(self) -> None:
        self.start()

    def start(self) -> None:
        self.n: Counter[str] = Counter()
        self.by: Counter[tuple[str, str]] = Counter()
        self.felt = dict.fromkeys(FELT, 0)

    def apply(self, tick: int, events: Sequence[ev.Event]) -> None:
        for e in events:
            add = _TALLY.get(type(e))
            if add is not None:
                add(self, e)
        for k, v in felt(events).items():
            self.felt[k] += v

    def counts(self) -> tuple[dict[str, int], Refused]:
        """The counts a row shows, and the refusals by call and check, in order."""
        n = self.n
        out = {"questions": n["questions"], "questions refused": n["questions refused"],
               "statements": n["statement"], "statements refused": n["statement refused"],
               "thoughts": n["thoughts"], **self.felt}
        return out, tuple((call, check, k) for (call, check), k in sorted(self.by.items()))


def count(events: Iterable[ev.Event]) -> tuple[dict[str, int], Refused]:
    """What a run's mind did, counted off its events; and its refusals by call and check."""
    t = ScenarioTally()
    t.apply(0, list(events))
    return t.counts()


def replays(sc: Scenario) -> bool:
    """Whether a scenario's row is counted off a replay: it has a recording and reflects."""
    return not sc.world_only and sc.exemplars is not None


def row_of(sc: Scenario, *, progress: Callable[[int], None] | None = None) -> ScenarioRow:
    """A scenario's row: read off its files, and for a recorded one off its one replay, whose
    every appended tick `progress` is told of."""
    base = dict(name=sc.name, villagers=len(sc.world.people), ticks=sc.ticks,
                days=float(sc.world.calendar.length_in_days(sc.ticks)),
                reflecting=len(sc.reflecting), head=sc.head_sha256 or "",
                description=sc.description)
    if not replays(sc):
        return ScenarioRow(**base)
    tally = ScenarioTally()
    rp = replay(sc, projections=[tally], progress=progress)
    kinds = Counter(c["kind"] for c in rp.oracle.doc["calls"])
    counts, refused = tally.counts()
    return ScenarioRow(**base, calls=(kinds["generate"], kinds["embed"]), counts=counts, refused=refused,
               differs=_differs(sc, rp.report))


def _differs(sc: Scenario, report) -> str | None:
    """Why a replay is not its recording (it stopped, or reached another head); None if it is."""
    if report.stopped is not None:
        return f"the replay stopped at tick {report.ticks}: {report.stopped}"
    if report.head_hex != sc.head_sha256:
        return f"the replay's head is {report.head_hex[:16]}"
    return None
