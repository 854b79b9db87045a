"""A tick's phases, in their order: world step, given rows, talk, perceive, reflect, night,
basins, plan. A phase is a function of what it reads of the engine (`EngineState`, which
kernel.engine.run.Engine holds), the tick's state its earlier phases handed on (`TickState`)
and the tick's events so far, and returns the events it adds. A phase reads the tick's rows,
sight and streams from the tick's view (kernel.engine.view), which perceives each event once;
the rules are kernel.laws', a round's work is kernel.mind's, and the order is `PHASES`.

Adding a phase is a function here and its place in `PHASES`; what it makes, for the phases
after it and for the engine's fold, is a field of `TickState`.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from kernel import events as ev
from kernel.engine.books import Books
from kernel.engine.cast import Cast
from kernel.engine.projection import MemoryProjection, VectorsProjection
from kernel.engine.scenario import Scenario
from kernel.engine.view import TickView
from kernel.laws.memory import Memory
from kernel.mind.basins import BasinsNight, basins_round, seeded, view
from kernel.mind.given import given
from kernel.mind.intend import Plans, plan_round
from kernel.mind.night import Night, night_round
from kernel.mind.reflect import Due, Holdings, Round, reflect_round
from kernel.mind.settings import NightSettings, Settings
from kernel.mind.talk import Meeting, Talk, talk_round
from kernel.world.step import World, step


class EngineState(Protocol):
    """What a phase reads of the engine between ticks (kernel.engine.run.Engine holds it):
    the scenario and its settings, who answers, the world, the books folded from the log
    (`books`), who the villagers are (`cast`), and who is due at a tick. A phase changes only `world` (the world's step); the books change
    by the engine's fold of the appended frame, never in a phase."""

    scenario: Scenario
    settings: Settings | None
    night: NightSettings | None
    oracle: Any
    world: World
    memory: MemoryProjection
    vectors: VectorsProjection
    books: Books
    cast: Cast

    def intentions(self, tick: int) -> Any: ...

    def due(self, tick: int) -> list[Due]: ...

    def nightly(self, tick: int) -> list[Due]: ...

@dataclass
class TickState:
    """What the phases of one tick hand on to each other, besides its events: the tick's view
    (its events perceived once, kernel.engine.view) and what each phase made."""

    tick: int
    view: TickView
    seen: tuple[Memory, ...] = ()       # the rows the world's events give, before the mind's
    round: Round | None = None
    night: Night | None = None
    basins: BasinsNight | None = None
    plans: Plans | None = None
    talk: Talk | None = None


Phase = Callable[[EngineState, TickState, Sequence[ev.Event]], Sequence[ev.Event]]


def world_phase(en: EngineState, ts: TickState, so_far: Sequence[ev.Event]) -> Sequence[ev.Event]:
    """The world steps: every villager acts by the seeded policy, choosing by the day's
    intentions where the thought settings carry plans out."""
    en.world, events = step(en.world, ts.tick, en.intentions(ts.tick))
    return events


def given_phase(en: EngineState, ts: TickState, so_far: Sequence[ev.Event]) -> Sequence[ev.Event]:
    """The rows a villager founded at this tick is given (kernel.mind.given), right after its
    founding, before it perceives anything."""
    return given(so_far, en.cast.given)


def talk_phase(en: EngineState, ts: TickState, so_far: Sequence[ev.Event]) -> Sequence[ev.Event]:
    """Where the thought settings have a talk block: the words said at this tick's meetings,
    before anyone perceives them (kernel.mind.talk), so the rows they give are in the tick's
    rows that every later phase reads."""
    st = en.settings
    if st is None or st.talk is None or en.books.talks is None:
        return ()
    talkers = en.cast.talkers
    viewers = [e for e in so_far if isinstance(e, ev.CameIntoSight)
               and e.viewer in talkers and e.seen in talkers]
    if not viewers:
        return ()
    view = ts.view
    rows, state = view.rows(so_far), view.sight(so_far)
    ids = sorted({v for e in viewers for v in (e.viewer, e.seen)})
    streams = view.streams(so_far, ids)
    book = en.books.felt.scratch(ids, ts.tick, rows, so_far) if en.books.felt is not None else None
    m = Meeting(now=ts.tick, day=en.scenario.world.calendar.day_of(ts.tick), names=en.cast.names,
                talkers=talkers, sees=state.sees, founded=en.cast.founded, streams=streams, felt=book,
                vectors=en.vectors.by_id, bond=_bond(en, ts.tick))
    ts.talk = talk_round(so_far, m, en.books.talks, en.oracle, st,
                         lambda extra: view.rows((*so_far, *extra)))
    return () if ts.talk is None else ts.talk.events


def _bond(en: EngineState, tick: int) -> Callable[[int, int], str]:
    """How a talk prompt says a villager's bond to another at `tick` (the bond book's words);
    "" where the importance table has no valences to value a bond by."""
    bonds, names = en.books.bonds, en.cast.names
    if bonds is None:
        return lambda a, b: ""
    return lambda a, b: bonds.said(a, b, tick, names[b])


def perceive_phase(en: EngineState, ts: TickState, so_far: Sequence[ev.Event]) -> Sequence[ev.Event]:
    """What the villagers perceive of the world's events, seen before anyone reflects on them."""
    if en.due(ts.tick):
        ts.seen = ts.view.rows(so_far)
    return ()


def reflect_phase(en: EngineState, ts: TickState, so_far: Sequence[ev.Event]) -> Sequence[ev.Event]:
    """One reflection round for every villager due at this tick; nobody due, no events."""
    due = en.due(ts.tick)
    if not due:
        return ()
    streams = ts.view.every_stream(ts.seen)
    # the due villagers' felt state as the round begins: this tick's rows born, nothing re-felt
    felt = (en.books.felt.scratch([d.villager for d in due], ts.tick, ts.seen)
            if en.books.felt is not None else None)
    interests = ({d.villager: view(en.books.basins.of(d.villager), en.settings) for d in due}
                 if en.books.basins is not None else None)
    vectors = (ChainMap(dict(ts.talk.vectors), en.vectors.by_id) if ts.talk is not None
               else en.vectors.by_id)
    ts.round = reflect_round(ts.tick, due, streams, vectors, en.oracle, en.settings,
                             next_id=en.memory.next_id + len(ts.seen),
                             held=Holdings(felt=felt, interests=interests or {}))
    return ts.round.events


def night_phase(en: EngineState, ts: TickState, so_far: Sequence[ev.Event]) -> Sequence[ev.Event]:
    """The night at a day's last tick, after its reflections, for every villager who reflects,
    where the thought settings have a night block: consolidation, then forgetting."""
    who = en.nightly(ts.tick)
    if not who:
        return ()
    # what this tick gave so far (its world rows and its thoughts), as the log will hold it
    rows = ts.view.rows(so_far)
    ids = [d.villager for d in who]
    book = en.books.felt.scratch(ids, ts.tick, rows, so_far)
    streams = ts.view.streams(so_far, ids)
    ts.night = night_round(ts.tick, who, streams, book, en.oracle, en.settings, en.night)
    return ts.night.events


def basins_phase(en: EngineState, ts: TickState, so_far: Sequence[ev.Event]) -> Sequence[ev.Event]:
    """Where the thought settings have an attractor block: each villager who reflects and is
    founded at this tick is seeded with its world config's basins; at a night, after
    consolidation, each one holding basins has its update (kernel.mind.basins)."""
    if en.books.basins is None:
        return ()
    events = seeded(so_far, en.cast.seeds)
    who = en.nightly(ts.tick)
    if not who:
        return events
    states = en.books.basins.after(events)
    streams = ts.view.streams(so_far, [d.villager for d in who])
    names = {p.id: p.name for p in en.scenario.world.people}
    ts.basins = basins_round(ts.tick, who, streams, states, en.oracle, en.settings,
                             en.scenario.world.ticks_per_day, names)
    return (*events, *ts.basins.events)


def plan_phase(en: EngineState, ts: TickState, so_far: Sequence[ev.Event]) -> Sequence[ev.Event]:
    """Where the thought settings have a plan block: at a night, after the basins, each
    villager who reflects proposes its plan for tomorrow (kernel.mind.intend)."""
    who = en.nightly(ts.tick) if en.settings is not None and en.settings.plan else []
    if not who:
        return ()
    rows = ts.view.rows(so_far)
    streams = ts.view.streams(so_far, [d.villager for d in who])
    states = en.books.basins.after(so_far) if en.books.basins is not None else {}
    book = en.books.felt.scratch([d.villager for d in who], ts.tick, rows, so_far) if en.books.felt else None
    ts.plans = plan_round(ts.tick, who, streams, states, book, en.oracle, en.settings,
                          en.scenario.world)
    return ts.plans.events


PHASES: tuple[tuple[str, Phase], ...] = (
    ("world", world_phase), ("given", given_phase), ("talk", talk_phase),
    ("perceive", perceive_phase), ("reflect", reflect_phase), ("night", night_phase),
    ("basins", basins_phase), ("plan", plan_phase),
)
