"""One view of each tick: its events perceived once, as its phases add them.

A tick's phases each read the rows its events so far give (the world's, the words said at a
meeting, the thoughts of a round) and each villager's stream with them. The view holds the
tick's frame of perception (kernel.laws.perception `Perceiving`) and perceives only the events
it has not seen, so a frame is perceived once however many phases read it; at the tick's end
the engine folds that same frame into its memory (`MemoryProjection.take`) instead of
perceiving the events again.

This module owns that view: the rows so far, who has whom in sight, the streams, and the
tick's end. It must not know which phase reads it, or run one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kernel import events as ev
from kernel.engine.projection import MemoryProjection
from kernel.errors import VillageError
from kernel.laws.memory import Memory
from kernel.laws.perception import Perceiving, Perception


class TickView:
    """The tick `tick` as its phases read it: the rows of its events so far, perceived once."""

    __slots__ = ("tick", "memory", "_frame", "_seen", "_rows", "_state")

    def __init__(self, tick: int, memory: MemoryProjection):
        self.tick = tick
        self.memory = memory
        self._frame: Perceiving | None = None     # made at the first read, or at the tick's end
        self._seen: tuple[ev.Event, ...] = ()      # the events perceived, in the tick's order
        self._rows: tuple[Memory, ...] = ()
        self._state: Perception | None = None

    def _perceive(self, so_far: Sequence[ev.Event]) -> Perceiving:
        """The frame with `so_far` in it: the tick's events so far, which begin with those
        perceived already (a tick's events only grow); only the rest are perceived."""
        seen = self._seen
        n = len(seen)
        if len(so_far) < n or (n and so_far[n - 1] is not seen[-1]):
            raise VillageError(f"tick {self.tick}'s events are read in the order they come: "
                               f"{len(so_far)} events do not go on from the {n} perceived")
        frame = self._frame
        if frame is None:                   # the first part of a frame closes its stopped runs
            frame = self._frame = self.memory.perceiving(self.tick)
        elif len(so_far) == n:
            return frame
        more = tuple(so_far[n:])
        frame.add(more)
        self._seen = seen + more
        self._rows = frame.rows
        self._state = None
        return frame

    def rows(self, so_far: Sequence[ev.Event]) -> tuple[Memory, ...]:
        """The rows the tick's events so far give, in id order."""
        self._perceive(so_far)
        return self._rows

    def sight(self, so_far: Sequence[ev.Event]) -> Perception:
        """The perception the tick's events so far leave (who has whom in sight)."""
        frame = self._perceive(so_far)
        if self._state is None:
            self._state = frame.state()
        return self._state

    def streams(self, so_far: Sequence[ev.Event], ids: Iterable[int]) -> dict[int, tuple[Memory, ...]]:
        """Each villager of `ids`: its stream as the log holds it, then its rows of the tick so far."""
        rows = self.rows(so_far)
        return {v: self.memory.of(v) + tuple(m for m in rows if m.villager == v) for v in ids}

    def every_stream(self, rows: Sequence[Memory]) -> dict[int, tuple[Memory, ...]]:
        """Every villager's stream as the log holds it, with `rows` (rows of this tick) after it."""
        streams = {v: tuple(s) for v, s in self.memory.streams.items()}
        for m in rows:
            streams[m.villager] = streams.get(m.villager, ()) + (m,)
        return streams

    def end(self, events: Sequence[ev.Event]) -> Perceiving:
        """The tick's whole frame, `events` its events as appended: perceived once, for the
        memory to take."""
        return self._perceive(events)
