"""One reflection round: every villager due at a tick makes something of its day.

This module owns the order of a round and nothing else: which calls are
made, in which order, with which bytes, and what becomes of each answer.
A model's text becomes a value only through `kernel.seam.shaped`; a
questions answer is asked of only when no question repeats another
(`laws.repeated`); a statement becomes a row only through
`laws.judge_statement` (words of its own, not a shown memory said back),
`laws.cite` and `laws.reflected` (and, where the settings say `grounded`,
`laws.judge_grounded`: it names and says only what the rows it cites do).
A refusal is a value (its check and its reason), and each call's `Ask`,
`Answered` and `Rejection` are built by
kernel.mind.calls, as the night's are. The round writes nothing: it
returns the events to append and the vectors to keep, so a round that
fails half-way (a server gone, a replay that does not match) leaves no
trace, and the log stays as it was.

Calls are grouped by the model that answers them across every villager
due at the tick: all questions calls, then one embedding call (the
questions, and every row of theirs not yet embedded), then all statement
calls, then one embedding call for the accepted thoughts. A village's
round changes the resident model four times, not three times a villager.

With felt memory (a felt book handed in), a row that was forgotten or
absorbed is no longer in the window or the ranking, and the seam refuses a
citation of it. With felt retrieval (`retrieval.importance: "felt"`) the
importance term is what each row is felt at now, and the accepted
statements are embedded in one call, in (villager, question) order, before
any becomes a thought: a statement within the recurrence cosine of one of
its villager's thoughts (as they stood when the round began, and those
written earlier in it) is that thought recurring, and nothing is written;
a thought written re-feels the rows it cites (kernel.mind.refeel). Thought
ids go only to statements that do not recur, so they stay dense.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kernel import events as ev
from kernel import laws
from kernel.errors import Refused, VillageError
from kernel.events import Embedding, Purpose
from kernel.mind import calls, refeel
from kernel.mind.calls import Rejection
from kernel.mind.felt import FeltBook
from kernel.mind.settings import Settings
from kernel.oracle.base import Ask, Said
from kernel.seam import QUESTIONS, STATEMENT, Rendered, asked_schema, drawn_schema, render, shaped
from kernel.seam.schemas import CITES, SAID, line_words


@dataclass(frozen=True, slots=True)
class Due:
    """A villager due at a round, and the name of every villager of its world, which its
    statements are held to where the settings say `grounded` (kernel.laws.grounded)."""

    villager: int
    name: str
    village: frozenset[str] = frozenset()


@dataclass(slots=True)
class Statement:
    """One question of one villager's reflection, and what became of it."""

    index: int
    question: str
    ranked: tuple[laws.Ranked, ...] = ()
    prompt: Rendered | None = None
    schema: bytes = b""                # the ask's schema: citations among the ids it shows
    check: bytes = b""                 # the seam's check of the same shape (kernel.seam.schemas)
    said: Said | None = None
    statement: str | None = None
    cites: tuple[int, ...] = ()
    verdict: laws.Verdict | None = None
    refused: Rejection | None = None     # when refused, by shaped or the seam
    row: laws.Memory | None = None
    recurred: int | None = None        # the earlier thought this statement is, when it recurs
    near: Mapping[int, str] = field(default_factory=dict)   # folded rows' shown lines (laws.near_lines)


@dataclass(slots=True)
class Reflection:
    """One villager's part of a round."""

    villager: int
    name: str
    now: int
    seed: int
    rows: int                          # rows of its stream at ticks up to now, when the round began
    window: tuple[laws.Memory, ...]
    prompt: Rendered
    opening: dict[str, Any] = field(default_factory=dict)   # what its prompts open with
    said: Said | None = None
    questions: tuple[str, ...] = ()
    refused: Rejection | None = None     # the questions refused whole, by shaped or as repeated
    statements: list[Statement] = field(default_factory=list)
    embedded: int = 0

    @property
    def calls(self) -> int:
        return (1 if self.said else 0) + sum(1 for s in self.statements if s.said)

    @property
    def thoughts(self) -> int:
        return sum(1 for s in self.statements if s.row is not None)

    @property
    def recurrences(self) -> int:
        return sum(1 for s in self.statements if s.recurred is not None)

    @property
    def refusals(self) -> int:
        return sum(1 for s in self.statements if s.refused) + (1 if self.refused else 0)


@dataclass(frozen=True, slots=True)
class Round:
    now: int
    reflections: tuple[Reflection, ...]
    events: tuple[ev.Event, ...]
    thoughts: tuple[laws.Memory, ...]
    vectors: Mapping[int, np.ndarray]   # new vectors, by row id: rows embedded and thoughts


@dataclass(frozen=True, slots=True)
class Holdings:
    """What the due villagers hold beside their rows as a round begins: their felt state (a
    scratch copy, which the round changes as it re-feels; None without felt memory), and each
    one's basins as its questions prompt shows them (kernel.mind.basins `view`; none: no
    basins shown)."""

    felt: FeltBook | None = None
    basins: Mapping[int, str] = field(default_factory=dict)


def reflect_round(now: int, due: Sequence[Due], streams: Mapping[int, Sequence[laws.Memory]],
                  vectors: Mapping[int, np.ndarray], oracle, st: Settings, next_id: int,
                  held: Holdings | None = None) -> Round:
    """Run one round at tick `now` for every villager in `due`, in the order given.

    `streams` holds each villager's rows (only its own); `vectors` the rows
    already embedded; `next_id` the identity the first thought takes; `held` what the
    due villagers hold beside their rows (`Holdings`).
    """
    held = held if held is not None else Holdings()
    felt = held.felt
    rows = _Rows.at(now, due, streams, felt, st)
    refl = _ask_questions(now, due, rows, oracle, st, held.basins)
    seen = _embed(refl, rows, vectors, oracle, st)
    _rank_and_state(now, refl, rows, seen, oracle, st, felt)
    accepted = _judge_all(now, refl, rows, st, {d.villager: d.village for d in due})
    wrote, thoughts = _recur_or_write(now, accepted, rows, seen, oracle, st, felt, next_id)
    _embed_thoughts(refl, thoughts, rows, seen, oracle, st)
    return Round(now=now, reflections=tuple(refl), events=tuple(_events(refl, wrote)),
                 thoughts=tuple(thoughts), vectors=seen.new)


@dataclass(frozen=True, slots=True)
class Recall:
    """What brings one villager's memories to mind at tick `now`, for any number of queries:
    its live rows, their vectors as one matrix, the rows as columns and the vectors' squared
    norms (worked out once), and, for felt retrieval, what each row is felt at now. A
    reflection's statement and an interview rank through this one value, so the same rows,
    question and tick retrieve the same memories."""

    now: int
    live: tuple[laws.Memory, ...]
    retrieval: laws.Retrieval
    matrix: np.ndarray
    columns: tuple[np.ndarray, np.ndarray, np.ndarray]
    squares: np.ndarray
    felt: np.ndarray | None

    @staticmethod
    def of(now: int, live: Sequence[laws.Memory], vector, retrieval: laws.Retrieval,
           felt: FeltBook | None) -> Recall:
        """`vector(id)` gives a row's vector; `felt` the felt state to rank by (None: by weight)."""
        live = tuple(live)
        mat = np.stack([vector(m.id) for m in live])
        now_felt = (np.array([felt.felt_now(m.id, now) / 1000 for m in live], dtype=np.float64)
                    if felt is not None and retrieval.importance == "felt" else None)
        return Recall(now=now, live=live, retrieval=retrieval, matrix=mat,
                      columns=laws.row_columns(live), squares=laws.squares(mat), felt=now_felt)

    def rank(self, query: np.ndarray) -> tuple[laws.Ranked, ...]:
        """The live rows best for `query`, best first, under the retrieval's laws."""
        return laws.rank(self.now, self.live, self.matrix, query, self.retrieval, felt=self.felt,
                         columns=self.columns, squares=self.squares)


def memory_at(now: int, villager: int, stream: Sequence[laws.Memory], felt: FeltBook | None,
              st: Settings) -> tuple[tuple[laws.Memory, ...], Mapping[int, str],
                                     tuple[laws.Memory, ...]]:
    """One villager's rows at tick `now` as a round reads them: all of them (what the seam
    reads), why each that left its memory can no longer be cited, and the live ones (what the
    ranking sees)."""
    r = _Rows.at(now, [Due(villager, "")], {villager: stream}, felt, st)
    return r.mine[villager], r.gone[villager], r.live[villager]


@dataclass(frozen=True, slots=True)
class _Rows:
    """Each due villager's rows as the round begins: all of them (`mine`, what the seam reads),
    why each that has left its memory can no longer be cited (`gone`), and the rest (`live`,
    what the window and the ranking see)."""

    mine: Mapping[int, tuple[laws.Memory, ...]]
    gone: Mapping[int, Mapping[int, str]]
    live: Mapping[int, tuple[laws.Memory, ...]]
    felt_retrieval: bool            # rank by what each row is felt at now

    @staticmethod
    def at(now: int, due: Sequence[Due], streams: Mapping[int, Sequence[laws.Memory]],
           felt: FeltBook | None, st: Settings) -> _Rows:
        ids = [d.villager for d in due]
        if len(set(ids)) != len(ids):
            twice = next(v for v in ids if ids.count(v) > 1)
            raise VillageError(f"a villager is due at most once in a round: villager {twice} "
                               f"is due twice at tick {now}")
        felt_mode = st.retrieval.importance == "felt"
        if felt_mode and felt is None:
            raise VillageError("felt retrieval needs the felt state: the importance table has no "
                               "valence table")
        mine = {d.villager: tuple(m for m in streams.get(d.villager, ()) if m.tick <= now)
                for d in due}
        gone = {d.villager: felt.gone(d.villager) if felt is not None else {} for d in due}
        live = {v: tuple(m for m in rows if m.id not in gone[v]) if gone[v] else rows
                for v, rows in mine.items()}
        return _Rows(mine=mine, gone=gone, live=live, felt_retrieval=felt_mode)


@dataclass(slots=True)
class _RoundVectors:
    """The vectors a round reads: those it was handed, the new ones it embeds (rows, then
    thoughts), and the questions' vectors in (villager, question) order."""

    vectors: Mapping[int, np.ndarray]
    new: dict[int, np.ndarray] = field(default_factory=dict)
    questions: list[np.ndarray] = field(default_factory=list)

    def of(self, i: int) -> np.ndarray:
        return self.new[i] if i in self.new else self.vectors[i]


def _ask_questions(now: int, due: Sequence[Due], rows: _Rows, oracle,
                  st: Settings, basins: Mapping[int, str]) -> list[Reflection]:
    """Every due villager's questions call over its recent window, asked together, and the
    questions each answer gives (or its refusal). Nothing remembered yet: no call."""
    check = asked_schema(st.questions, bounded=st.bounded)
    refl: list[Reflection] = []
    for d in due:
        window = laws.recent(rows.live[d.villager], now, st.recent)
        lived = st.shown(window, now)
        # Who it is and its day, as each of its prompts of the round may open.
        opening = {"name": d.name, "interests": basins.get(d.villager, ""), "lived": lived}
        prompt = render(st.template(QUESTIONS), memories=lived, count=st.questions, **opening)
        refl.append(Reflection(villager=d.villager, name=d.name, now=now, seed=now + d.villager,
                               rows=len(rows.live[d.villager]), window=window, prompt=prompt,
                               opening=opening))
    asking = [r for r in refl if r.window]
    # Each ask's request names the words of its own window; the seam checks the one shape.
    saids = calls.generate_all(oracle, [
        calls.ask(st, Purpose.QUESTIONS, r.prompt,
                  asked_schema(st.questions, request=True, bounded=st.bounded,
                               words=line_words(m.text for m in r.window)), r.seed)
        for r in asking])
    for r, said in zip(asking, saids, strict=True):
        r.said = said
        r.questions, r.refused = _questions(said, check)
    return refl


def _questions(said: Said, schema: bytes) -> tuple[tuple[str, ...], Rejection | None]:
    """The questions of one answer, or none and why they are refused whole."""
    try:
        asked = tuple(shaped(said, schema)["questions"])
    except Refused as e:
        return (), Rejection("shaped", str(e))
    # The schema's uniqueItems compares bytes; the seam compares questions as
    # `laws.plain` gives them. A list with a repeat is refused whole.
    again = laws.repeated(asked)
    if again is not None:
        return (), Rejection("repeated", laws.repetition(*again))
    return asked, None


def _embed(refl: Sequence[Reflection], rows: _Rows, vectors: Mapping[int, np.ndarray], oracle,
          st: Settings) -> _RoundVectors:
    """One embedding call for every question and every live row not yet embedded."""
    seen = _RoundVectors(vectors)
    fresh = sorted({m.id: m for r in refl for m in rows.live[r.villager]
                    if m.id not in vectors}.values(), key=lambda m: m.id)
    texts = [m.text for m in fresh] + [q for r in refl for q in r.questions]
    if texts and any(r.questions for r in refl):
        mat = oracle.embed(st.embed_model, texts, purpose=Embedding.MEMORIES)
        for i, m in enumerate(fresh):
            seen.new[m.id] = mat[i]
        seen.questions = list(mat[len(fresh):])
        for r in refl:
            r.embedded = sum(1 for m in fresh if m.villager == r.villager) + len(r.questions)
    return seen


def _rank_and_state(now: int, refl: Sequence[Reflection], rows: _Rows, seen: _RoundVectors, oracle,
                   st: Settings, felt: FeltBook | None) -> None:
    """For every question, bring memories to mind; the statement calls, asked together."""
    qi = 0
    asks: list[Ask] = []
    for r in refl:
        if not r.questions:
            continue
        live = rows.live[r.villager]
        recall = Recall.of(now, live, seen.of, st.retrieval, felt if rows.felt_retrieval else None)
        for i, q in enumerate(r.questions, start=1):
            s = Statement(index=i, question=q)
            s.ranked = recall.rank(seen.questions[qi])
            qi += 1
            shown = st.shown([x.memory for x in s.ranked], now)
            s.near = laws.near_lines(shown)
            s.prompt = render(st.template(STATEMENT), question=q, memories=shown, **r.opening)
            ids = [x.memory.id for x in s.ranked]
            lines = {x.memory.id: x.memory.text for x in s.ranked}
            s.schema = drawn_schema(ids, lines=lines, bounded=st.bounded)
            s.check = drawn_schema(ids, request=False, bounded=st.bounded)
            asks.append(calls.ask(st, Purpose.STATEMENT, s.prompt, s.schema, r.seed))
            r.statements.append(s)
    stated = [s for r in refl for s in r.statements]
    for s, said in zip(stated, calls.generate_all(oracle, asks), strict=True):
        s.said = said


def _judge_all(now: int, refl: Sequence[Reflection], rows: _Rows, st: Settings,
               village: Mapping[int, frozenset[str]]) -> list[tuple[Reflection, Statement]]:
    """The seam on every statement, in order: the accepted ones, each with its reflection."""
    accepted: list[tuple[Reflection, Statement]] = []
    for r in refl:
        for s in r.statements:
            s.refused = _judge(now, s, rows.mine[r.villager], rows.gone[r.villager], st,
                               recurs=rows.felt_retrieval,
                               grounded=(r.name, village[r.villager]) if st.grounded else None)
            if s.refused is None:
                accepted.append((r, s))
    return accepted


def _judge(now: int, s: Statement, mine: tuple[laws.Memory, ...], gone: Mapping[int, str],
           st: Settings, *, recurs: bool,
           grounded: tuple[str, frozenset[str]] | None = None) -> Rejection | None:
    """One statement through the seam: its shape, its own words, its citations (reading the
    stream as it stood when the round began), and, where `grounded` gives the speaker and the
    village's names, that it names and claims only what the rows it cites do
    (`laws.judge_grounded`). Its refusal, or None when it is accepted.

    Where a thought can recur (`recurs`: felt retrieval), a statement that says again one of
    its villager's thoughts the prompt showed is that thought recurring (EmoStack row 75: a
    thought at cosine 0.90 or more to an earlier one, and the same words are at 1.0), and is
    judged by recurrence after the seam; only a lived memory said back is a restatement."""
    try:
        drawn = shaped(s.said, s.check)
    except Refused as e:
        return Rejection("shaped", str(e))
    s.statement, s.cites = drawn[SAID], tuple(drawn[CITES])
    # Its own words first: a statement, and not a memory its prompt showed said back.
    said_back = laws.judge_statement(s.statement, [x.memory for x in s.ranked
                                                   if not (recurs and x.memory.is_thought)])
    if said_back is not None:
        # The seam's verdict on it, as a refused citation's would be (depth unknown: 0).
        s.verdict = laws.Verdict(ok=False, check=said_back.check, reason=said_back.reason,
                                 depth=0)
        return Rejection(said_back.check, said_back.reason)
    s.verdict = laws.cite(mine, now, s.cites, st.cap, gone)
    if not s.verdict.ok:
        return Rejection(s.verdict.check, s.verdict.reason)
    if grounded is None:
        return None
    off = laws.judge_grounded(s.statement, speaker=grounded[0], names=grounded[1],
                              cited=laws.cited_texts({m.id: m.text for m in mine}, s.cites,
                                                     s.near))
    if off is None:
        return None
    s.verdict = laws.Verdict(ok=False, check=off.check, reason=off.reason, depth=s.verdict.depth)
    return Rejection(off.check, off.reason)


def _recur_or_write(now: int, accepted: Sequence[tuple[Reflection, Statement]], rows: _Rows,
                    seen: _RoundVectors, oracle, st: Settings, felt: FeltBook | None,
                    next_id: int) -> tuple[dict[tuple[int, int], tuple[ev.Event, ...]],
                                           list[laws.Memory]]:
    """Each accepted statement, in (villager, question) order, becomes a thought, or (with
    felt retrieval, after one embedding call for them all) recurs as an earlier one. The
    events each gave, by (villager, question), and the thoughts written."""
    vecs = (oracle.embed(st.embed_model, [s.statement for _, s in accepted], purpose=Embedding.STATEMENTS)
            if rows.felt_retrieval and accepted else None)
    wrote: dict[tuple[int, int], tuple[ev.Event, ...]] = {}
    written: dict[int, list[laws.Memory]] = {}
    thoughts: list[laws.Memory] = []
    nid = next_id
    for k, (r, s) in enumerate(accepted):
        # Earlier thoughts of this round count for the first-of-its-kind bonus, and recur.
        mine_now = rows.mine[r.villager] + tuple(written.get(r.villager, ()))
        row = laws.reflected(mine_now, now, s.statement, s.cites, st.thought, next_id=nid,
                             villager=r.villager)
        if vecs is not None:
            r.embedded += 1
            own = [m.id for m in mine_now if m.is_thought]
            hit = refeel.recurrence(vecs[k], own, {i: seen.of(i) for i in own})
            if hit is not None:
                s.recurred = hit[0]
                wrote[(r.villager, s.index)] = (refeel.recur(felt, r.villager, hit[0], s.index,
                                                             s.statement, row.weight, now),)
                continue
            seen.new[row.id] = vecs[k]
        s.row = row
        nid += 1
        written.setdefault(r.villager, []).append(row)
        thoughts.append(row)
        thought = ev.Thought(id=row.id, villager=r.villager, text=row.text, weight=row.weight,
                             depth=s.verdict.depth, about=row.about, drawn_from=row.drawn_from)
        wrote[(r.villager, s.index)] = ((thought, *refeel.refeel(felt, row, now))
                                        if vecs is not None else (thought,))
    return wrote, thoughts


def _embed_thoughts(refl: Sequence[Reflection], thoughts: Sequence[laws.Memory], rows: _Rows,
                    seen: _RoundVectors, oracle, st: Settings) -> None:
    """One embedding call for the thoughts written (felt retrieval embedded them already, as
    statements, to find which recur)."""
    if not thoughts or rows.felt_retrieval:
        return
    mat = oracle.embed(st.embed_model, [t.text for t in thoughts], purpose=Embedding.THOUGHTS)
    for i, t in enumerate(thoughts):
        seen.new[t.id] = mat[i]
    for r in refl:
        r.embedded += sum(1 for t in thoughts if t.villager == r.villager)


def _events(refl: Sequence[Reflection],
            wrote: Mapping[tuple[int, int], Sequence[ev.Event]]) -> list[ev.Event]:
    """The round's events in the log's order: for each villager its questions call and their
    refusal, then each statement call and its refusal, or what the statement became."""
    events: list[ev.Event] = []
    for r in refl:
        if r.said is not None:
            events.append(calls.answered(r.villager, Purpose.QUESTIONS, 0, r.seed, r.prompt, r.said))
            if r.refused is not None:
                events.append(calls.refusal(r.villager, Purpose.QUESTIONS, 0, r.refused))
        for s in r.statements:
            events.append(calls.answered(r.villager, Purpose.STATEMENT, s.index, r.seed, s.prompt,
                                         s.said))
            if s.refused is not None:
                events.append(calls.refusal(r.villager, Purpose.STATEMENT, s.index, s.refused))
            else:
                events.extend(wrote[(r.villager, s.index)])
    return events
