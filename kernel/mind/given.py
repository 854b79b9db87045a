"""Given rows: what a scenario gives a villager as it is founded, before it has lived anything.

EmoStack row 115: a record given at birth (a backstory, or a piece of news such as a feast at
a cell on a day) is the villager's own, shown to the model like any memory, cited like any,
and never forgotten by the curve nor absorbed at night (kernel.laws.memory.PROTECTED). Here a
villager's `given` rows in its world config become `Given` events in the frame of the tick it
is founded, right after its founding, in the config's order; perception makes them rows of
kind `given`. A world whose villagers are given nothing gives no events, so its bytes are as
they always were. This module owns that; it reads no file and calls no model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kernel import events as ev
from kernel.world.config import GivenRow


def given(so_far: Sequence[ev.Event], rows: Mapping[int, Sequence[GivenRow]]) -> tuple[ev.Event, ...]:
    """The `Given` events of every villager founded among `so_far` that has given rows."""
    out: list[ev.Event] = []
    if not rows:
        return ()
    for e in so_far:
        if isinstance(e, ev.Founded) and e.villager in rows:
            for i, g in enumerate(rows[e.villager], start=1):
                out.append(ev.Given(villager=e.villager, index=i, event=g.event, text=g.text,
                                    about=g.about, news=g.news, words=g.words,
                                    x=None if g.cell is None else g.cell[0],
                                    y=None if g.cell is None else g.cell[1], day=g.day))
    return tuple(out)
