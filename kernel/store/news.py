"""The index's `news` table: who came to hold each piece of news, when, and who told it.

`NewsFold` is a projection that keeps the frames the spread of news is read from (the
events of kernel.laws.news.KINDS: foundings, walks, given rows and utterances), and
`diffusion(rows)` works the spread out from them and the run's rows, by the law
(kernel.laws.news.spread), so a holder in SQL is the one the report and `village news` show.
The index projection (kernel.store.index) folds it beside its events and writes `tables`; the
report folds it with its other projections. A run without news has the table, empty. This
module owns the table's shape; it must not write the log or decide who holds what.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pyarrow as pa

from kernel import events as ev
from kernel.calendar import DAY, Calendar
from kernel.laws import news as ln
from kernel.laws.memory import Memory

NEWS_DDL = """CREATE TABLE news (
    news VARCHAR NOT NULL, villager INTEGER NOT NULL, name VARCHAR NOT NULL, tick BIGINT NOT NULL,
    day INTEGER NOT NULL, teller INTEGER, teller_name VARCHAR, "by" VARCHAR NOT NULL)"""


class NewsFold:
    """The frames of a log that hold a founding, a walk, a given row or an utterance, each
    frame's events of those kinds only, and the log's last tick."""

    def __init__(self, ticks_per_day: int = DAY):
        self.ticks_per_day = ticks_per_day
        self.start()

    def start(self) -> None:
        self.frames: list[tuple[int, tuple[ev.Event, ...]]] = []
        self.last_tick: int | None = None
        self.talk = False       # whether any given row or utterance was folded

    def apply(self, tick: int, events: Sequence[ev.Event]) -> None:
        self.last_tick = tick
        kinds = ln.KINDS
        mine = tuple(e for e in events if type(e) in kinds)
        if mine:
            self.frames.append((tick, mine))
            if not self.talk:
                self.talk = any(type(e) in (ev.Given, ev.Spoke) for e in mine)

    def diffusion(self, rows: Iterable[Memory]) -> ln.Diffusion:
        """The spread of every piece of news, read with the rows perception made of the log."""
        frames = self.frames if self.talk else []
        wanted = (r for r in rows if r.kind == "given" or (r.kind == "heard" and r.event == "talk"))
        return ln.spread(frames, wanted if self.talk else (), ticks_per_day=self.ticks_per_day,
                         last_tick=self.last_tick)

    def tables(self, rows: Iterable[Memory]) -> dict[str, pa.Table]:
        """`news` as Arrow, by name: one row a holder of a piece of news."""
        return {"news": news_table(self.diffusion(rows), self.ticks_per_day)}


def news_table(d: ln.Diffusion, ticks_per_day: int) -> pa.Table:
    rows = [(s.news, h) for s in d.news for h in s.holders]
    return pa.table({
        "news": pa.array([n for n, _ in rows], pa.string()),
        "villager": pa.array([h.villager for _, h in rows], pa.int32()),
        "name": pa.array([d.name(h.villager) for _, h in rows], pa.string()),
        "tick": pa.array([h.tick for _, h in rows], pa.int64()),
        "day": pa.array([Calendar(ticks_per_day).day_of(h.tick) for _, h in rows], pa.int32()),
        "teller": pa.array([h.teller for _, h in rows], pa.int32()),
        "teller_name": pa.array([d.name(h.teller) for _, h in rows], pa.string()),
        "by": pa.array([h.by for _, h in rows], pa.string()),
    })


DDL = {"news": NEWS_DDL}
"""The table's DDL, by name."""
