"""Talk (kernel.mind.talk), where the thought settings have a talk block: the words said at a
tick's meetings of villagers who reflect, before anyone perceives them, so the rows they give
are in the tick's rows that every later phase reads. Its books are who spoke to whom
("talks") and, where the importance table has valences to value a bond by, the bonds talk
leaves ("bonds"); its part of the report the tick's talk; its words for a bond are the bond
book's (`BondBook.said`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kernel import events as ev
from kernel.engine.feature import EngineState, Feature, Makers, TickState
from kernel.engine.scenario import Scenario
from kernel.mind.bonds import BondBook
from kernel.mind.settings import Settings
from kernel.mind.talk import Meeting, TalkBook, talk_round


def _on(settings: Settings | None) -> bool:
    return settings is not None and settings.talk is not None


def _books(sc: Scenario, settings: Settings | None) -> Makers:
    if not _on(settings):
        return {}
    books = {"talks": lambda sc, memory: TalkBook(sc.world.calendar)}
    if sc.valences is not None:
        books["bonds"] = lambda sc, memory: BondBook(sc.valences, sc.world.ticks_per_day).follow(memory)
    return books


def talk_phase(en: EngineState, ts: TickState, so_far: Sequence[ev.Event]) -> Sequence[ev.Event]:
    """The words said at this tick's meetings; nobody who talks in sight of another, none."""
    talkers = en.cast.talkers
    viewers = [e for e in so_far if isinstance(e, ev.CameIntoSight)
               and e.viewer in talkers and e.seen in talkers]
    if not viewers:
        return ()
    view = ts.view
    rows, state = view.rows(so_far), view.sight(so_far)
    ids = sorted({v for e in viewers for v in (e.viewer, e.seen)})
    streams = view.streams(so_far, ids)
    felt = en.books.get("felt")
    book = felt.scratch(ids, ts.tick, rows, so_far) if felt is not None else None
    m = Meeting(now=ts.tick, day=en.scenario.world.calendar.day_of(ts.tick), names=en.cast.names,
                talkers=talkers, sees=state.sees, founded=en.cast.founded, streams=streams, felt=book,
                vectors=en.vectors.by_id, bond=_bond(en, ts.tick))
    talk = talk_round(so_far, m, en.books["talks"], en.oracle, en.settings,
                      lambda extra: view.rows((*so_far, *extra)))
    if talk is None:
        return ()
    ts.made[FEATURE.name] = talk
    return talk.events


def _bond(en: EngineState, tick: int) -> Callable[[int, int], str]:
    """How a talk prompt says a villager's bond to another at `tick` (the bond book's words);
    "" where the importance table has no valences to value a bond by."""
    bonds, names = en.books.get("bonds"), en.cast.names
    if bonds is None:
        return lambda a, b: ""
    return lambda a, b: bonds.said(a, b, tick, names[b])


FEATURE = Feature("talk", talk_phase, on=_on, books=_books)
