"""One reflection round for every villager due at a tick (kernel.mind.reflect): their questions,
then their statements, each standing on the rows the round's retrieval finds. Its part of the
report is the round (`Round`). No books of its own: it reads the felt book and the basins
where the run keeps them, and the vectors of the words said at this tick's talk."""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Sequence

from kernel import events as ev
from kernel.engine.feature import EngineState, Feature, TickState
from kernel.mind.basins import view
from kernel.mind.reflect import Holdings, reflect_round


def reflect_phase(en: EngineState, ts: TickState, so_far: Sequence[ev.Event]) -> Sequence[ev.Event]:
    """The round of the villagers due at this tick; nobody due, no events."""
    due = en.due(ts.tick)
    if not due:
        return ()
    streams = ts.view.every_stream(ts.seen)
    # the due villagers' felt state as the round begins: this tick's rows born, nothing re-felt
    felt_book, basins = en.books.get("felt"), en.books.get("basins")
    felt = (felt_book.scratch([d.villager for d in due], ts.tick, ts.seen)
            if felt_book is not None else None)
    shown = ({d.villager: view(basins.of(d.villager), en.settings) for d in due}
             if basins is not None else None)
    talk = ts.made.get("talk")
    vectors = ChainMap(dict(talk.vectors), en.vectors.by_id) if talk is not None else en.vectors.by_id
    rnd = reflect_round(ts.tick, due, streams, vectors, en.oracle, en.settings,
                        next_id=en.memory.next_id + len(ts.seen),
                        held=Holdings(felt=felt, basins=shown or {}))
    ts.made[FEATURE.name] = rnd
    return rnd.events


FEATURE = Feature("reflect", reflect_phase)
