"""The world's places, and how a row says where by them.

This module owns the `Places` value: a world's named regions of the grid, each a few
rectangles of cells (`Place.rects`, corners both in), every cell in at most one place, each
with what grows there and the word a row puts before its name ("in the mill field", "by the
well"); and the one rule for a cell's words: a cell in a place is in it, a cell in none is
near the nearest place (by the distance from the cell to the place's nearest cell, a tie to
the place named first), and grows what that place grows. It also owns counts in words
(`parcels`: "a parcel", "two parcels", "dozens of parcels"), the place names a text names
(`mentions`), and `InWords`, a world in words as a prompt reads it: its places and its day.

Where a world names no places it is not in words, and perception words its rows with the
figures it always did. Pure: values in, words out; it reads no file, log or clock, and it
must not know which event a row came from (kernel.laws.perception does).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from kernel.laws._errors import LawError, integer
from kernel.laws.hours import Hours

PREPOSITIONS = ("in", "on", "at", "by")
"""The words a row may put before a place's name: "ate barley in the mill field"."""

ARTICLES = ("the", "a", "an")

_NUMBERS = ("no", "a", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
            "eleven", "twelve")


def parcels(n: int) -> str:
    """A count of parcels in words, exactly up to twelve and roughly past it."""
    integer("parcels", n, at_least=0)
    if n < len(_NUMBERS):
        return f"{_NUMBERS[n]} parcel{'' if n == 1 else 's'}"
    if n < 24:
        return "over a dozen parcels"
    if n < 100:
        return "dozens of parcels"
    if n < 1000:
        return "hundreds of parcels"
    return "thousands of parcels"


@dataclass(frozen=True, slots=True)
class Place:
    """One named place: its name, what grows there, the preposition before its name, and its
    rectangles of cells as (x0, y0, x1, y1), both corners in."""

    name: str
    grows: str
    rects: tuple[tuple[int, int, int, int], ...]
    preposition: str = "in"

    def holds(self, x: int, y: int) -> bool:
        return any(x0 <= x <= x1 and y0 <= y <= y1 for x0, y0, x1, y1 in self.rects)

    def distance2(self, x: int, y: int) -> int:
        """The squared distance, in cells, from cell (x, y) to the place's nearest cell."""
        best = None
        for x0, y0, x1, y1 in self.rects:
            dx = max(x0 - x, 0, x - x1)
            dy = max(y0 - y, 0, y - y1)
            d = dx * dx + dy * dy
            if best is None or d < best:
                best = d
        assert best is not None
        return best

    @property
    def anchor(self) -> tuple[int, int]:
        """The cell that stands for the place where one cell must: its first rectangle's middle."""
        x0, y0, x1, y1 = self.rects[0]
        return (x0 + x1) // 2, (y0 + y1) // 2

    @property
    def flat(self) -> tuple[int, ...]:
        """Its rectangles as four integers each, as a `Placed` event holds them."""
        return tuple(v for r in self.rects for v in r)


@dataclass(frozen=True, slots=True)
class Where:
    """Where a cell is, in words: in `place` (`inside`), or near it."""

    place: Place
    inside: bool

    @property
    def at(self) -> str:
        """"in the mill field", "by the well", or "near the well"."""
        p = self.place
        return f"{p.preposition} {p.name}" if self.inside else f"near {p.name}"

    @property
    def spot(self) -> str:
        """The cell as an end of a walk: "the mill field", or "near the well"."""
        return self.place.name if self.inside else f"near {self.place.name}"


def rects_of(flat: Sequence[int]) -> tuple[tuple[int, int, int, int], ...]:
    """Rectangles from four integers each (what `Place.flat` gives)."""
    if len(flat) % 4 or not flat:
        raise LawError(f"Expected a place's cells as four integers a rectangle but got {list(flat)!r}")
    return tuple((flat[i], flat[i + 1], flat[i + 2], flat[i + 3]) for i in range(0, len(flat), 4))


_WORDS = re.compile(r"[A-Za-z]+(?:['-][A-Za-z]+)*(?: [A-Za-z]+(?:['-][A-Za-z]+)*)*")
"""A name or a crop: words of letters, one space between words, an apostrophe or a hyphen
inside a word; no digit, so no row a place words holds one."""


def _label(i: int, p: Place) -> str:
    return f"places[{i}] ({p.name})" if p.name.strip() else f"places[{i}]"


def _checked_one(i: int, p: Place, grid: tuple[int, int] | None) -> None:
    if not p.name.strip():
        raise LawError(f"places[{i}] has the empty name {p.name!r}: a place is named, so a row "
                       f"can say where")
    if not _WORDS.fullmatch(p.name):
        raise LawError(f"places[{i}] is named {p.name!r}: a place's name is words (letters, one "
                       f"space between words, an apostrophe or hyphen inside one), no digit")
    if not _WORDS.fullmatch(p.grows):
        raise LawError(f"{_label(i, p)} grows {p.grows!r}: what grows in a place is words "
                       f"(letters, one space between words), no digit")
    if p.preposition not in PREPOSITIONS:
        raise LawError(f"{_label(i, p)} has the preposition {p.preposition!r}: it is one of "
                       f"{', '.join(PREPOSITIONS)}")
    if not p.rects:
        raise LawError(f"{_label(i, p)} has no cells: a place is at least one rectangle")
    for k, (x0, y0, x1, y1) in enumerate(p.rects):
        if x0 > x1 or y0 > y1:
            raise LawError(f"{_label(i, p)} cells[{k}] runs from {x0},{y0} to {x1},{y1}: "
                           f"'from' must not pass 'to'")
        if min(x0, y0) < 0 or (grid is not None and (x1 >= grid[0] or y1 >= grid[1])):
            x, y = (x0, y0) if min(x0, y0) < 0 else (x1, y1)
            size = f"the {grid[0]} by {grid[1]} grid" if grid is not None else "the grid"
            raise LawError(f"{_label(i, p)} cells[{k}] reaches the cell {x},{y}, which is off "
                           f"{size}")


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> tuple[int, int] | None:
    x, y = max(a[0], b[0]), max(a[1], b[1])
    return (x, y) if x <= min(a[2], b[2]) and y <= min(a[3], b[3]) else None


def check(places: Sequence[Place], grid: tuple[int, int] | None = None) -> None:
    """Refuse, in one line naming the rule and the value, places that break a rule: a name or
    crop that is empty or not words (`_WORDS`), a name another place has (in any case), a
    rectangle the wrong way round or off the `grid` (width, height; None: unknown), a cell in
    two places or twice in one."""
    seen: dict[str, int] = {}
    for i, p in enumerate(places):
        _checked_one(i, p, grid)
        key = " ".join(p.name.casefold().split())
        if key in seen:
            raise LawError(f"places[{i}] is named {p.name!r}, as places[{seen[key]}] is: each "
                           f"place has a name of its own")
        seen[key] = i
    rects = [(i, k, r) for i, p in enumerate(places) for k, r in enumerate(p.rects)]
    for n, (i, k, a) in enumerate(rects):
        for j, m, b in rects[n + 1:]:
            cell = _overlap(a, b)
            if cell is not None:
                what = (f"{_label(j, places[j])} overlaps {_label(i, places[i])}" if i != j
                        else f"{_label(i, places[i])} cells[{m}] overlaps its cells[{k}]")
                raise LawError(f"{what} on the cell {cell[0]},{cell[1]}: every cell is in at "
                               f"most one place")


@dataclass(frozen=True, slots=True)
class Places:
    """A world's places, in the order its config names them; none: a world not in words.

    `where` is asked for the same few cells again and again, so each answer is kept once
    worked out (a memo: the value is the places, and two equal places answer alike)."""

    places: tuple[Place, ...] = ()
    _known: dict[tuple[int, int], Where] = field(default_factory=dict, compare=False, repr=False)

    def __bool__(self) -> bool:
        return bool(self.places)

    def __iter__(self) -> Iterator[Place]:
        return iter(self.places)

    def __len__(self) -> int:
        return len(self.places)

    @classmethod
    def of(cls, places: Iterable[Place], grid: tuple[int, int] | None = None) -> Places:
        """Checked places (`check`)."""
        ps = tuple(places)
        check(ps, grid)
        return cls(ps)

    def with_place(self, p: Place) -> Places:
        """These places and one more, checked as `of` checks."""
        return Places.of((*self.places, p))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.places)

    def named(self, name: str) -> Place | None:
        for p in self.places:
            if p.name == name:
                return p
        return None

    def where(self, x: int, y: int) -> Where:
        """Cell (x, y) in words: the place it is in, or the nearest, which it is near."""
        got = self._known.get((x, y))
        if got is not None:
            return got
        if not self.places:
            raise LawError(f"a world with no places cannot say where the cell {x},{y} is")
        inside = [p for p in self.places if p.holds(x, y)]
        if inside:
            got = Where(inside[0], True)
        else:
            got = Where(min(self.places, key=lambda p: p.distance2(x, y)), False)
        self._known[(x, y)] = got
        return got


def _pattern(words: Sequence[str]) -> str:
    return r"(?<![\w'-])" + r"\s+".join(re.escape(w) for w in words) + r"(?![\w-])"


def forms(name: str) -> tuple[str, ...]:
    """How a text may name a place: its name, and, where the name is an article and two words
    or more ("the mill field"), those words alone ("mill field"); never one common word alone
    ("the well" is not named by "well")."""
    words = name.split()
    out = [" ".join(words)]
    if len(words) >= 3 and words[0].casefold() in ARTICLES:
        out.append(" ".join(words[1:]))
    return tuple(out)


def mentions(text: str, names: Iterable[str]) -> list[str]:
    """The places `text` names (`forms`, in any case, as whole words), each once, in the order
    it first names them; a name inside a longer one named at the same words is the longer's."""
    found: list[tuple[int, int, str]] = []
    for name in names:
        for f in forms(name):
            for m in re.finditer(_pattern(f.split()), text, re.IGNORECASE):
                found.append((m.start(), -(m.end() - m.start()), name))
    taken: list[tuple[int, int]] = []
    out: list[str] = []
    for start, neg, name in sorted(found):
        end = start - neg
        if any(a <= start < b for a, b in taken):
            continue
        taken.append((start, end))
        if name not in out:
            out.append(name)
    return out


def last_named(text: str, names: Iterable[str]) -> str | None:
    """The place `text` names last ("walked from the well to the east meadow" -> "the east
    meadow"), or None."""
    found = [(m.end(), name) for name in names for f in forms(name)
             for m in re.finditer(_pattern(f.split()), text, re.IGNORECASE)]
    return max(found)[1] if found else None


@dataclass(frozen=True, slots=True)
class InWords:
    """A world in words, as a prompt reads it: its places, and its day's length, by which a
    prompt tells when each row happened."""

    places: Places
    ticks_per_day: int

    def hours(self, now: int) -> Hours:
        return Hours(now, self.ticks_per_day)
