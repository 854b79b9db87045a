"""News: how each piece of news a scenario gave spreads, worked out from a run's events and rows.

A piece of news is a `Given` event whose `event` is "news", named by its `news`, told in an
utterance by its `words`, and naming a cell and a 0-based day where it does. The rule, said
once here:

- a villager holds news N from the tick it is given a row carrying N (its given row), or from
  the tick it heard an utterance carrying N (a heard row exists for it);
- an utterance (a `Spoke` event) carries N when its speaker holds N at that tick and either
  cites, in `drawn_from`, a row carrying N (a given row of N, or a heard row that carried N),
  or says one of N's words, as a whole word in any case;
- a heard row carries N when its utterance did; a row the speaker said (`did`/talk) carries
  nothing, nor does a thought;
- N's words from a speaker who does not hold it carry nothing: they are counted apart, as said
  without holding.

Within one tick the rule is a least fixed point (a villager who hears N at a tick holds it at
that tick, and may pass it on at that tick), taken in the order the utterances were made, so a
villager's teller is always one who held N before it did: the tellers make a tree whose roots
are N's given rows. Which heard row an utterance gave is read off the rows perception made of
the same frames (a listener hears only a speaker it has in sight, which is perception's rule,
not repeated here): a tick's heard rows of talk come in the order of its utterances.

`spread(frames, rows, ticks_per_day=...)` is the whole of it, and `utterances(frames, rows)`
the utterances with the heard row each gave. This module owns the rule of holding and
carrying, and where a villager stood; it must not read the log, files or a clock, nor decide
what a row says (perception does).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from kernel import events as ev
from kernel.calendar import Calendar
from kernel.laws._errors import LawError, integer
from kernel.laws.memory import Memory

BY = ("given", "cited", "words")
"""How a villager came to hold a piece of news: it was given it, or heard it from a holder who
cited a row carrying it, or who said its words."""

KINDS = frozenset({ev.Founded, ev.Walked, ev.Given, ev.Spoke})
"""The event kinds the spread is read from; any other changes nothing."""


@dataclass(frozen=True, slots=True)
class TalkTurn:
    """One `Spoke` event of the log, at `tick`, the `seq`-th event of its frame, and the row id
    of the listener's heard row (None where the listener did not have the speaker in sight)."""

    tick: int
    seq: int
    speaker: int
    listener: int
    text: str
    drawn_from: tuple[int, ...]
    reply: bool
    heard: int | None


@dataclass(frozen=True, slots=True)
class Holding:
    """A villager holding a piece of news from `tick`: told by `teller` (None: given it), `by`
    one of BY, through `row` (its given row, or the heard row of the telling)."""

    villager: int
    tick: int
    teller: int | None
    by: str
    row: int


@dataclass(frozen=True, slots=True)
class Branch:
    """A villager in the tree of first tellings, with those it told first, in the order they
    came to hold the news."""

    holding: Holding
    told: tuple[Branch, ...] = ()


@dataclass(frozen=True, slots=True)
class Attendance:
    """Who stood on the news's cell (`x`, `y`) at some tick of its `day` (from 0), up to the
    log's last tick: `holders` held the news by the last tick they stood there that day,
    `others` did not. `reached` is False where the log ends before the day begins."""

    x: int
    y: int
    day: int
    reached: bool
    holders: tuple[int, ...] = ()
    others: tuple[int, ...] = ()

    @property
    def count(self) -> int:
        return len(self.holders) + len(self.others)


@dataclass(frozen=True)
class Spread:
    """How one piece of news spread: every holder in the order it came to hold it, the holders
    by the end of each day from day 0 to the log's last, the utterances that carried it (by
    their place in the run's utterances), how many said its words without holding it, and who
    stood on its cell on its day, where it names both."""

    news: str
    text: str
    words: tuple[str, ...]
    x: int | None
    y: int | None
    day: int | None
    holders: tuple[Holding, ...]
    per_day: tuple[int, ...]
    carried: tuple[tuple[int, str], ...]       # (utterance index, "cited" or "words")
    unheld: tuple[int, ...]                    # utterance indices: its words, said without holding
    attendance: Attendance | None = None
    _by_villager: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_villager", {h.villager: h for h in self.holders})

    def holding(self, villager: int) -> Holding | None:
        return self._by_villager.get(villager)

    def told_by(self, teller: int | None) -> tuple[Holding, ...]:
        """Those `teller` told first (None: those given the news), in the order they came to hold it."""
        return tuple(h for h in self.holders if h.teller == teller)

    def tree(self) -> tuple[Branch, ...]:
        """The tree of first tellings: a branch for each villager given the news."""
        def grow(h: Holding) -> Branch:
            return Branch(h, tuple(grow(k) for k in self.told_by(h.villager)))
        return tuple(grow(h) for h in self.told_by(None))


@dataclass(frozen=True)
class Diffusion:
    """Every piece of news of a run, in the order first given, the run's utterances, and each
    villager's name as it was founded."""

    news: tuple[Spread, ...]
    utterances: tuple[TalkTurn, ...]
    names: Mapping[int, str]

    def name(self, villager: int | None) -> str | None:
        if villager is None:
            return None
        return self.names.get(villager, f"villager {villager}")


# -- words ---------------------------------------------------------------------


@lru_cache(maxsize=256)
def _pattern(words: tuple[str, ...]) -> re.Pattern | None:
    said = [w.strip() for w in words if w.strip()]
    if not said:
        return None
    return re.compile("|".join(rf"(?<!\w){re.escape(w)}(?!\w)" for w in said), re.IGNORECASE)


def mentions(text: str, words: Sequence[str]) -> bool:
    """Whether `text` says one of `words` as a whole word (not inside a longer one), in any case."""
    p = _pattern(tuple(words))
    return p is not None and p.search(text) is not None


# -- reading frames and rows -----------------------------------------------------------


Frame = tuple[int, Sequence[ev.Event]]


def _by_tick(rows: Iterable[Memory], kind: str) -> dict[int, list[Memory]]:
    out: dict[int, list[Memory]] = {}
    for m in rows:
        if m.kind == kind and (kind == "given" or m.event == "talk"):
            out.setdefault(m.tick, []).append(m)
    return out


def _check_frames(frames: Sequence[Frame]) -> None:
    last = None
    for tick, _ in frames:
        integer("tick", tick, at_least=0)
        if last is not None and tick <= last:
            raise LawError(f"a log's frames are in tick order, and tick {tick} comes after tick "
                           f"{last}")
        last = tick


def _frame_rows(frames: Sequence[Frame], by_tick: dict[int, list[Memory]], kind: type[ev.Event]
                ) -> Iterator[tuple[int, list[Memory], list[tuple[int, ev.Event]]]]:
    """Each frame as its tick, its rows (taken out of `by_tick`) and its events of type `kind`,
    each with its place in the frame."""
    for tick, events in frames:
        yield tick, by_tick.pop(tick, []), [(seq, e) for seq, e in enumerate(events)
                                             if type(e) is kind]


def _heard_rows(frames: Sequence[Frame], rows: Sequence[Memory]) -> tuple[TalkTurn, ...]:
    heard = _by_tick(rows, "heard")
    out = []
    for tick, mine, spoken in _frame_rows(frames, heard, ev.Spoke):
        j = 0
        for seq, e in spoken:
            got = None
            if j < len(mine):
                m = mine[j]
                if (m.villager == e.listener and m.about == (e.speaker,)
                        and m.text.endswith(f' say: "{e.text}"')):
                    got, j = m.id, j + 1
            out.append(TalkTurn(tick, seq, e.speaker, e.listener, e.text, tuple(e.drawn_from),
                                 e.reply, got))
        if j < len(mine):
            m = mine[j]
            raise LawError(f"heard row {m.id} at tick {tick} answers no utterance of that tick: "
                           f"the rows are not the ones perception made of these frames")
    if heard:
        t = min(heard)
        raise LawError(f"heard row {heard[t][0].id} at tick {t} answers no utterance: the frames "
                       f"hold no utterance at tick {t}")
    return tuple(out)


def utterances(frames: Sequence[Frame], rows: Iterable[Memory]) -> tuple[TalkTurn, ...]:
    """Every utterance of `frames` ((tick, events), in tick order), with the heard row it gave
    among `rows` (the rows perception made of the same frames; rows of other kinds are passed
    over)."""
    frames = tuple(frames)
    _check_frames(frames)
    return _heard_rows(frames, tuple(rows))


def _given_rows(frames: Sequence[Frame], rows: Sequence[Memory]
                ) -> list[tuple[int, int, ev.Given, int]]:
    """Every news Given of `frames` as (tick, seq, event, its row id)."""
    given = _by_tick(rows, "given")
    out = []
    for tick, mine, gifts in _frame_rows(frames, given, ev.Given):
        for j, (seq, e) in enumerate(gifts):
            if j >= len(mine) or mine[j].villager != e.villager or mine[j].text != e.text:
                raise LawError(f"the given event at tick {tick} (villager {e.villager}) has no "
                               f"given row: the rows are not the ones perception made of these "
                               f"frames")
            if e.event == "news" and e.news:
                out.append((tick, seq, e, mine[j].id))
    return out


# -- the spread of one piece of news ---------------------------------------------------


def _spread_one(name: str, given: list[tuple[int, int, ev.Given, int]],
                said: Sequence[TalkTurn]) -> tuple[list[Holding], list[tuple[int, str]],
                                                     list[int]]:
    words = given[0][2].words
    held: dict[int, Holding] = {}
    carrying: set[int] = set()
    carried: list[tuple[int, str]] = []
    unheld: list[int] = []
    at: dict[int, list[tuple[int, ev.Given, int]]] = {}
    for tick, seq, e, row in given:
        at.setdefault(tick, []).append((seq, e, row))
    by_tick: dict[int, list[int]] = {}
    for i, u in enumerate(said):
        by_tick.setdefault(u.tick, []).append(i)
    for tick in sorted(set(at) | set(by_tick)):
        for _, e, row in at.get(tick, ()):
            carrying.add(row)
            if e.villager not in held:
                held[e.villager] = Holding(e.villager, tick, None, "given", row)
        waiting = list(by_tick.get(tick, ()))
        moved = True
        while moved and waiting:
            moved = False
            for i in list(waiting):
                u = said[i]
                if u.speaker not in held:
                    continue
                by = ("cited" if any(r in carrying for r in u.drawn_from)
                      else "words" if mentions(u.text, words) else None)
                if by is None:
                    continue
                waiting.remove(i)
                moved = True
                carried.append((i, by))
                if u.heard is not None:
                    carrying.add(u.heard)
                    if u.listener not in held:
                        held[u.listener] = Holding(u.listener, tick, u.speaker, by, u.heard)
        unheld.extend(i for i in waiting if mentions(said[i].text, words))
    carried.sort()
    return list(held.values()), carried, unheld


def one_piece(name: str, given: Sequence[tuple[int | str, tuple[str, ...], int | None, int | None,
                                              int | None]], *, where: str) -> None:
    """A name is one piece of news: every row given under it tells it in the same words and
    names the same cell and day (the text each villager is given may differ). `given` holds
    (to whom, words, x, y, day) a row; two that differ are two pieces of news under one name,
    whose spreads would be counted as one, so they are refused, naming both."""
    first = given[0]
    for g in given[1:]:
        for k, what in ((1, "words"), (2, "cell"), (3, "cell"), (4, "day")):
            if g[k] != first[k]:
                show = ((lambda r: f"{r[2]},{r[3]}") if what == "cell" else
                        (lambda r: " ".join(r[1]) or "none") if what == "words" else
                        (lambda r: r[4]))
                raise LawError(f"{where}: the news {name!r} given to {first[0]} and to {g[0]} "
                               f"differ in their {what} ({show(first)} and {show(g)}): a name "
                               f"is one piece of news; name each piece its own")


def _per_day(holders: Sequence[Holding], ticks_per_day: int, last_tick: int | None) -> tuple[int, ...]:
    if last_tick is None:
        return ()
    cal = Calendar(ticks_per_day)
    days = cal.day_of(last_tick) + 1
    counts = [0] * days
    for h in holders:
        d = cal.day_of(h.tick)
        if d < days:
            counts[d] += 1
    out, n = [], 0
    for c in counts:
        n += c
        out.append(n)
    return tuple(out)


# -- where villagers stood ---------------------------------------------------------------


def places(frames: Sequence[Frame]) -> dict[int, list[tuple[int, int, int]]]:
    """Each villager's cell from each tick it changed on: (tick, x, y), the cell it was founded
    on or last walked to by the end of that tick, one entry a tick."""
    out: dict[int, list[tuple[int, int, int]]] = {}
    for tick, events in frames:
        for e in events:
            t = type(e)
            if t is ev.Founded:
                cell = (e.x, e.y)
            elif t is ev.Walked:
                cell = (e.to_x, e.to_y)
            else:
                continue
            trail = out.setdefault(e.villager, [])
            if trail and trail[-1][0] == tick:
                trail[-1] = (tick, *cell)
            else:
                trail.append((tick, *cell))
    return out


def last_on(trail: Sequence[tuple[int, int, int]], x: int, y: int, first: int,
            last: int) -> int | None:
    """The last tick from `first` to `last` (inclusive) at which a villager with this `trail`
    stood on (x, y), or None where it never did."""
    got = None
    for i, (t, cx, cy) in enumerate(trail):
        until = trail[i + 1][0] - 1 if i + 1 < len(trail) else last
        lo, hi = max(t, first), min(until, last)
        if (cx, cy) == (x, y) and lo <= hi:
            got = hi
    return got


def attendance(spread_holders: Sequence[Holding], trails: Mapping[int, Sequence[tuple[int, int, int]]],
               x: int, y: int, day: int, *, ticks_per_day: int,
               last_tick: int | None) -> Attendance:
    """Who stood on (x, y) at some tick of `day` (from 0), split by whether each held the news
    by the last tick it stood there that day."""
    integer("day", day, at_least=0)
    cal = Calendar(ticks_per_day)
    first = cal.first_tick_of_day(day)
    if last_tick is None or last_tick < first:
        return Attendance(x, y, day, False)
    last = min(cal.last_tick_of_day(first), last_tick)
    held = {h.villager: h.tick for h in spread_holders}
    holders, others = [], []
    for v in sorted(trails):
        t = last_on(trails[v], x, y, first, last)
        if t is None:
            continue
        (holders if v in held and held[v] <= t else others).append(v)
    return Attendance(x, y, day, True, tuple(holders), tuple(others))


# -- the whole ---------------------------------------------------------------------------


def spread(frames: Iterable[Frame], rows: Iterable[Memory], *, ticks_per_day: int,
           last_tick: int | None = None) -> Diffusion:
    """How every piece of news in `frames` ((tick, events) in tick order; events of kinds
    other than KINDS are passed over) spread, read with `rows` (the rows perception made of
    the same frames; only given rows and heard rows of talk are read). Days are
    `ticks_per_day` ticks from tick 0; `last_tick` is the log's last (default: the last
    frame's), up to which holders are counted per day and attendance is taken."""
    integer("ticks_per_day", ticks_per_day, at_least=1)
    frames = tuple(frames)
    _check_frames(frames)
    if last_tick is None and frames:
        last_tick = frames[-1][0]
    rows = tuple(rows)
    said = _heard_rows(frames, rows)
    given = _given_rows(frames, rows)
    names: dict[int, str] = {}
    for _, events in frames:
        for e in events:
            if type(e) is ev.Founded:
                names.setdefault(e.villager, e.name)
    order: dict[str, list[tuple[int, int, ev.Given, int]]] = {}
    for g in given:
        order.setdefault(g[2].news, []).append(g)
    for name, gs in order.items():
        one_piece(name, [(names.get(g[2].villager, f"villager {g[2].villager}"), g[2].words,
                          g[2].x, g[2].y, g[2].day) for g in gs],
                  where=f"the log's given rows at ticks {sorted({g[0] for g in gs})[:4]}")
    trails = None
    out = []
    for name, gs in order.items():
        holders, carried, unheld = _spread_one(name, gs, said)
        first = gs[0][2]
        att = None
        if first.x is not None and first.y is not None and first.day is not None:
            if trails is None:
                trails = places(frames)
            att = attendance(holders, trails, first.x, first.y, first.day,
                             ticks_per_day=ticks_per_day, last_tick=last_tick)
        out.append(Spread(name, first.text, tuple(first.words), first.x, first.y, first.day,
                          tuple(holders), _per_day(holders, ticks_per_day, last_tick),
                          tuple(carried), tuple(unheld), att))
    return Diffusion(tuple(out), said, names)
