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

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kernel.laws._errors import LawError
from kernel.laws.hours import Hours

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

    @property
    def id(self) -> int:
        return self.ids[0]

    @property
    def count(self) -> int:
        return len(self.ids)


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


def collapse(rows: Iterable[Any], hours: Hours | None = None) -> tuple[Line, ...]:
    """Each distinct (line, thought or not) of `rows` once, where it first comes, with the ids
    of every row holding it in the order given. Every id given is in exactly one line. With
    `hours`, a lived row's line says when it happened (`told`), by those hours."""
    order: list[tuple[str, bool, bool]] = []
    ids: dict[tuple[str, bool, bool], list[int]] = {}
    seen: set[int] = set()
    for m in rows:
        mid, text = getattr(m, "id", None), getattr(m, "text", None)
        if not isinstance(mid, int) or isinstance(mid, bool) or not isinstance(text, str):
            raise LawError(f"Expected rows with an integer id and a line but got {m!r:.80}")
        if mid in seen:
            raise LawError(f"memory {mid} is given twice: a window shows each row once")
        seen.add(mid)
        key = (_shown(m, text, hours), _thought(m), _given(m))
        if key not in ids:
            order.append(key)
            ids[key] = []
        ids[key].append(mid)
    return tuple(Line(ids=tuple(ids[k]), text=k[0], thought=k[1], given=k[2]) for k in order)
