"""Words at a meeting: a villager that comes into sight of another may speak to it, and the
listener may answer once.

At a tick where the world's events bring `b` into the sight of `a` (a `came_into_sight` event,
viewer `a`), `a` starts an utterance to `b` where the thought settings have a talk block and:

1. both reflect, `b` has `a` in sight as this tick ends (so `b` can hear it), and `a` was not
   founded at this tick (it has lived nothing yet to speak of);
2. `a` has starts left today (the block's `starts`) and has not yet spoken to `b` today (a
   start asked counts, said or refused: a day's calls stay within the budget);
3. `b` is not already speaking to `a` at this tick (the first sighting of a pair in the
   tick's order starts; the other answers).

What comes to mind first is what `a` holds about `b`: its living rows whose `about` holds `b`,
strongest felt now first (EmoStack row 28, the block's `recall`), then the retrieval's best
for the meeting (the laws' ranking under the thought settings, for a query naming `b`), up to
the block's `shown` lines. Sightings and partings are not among them: the prompt says the
meeting in words, and a line that someone came into sight is nothing to tell them. One call (the talk template, `kernel.seam.talk.talk_schema` with an
`enum` of the ids shown) at temperature 0, seeded by the tick and the speaker. The seam then
judges the answer as it judges a statement: its shape, its own words (not wordless, not a
shown line said back, nor the words inside a line of talk its prompt shows, in its day or in
what it remembers, which would be another's words said as its own or its own said again,
`laws.judge_statement`, nor a sentence of its own prompt), its citations (`laws.cite`: each
exists, is the speaker's, no later than now, once, and not forgotten), and where the settings
say `grounded` whom it names, who it says gave or took from whom, whose words it passes on,
and that it says no "you" of a cited line (the speaker) of its listener, each read off the
cited lines as the prompt showed them (`laws.judge_grounded`). An
accepted utterance is a `Spoke` event; perception gives the speaker its `did` row and the listener its `heard` row.

Then each listener of an accepted start may answer once, in the same way, within its own
`answers` for the day, if it has not spoken to the speaker today and the speaker has it in
sight: its prompt shows what it just heard (its `heard` row, which it may cite), its rows
about the speaker, and the retrieval's best for the words heard. Every start of a tick is
asked in one batch, then every answer, each batch through the oracle's one road for many asks,
and the rows each batch needs embedded in one embedding call before it.

`TalkBook` is the projection that knows, for each day, who has spoken to whom and how many
starts and answers each villager has used, folded from `Spoke` events. This module owns the
talk's order, its conditions and their wording; it writes nothing and calls no model but
through the oracle it is handed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from kernel import events as ev
from kernel import laws
from kernel.calendar import Calendar
from kernel.errors import Refused
from kernel.events import Embedding, Purpose
from kernel.laws.memory import Memory
from kernel.mind import calls
from kernel.mind.calls import Rejection
from kernel.mind.felt import FeltBook
from kernel.mind.settings import Settings, TalkSettings
from kernel.oracle.base import Said
from kernel.seam import Rendered, render, shaped
from kernel.seam.schemas import CITES, SAID
from kernel.seam.talk import TALK, talk_schema

START, ANSWER = Purpose.TALK, Purpose.ANSWER
"""The purposes of the two calls: an utterance started at a meeting, and an answer to one."""


class TalkBook:
    """Each day's talk so far, folded from the talk calls' `Answered` events (purpose `talk`
    or `answer`, index the listener): the starts and answers each villager has used, and whom
    it has spoken to, whether the seam let the words be said or not, so a day's calls stay
    within the budget and a refused start is not asked again of the same pair that day."""

    def __init__(self, calendar: Calendar) -> None:
        self.calendar = calendar
        self.start()

    def start(self) -> None:
        self.starts: dict[tuple[int, int], int] = {}          # (day, villager) -> starts used
        self.answers: dict[tuple[int, int], int] = {}         # (day, villager) -> answers used
        self.spoken: set[tuple[int, int, int]] = set()        # (day, speaker, listener)

    def apply(self, tick: int, events: Sequence[ev.Event]) -> None:
        day = self.calendar.day_of(tick)
        for e in events:
            if isinstance(e, ev.Answered) and e.purpose in (START, ANSWER):
                used = self.answers if e.purpose == ANSWER else self.starts
                used[(day, e.villager)] = used.get((day, e.villager), 0) + 1
                self.spoken.add((day, e.villager, e.index))

    def used(self, day: int, villager: int) -> tuple[int, int]:
        """(starts, answers) `villager` has used on `day`."""
        return self.starts.get((day, villager), 0), self.answers.get((day, villager), 0)

    def has_spoken(self, day: int, speaker: int, listener: int) -> bool:
        return (day, speaker, listener) in self.spoken


@dataclass(slots=True)
class Utterance:
    """One call of a meeting, a start or an answer, and what became of it."""

    speaker: int
    listener: int
    name: str
    other: str
    now: int
    seed: int
    reply: bool
    heard: str                       # what the speaker just heard from the listener ("" for a start)
    shown: tuple[Memory, ...]        # the lines its prompt showed, in order
    recalled: int                    # how many of them came first, as rows about the listener
    prompt: Rendered
    schema: bytes
    said: Said | None = None
    text: str | None = None
    cites: tuple[int, ...] = ()
    refused: Rejection | None = None
    spoke: ev.Spoke | None = None
    near: Mapping[int, str] = field(default_factory=dict)   # folded rows' shown lines (laws.near_lines)
    lived: tuple[Memory, ...] = ()   # the day its prompt opens with (`lived`), not citable
    lines: Mapping[int, str] = field(default_factory=dict)  # each shown row's line as shown, by id

    @property
    def purpose(self) -> str:
        return ANSWER if self.reply else START


@dataclass(frozen=True, slots=True)
class Talk:
    """A tick's talk: every call, the events they gave, and the rows they embedded."""

    now: int
    utterances: tuple[Utterance, ...]
    events: tuple[ev.Event, ...]
    vectors: Mapping[int, np.ndarray]

    @property
    def calls(self) -> int:
        return sum(1 for u in self.utterances if u.said is not None)

    @property
    def counts(self) -> dict[str, int]:
        """What the tick's talk came to: starts and answers asked, accepted and refused."""
        out = {"starts": 0, "answers": 0, "accepted": 0, "refused": 0}
        for u in self.utterances:
            out["answers" if u.reply else "starts"] += 1
            out["accepted" if u.spoke is not None else "refused"] += 1
        return out


@dataclass(frozen=True, slots=True)
class Meeting:
    """What a tick's talk reads: who can hear whom, each villager's rows and felt state as the
    tick's world left them, the rows embedded so far, and the bond each holds to another in
    words."""

    now: int
    day: int
    names: Mapping[int, str]
    talkers: frozenset[int]                       # the villagers who reflect, and so may talk
    sees: Callable[[int, int], bool]              # whether the first has the second in sight
    founded: Mapping[int, int]                    # each villager's founding tick
    streams: Mapping[int, Sequence[Memory]]       # each talker's rows, this tick's included
    felt: FeltBook | None
    vectors: Mapping[int, np.ndarray]
    bond: Callable[[int, int], str]               # the bond of the first to the second, in words


def meetings(so_far: Sequence[ev.Event], m: Meeting, book: TalkBook,
             st: TalkSettings) -> list[tuple[int, int]]:
    """The (speaker, listener) pairs that start at this tick, in the order of their sightings
    (the rules 1 to 3 above)."""
    pairs: list[tuple[int, int]] = []
    used: dict[int, int] = {}
    for e in so_far:
        if not isinstance(e, ev.CameIntoSight):
            continue
        a, b = e.viewer, e.seen
        if a not in m.talkers or b not in m.talkers or not m.sees(b, a) or not m.sees(a, b):
            continue
        if m.founded.get(a) == m.now:
            continue
        starts = book.used(m.day, a)[0] + used.get(a, 0)
        if starts >= st.starts or book.has_spoken(m.day, a, b) or (a, b) in pairs:
            continue
        if (b, a) in pairs:
            continue
        pairs.append((a, b))
        used[a] = used.get(a, 0) + 1
    return pairs


def talk_round(so_far: Sequence[ev.Event], m: Meeting, book: TalkBook, oracle, st: Settings,
               rows_after: Callable[[Sequence[ev.Event]], Sequence[Memory]]) -> Talk | None:
    """The tick's talk: every start, then every answer to an accepted start. `rows_after`
    gives the rows this tick's events give with the talk's so far appended (the heard rows an
    answer shows). None where nobody starts."""
    t = st.talk
    assert t is not None
    pairs = meetings(so_far, m, book, t)
    if not pairs:
        return None
    new: dict[int, np.ndarray] = {}
    starts = [_utterance(m, st, a, b, m.streams.get(a, ()), "") for a, b in pairs]
    _asked(starts, m, st, oracle, new)
    events: list[ev.Event] = []
    for u in starts:
        events += _judged(u, m, st)
    # the answers: each listener of an accepted start, once, within its own budget
    heard_rows = [r for r in rows_after(events) if r.kind == "heard" and r.event == "talk"]
    answers: list[Utterance] = []
    answering: dict[int, int] = {}
    spoke_now = {(u.speaker, u.listener) for u in starts if u.said is not None}
    for u in starts:
        if u.spoke is None:
            continue
        b, a = u.listener, u.speaker
        left = t.answers - book.used(m.day, b)[1] - answering.get(b, 0)
        if (left <= 0 or book.has_spoken(m.day, b, a) or (b, a) in spoke_now
                or not m.sees(a, b)):
            continue
        mine = [r for r in heard_rows if r.villager == b and a in r.about]
        stream = tuple(m.streams.get(b, ())) + tuple(mine)
        answers.append(_utterance(m, st, b, a, stream, u.spoke.text))
        answering[b] = answering.get(b, 0) + 1
    if answers:
        streams = {**m.streams}
        for u in answers:
            streams[u.speaker] = tuple(m.streams.get(u.speaker, ())) + tuple(
                r for r in heard_rows if r.villager == u.speaker)
        _asked(answers, m, st, oracle, new, streams)
        for u in answers:
            events += _judged(u, m, st, streams[u.speaker])
    return Talk(now=m.now, utterances=tuple(starts + answers), events=tuple(events),
                vectors=new)


UNSAID = frozenset({("saw", "sighting"), ("saw", "parting")})
"""The rows a meeting does not bring to mind: who came into sight and who went out of it."""


def _live(m: Meeting, villager: int, stream: Sequence[Memory]) -> tuple[Memory, ...]:
    """`villager`'s rows a meeting can bring to mind: still in memory, no later than now, and
    not a sighting or a parting."""
    gone = m.felt.gone(villager) if m.felt is not None else {}
    return tuple(r for r in stream if r.tick <= m.now and r.id not in gone
                 and (r.kind, r.event) not in UNSAID)


def _strength(m: Meeting, r: Memory) -> int:
    """What a row is felt at now (its weight where there is no felt memory): what comes to mind
    first at a meeting."""
    if m.felt is not None and r.id in m.felt.rows:
        return m.felt.felt_now(r.id, m.now)
    return r.weight * 100


def recalled(m: Meeting, villager: int, other: int, stream: Sequence[Memory],
             most: int) -> list[Memory]:
    """`villager`'s living rows about `other`, strongest felt now first (newest first among
    equals), at most `most` (EmoStack row 28)."""
    about = [r for r in _live(m, villager, stream) if other in r.about]
    about.sort(key=lambda r: (-_strength(m, r), -r.id))
    return about[:most]


def _utterance(m: Meeting, st: Settings, speaker: int, listener: int,
               stream: Sequence[Memory], heard: str) -> Utterance:
    """A start (`heard` "") or an answer, with its rows recalled; the retrieval's lines are
    added once the rows are embedded (`_asked`)."""
    t = st.talk
    assert t is not None
    first = recalled(m, speaker, listener, stream, min(t.recall, t.shown))
    return Utterance(speaker=speaker, listener=listener, name=m.names[speaker],
                     other=m.names[listener], now=m.now, seed=m.now + speaker, reply=bool(heard),
                     heard=heard, shown=tuple(first), recalled=len(first),
                     prompt=Rendered(b"", "", TALK, ""), schema=b"")


def query(u: Utterance) -> str:
    """What the retrieval looks for at a meeting: the words just heard, or the other's name."""
    return u.heard or u.other


def _asked(us: Sequence[Utterance], m: Meeting, st: Settings, oracle,
           new: dict[int, np.ndarray], streams: Mapping[int, Sequence[Memory]] | None = None
           ) -> None:
    """One embedding call (each query, and every live row of the speakers not yet embedded),
    then each utterance's lines completed by the retrieval and its prompt rendered, then every
    call asked together."""
    t = st.talk
    assert t is not None
    streams = m.streams if streams is None else streams
    lives = {u.speaker: _live(m, u.speaker, streams.get(u.speaker, ())) for u in us}
    have = lambda i: i in new or i in m.vectors  # noqa: E731
    fresh = sorted({r.id: r for rows in lives.values() for r in rows if not have(r.id)}.values(),
                   key=lambda r: r.id)
    texts = [r.text for r in fresh] + [query(u) for u in us]
    mat = oracle.embed(st.embed_model, texts, purpose=Embedding.TALK)
    for i, r in enumerate(fresh):
        new[r.id] = mat[i]
    vec = lambda i: new[i] if i in new else m.vectors[i]  # noqa: E731
    asks = []
    for k, u in enumerate(us):
        live = lives[u.speaker]
        room = t.shown - len(u.shown)
        if room > 0 and live:
            felt = (np.array([_strength(m, r) / 1000 for r in live], dtype=np.float64)
                    if st.retrieval.importance == "felt" and m.felt is not None else None)
            ranked = laws.rank(m.now, live, np.stack([vec(r.id) for r in live]),
                               mat[len(fresh) + k], st.retrieval, felt=felt)
            taken = {r.id for r in u.shown}
            more = [x.memory for x in ranked if x.memory.id not in taken][:room]
            u.shown = u.shown + tuple(more)
        if not u.shown:
            continue
        # `lived`: the speaker's recent rows, for a template that opens with who it is and
        # its day, as the shipped one does.
        recent = laws.recent(live, m.now, st.recent)
        u.lived = tuple(recent)
        worded = st.words is not None
        shown = [_own(x) for x in st.shown(u.shown, m.now)] if worded else list(u.shown)
        u.near = laws.near_lines(shown) if worded else {}
        u.lines = ({i: x.text for x in shown for i in x.ids} if worded
                   else {r.id: r.text for r in u.shown})
        u.prompt = render(st.template(TALK), name=u.name, other=u.other,
                          bond=m.bond(u.speaker, u.listener), heard=u.heard, memories=shown,
                          lived=([_own(x) for x in st.shown(recent, m.now)] if worded
                                 else list(recent)))
        lines = {r.id: r.text for r in u.shown}
        u.schema = talk_schema([r.id for r in u.shown], t.chars, lines=lines, bounded=st.bounded)
        asks.append(calls.ask(st, u.purpose, u.prompt, u.schema, u.seed, limit=t.limit))
    saids = calls.generate_all(oracle, asks)
    for u, said in zip([u for u in us if u.shown], saids, strict=True):
        u.said = said


def _judged(u: Utterance, m: Meeting, st: Settings,
            stream: Sequence[Memory] | None = None) -> list[ev.Event]:
    """One utterance through the seam: its answer, then its refusal or its `Spoke` event."""
    t = st.talk
    assert t is not None
    if u.said is None:
        return []
    # a call's index is its listener: a speaker says at most one thing to one villager a day
    events: list[ev.Event] = [calls.answered(u.speaker, u.purpose, u.listener, u.seed, u.prompt,
                                             u.said)]
    refused = judge(u, m, t, m.streams.get(u.speaker, ()) if stream is None else stream,
                    grounded=st.grounded)
    if refused is not None:
        u.refused = refused
        return [*events, calls.refusal(u.speaker, u.purpose, u.listener, refused)]
    u.spoke = ev.Spoke(speaker=u.speaker, listener=u.listener, text=u.text or "",
                       drawn_from=tuple(sorted(u.cites)), reply=u.reply)
    return [*events, u.spoke]


def judge(u: Utterance, m: Meeting, t: TalkSettings, stream: Sequence[Memory], *,
          grounded: bool = False) -> Rejection | None:
    """The seam's verdict on one utterance: its shape, its own words, its citations (the
    speaker's rows up to now, none forgotten), and where `grounded`, that it names only its
    speaker, its listener and villagers its cited rows name, and says who gave or took from
    whom only as a cited row does (`laws.judge_grounded`, "you" its listener); None when it
    may be said."""
    assert u.said is not None
    try:
        got = shaped(u.said, talk_schema([r.id for r in u.shown], t.chars, request=False))
    except Refused as e:
        return Rejection("shaped", str(e))
    u.text, u.cites = got[SAID], tuple(got[CITES])
    # a shown line said back, or the words just heard said back, is not an utterance
    said_back = laws.judge_statement(u.text, [*u.shown, *_words_heard(u)])
    if said_back is not None:
        return Rejection(said_back.check, said_back.reason)
    if laws.plain(u.text) in _sentences(u.prompt.bytes.decode("utf-8")):
        return Rejection("restates", "a sentence of its prompt said back, not an utterance")
    gone = m.felt.gone(u.speaker) if m.felt is not None else {}
    verdict = laws.cite(stream, m.now, u.cites, 0, gone)
    if not verdict.ok:
        return Rejection(verdict.check, verdict.reason)
    if not grounded:
        return None
    off = laws.judge_grounded(u.text, speaker=u.name, listener=u.other, names=m.names.values(),
                              cited=laws.cited_texts({r.id: r.text for r in stream}, u.cites,
                                                     u.near),
                              shown=[u.lines[i] for i in u.cites if i in u.lines])
    return None if off is None else Rejection(off.check, off.reason)


def _sentences(prompt: str) -> set[str]:
    """Each sentence of a prompt's own lines (not its numbered memories), as `laws.plain`
    compares texts: what a small model says back when it has nothing to say."""
    out = set()
    for line in prompt.splitlines():
        if line.startswith("["):
            continue
        for piece in line.replace("? ", ". ").replace("! ", ". ").split(". "):
            if piece.strip():
                out.add(laws.plain(piece))
    return out


def _own(line: laws.Line) -> laws.Line:
    """A shown line in the speaker's own words (`laws.first_person`): a meeting's prompt asks it
    to speak to another, whose "you" that other is."""
    return replace(line, text=laws.first_person(line.text))


def _words_heard(u: Utterance) -> list[Memory]:
    """The words inside each line of talk its prompt showed, in its day or among what it
    remembers (what was said, without who said it), as rows of the line's id: an utterance
    that says them back restates that line, and says another's words as its own."""
    out = []
    for r in dict.fromkeys((*u.shown, *u.lived)):
        if r.event == "talk" and '"' in r.text:
            words = r.text.split('"', 1)[1].rsplit('"', 1)[0]
            out.append(r._replace(text=words))
    return out


@dataclass(slots=True)
class TalkTally:
    """A run's talk in counts, for the run's lines: calls, utterances said and refused."""

    calls: int = 0
    said: int = 0
    answered: int = 0
    refused: int = 0
    by: dict[str, int] = field(default_factory=dict)

    def add(self, talk: Talk) -> None:
        for u in talk.utterances:
            self.calls += u.said is not None
            if u.spoke is not None:
                self.said += 1
                self.answered += u.reply
            elif u.said is not None:
                self.refused += 1
                if u.refused is not None:
                    self.by[u.refused.check] = self.by.get(u.refused.check, 0) + 1
