"""The measure of a run's minds: every answer, question and thought of a run marked by the laws
of kernel.laws.minds, and summed per purpose, per villager and in all.

`minds(source, exemplars=None)` reads a run (a scenario, which is replayed, or a log, which is
replayed where its scenario's replay gives it and folded alone where not) and returns a
`Minds` (kernel.report.views). `MindsGather` is the projection that folds the log's `answered`,
`refusal`, `thought`, `recurred` and `absorbed` events into what became of each answer;
`measure` marks them, reading what the log does not hold from elsewhere: each call's token
counts and the vectors from the run's recording (a fork's parent's too), a vector the
recording lacks from the run's embedder where it is installed (and none, said so, where not),
the lines each statement's prompt showed from the replay's rounds, and the questions
template's own text from the run's settings, the word list from kernel.report.words and the
interview answers from the scenario's committed interviews, replayed on the run's log (its
first variant, as the report shows it): what a run's villagers said is then read as a reader
reads it (`Minds.reader`). The report's day folds `MindsGather` beside its own
projections; a sweep row keeps `figures(minds)` (the names in MINDS). This module computes;
it renders nothing, reads no file but recordings and the word list, and writes nothing but
a replay's temporary log.
"""

from __future__ import annotations

import os
import tempfile
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kernel import events as ev
from kernel import laws
from kernel.engine.projection import MemoryFollower
from kernel.engine.replay import follow, replay
from kernel.engine.scenario import Scenario, load_rules
from kernel.engine.scenario import load as load_scenario
from kernel.errors import VillageError
from kernel.events import Embedding, Purpose
from kernel.laws import minds as lm
from kernel.log import read_header, verify
from kernel.mind.reflect import Round
from kernel.mind.talk import Talk
from kernel.oracle import exemplar
from kernel.report import interviews as rint
from kernel.report import source
from kernel.report import words as rw
from kernel.report.views import InterviewsView, Minds, Reader
from kernel.report.words import Listed
from kernel.seam import QUESTIONS, TemplateFile, template_file
from kernel.seam.templates import pieces

MINDS = ("answers", "answers_degenerate", "questions", "questions_parroting", "question_calls",
         "question_calls_refused", "statements", "statements_kept", "plans_with_group",
         "thought_grounding", "near_restatements", "thoughts_alike")
"""The measure's figures a sweep row keeps, in its order (rows absorbed are the felt figures')."""

Embed = Callable[[Sequence[str]], np.ndarray]
"""The run's embedder: texts in, one vector a text."""


# --- the log's answers and what became of each ------------------------------------------------


@dataclass(slots=True)
class _Call:
    tick: int
    villager: int
    purpose: str
    index: int
    text: str
    done_reason: str
    prompt_sha256: str
    refused: str | None = None
    became: str | None = None
    groups: int = 0
    absorbed: int = 0
    group_checks: list[str] = field(default_factory=list)


class MindsGather(MemoryFollower):
    """A projection of the log: every generation answer and what became of it, every thought
    written, and the villagers' names. It follows a memory projection (the replay's own, or
    the one `follow` hands it) for the rows a thought cites. Each event is handled by its type,
    through `_ON`; an answer's fate is in the events of its own tick."""

    def start(self) -> None:
        super().start()
        self.calls: list[_Call] = []
        self.thoughts: list[tuple[int, ev.Thought]] = []
        self.names: dict[int, str] = {}
        self.spoken: list[ev.Spoke] = []
        self._here: dict[tuple[int, str, int], _Call] = {}
        self._last: dict[int, _Call] = {}

    def apply(self, tick: int, events: Sequence[ev.Event]) -> None:
        self._here, self._last = {}, {}
        ev.by_kind(_ON, self, tick, events)

    def _founded(self, tick: int, e: ev.Founded) -> None:
        self.names[e.villager] = e.name

    def _answered(self, tick: int, e: ev.Answered) -> None:
        c = _Call(tick, e.villager, e.purpose, e.index, e.text, e.done_reason, e.prompt_sha256)
        self.calls.append(c)
        self._here[(e.villager, e.purpose, e.index)] = c
        self._last[e.villager] = c

    def _refusal(self, tick: int, e: ev.Refusal) -> None:
        if e.purpose == Purpose.NIGHT and e.index > 0:      # one group of the plan, not the plan
            c = self._here.get((e.villager, Purpose.NIGHT, 0))
            if c is not None:
                c.group_checks.append(e.check)
            return
        c = self._here.get((e.villager, e.purpose, e.index))
        if c is not None:
            c.refused = e.check

    def _thought(self, tick: int, e: ev.Thought) -> None:
        self.thoughts.append((tick, e))
        c = self._last.get(e.villager)
        if c is not None and c.purpose == Purpose.STATEMENT:
            c.became = "thought"

    def _recurred(self, tick: int, e: ev.Recurred) -> None:
        c = self._here.get((e.villager, Purpose.STATEMENT, e.index))
        if c is not None:
            c.became = "recurred"

    def _spoke(self, tick: int, e: ev.Spoke) -> None:
        self.spoken.append(e)
        c = self._here.get((e.speaker, Purpose.ANSWER if e.reply else Purpose.TALK, e.listener))
        if c is not None:
            c.became = "said"

    def _absorbed(self, tick: int, e: ev.Absorbed) -> None:
        c = self._here.get((e.villager, Purpose.NIGHT, 0))
        if c is not None:
            c.groups += 1
            c.absorbed += len(e.absorbed)


_ON: dict[type, Callable[[MindsGather, int, ev.Event], None]] = {
    ev.Founded: MindsGather._founded, ev.Answered: MindsGather._answered, ev.Refusal: MindsGather._refusal,
    ev.Thought: MindsGather._thought, ev.Recurred: MindsGather._recurred, ev.Absorbed: MindsGather._absorbed,
    ev.Spoke: MindsGather._spoke,
}
"""What the measure gathers of each event type; the world's and the felt events add nothing."""


# --- what the log does not hold ---------------------------------------------------------------


@dataclass(frozen=True)
class Inputs:
    """What a run's measure reads besides its log: the replay's rounds (None without a
    replay), the recordings (the run's, after its parent's for a fork), the questions template
    as the run read it (None where it is not known), and how to make the run's embedder."""

    rounds: Sequence[Round] | None = None
    talks: Sequence[Talk] = ()
    """The replay's talk, each utterance with the lines its prompt showed (none: not known)."""
    recordings: tuple[Path, ...] = ()
    template: TemplateFile | None = None
    embedder: Callable[[], tuple[Embed | None, str]] | None = None
    """The run's embedder, made only when a vector is missing (its files are checked by sha256
    when it is made): it, or None and why not."""
    words: Listed | None = None
    """The word list a reader reads with (None: the reader's measures are not taken)."""
    places: tuple[str, ...] = ()
    """The names of the world's places, words a reader knows beside the list's."""
    interviews: InterviewsView | None = None
    """The run's committed interviews, replayed (None: it has none, or they do not replay)."""
    why: tuple[str, ...] = ()
    """What these inputs could not read, each a note: the word list missing, say."""


@dataclass
class _Recorded:
    tokens: dict[str, deque] = field(default_factory=lambda: defaultdict(deque))
    vectors: dict[str, np.ndarray] = field(default_factory=dict)


def _recorded(paths: Iterable[Path]) -> _Recorded:
    """Each generation call's tokens in and out, limit and nanoseconds, by its prompt's sha256
    and its answer in call order, and
    every embedded text's vector (the first recorded), from the recordings."""
    rec = _Recorded()
    for path in paths:
        for call in exemplar.load(path)["calls"]:
            if call["kind"] == "generate":
                # a call is the run's when its prompt and its answer are the run's: a recording
                # of another run of the same configs asks some of the same prompts
                rec.tokens[(call["prompt_sha256"], call["answer"])].append(
                    (call["tokens_in"], call["tokens_out"], call["options"]["limit"],
                     call["took_ns"]))
            else:
                for text, v in zip(call["texts"], exemplar.vectors(call), strict=True):
                    rec.vectors.setdefault(text, v)
    return rec


def _vectors(texts: Iterable[str], rec: _Recorded,
             inputs: Inputs) -> tuple[dict[str, np.ndarray], str]:
    """A vector for each text, the recording's first, else the embedder's; and where they came
    from, or, starting "none", why there are none."""
    texts = list(dict.fromkeys(texts))
    got = {t: rec.vectors[t] for t in texts if t in rec.vectors}
    missing = [t for t in texts if t not in got]
    if not missing:
        return got, "the recording's" if texts else "none: no thought to measure"
    embed, why = (inputs.embedder() if inputs.embedder is not None
                  else (None, "the run's embedder is not known"))
    if embed is None:
        if got:
            return got, f"the recording's, and none for {len(missing)} texts it lacks: {why}"
        return got, f"none: {why}"
    got.update(zip(missing, embed(missing), strict=True))
    whence = f"embedded here ({len(missing)} texts)"
    return got, f"the recording's, and {whence}" if len(got) > len(missing) else whence


def _shown(rounds: Sequence[Round] | None) -> dict[tuple[int, int, int], dict[int, str]] | None:
    """The lines each statement's prompt showed, by (tick, villager, question); None without
    the rounds."""
    if rounds is None:
        return None
    return {(rnd.now, r.villager, s.index): {x.memory.id: x.memory.text for x in s.ranked}
            for rnd in rounds for r in rnd.reflections for s in r.statements}


# --- the marks and the sums -------------------------------------------------------------------


def _answer(c: _Call, rec: _Recorded, runs: frozenset | None) -> lm.AnswerRead:
    known = rec.tokens.get((c.prompt_sha256, c.text))
    tokens_in, tokens_out, limit, took_ns = known.popleft() if known else (None,) * 4
    asked = lm.said(c.text) if c.purpose == Purpose.QUESTIONS else ()
    return lm.AnswerRead(
        tick=c.tick, villager=c.villager, purpose=c.purpose, index=c.index, text=c.text,
        marks=lm.marks(c.text, c.done_reason, tokens_out, limit), questions=len(asked),
        parroting=sum(lm.parrots(q, runs) for q in asked) if runs is not None else 0,
        refused=c.refused, became=c.became, groups=c.groups, absorbed=c.absorbed,
        group_checks=tuple(c.group_checks),
        cost=(tokens_in, tokens_out, took_ns) if tokens_out is not None else None)


def _thought(tick: int, e: ev.Thought, rows: Mapping[int, object], vec: Mapping[str, np.ndarray],
             shown: Mapping[tuple[int, int, int], dict[int, str]] | None,
             index: int | None) -> lm.ThoughtMark:
    texts = [rows[c].text for c in e.drawn_from if c in rows]
    mine = vec.get(e.text)
    cited = [vec[t] for t in texts if t in vec]
    grounded = (lm.grounding(mine, cited)
                if mine is not None and cited and len(cited) == len(e.drawn_from) else None)
    lines = shown.get((tick, e.villager, index)) if shown is not None and index is not None else None
    near = None
    if lines:
        near = lm.nearness(e.text, lines, mine, {i: vec[t] for i, t in lines.items() if t in vec})
    return lm.ThoughtMark(tick=tick, villager=e.villager, id=e.id, text=e.text,
                          grounding=grounded, nearness=near)


def _readings(g: MindsGather, inputs: Inputs, rows: Mapping[int, object],
              names: Mapping[int, str]) -> tuple[lm.Reading, ...]:
    """Every text the run's villagers said, read: its thoughts, its utterances, and the
    answers of its interviews' first variant that the seam let stand."""
    known = lm.lexicon(inputs.words.words, [*names.values(), *inputs.places])

    text_of = {i: r.text for i, r in rows.items()}

    def cited(ids: Iterable[int], near: Mapping[int, str] | None = None) -> list[str]:
        return laws.cited_texts(text_of, ids, near or {})

    # a folded row's line as the statement's prompt showed it (`laws.near_lines`), as the seam
    # read it: where the row's own line names one villager, the shown line names them all
    near = {s.row.id: s.near for rnd in inputs.rounds or () for r in rnd.reflections
            for s in r.statements if s.row is not None and s.near}
    said = {u.spoke: u.near for t in inputs.talks for u in t.utterances
            if u.spoke is not None and u.near}
    out = [lm.read("thought", e.villager, e.text, cited(e.drawn_from, near.get(e.id)), known,
                   names) for _, e in g.thoughts]
    out += [lm.read("utterance", e.speaker, e.text, cited(e.drawn_from, said.get(e)), known,
                    names, listener=e.listener) for e in g.spoken]
    asked = inputs.interviews.asked if inputs.interviews is not None else ()
    out += [lm.read("interview", a.villager, a.answer,
                    [c.text for c in a.cites if c.text] + list(a.near), known, names)
            for a in asked if a.answer is not None]
    return tuple(out)


def _reader(g: MindsGather, inputs: Inputs, rows: Mapping[int, object],
            names: Mapping[int, str]) -> Reader | None:
    """What the run's villagers said as a reader reads it; None without the word list."""
    if inputs.words is None:
        return None
    rs = _readings(g, inputs, rows, names)
    of = tuple((w, lm.read_tally(r for r in rs if r.what == w)) for w in lm.READS
               if w == "thought" or any(r.what == w for r in rs))
    who = sorted({r.villager for r in rs})
    iv = inputs.interviews
    answered: dict[int, list[str]] = defaultdict(list)
    for a in iv.asked if iv is not None else ():
        if a.answer is not None:
            answered[a.villager].append(a.answer)
    return Reader(
        words=inputs.words.what, readings=rs, of=of,
        villagers=tuple((v, names.get(v, f"villager {v}"),
                         lm.read_tally(r for r in rs if r.villager == v)) for v in who),
        distinct=tuple((v, names.get(v, f"villager {v}"), *lm.distinct(answered[v]))
                       for v in sorted(answered)),
        interviews=(f"{iv.recording}, variant {iv.variant}, at tick {iv.tick}"
                    if iv is not None else None))


def _indexes(g: MindsGather) -> list[int | None]:
    """The question each thought answered: the statement call it became, in log order."""
    kept = [c for c in g.calls if c.became == "thought"]
    return [c.index for c in kept] if len(kept) == len(g.thoughts) else [None] * len(g.thoughts)


def measure(g: MindsGather, inputs: Inputs, *, run: str, names: Mapping[int, str] | None = None,
            notes: Sequence[str] = ()) -> Minds:
    """The measure of what `g` gathered of a run, with what `inputs` give."""
    rec = _recorded(inputs.recordings)
    runs = lm.runs(pieces(inputs.template)) if inputs.template is not None else None
    answers = tuple(_answer(c, rec, runs) for c in g.calls)
    rows = {m.id: m for m in g.memory.rows} if g.memory is not None else {}
    shown = _shown(inputs.rounds)
    wanted = [e.text for _, e in g.thoughts]
    wanted += [rows[c].text for _, e in g.thoughts for c in e.drawn_from if c in rows]
    wanted += [t for lines in (shown or {}).values() for t in lines.values()] if g.thoughts else []
    vec, whence = _vectors(wanted, rec, inputs)
    thoughts = tuple(_thought(t, e, rows, vec, shown, i)
                     for (t, e), i in zip(g.thoughts, _indexes(g), strict=True))
    by: dict[int, list[np.ndarray]] = defaultdict(list)
    for _, e in g.thoughts:
        if e.text in vec:
            by[e.villager].append(vec[e.text])
    alike_by = {v: lm.alike(vs) for v, vs in by.items()}
    who = sorted({a.villager for a in answers} | {t.villager for t in thoughts})
    named = {**g.names, **(names or {})}
    why = [*notes, *inputs.why]
    if runs is None and any(a.purpose == Purpose.QUESTIONS for a in answers):
        why.append("parroting is not measured: the run's questions template is not known")
    if shown is None and thoughts:
        why.append("near-restatements are not measured: the lines each prompt showed need "
                   "the run's replay")
    return Minds(
        run=run, answers=answers, thoughts=thoughts, all=lm.tally(answers, thoughts, alike_by),
        purposes=tuple((p, lm.tally([a for a in answers if a.purpose == p],
                                    thoughts if p == Purpose.STATEMENT else (), alike_by))
                       for p in lm.PURPOSES
                       if p in lm.ALWAYS or any(a.purpose == p for a in answers)),
        villagers=tuple((v, named.get(v, f"villager {v}"),
                         lm.tally([a for a in answers if a.villager == v],
                                  [t for t in thoughts if t.villager == v], alike_by))
                        for v in who),
        worst=lm.worst(answers), vectors=whence, notes=tuple(why),
        reader=_reader(g, inputs, rows, named))


# --- a run's inputs, and the run itself -------------------------------------------------------


def recordings_of(sc: Scenario) -> tuple[Path, ...]:
    """The recordings a replay of `sc` reads: a fork's parent's (its calls before T), then its own."""
    own = (sc.exemplars,) if sc.exemplars is not None else ()
    if sc.parent is None:
        return own
    return recordings_of(load_scenario(sc.parent)) + own


def embedder_of(sc: Scenario | None) -> tuple[Embed | None, str]:
    """The run's embedder where it is the sentence embedder and is installed here; else None
    and why not."""
    if sc is None or sc.settings is None:
        return None, "the run's embedder is not known without its scenario"
    from kernel.oracle import minilm

    cfg = dict(sc.configs).get("embedder")
    model = sc.settings.embed_model
    if cfg is None or model not in cfg.value["minilm"]["models"]:
        return None, f"the run embeds with {model}, which the sentence embedder does not answer to"
    why = minilm.available(cfg.value)
    if why is not None:
        return None, f"no embedder is installed here ({why})"
    oracle = minilm.MiniLMOracle.from_config(cfg.value)
    return (lambda texts: oracle.embed(model, list(texts), purpose=Embedding.MINDS)), ""


def places_of(sc: Scenario | None) -> tuple[str, ...]:
    """The names of the places of `sc`'s world, where its world names any."""
    if sc is None:
        return ()
    return tuple(p.name for p in getattr(sc.world, "places", None) or ())


def inputs_of(sc: Scenario | None, rounds: Sequence[Round] | None,
              recordings: tuple[Path, ...] | None = None, *,
              interviews: tuple[InterviewsView | None, str | None] = (None, None),
              talks: Sequence[Talk] = ()) -> Inputs:
    """What a run of `sc` (None: its scenario is not known) gives the measure: the replay's
    `rounds`, its recordings (`recordings_of(sc)` unless given), its questions template (the
    home's where `sc` is None), its embedder, the word list, its world's places, and its
    `interviews` replayed (`kernel.report.interviews.of`: the view, or why there is none),
    and the replay's `talks`."""
    listed, missing = rw.listed()
    why = tuple(x for x in (missing, interviews[1]) if x)
    if recordings is None:
        recordings = recordings_of(sc) if sc is not None else ()
    if sc is not None and sc.settings is not None:
        template = sc.settings.template(QUESTIONS)
    else:
        template = template_file(QUESTIONS) if sc is None else None
    return Inputs(rounds=rounds, talks=tuple(talks), recordings=recordings, template=template,
                  embedder=lambda: embedder_of(sc), words=listed, places=places_of(sc),
                  interviews=interviews[0], why=why)


def minds(run: str | os.PathLike | Scenario, *,
          exemplars: str | os.PathLike | None = None) -> Minds:
    """The measure of a run: `run` is a scenario (replayed), a scenario's name, or a log."""
    if isinstance(run, Scenario):
        return _of_scenario(run, exemplars)
    if not Path(run).is_file():
        return _of_scenario(load_scenario(run), exemplars)
    return _of_log(Path(run), exemplars)


def _of_scenario(sc: Scenario, exemplars: str | os.PathLike | None) -> Minds:
    if exemplars is not None:
        sc = source.with_recording(sc, exemplars)
    g = MindsGather()
    with tempfile.TemporaryDirectory(prefix="village-minds-") as d:
        log = Path(d) / f"{sc.name}.log"
        rp = replay(sc, projections=[g], out=log)
        notes = ([f"the replay stopped at tick {rp.report.ticks}: {rp.report.stopped}"]
                 if rp.stopped is not None else [])
        interviews = rint.of(sc, log) if rp.stopped is None else (None, None)
    return measure(g, inputs_of(sc, rp.report.rounds, interviews=interviews,
                                talks=rp.report.talks), run=sc.name,
                   names={p.id: p.name for p in sc.world.people}, notes=notes)


def _of_log(log: Path, exemplars: str | os.PathLike | None) -> Minds:
    """A log's measure: its scenario's replay where that gives the log, else the log folded,
    read beside the recording given (if any)."""
    head, done = read_header(log), verify(log)
    sc, note = source.of_log(head.config_digest, done.head_hex, exemplars)
    if note is None:
        last = done.last_tick
        g = MindsGather()
        rp = replay(source.with_ticks(sc, last + 1 if last is not None else 0), projections=[g])
        if rp.report.head_hex == done.head_hex:
            inputs = inputs_of(sc, rp.report.rounds, interviews=rint.of(sc, log),
                               talks=rp.report.talks)
            return measure(g, inputs, run=log.name,
                           names={p.id: p.name for p in sc.world.people})
        why = rp.report.stopped or f"it ends at head {rp.report.head_hex[:16]}"
        note = (f"the replay of scenario {sc.name} does not give this log ({why}; the log's "
                f"head is {done.head_hex[:16]})")
    g = MindsGather()
    follow(log, [g], rules=sc.rules if sc is not None else load_rules())
    recordings = (Path(exemplars),) if exemplars is not None else ()
    if exemplars is not None:
        _is_its_recording(log, g, Path(exemplars))
    return measure(g, inputs_of(sc, None, recordings), run=log.name, notes=[note])


def _is_its_recording(log: Path, g: MindsGather, path: Path) -> None:
    """Refuse a recording given for a log that holds none of the log's calls: each call the
    log answered is matched by its prompt's sha256 and its answer, and a recording of another
    run (of the same configs, say) matches few or none; its costs would be printed as the
    log's."""
    rec = _recorded((path,))
    asked = list(g.calls)
    found = sum(1 for c in asked if rec.tokens.get((c.prompt_sha256, c.text)))
    if asked and not found:
        raise VillageError(f"{path} is not the recording of {log}: none of the {len(asked)} "
                           f"calls the log answered is in it (by prompt and answer); give the "
                           f"run's own recording with --exemplars")


def _rounded(x: float | None) -> float | None:
    return None if x is None else round(x, 6)


def figures(m: Minds) -> dict[str, int | float | None]:
    """The measure's figures a sweep row keeps (MINDS): counts, and means rounded to six places
    (None where there is nothing to average)."""
    t = m.all
    return dict(zip(MINDS, (t.answers, t.degenerate, t.questions, t.parroting, t.question_calls,
                            t.questions_refused, t.statements, t.kept, t.plans_with_group,
                            _rounded(t.grounding), t.near if t.shown else None,
                            _rounded(t.alike)), strict=True))
