"""What the log knows of an interview's answer, and whether an answer says it.

A battery question may carry its answer as a query over the interviewed villager's rows
(`Query`): the rows of one kind and event, of one day or of every day up to the interview,
where the villager is the one acted on (`target`) or not; and what the answer is to name of
them, a villager (`who`: the others a row is about) or a place (`where`: the cell its text
names, or in a world in words, whose query carries its `places`, the place its text names).
`most` keeps only the answers the most rows give. The truth (`truth`) is read off all the
villager's rows up to the tick, forgotten ones too: what happened to it, whether it still
remembers or not. Nothing matching: the log knows no answer, and the question is not scored.

An answer is correct (`correct`) when it names one of the right villagers or places and no
wrong one; what it cites does not make it right. The chance level (`Truth.chance`) is what
answering at random scores: the right answers among every answer of that sort the villager
could give (each other villager of the run for `who`, each place its rows name for `where`).

Pure: rows and names in, values out; it reads no file, clock or model.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kernel.calendar import Calendar
from kernel.laws._errors import LawError
from kernel.laws.memory import KINDS, Memory
from kernel.laws.places import last_named, mentions

GIVES = ("who", "where")
"""What an answer may be asked to name: a villager, or a place."""

_CELL = re.compile(r"\b(\d{1,4}),\s?(\d{1,4})\b")


@dataclass(frozen=True, slots=True)
class Query:
    """The answer a question carries, as a query over the villager's rows."""

    kind: str
    event: str
    gives: str                  # "who" or "where"
    target: bool | None = None  # the villager is among the row's `about` (True), not (False), either
    day: int | None = None      # the day (from 1) of the rows; None: every day up to the tick
    most: bool = False          # only the answers the most rows give
    places: tuple[str, ...] = ()  # a world in words: its places' names, what `where` names

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise LawError(f"Expected a kind among {sorted(KINDS)} but got kind={self.kind!r}")
        if not isinstance(self.event, str) or not self.event:
            raise LawError(f"Expected an event name but got event={self.event!r}")
        if self.gives not in GIVES:
            raise LawError(f"Expected gives among {list(GIVES)} but got gives={self.gives!r}")
        if self.day is not None and (isinstance(self.day, bool) or not isinstance(self.day, int)
                                     or self.day < 1):
            raise LawError(f"Expected a day from 1 but got day={self.day!r}")
        if not isinstance(self.places, tuple) or not all(isinstance(n, str) and n.strip()
                                                         for n in self.places):
            raise LawError(f"Expected places as a tuple of names but got places={self.places!r}")


@dataclass(frozen=True, slots=True)
class Truth:
    """What the log knows: the right answers, the rows that give one, and every answer the
    villager could give of that sort."""

    right: frozenset[str]       # names, or cells written "x,y", or places' names in words
    rows: frozenset[int]        # the rows that give a right answer
    candidates: frozenset[str]

    @property
    def known(self) -> bool:
        return bool(self.right)

    @property
    def chance(self) -> float:
        """The probability that one answer drawn at random among the candidates is right."""
        if not self.right:
            return 0.0
        return len(self.right & self.candidates) / max(len(self.candidates), 1)


def cell_of(text: str) -> str | None:
    """The last cell a row's text names ("ate 7 mouthfuls on 11,9" -> "11,9"), or None."""
    got = _CELL.findall(text)
    return f"{got[-1][0]},{got[-1][1]}" if got else None


def where_of(text: str, q: Query) -> str | None:
    """The place a row's text names for a `where` query: the place it names last, in a world
    in words (`q.places`), else the last cell."""
    return last_named(text, q.places) if q.places else cell_of(text)


def _answers(m: Memory, villager: int, q: Query, names: Mapping[int, str]) -> list[str]:
    if q.gives == "where":
        c = where_of(m.text, q)
        return [c] if c is not None else []
    return [names[i] for i in m.about if i != villager and i in names]


def truth(rows: Iterable[Memory], villager: int, now: int, q: Query, names: Mapping[int, str],
          ticks_per_day: int) -> Truth:
    """The truth of `q` for `villager` at tick `now`, read off its rows (every one up to now,
    forgotten or not), with `names` each villager's name by id."""
    if isinstance(ticks_per_day, bool) or not isinstance(ticks_per_day, int) or ticks_per_day < 1:
        raise LawError(f"Expected ticks per day >= 1 but got ticks_per_day={ticks_per_day!r}")
    cal = Calendar(ticks_per_day)
    mine = [m for m in rows if m.villager == villager and m.tick <= now]
    counts: Counter[str] = Counter()
    giving: dict[str, set[int]] = {}
    for m in mine:
        if m.kind != q.kind or m.event != q.event:
            continue
        if q.day is not None and cal.day_number(m.tick) != q.day:
            continue
        if q.target is not None and (villager in m.about) != q.target:
            continue
        for a in _answers(m, villager, q, names):
            counts[a] += 1
            giving.setdefault(a, set()).add(m.id)
    if q.most and counts:
        top = max(counts.values())
        right = {a for a, n in counts.items() if n == top}
    else:
        right = set(counts)
    if q.gives == "who":
        candidates = {n for i, n in names.items() if i != villager}
    else:
        candidates = {c for m in mine if (c := where_of(m.text, q)) is not None}
    return Truth(right=frozenset(right), rows=frozenset(i for a in right for i in giving[a]),
                 candidates=frozenset(candidates | right))


def named(answer: str, q: Query, names: Iterable[str]) -> list[str]:
    """What `answer` names of the sort `q` asks for, in the order it names them: villagers by
    their names (as whole words, in any case), or cells, or in a world in words places (by
    their names, in any case, as kernel.laws.places.mentions reads them)."""
    if q.gives == "where":
        if q.places:
            return mentions(answer, q.places)
        return [f"{a},{b}" for a, b in _CELL.findall(answer)]
    words = re.findall(r"[A-Za-z]+", answer.casefold())
    by = {n.casefold(): n for n in names}
    out: list[str] = []
    for w in words:
        n = by.get(w)
        if n is not None and n not in out:
            out.append(n)
    return out


def correct(answer: str, cites: Sequence[int], t: Truth, q: Query, names: Iterable[str]) -> bool:
    """Whether an answer says what the log knows, strictly: it names a right villager or place
    and no wrong one. What it cites is not what it says: naming none while citing a row that
    gives a right one is not right, and neither is naming a wrong one beside a right one."""
    if not t.known:
        return False
    said = set(named(answer, q, names))
    return bool(said & t.right) and said <= t.right


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """The cosine of two vectors (0 where either is all zeros)."""
    import numpy as np

    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    nx, ny = float(np.linalg.norm(x)), float(np.linalg.norm(y))
    if nx == 0 or ny == 0:
        return 0.0
    return float(np.dot(x, y) / (nx * ny))
