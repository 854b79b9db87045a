"""A scenario's committed interviews as a reader sees them, for the HTML report.

Where the home holds `exemplars/interviews/NAME.json` for the report's scenario, the
interviews are asked again of the scenario's replayed log from that recording
(kernel.interview.recording.replay) and shown: each villager's questions with the rows they
brought to mind, the answer and its citations, the score where the log knows the answer, and
the variants compared. A recording that does not replay is said, not shown. Values only
(their shapes are kernel.report.views'); it renders nothing and writes nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

from kernel.engine.scenario import Scenario
from kernel.errors import VillageError
from kernel.interview import battery as ib
from kernel.interview import recording as ir
from kernel.interview import session as isn
from kernel.report.views import AskedRow, AskedView, DrawnLine, InterviewsView


def _asked(x: isn.Asked, rows: dict) -> AskedView:
    iv = x.interview
    t = x.truth
    return AskedView(
        villager=iv.villager, name=iv.name, question=x.question.id, category=x.category,
        text=x.text,
        shown=tuple(AskedRow(r.memory.id, r.memory.kind, r.memory.text, r.score)
                    for r in iv.ranked),
        said=iv.said.text if iv.said is not None else None,
        answer=iv.answer if iv.accepted else None,
        cites=tuple(DrawnLine(c, rows[c].text if c in rows else None)
                    for c in (iv.cites if iv.accepted else ())),
        refused=str(iv.refused) if iv.refused is not None else None,
        right=tuple(sorted(t.right)) if t is not None and t.known else None,
        correct=x.correct, chance=t.chance if t is not None and t.known else None,
        cosine=x.cosine,
        near=tuple(iv.near[c] for c in (iv.cites if iv.accepted else ()) if c in iv.near))


def view(s: isn.Session, a: isn.At, recording: str) -> InterviewsView:
    rows = {m.id: m for m in a.rows}
    first = s.variants[0] if s.variants else "full"
    t = isn.table(s, ("variant", "category"))
    compare = tuple((v, tuple((t[(v, c)].accuracy, t[(v, c)].valid) if (v, c) in t
                              else (None, None) for c in ib.CATEGORIES))
                    for v in s.variants)
    mem = isn.table(s, ("category",)).get(("memory",))
    return InterviewsView(tick=s.tick, recording=recording, variant=first,
                          variants=s.variants, categories=ib.CATEGORIES,
                          asked=tuple(_asked(x, rows) for x in s.asked if x.variant == first),
                          compare=compare, chance=mem.chance if mem is not None else None,
                          transcript_sha256=s.transcript_sha256)


def of(sc: Scenario | None, log: str | os.PathLike
       ) -> tuple[InterviewsView | None, str | None]:
    """The committed interviews of `sc` asked again of `log` (the log its view's one replay
    wrote, or the log shown), and why they are not shown where they are not; (None, None)
    where it has none."""
    if sc is None or sc.world_only:
        return None, None
    path = ir.committed_path(sc)
    if not path.is_file():
        return None, None
    try:
        return _of(sc, Path(log), path)
    except VillageError as e:
        return None, f"the committed interviews could not be asked again: {e}"


def not_replayed(sc: Scenario | None, stopped: BaseException
                 ) -> tuple[InterviewsView | None, str | None]:
    """Why `sc`'s committed interviews are not shown where its replay stopped at `stopped`;
    (None, None) where it has none to show."""
    if sc is None or sc.world_only or not ir.committed_path(sc).is_file():
        return None, None
    return None, f"the scenario did not replay, so its interviews are not shown: {stopped}"


def _of(sc: Scenario, log: Path, path: Path) -> tuple[InterviewsView | None, str | None]:
    got = ir.replay(sc, log, path)
    if got.problem is not None:
        return None, f"the committed interviews {path.name} do not replay: {got.problem}"
    a = isn.at(log, sc, got.session.tick)
    return view(got.session, a, f"exemplars/{ir.FOLDER}/{path.name}"), None
