"""A tick's events are perceived once, however many of its phases read them: the engine folds
the frame its view perceived, and each phase reads the rows of the events so far from it."""

from __future__ import annotations

import pytest
from felt_scenario import ATTRACTOR, BASINS, GIVEN, PLAN, TALK, answer, make

from kernel import engine
from kernel import events as ev
from kernel.engine import projection
from kernel.engine import scenario as msc
from kernel.engine.view import TickView
from kernel.errors import VillageError
from kernel.laws import perception
from kernel.log import read_ticks
from kernel.testing import ScriptedOracle


@pytest.fixture
def counted(monkeypatch):
    """How many frames were perceived, by tick."""
    made: dict[int, int] = {}

    class Counted(perception.Perceiving):
        __slots__ = ()

        def __init__(self, state, tick):
            made[tick] = made.get(tick, 0) + 1
            super().__init__(state, tick)

    monkeypatch.setattr(perception, "Perceiving", Counted)
    monkeypatch.setattr(projection, "Perceiving", Counted)
    return made


def test_a_run_that_talks_reflects_and_has_nights_perceives_each_frame_once(tmp_path, counted):
    sc = msc.load(make(tmp_path / "busy", days=2, talk=dict(TALK, starts=2, answers=1),
                       given=GIVEN, basins=BASINS, attractor=ATTRACTOR, plan=PLAN))
    report = engine.run(sc, ScriptedOracle([answer] * 10_000, dim=64), tmp_path / "busy.log",
                        projections=[])
    assert report.talks and report.rounds and report.nights     # every phase that reads ran
    assert counted == {t: 1 for t in range(sc.ticks)}
    assert report.rows == _rows_by_villager(sc, tmp_path / "busy.log")


def _rows_by_villager(sc, path):
    """Each villager's rows, counted off the log perceived whole."""
    state, counts = perception.start(sc.rules), {p.id: 0 for p in sc.world.people}
    for t in read_ticks(path):
        state, got = perception.perceive(state, t.tick, t.events)
        for m in got:
            counts[m.villager] += 1
    return counts


def test_a_view_refuses_events_that_do_not_go_on_from_those_it_perceived():
    mem = engine.MemoryProjection(engine.load_rules())
    view = TickView(0, mem)
    a = ev.Founded(villager=1, name="Halla", x=0, y=0)
    b = ev.Founded(villager=2, name="Ander", x=1, y=0)
    assert len(view.rows((a, b))) == 2
    with pytest.raises(VillageError, match="do not go on from the 2 perceived"):
        view.rows((b,))
    with pytest.raises(VillageError, match="do not go on from the 2 perceived"):
        view.end((a,))
