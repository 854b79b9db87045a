"""What a prompt shows of a list of rows: each line once, with every id it stands for.

This module owns collapsing repeated lines (`collapse`): rows whose line is
the same (and which are alike thoughts or alike lived) are shown once, at
the place of the first of them, with their count and every id, in the order
given, so a window that holds one meal nine times shows it once and each of
the nine ids can still be cited. It is a pure function of the rows handed
in: it must not choose which rows a prompt shows (the driver does), read a
weight or a tick, or render text (the templates do).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kernel.laws._errors import LawError


@dataclass(frozen=True, slots=True)
class Line:
    """One shown line: its text, whether it is a thought, and the ids of every row it stands for."""

    ids: tuple[int, ...]
    text: str
    thought: bool = False

    @property
    def id(self) -> int:
        return self.ids[0]

    @property
    def count(self) -> int:
        return len(self.ids)


def _thought(m: Any) -> bool:
    t = getattr(m, "is_thought", False)
    return bool(t() if callable(t) else t)


def collapse(rows: Iterable[Any]) -> tuple[Line, ...]:
    """Each distinct (line, thought or not) of `rows` once, where it first comes, with the ids
    of every row holding it in the order given. Every id given is in exactly one line."""
    order: list[tuple[str, bool]] = []
    ids: dict[tuple[str, bool], list[int]] = {}
    seen: set[int] = set()
    for m in rows:
        mid, text = getattr(m, "id", None), getattr(m, "text", None)
        if not isinstance(mid, int) or isinstance(mid, bool) or not isinstance(text, str):
            raise LawError(f"Expected rows with an integer id and a line but got {m!r:.80}")
        if mid in seen:
            raise LawError(f"memory {mid} is given twice: a window shows each row once")
        seen.add(mid)
        key = (text, _thought(m))
        if key not in ids:
            order.append(key)
            ids[key] = []
        ids[key].append(mid)
    return tuple(Line(ids=tuple(ids[k]), text=k[0], thought=k[1]) for k in order)
