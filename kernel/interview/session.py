"""A battery of interviews over one log at one tick: folded, asked, judged, scored.

`at(log, sc, tick)` folds the log's frames up to and including `tick` (never one after) into
each villager's rows, felt state and basins, with the vectors the scenario's
recording holds for rows it embedded. `ask(...)` then puts every question to every villager
named, under every variant named: one embedding call for the rows not yet embedded and the
questions, one batch of interview calls, one embedding call for the accepted answers (their
cosine to what they cite), each answer through the seam (kernel.mind.interview), and each
question that carries its answer scored against the log by code alone (kernel.laws.interview).

A `Session` is the whole of it; `transcript()` is its value as canonical JSON, whose sha256 a
recording carries, so a replay of a recorded battery is checked answer by answer and number by
number. `document(...)` is the recording: the exemplar document of the calls, with an
`interview` block saying what was asked (the scenario, the tick, the battery's digest, the
villagers, the variants, the template's sha256) and the transcript's sha256. This module owns
that order; it decides no rule (the laws and the seam do) and prints nothing (the CLI does).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kernel import config, laws
from kernel.engine.felt import felt_of
from kernel.engine.projection import MemoryProjection, RecordedVectors
from kernel.engine.replay import at as folded_at
from kernel.engine.scenario import Scenario
from kernel.errors import VillageError
from kernel.events import Embedding
from kernel.interview.battery import FULL, Battery, Question, Variant, other_of
from kernel.laws import interview as li
from kernel.laws.memory import Memory
from kernel.laws.minds import ratio
from kernel.mind import interview as mi
from kernel.mind.basins import BasinBook, view
from kernel.mind.reflect import memory_at
from kernel.mind.settings import Settings
from kernel.seam import TemplateFile, template_file
from kernel.seam.interview import INTERVIEW

ASKED = "asked"
"""The category of a question put on the command line, outside any battery."""


@dataclass(frozen=True)
class At:
    """A log folded up to one tick: every row, felt state, basins, names, and vectors known."""

    sc: Scenario
    tick: int
    rows: tuple[Memory, ...]
    names: Mapping[int, str]
    felt: Any
    basins: BasinBook | None
    vectors: Mapping[int, np.ndarray]
    head_hex: str
    last_tick: int

    def of(self, villager: int) -> tuple[Memory, ...]:
        return tuple(m for m in self.rows if m.villager == villager)

    def who(self, name: str) -> int:
        for i, n in self.names.items():
            if n == name:
                return i
        raise VillageError(f"Expected a villager among {', '.join(sorted(self.names.values()))} "
                           f"but got --who {name!r}")

    @property
    def day(self) -> int:
        return self.sc.world.calendar.day_number(self.tick)


def settings_of(sc: Scenario) -> Settings:
    if sc.settings is None:
        raise VillageError(f"nobody reflects in scenario {sc.name}: its runs have no thought "
                           f"settings to interview under")
    return sc.settings


PURPOSES = frozenset({Embedding.INTERVIEW, Embedding.INTERVIEW_ANSWERS})
"""The purposes of an interview's embedding calls: a recording's vectors for the rows a run
embedded are read from every embedding call but these."""


def recorded_vectors(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """The vectors a run's recording holds, by text, from its own embedding calls (not an
    interview's recorded after them): the engine's RecordedVectors, leaving those out."""
    return RecordedVectors(path, leaving_out=PURPOSES).by_text


def at(log: str | os.PathLike, sc: Scenario, tick: int | None, *,
       recording: str | os.PathLike | None | bool = True) -> At:
    """Fold `log` (a run of `sc`) up to `tick` (None: its last), with the vectors of the rows
    the run embedded read from `recording` (True: the scenario's own; None or False: none, so
    the interview embeds every row it shows)."""
    settings_of(sc)
    mem = MemoryProjection(sc.rules)
    felt = felt_of(sc)
    basins = BasinBook() if sc.settings.basins is not None else None
    ps: list = [mem]
    if felt is not None:
        ps.append(felt.follow(mem))
    if basins is not None:
        ps.append(basins)
    done = folded_at(log, tick, ps)
    if done.last_tick is None:
        raise VillageError(f"the log {log} holds no tick to interview at")
    if tick is not None and tick > done.last_tick:
        raise VillageError(f"Expected --at no later than the log's last tick {done.last_tick} "
                           f"but got --at {tick}")
    rows = tuple(mem.rows)
    vectors: dict[int, np.ndarray] = {}
    source = sc.exemplars if recording is True else (recording or None)
    if source is not None and Path(source).is_file():
        by = recorded_vectors(source)
        vectors = {m.id: by[m.text] for m in rows if m.text in by}
    return At(sc=sc, tick=done.last_tick if tick is None else tick, rows=rows,
              names=dict(mem.state.names), felt=felt, basins=basins, vectors=vectors,
              head_hex=done.head_hex, last_tick=done.last_tick)


def retrieval_of(st: Settings, v: Variant) -> laws.Retrieval:
    """The retrieval a variant ranks under: the thought settings', with its changes."""
    r = st.retrieval
    if not v.retrieval:
        return r
    w = dict(zip(("recency", "importance", "relevance"), r.weights, strict=True))
    w.update(v.retrieval.get("weights", {}))
    return laws.Retrieval.of({"half_life": r.half_life, "weights": w,
                              "k": v.retrieval.get("k", r.k),
                              "importance": v.retrieval.get("importance", r.importance)})


def applies(v: Variant, a: At) -> bool:
    """Whether the run has what a variant takes away."""
    st = a.sc.settings
    if v.needs == "thought":
        return any(m.kind == "thought" for m in a.rows)
    if v.needs == "felt":
        return a.felt is not None and st.retrieval.importance == "felt"
    if v.needs == "basins":
        return a.basins is not None and st.basins is not None
    if v.needs == "talk":
        return st.talk is not None
    return True


def mind_of(a: At, villager: int, v: Variant) -> mi.Mind:
    """`villager` as the interview at `a.tick` finds it, under variant `v`."""
    st = settings_of(a.sc)
    rt = retrieval_of(st, v)
    stream = tuple(m for m in a.of(villager) if not v.hides(m))
    felt = a.felt if rt.importance == "felt" else None
    mine, gone, live = memory_at(a.tick, villager, stream,
                                 felt if felt is not None else a.felt, _with(st, rt))
    shown = (view(a.basins.of(villager), st) if a.basins is not None and v.basins
             else "")
    return mi.Mind(villager=villager, name=a.names[villager], now=a.tick, day=a.day,
                   mine=mine, gone=gone, live=live, felt=felt, basins=shown,
                   village=frozenset(p.name for p in a.sc.world.people))


def _with(st: Settings, rt: laws.Retrieval) -> Settings:
    if rt == st.retrieval:
        return st
    return Settings(**{**{f: getattr(st, f) for f in st.__slots__}, "retrieval": rt})


@dataclass(slots=True)
class Asked:
    """One question put to one villager under one variant, judged and scored."""

    variant: str
    question: Question
    text: str
    interview: mi.Interview
    truth: li.Truth | None = None
    correct: bool | None = None
    cosine: float | None = None

    @property
    def category(self) -> str:
        return self.question.category

    def row(self) -> dict[str, Any]:
        iv = self.interview
        return {
            "variant": self.variant, "villager": iv.name, "question": self.question.id,
            "category": self.category, "text": self.text, "tick": iv.now, "seed": iv.seed,
            "shown": [m.id for m in iv.shown],
            "prompt_sha256": iv.prompt.sha256 if iv.prompt is not None else None,
            "answer": iv.answer if iv.accepted else None,
            "said": iv.said.text if iv.said is not None else None,
            "cites": list(iv.cites) if iv.accepted else [],
            "refused": str(iv.refused) if iv.refused is not None else None,
            "right": sorted(self.truth.right) if self.truth is not None else None,
            "chance": _r(self.truth.chance) if self.truth is not None and self.truth.known else None,
            "correct": self.correct,
            "cosine": _r(self.cosine) if self.cosine is not None else None,
        }


SCORED = ("right", "chance", "correct", "cosine")
"""What a transcript row holds of the scorer's, left out of the transcript's sha256: the digest a
recording keeps names what was asked and answered, so judging the same answers by another rule
(strict villagers, places for where) moves no recording."""


def _r(x: float) -> float:
    return round(float(x), 6)


@dataclass
class Session:
    """A battery asked: where, of whom, under which variants, and every answer scored."""

    scenario: str
    tick: int
    head_hex: str
    battery_sha256: str
    template_sha256: str
    who: tuple[str, ...]
    variants: tuple[str, ...]
    asked: list[Asked] = field(default_factory=list)
    skipped: tuple[str, ...] = ()          # variants the run has nothing for

    def transcript(self) -> bytes:
        doc = {"scenario": self.scenario, "tick": self.tick, "head": self.head_hex,
               "battery": self.battery_sha256, "template": self.template_sha256,
               "who": list(self.who), "variants": list(self.variants),
               "asked": [{k: v for k, v in a.row().items() if k not in SCORED}
                         for a in self.asked]}
        return (json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                           allow_nan=False) + "\n").encode("utf-8")

    @property
    def transcript_sha256(self) -> str:
        return hashlib.sha256(self.transcript()).hexdigest()

    def meta(self) -> dict[str, Any]:
        return {"scenario": self.scenario, "at": self.tick, "head": self.head_hex,
                "battery_sha256": self.battery_sha256, "template_sha256": self.template_sha256,
                "who": list(self.who), "variants": list(self.variants),
                "skipped": list(self.skipped), "transcript_sha256": self.transcript_sha256}


def ask(a: At, battery: Battery, oracle, *, who: Sequence[str] = (),
        variants: Sequence[str] = ("full",), template: TemplateFile | None = None,
        questions: Sequence[Question] | None = None) -> Session:
    """Every question of `battery` (or `questions`) put to every villager of `who` (default:
    every villager with rows) under every variant named that the run has, at `a.tick`."""
    st = settings_of(a.sc)
    tf = template if template is not None else template_file(INTERVIEW, a.sc.template_folder)
    ids = ([a.who(n) for n in who] if who else
           sorted({m.villager for m in a.rows if m.villager in a.names}))
    vs = [battery.variant(n) if n != "full" or any(v.name == "full" for v in battery.variants)
          else FULL for n in variants]
    run = [v for v in vs if applies(v, a)]
    s = Session(scenario=a.sc.name, tick=a.tick, head_hex=a.head_hex,
                battery_sha256=battery.sha256, template_sha256=tf.sha256,
                who=tuple(a.names[i] for i in ids), variants=tuple(v.name for v in run),
                skipped=tuple(v.name for v in vs if v not in run))
    qs = list(questions if questions is not None else battery.questions)
    minds = {(v.name, i): mind_of(a, i, v) for v in run for i in ids}
    texts = {i: [q.filled(a.names[i], a.day, other_of(i, a.of(i), a.names)) for q in qs]
             for i in ids}
    # one embedding call: every live row shown to no reflection yet, then each distinct question
    known = dict(a.vectors)
    fresh = sorted({m.id: m for md in minds.values() for m in md.live
                    if m.id not in known}.values(), key=lambda m: m.id)
    asked_texts = list(dict.fromkeys(t for i in ids for t in texts[i]))
    mat = oracle.embed(st.embed_model, [m.text for m in fresh] + asked_texts,
                       purpose=Embedding.INTERVIEW)
    for k, m in enumerate(fresh):
        known[m.id] = mat[k]
    qvec = {t: mat[len(fresh) + k] for k, t in enumerate(asked_texts)}
    ivs, ms = [], []
    for v in run:
        rt = retrieval_of(st, v)
        for i in ids:
            md = minds[(v.name, i)]
            rc = mi.recall(md, known.__getitem__, rt)
            for q, t in zip(qs, texts[i], strict=True):
                iv = mi.prepared(md, t, qvec[t], rc, st, tf, battery.chars)
                ivs.append(iv)
                ms.append(md)
                s.asked.append(Asked(variant=v.name, question=q, text=t, interview=iv))
    mi.asked(ivs, ms, st, oracle, battery.limit, battery.chars)
    _cosines(s, known, oracle, st)
    for x in s.asked:
        qy = x.question.query(a.day, a.sc.world.places.names)
        if qy is None:
            continue
        x.truth = li.truth(a.of(x.interview.villager), x.interview.villager, a.tick, qy,
                           a.names, a.sc.world.ticks_per_day)
        if x.truth.known:
            iv = x.interview
            others = [n for i, n in a.names.items() if i != iv.villager]
            x.correct = iv.accepted and li.correct(iv.answer or "", iv.cites, x.truth, qy, others)
    return s


def _cosines(s: Session, known: Mapping[int, np.ndarray], oracle, st: Settings) -> None:
    """One embedding call for the accepted answers; each answer's mean cosine to its cites."""
    ok = [x for x in s.asked if x.interview.accepted]
    answers = list(dict.fromkeys(x.interview.answer for x in ok))
    if not answers:
        return
    mat = oracle.embed(st.embed_model, answers, purpose=Embedding.INTERVIEW_ANSWERS)
    by = {t: mat[k] for k, t in enumerate(answers)}
    for x in ok:
        cs = [li.cosine(by[x.interview.answer], known[c]) for c in x.interview.cites if c in known]
        x.cosine = float(np.mean(cs)) if cs else None


def question_of(question: str) -> Question:
    """A question put outside the battery (its category `asked`): words, at most as long as a
    battery's question may be (configs/schema/interview.json); else refused, nothing asked."""
    most = config.schema_for("interview")["properties"]["questions"]["items"]["properties"][
        "text"]["maxLength"]
    if not question.strip():
        raise VillageError(f"the question {question!r} is {'empty' if not question else 'blank'}: "
                           f"a question is words, and nothing is asked")
    if len(question) > most:
        raise VillageError(f"the question is {len(question):,} characters: a question is at most "
                           f"{most}, as in a battery, and nothing is asked")
    return Question(id="asked", category=ASKED, text=question.replace("{", "{{").replace("}", "}}"))


def one(a: At, villager: str, question: str, oracle, *, battery: Battery,
        template: TemplateFile | None = None) -> Session:
    """One question put to one villager, outside the battery (`question_of`)."""
    return ask(a, battery, oracle, who=(villager,), variants=("full",), template=template,
               questions=(question_of(question),))


# -- the scores ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Score:
    """A group of answers in counts: asked, answered (the seam let the answer stand), said
    (the model answered at all), valid (of those said, the citations checked), the answers
    whose question the log knows, and of those the correct ones; mean cosine and chance."""

    asked: int
    said: int
    answered: int
    known: int
    correct: int
    cosine: float | None
    chance: float | None

    valid = ratio("answered", "said")
    accuracy = ratio("correct", "known")


def score(xs: Sequence[Asked]) -> Score:
    cos = [x.cosine for x in xs if x.cosine is not None]
    known = [x for x in xs if x.truth is not None and x.truth.known]
    return Score(asked=len(xs), said=sum(1 for x in xs if x.interview.said is not None),
                 answered=sum(1 for x in xs if x.interview.accepted), known=len(known),
                 correct=sum(1 for x in known if x.correct),
                 cosine=float(np.mean(cos)) if cos else None,
                 chance=float(np.mean([x.truth.chance for x in known])) if known else None)


def table(s: Session, by: Sequence[str]) -> dict[tuple, Score]:
    """The session's scores grouped by the keys `by` (of "variant", "villager", "category")."""
    groups: dict[tuple, list[Asked]] = {}
    get = {"variant": lambda x: x.variant, "villager": lambda x: x.interview.name,
           "category": lambda x: x.category}
    for x in s.asked:
        groups.setdefault(tuple(get[k](x) for k in by), []).append(x)
    return {k: score(v) for k, v in groups.items()}
