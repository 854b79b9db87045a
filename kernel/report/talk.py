"""Conversations and news as a reader sees them: each utterance with its words, who heard them and
the lines they drew on, and each piece of news's spread (holders per day, the tree of who told
whom, who was at the place it named on its day), for the HTML report and `village news`.

The spread itself is the law's (kernel.laws.news), folded from the log by the store's
projection (kernel.store.news.NewsFold), so the report, the `news` table and `village news`
show one spread. `diffusion_of` folds a log for `village news`, under the run's own configs
where the home has the scenario the log's header names. Values only (their shapes are
kernel.report.views'); it renders nothing and writes nothing.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from kernel.calendar import Calendar
from kernel.errors import LawError
from kernel.laws import news as ln
from kernel.laws.memory import Memory
from kernel.report.views import DrawnLine, NewsView, SaidView, TellingView
from kernel.store.news import NewsFold


def conversations(d: ln.Diffusion, rows: Mapping[int, Memory]) -> tuple[SaidView, ...]:
    """Every utterance of the run, in log order, with the lines it drew on read off `rows` (by id)."""
    carried: dict[int, list[str]] = {}
    for s in d.news:
        for i, _ in s.carried:
            carried.setdefault(i, []).append(s.news)
    out = []
    for i, u in enumerate(d.utterances):
        drawn = tuple(DrawnLine(r, rows[r].text if r in rows else None) for r in u.drawn_from)
        out.append(SaidView(u.tick, u.speaker, d.name(u.speaker), u.listener, d.name(u.listener),
                            u.text, u.reply, u.heard is not None, drawn,
                            tuple(carried.get(i, ()))))
    return tuple(out)


def _branch(b: ln.Branch, d: ln.Diffusion, cal: Calendar) -> TellingView:
    h = b.holding
    return TellingView(h.villager, d.name(h.villager), h.tick, cal.day_number(h.tick), h.by,
                       tuple(_branch(k, d, cal) for k in b.told))


def news(d: ln.Diffusion, ticks_per_day: int) -> tuple[NewsView, ...]:
    """Every piece of news of the run, in the order first given."""
    cal = Calendar(ticks_per_day)
    out = []
    for s in d.news:
        a = s.attendance
        place = None if a is None else f"{a.x},{a.y} on day {a.day + 1}"
        out.append(NewsView(
            s.news, s.text, s.words, s.per_day, len(d.names),
            tuple(_branch(b, d, cal) for b in s.tree()), len(s.holders), len(s.unheld), place,
            a.reached if a is not None else True,
            tuple(d.name(v) for v in a.holders) if a is not None else (),
            tuple(d.name(v) for v in a.others) if a is not None else ()))
    return tuple(out)


def of(fold: NewsFold, rows: list[Memory] | tuple[Memory, ...]) -> tuple[tuple[SaidView, ...],
                                                                         tuple[NewsView, ...]]:
    """The report's conversations and news, from its fold and the run's rows; both () where
    the run holds no given row and no utterance."""
    if not fold.talk:
        return (), ()
    d = fold.diffusion(rows)
    said = {r for u in d.utterances for r in u.drawn_from}
    by_id = {m.id: m for m in rows if m.id in said}
    return conversations(d, by_id), news(d, fold.ticks_per_day)


def diffusion_of(log: str | os.PathLike, *, importance: str | os.PathLike | None = None
                 ) -> tuple[ln.Diffusion, int]:
    """The spread of a log's news, and the days' length it was counted in: under the configs
    of the home's scenario that the log's header names, else the home's world (and
    `importance`, where given, else the home's table). The log is only read."""
    from kernel.engine import scenario as msc
    from kernel.engine.projection import MemoryProjection
    from kernel.engine.replay import at
    from kernel.log import read_header
    from kernel.report.source import scenario_for

    log = Path(log)
    sc = scenario_for(read_header(log).config_digest) if importance is None else None
    table = f"scenario {sc.name}'s importance table" if sc is not None else (
        f"the table {importance}" if importance else "the home's importance table")
    if sc is None:
        sc = msc.of_world(importance=importance or "importance")
    mem, talk = MemoryProjection(sc.rules), NewsFold(sc.world.ticks_per_day)
    try:
        at(log, None, [mem, talk])
    except LawError as e:
        raise LawError(f"{log.name} cannot be perceived under {table} ({' '.join(str(e).split())}): "
                       f"give the run's own with --importance") from None
    return talk.diffusion(mem.rows), sc.world.ticks_per_day

