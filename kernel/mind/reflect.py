"""One reflection round: every villager due at a tick makes something of its day.

This module owns the order of a round and nothing else: which calls are
made, in which order, with which bytes, and what becomes of each answer.
A model's text becomes a value only through `kernel.seam.shaped`; a
questions answer is asked of only when no question repeats another
(`laws.repeated`); a statement becomes a row only through
`laws.judge_statement` (words of its own, not a shown memory said back),
`laws.cite` and `laws.reflected`.
The round writes nothing: it returns the events to append and the vectors
to keep, so a round that fails half-way (a server gone, a replay that
does not match) leaves no trace, and the log stays as it was.

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

import numpy as np

from kernel import events as ev
from kernel import laws
from kernel.errors import Refused, VillageError
from kernel.mind import refeel
from kernel.mind.felt import FeltBook
from kernel.mind.settings import Settings
from kernel.oracle.base import Ask, Said
from kernel.seam import DRAWN_SCHEMA, QUESTIONS, STATEMENT, Rendered, asked_schema, render, shaped


@dataclass(frozen=True, slots=True)
class Due:
    villager: int
    name: str


@dataclass(slots=True)
class Statement:
    """One question of one villager's reflection, and what became of it."""

    index: int
    question: str
    ranked: tuple[laws.Ranked, ...] = ()
    prompt: Rendered | None = None
    said: Said | None = None
    statement: str | None = None
    cites: tuple[int, ...] = ()
    verdict: laws.Verdict | None = None
    refused: str | None = None         # "check: reason" when refused, by shaped or the seam
    row: laws.Memory | None = None
    recurred: int | None = None        # the earlier thought this statement is, when it recurs


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
    said: Said | None = None
    questions: tuple[str, ...] = ()
    refused: str | None = None
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


def _ask(st: Settings, purpose: str, prompt: Rendered, schema: bytes, seed: int) -> Ask:
    return Ask(purpose=purpose, model=st.generate_model, prompt=prompt.bytes, schema=schema,
               seed=seed, temperature=st.temperature, limit=st.limit, context=st.context)


def _answered(r: Reflection, purpose: str, index: int, prompt: Rendered, said: Said) -> ev.Answered:
    return ev.Answered(villager=r.villager, purpose=purpose, index=index, model=said.model,
                       digest=said.digest, seed=r.seed, prompt_sha256=prompt.sha256,
                       text=said.text, done_reason=said.done_reason)


def _generate_all(oracle, asks: list[Ask]) -> list[Said]:
    """Independent asks answered in their order: together where the oracle can (a pool of
    workers has `generate_many`), else one by one. The answers, and so the events, are the same."""
    many = getattr(oracle, "generate_many", None)
    return list(many(asks)) if many is not None else [oracle.generate(a) for a in asks]


def reflect_round(now: int, due: Sequence[Due], streams: Mapping[int, Sequence[laws.Memory]],
                  vectors: Mapping[int, np.ndarray], oracle, st: Settings, next_id: int,
                  felt: FeltBook | None = None) -> Round:
    """Run one round at tick `now` for every villager in `due`, in the order given.

    `streams` holds each villager's rows (only its own); `vectors` the rows
    already embedded; `next_id` the identity the first thought takes;
    `felt` the due villagers' felt state as the round begins (a scratch
    copy, which the round changes as it re-feels), or None without felt memory.
    """
    mine = {d.villager: tuple(m for m in streams.get(d.villager, ()) if m.tick <= now) for d in due}
    # What has left a villager's memory: out of the window and the ranking, refused as a citation.
    gone = {d.villager: felt.gone(d.villager) if felt is not None else {} for d in due}
    live = {v: tuple(m for m in rows if m.id not in gone[v]) if gone[v] else rows
            for v, rows in mine.items()}
    felt_mode = st.retrieval.importance == "felt"
    if felt_mode and felt is None:
        raise VillageError("felt retrieval needs the felt state: the importance table has no "
                           "valence table")
    refl: list[Reflection] = []

    # Phase 1: every questions call, asked together.
    schema = asked_schema(st.questions)
    for d in due:
        window = laws.recent(live[d.villager], now, st.recent)
        prompt = render(QUESTIONS, name=d.name, memories=window, count=st.questions)
        refl.append(Reflection(villager=d.villager, name=d.name, now=now, seed=now + d.villager,
                               rows=len(live[d.villager]), window=window, prompt=prompt))
    # Nothing remembered yet: there is no day to make something of, and no call.
    asking = [r for r in refl if r.window]
    saids = _generate_all(oracle, [_ask(st, "questions", r.prompt, schema, r.seed) for r in asking])
    for r, said in zip(asking, saids, strict=True):
        r.said = said
        try:
            asked = tuple(shaped(r.said, schema)["questions"])
        except Refused as e:
            r.refused = f"shaped: {e}"
        else:
            # The schema's uniqueItems compares bytes; the seam compares questions as
            # `laws.plain` gives them. A list with a repeat is refused whole.
            again = laws.repeated(asked)
            if again is None:
                r.questions = asked
            else:
                r.refused = f"repeated: {laws.repetition(*again)}"

    # Phase 2: one embedding call for every question and every row not yet embedded.
    fresh = sorted({m.id: m for d in due for m in live[d.villager] if m.id not in vectors}.values(),
                   key=lambda m: m.id)
    qtexts = [q for r in refl for q in r.questions]
    new: dict[int, np.ndarray] = {}
    qvecs: list[np.ndarray] = []
    texts = [m.text for m in fresh] + qtexts
    if texts and any(r.questions for r in refl):
        mat = oracle.embed(st.embed_model, texts, purpose="memories and questions")
        for i, m in enumerate(fresh):
            new[m.id] = mat[i]
        qvecs = list(mat[len(fresh):])
        for r in refl:
            r.embedded = sum(1 for m in fresh if m.villager == r.villager) + len(r.questions)

    # Phase 3: for every question, bring memories to mind; the statement calls asked together.
    qi = 0
    asks: list[Ask] = []
    for r in refl:
        if not r.questions:
            continue
        rows = live[r.villager]
        mat = np.stack([new[m.id] if m.id in new else vectors[m.id] for m in rows])
        # the rows as columns and the vectors' squared norms, once for all its questions
        columns = laws.row_columns(rows)
        squares = laws.squares(mat)
        # what each row is felt at as the round begins, for felt retrieval
        now_felt = (np.array([felt.felt_now(m.id, now) / 1000 for m in rows], dtype=np.float64)
                    if felt_mode else None)
        for i, q in enumerate(r.questions, start=1):
            s = Statement(index=i, question=q)
            s.ranked = laws.rank(now, rows, mat, qvecs[qi], st.retrieval, felt=now_felt,
                                 columns=columns, squares=squares)
            qi += 1
            s.prompt = render(STATEMENT, name=r.name, question=q,
                              memories=[x.memory for x in s.ranked])
            asks.append(_ask(st, "statement", s.prompt, DRAWN_SCHEMA, r.seed))
            r.statements.append(s)
    stated = [s for r in refl for s in r.statements]
    for s, said in zip(stated, _generate_all(oracle, asks), strict=True):
        s.said = said

    # Phase 4: the seam, in order, and the rows the accepted statements become.
    events: list[ev.Event] = []
    thoughts: list[laws.Memory] = []
    nid = next_id
    accepted: list[tuple[Reflection, Statement, int]] = []   # with the slot its events fill
    for r in refl:
        if r.said is not None:
            events.append(_answered(r, "questions", 0, r.prompt, r.said))
        if r.refused and r.said is not None:
            check, reason = r.refused.split(": ", 1)
            events.append(ev.Refusal(villager=r.villager, purpose="questions", index=0,
                                     check=check, reason=reason))
        written: list[laws.Memory] = []
        for s in r.statements:
            events.append(_answered(r, "statement", s.index, s.prompt, s.said))
            try:
                drawn = shaped(s.said, DRAWN_SCHEMA)
            except Refused as e:
                s.refused = f"shaped: {e}"
                events.append(ev.Refusal(villager=r.villager, purpose="statement", index=s.index,
                                         check="shaped", reason=str(e)))
                continue
            s.statement, s.cites = drawn["statement"], tuple(drawn["drawn_from"])
            # Its own words first: a statement, and not a memory its prompt showed said back.
            said_back = laws.judge_statement(s.statement, [x.memory for x in s.ranked])
            if said_back is not None:
                # The seam's verdict on it, as a refused citation's would be (depth unknown: 0).
                s.verdict = laws.Verdict(ok=False, check=said_back.check, reason=said_back.reason,
                                         depth=0)
                s.refused = f"{said_back.check}: {said_back.reason}"
                events.append(ev.Refusal(villager=r.villager, purpose="statement", index=s.index,
                                         check=said_back.check, reason=said_back.reason))
                continue
            # The seam reads the stream as it stood when the round began.
            s.verdict = laws.cite(mine[r.villager], now, s.cites, st.cap, gone[r.villager])
            if not s.verdict.ok:
                s.refused = f"{s.verdict.check}: {s.verdict.reason}"
                events.append(ev.Refusal(villager=r.villager, purpose="statement", index=s.index,
                                         check=s.verdict.check, reason=s.verdict.reason))
                continue
            if felt_mode:
                # Whether it recurs is known only once every accepted statement is embedded.
                accepted.append((r, s, len(events)))
                events.append(None)  # type: ignore[arg-type]
                continue
            # Earlier thoughts of this round count for the first-of-its-kind bonus only.
            s.row = laws.reflected(mine[r.villager] + tuple(written), now, s.statement, s.cites,
                                   st.thought, next_id=nid, villager=r.villager)
            nid += 1
            written.append(s.row)
            thoughts.append(s.row)
            events.append(ev.Thought(id=s.row.id, villager=r.villager, text=s.row.text,
                                     weight=s.row.weight, depth=s.verdict.depth,
                                     about=s.row.about, drawn_from=s.row.drawn_from))

    # Phase 4b (felt retrieval): one embedding call for the accepted statements, then each
    # recurs as an earlier thought or becomes one, in (villager, question) order.
    if accepted:
        mat = oracle.embed(st.embed_model, [s.statement for _, s, _ in accepted],
                           purpose="statements")
        fills: dict[int, list[ev.Event]] = {}
        written: dict[int, list[laws.Memory]] = {}
        for (r, s, slot), vec in zip(accepted, mat, strict=True):
            r.embedded += 1
            mine_now = mine[r.villager] + tuple(written.get(r.villager, ()))
            row = laws.reflected(mine_now, now, s.statement, s.cites, st.thought, next_id=nid,
                                 villager=r.villager)
            own = [m.id for m in mine_now if m.is_thought]
            hit = refeel.recurrence(vec, own, {i: new[i] if i in new else vectors[i] for i in own})
            if hit is not None:
                s.recurred = hit[0]
                fills[slot] = [refeel.recur(felt, r.villager, hit[0], s.index, s.statement,
                                            row.weight, now)]
                continue
            s.row = row
            nid += 1
            written.setdefault(r.villager, []).append(row)
            thoughts.append(row)
            new[row.id] = vec
            fills[slot] = [ev.Thought(id=row.id, villager=r.villager, text=row.text,
                                      weight=row.weight, depth=s.verdict.depth, about=row.about,
                                      drawn_from=row.drawn_from),
                           *refeel.refeel(felt, row, now)]
        events = [x for i, e in enumerate(events) for x in (fills[i] if e is None else (e,))]

    # Phase 5: one embedding call for the accepted thoughts.
    if thoughts and not felt_mode:
        mat = oracle.embed(st.embed_model, [t.text for t in thoughts], purpose="thoughts")
        for i, t in enumerate(thoughts):
            new[t.id] = mat[i]
        for r in refl:
            r.embedded += sum(1 for t in thoughts if t.villager == r.villager)
    return Round(now=now, reflections=tuple(refl), events=tuple(events), thoughts=tuple(thoughts),
                 vectors=new)
