"""What a prompt shows of a list of rows: each line once, with every id it stands for.

This module owns collapsing repeated lines (`collapse`): rows whose line is
the same (and which are alike thoughts or alike lived) are shown once, at
the place of the first of them, with their count and every id, in the order
given, so a window that holds one meal nine times shows it once and each of
the nine ids can still be cited. Where a prompt is handed the `Hours` of a
world in words (kernel.laws.hours), each lived row's line says when it
happened ("ate barley in the mill field this morning"), so rows of one line
at other times of day are other lines, and "(3 times)" counts rows of one
line at one time. It is a pure function of the rows handed in: it must not
choose which rows a prompt shows (the driver does), read a weight, read a
tick but through those hours, or render text (the templates do).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kernel.laws._errors import LawError
from kernel.laws.hours import Hours
from kernel.laws.perception import PARTED, SIGHTED

LIVED = frozenset({"did", "saw", "heard"})
"""The kinds of row a prompt tells the time of: what was lived. A thought is the villager's
own words, and a given row was given before anything was lived; neither says when."""


@dataclass(frozen=True, slots=True)
class Line:
    """One shown line: its text, whether it is a thought, and the ids of every row it stands for."""

    ids: tuple[int, ...]
    text: str
    thought: bool = False
    given: bool = False       # given at its founding (a backstory, news), never lived
    near: bool = False        # whom the villager was near at a time of day (`collapse`'s company)

    @property
    def id(self) -> int:
        return self.ids[0]

    @property
    def count(self) -> int:
        return len(self.ids)

    @property
    def times(self) -> int:
        """How many times what the line says happened, as a prompt tells it ("(3 times)"):
        each of its rows once, but a line of whom the villager was near, which is once."""
        return 1 if self.near else len(self.ids)


def _thought(m: Any) -> bool:
    t = getattr(m, "is_thought", False)
    return bool(t() if callable(t) else t)


def _given(m: Any) -> bool:
    g = getattr(m, "given", None)
    g = getattr(m, "is_given", False) if g is None else g
    return bool(g() if callable(g) else g)


def told(text: str, when: str) -> str:
    """A lived row's line with when it happened: after what was done, before what was said
    (`said to Ander this morning: "..."`), so the words in quotation marks stay the speaker's."""
    at = text.find(': "')
    return f"{text} {when}" if at < 0 else f"{text[:at]} {when}{text[at:]}"


def _shown(m: Any, text: str, hours: Hours | None) -> str:
    if hours is None or getattr(m, "kind", None) not in LIVED:
        return text
    tick = getattr(m, "tick", None)
    if not isinstance(tick, int) or isinstance(tick, bool):
        raise LawError(f"Expected a lived row with an integer tick but got {m!r:.80}")
    return told(text, hours.of(tick))


_SIGHTINGS = frozenset({"sighting", "parting"})
_NEAR = re.compile("|".join(re.escape(f).replace(r"\{\}", f"(?P<n{i}>.+)")
                            for i, f in enumerate((SIGHTED, PARTED))))
NEAR = "you were near {} {}"
"""The line that stands for a time of day's sightings, where a prompt folds them: whom the
villager was near ("you were near Casimir and Oonagh this evening")."""


_AT = "\x1f"
"""What begins the key of a time of day's sightings: no line of a row begins so."""


def near_lines(lines: Iterable[Line]) -> dict[int, str]:
    """Each id a line of whom the villager was near stands for, with that line's text: what a
    prompt showed of a row it folded, which an answer citing the row read (where the row's own
    line names one of those villagers, the shown line names them all)."""
    return {i: line.text for line in lines if line.near for i in line.ids}


def cited_texts(text_of: Mapping[int, str], cites: Iterable[int],
                near: Mapping[int, str]) -> list[str]:
    """The texts an answer citing `cites` stands on: each cited row's own line (`text_of`, by
    id), then what the prompt showed of each folded row it cites (`near`, of `near_lines`).
    What the seam judges an answer against, and what the reader's measure reads it beside."""
    cites = tuple(cites)
    return [text_of[i] for i in cites if i in text_of] + [near[i] for i in cites if i in near]


def _near(m: Any) -> str | None:
    """The villager a world in words' sighting or parting row names; None for any other row."""
    if getattr(m, "kind", None) != "saw" or getattr(m, "event", None) not in _SIGHTINGS:
        return None
    found = _NEAR.fullmatch(m.text)
    return None if found is None else next(n for n in found.groups() if n is not None)


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def collapse(rows: Iterable[Any], hours: Hours | None = None,
             company: bool = False) -> tuple[Line, ...]:
    """Each distinct (line, thought or not) of `rows` once, where it first comes, with the ids
    of every row holding it in the order given. Every id given is in exactly one line. With
    `hours`, a lived row's line says when it happened (`told`), by those hours; with `company`
    too, a time of day's rows of villagers coming into sight and going out of it are one line,
    where the first of them comes, of whom the villager was near then (`NEAR`, each name once,
    in the order first seen): who came and went is whom it was with."""
    order: list[tuple[str, bool, bool]] = []
    ids: dict[tuple[str, bool, bool], list[int]] = {}
    near: dict[tuple[str, bool, bool], list[str]] = {}
    seen: set[int] = set()
    for m in rows:
        mid, text = getattr(m, "id", None), getattr(m, "text", None)
        if not isinstance(mid, int) or isinstance(mid, bool) or not isinstance(text, str):
            raise LawError(f"Expected rows with an integer id and a line but got {m!r:.80}")
        if mid in seen:
            raise LawError(f"memory {mid} is given twice: a window shows each row once")
        seen.add(mid)
        who = _near(m) if company and hours is not None else None
        if who is None:
            key = (_shown(m, text, hours), _thought(m), _given(m))
        else:
            key = (_AT + _shown(m, "", hours).strip(), False, False)   # the time of day
            if who not in near.setdefault(key, []):
                near[key].append(who)
        if key not in ids:
            order.append(key)
            ids[key] = []
        ids[key].append(mid)
    return tuple(Line(ids=tuple(ids[k]), thought=k[1], given=k[2], near=k in near,
                      text=NEAR.format(_and(near[k]), k[0][len(_AT):]) if k in near else k[0])
                 for k in order)
