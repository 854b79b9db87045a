"""One interview call: a question put to one villager as its memory stood at a tick.

The villager's rows at tick `now` are read as a reflection reads them (`reflect.memory_at`:
every row up to now for the seam, the live ones for the ranking), and the question brings
memories to mind exactly as a reflection's question does (`reflect.Recall`, the retrieval's
laws under the thought settings, or a variant's). One call (the interview template,
`kernel.seam.interview.interview_schema` with an `enum` of the ids shown) at temperature 0,
seeded by the tick, the villager and the question (`seed_of`). The seam then judges the answer
as it judges a statement's citations: its shape, then each citation exists, is the
villager's, is no later than now, is given once and is not forgotten (`laws.cite`, no depth
cap: an answer is said, never written as a thought). An answer that is the question said back
is refused; one may say a line back: asked what happened, a villager that says what it
remembers answers well. Where the settings say `grounded`, an answer naming a villager that
neither the villager is nor a cited row names, or saying who gave or took from whom against
every cited row, is refused (`laws.judge_grounded`, check `ungrounded`).

This module owns the interview's call and its verdict; it writes nothing, folds no log and
calls no model but through the oracle it is handed.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from kernel import laws
from kernel.errors import Refused
from kernel.events import Purpose
from kernel.laws.memory import Memory
from kernel.mind import calls
from kernel.mind.calls import Rejection
from kernel.mind.felt import FeltBook
from kernel.mind.reflect import Recall
from kernel.mind.settings import Settings
from kernel.oracle.base import Ask, Said
from kernel.seam import Rendered, TemplateFile, render, shaped
from kernel.seam.interview import interview_schema
from kernel.seam.schemas import CITES, SAID

PURPOSE = Purpose.INTERVIEW
"""The purpose of an interview's call, in the log of calls and the recording."""


def seed_of(now: int, villager: int, question: str) -> int:
    """The seed of one interview: the tick, plus the villager's id, plus the question's CRC-32,
    so two questions put at one tick to one villager are two draws, and the same is one."""
    return (now + villager + zlib.crc32(question.encode("utf-8"))) % 2**31


@dataclass(frozen=True, slots=True)
class Mind:
    """A villager as an interview at tick `now` finds it: every row up to now (what the seam
    reads), why each that left its memory cannot be cited, the live rows (what the question
    brings to mind), its felt state (None: retrieval by weight) and its basins as a prompt
    shows them ("" for none)."""

    villager: int
    name: str
    now: int
    day: int
    mine: tuple[Memory, ...]
    gone: Mapping[int, str]
    live: tuple[Memory, ...]
    felt: FeltBook | None
    basins: str
    village: frozenset[str] = frozenset()   # every villager's name, for a grounded seam


@dataclass(slots=True)
class Interview:
    """One question put to one villager, and what became of it."""

    villager: int
    name: str
    now: int
    question: str
    seed: int
    ranked: tuple[laws.Ranked, ...]
    prompt: Rendered | None = None
    schema: bytes = b""
    said: Said | None = None
    answer: str | None = None
    cites: tuple[int, ...] = ()
    refused: Rejection | None = None
    near: Mapping[int, str] = field(default_factory=dict)   # folded rows' shown lines (laws.near_lines)

    @property
    def shown(self) -> tuple[Memory, ...]:
        return tuple(x.memory for x in self.ranked)

    @property
    def accepted(self) -> bool:
        return self.said is not None and self.refused is None and self.answer is not None


def recall(mind: Mind, vector, retrieval: laws.Retrieval) -> Recall | None:
    """What brings `mind`'s live rows to mind for any question; None where it has none."""
    if not mind.live:
        return None
    return Recall.of(mind.now, mind.live, vector, retrieval, mind.felt)


def prepared(mind: Mind, question: str, query: np.ndarray, rc: Recall | None, st: Settings,
             template: TemplateFile, chars: int) -> Interview:
    """The interview of `mind` for `question` (its vector `query`): the rows it brings to
    mind, the prompt and the request's schema. Nothing to bring to mind: no prompt, no call."""
    iv = Interview(villager=mind.villager, name=mind.name, now=mind.now, question=question,
                   seed=seed_of(mind.now, mind.villager, question),
                   ranked=rc.rank(query) if rc is not None else ())
    if not iv.ranked:
        iv.refused = Rejection("empty", f"{mind.name} has no living memory at tick {mind.now} "
                                      f"to answer from")
        return iv
    # what the prompt shows of the rows brought to mind, a folded row's line kept for the seam
    # (`Interview.near`); `lived`: its recent rows, as its questions' prompts show them, for a
    # template that opens with who it is and its day, as the shipped one does.
    shown = st.shown(iv.shown, mind.now)
    iv.near = laws.near_lines(shown)
    iv.prompt = render(template, name=mind.name, day=mind.day, interests=mind.basins,
                       question=question, memories=shown,
                       lived=st.shown(laws.recent(mind.live, mind.now, st.recent), mind.now))
    iv.schema = interview_schema([m.id for m in iv.shown], chars, bounded=st.bounded,
                                 lines={m.id: m.text for m in iv.shown})
    return iv


def ask_of(iv: Interview, st: Settings, limit: int) -> Ask:
    """The ask of a prepared interview."""
    assert iv.prompt is not None
    return calls.ask(st, PURPOSE, iv.prompt, iv.schema, iv.seed, limit=limit)


def judge(iv: Interview, mind: Mind, chars: int, *, grounded: bool = False) -> Rejection | None:
    """The seam's verdict on one answer: its shape, then its citations against every row of the
    villager up to the interview's tick, none forgotten, and where `grounded`, that it names
    only the villager and villagers its cited rows name (of `mind.village`), and says who gave
    or took from whom only as a cited row does (`laws.judge_grounded`); None when it stands."""
    assert iv.said is not None
    try:
        got = shaped(iv.said, interview_schema([m.id for m in iv.shown], chars, request=False))
    except Refused as e:
        return Rejection("shaped", str(e))
    iv.answer, iv.cites = got[SAID], tuple(got[CITES])
    if not laws.plain(iv.answer):
        return Rejection("wordless", "an answer of no words")
    if laws.plain(iv.answer) == laws.plain(iv.question):
        return Rejection("restates", "the question said back, not an answer")
    verdict = laws.cite(mind.mine, mind.now, iv.cites, 0, mind.gone)
    if not verdict.ok:
        return Rejection(verdict.check, verdict.reason)
    if not grounded:
        return None
    off = laws.judge_grounded(iv.answer, speaker=mind.name, names=mind.village,
                              cited=laws.cited_texts({m.id: m.text for m in mind.mine},
                                                     iv.cites, iv.near))
    return None if off is None else Rejection(off.check, off.reason)


def asked(ivs: Sequence[Interview], minds: Sequence[Mind], st: Settings, oracle, limit: int,
          chars: int) -> None:
    """Every prepared interview asked together (one batch through the oracle's one road for
    many asks), then each judged by the seam."""
    todo = [(iv, m) for iv, m in zip(ivs, minds, strict=True) if iv.prompt is not None]
    saids = calls.generate_all(oracle, [ask_of(iv, st, limit) for iv, _ in todo])
    for (iv, m), said in zip(todo, saids, strict=True):
        iv.said = said
        iv.refused = judge(iv, m, chars, grounded=st.grounded)
