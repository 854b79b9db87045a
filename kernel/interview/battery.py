"""An interview battery as the kernel reads it: configs/interview.json, checked and frozen.

This module owns turning a battery file into `Battery` (its questions, each with its category,
its text as a template and, where it has one, its answer as a query over the log, and the
variants it is asked under) and filling a question for one villager. A question's text may
hold `{day}` (the interview's day), `{other}` (the villager the interviewed one's rows are
most about, the lowest id among equals) and `{name}` (its own name); any other brace is one
line at load. It asks nothing and scores nothing.
"""

from __future__ import annotations

import os
import string
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from kernel import config
from kernel.errors import ConfigError
from kernel.laws.interview import Query
from kernel.laws.memory import Memory
from kernel.seam.interview import ANSWER_CHARS

CATEGORIES = ("self", "memory", "plan", "reaction", "reflection")
"""The five kinds of question, as Park et al. interviewed their agents."""

FIELDS = frozenset({"day", "other", "name"})
"""What a question's text may name in braces."""

LIMIT = 64
"""The token limit of one answer where the battery gives none."""


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    category: str
    text: str
    answer: Mapping | None = None     # the query as written: `day` may be "interview"

    def filled(self, name: str, day: int, other: str) -> str:
        return self.text.format(day=day, other=other, name=name)

    def query(self, day: int, places: tuple[str, ...] = ()) -> Query | None:
        """The answer's query for an interview on `day` (None: the log knows no answer), in a
        world whose places are `places` (none: a world not in words, whose rows name cells)."""
        if self.answer is None:
            return None
        a = dict(self.answer)
        d = a.get("day")
        return Query(kind=a["kind"], event=a["event"], gives=a["gives"], target=a.get("target"),
                     day=day if d == "interview" else d, most=bool(a.get("most", False)),
                     places=places)


@dataclass(frozen=True, slots=True)
class Variant:
    """One way of asking the battery: rows hidden from memory, retrieval changed, basins
    left out (`interests` false in the battery file); `needs` what a run must have for the
    variant to mean anything."""

    name: str
    description: str = ""
    hide: tuple[str, ...] = ()
    retrieval: Mapping | None = None
    basins: bool = True
    needs: str | None = None

    def hides(self, m: Memory) -> bool:
        for h in self.hide:
            kind, _, event = h.partition("/")
            if (kind in ("*", m.kind)) and (not event or event == m.event):
                return True
        return False


FULL = Variant("full", "the whole architecture, as the run had it")


@dataclass(frozen=True, slots=True)
class Battery:
    path: Path | None
    sha256: str
    questions: tuple[Question, ...]
    variants: tuple[Variant, ...]
    chars: int
    limit: int

    def variant(self, name: str) -> Variant:
        for v in self.variants:
            if v.name == name:
                return v
        raise ConfigError(f"Expected a variant among {', '.join(v.name for v in self.variants)} "
                          f"but got variant={name!r}")


def _fields(q: Mapping, where: str) -> None:
    for _, field, spec, conv in string.Formatter().parse(q["text"]):
        if field is None:
            continue
        if field not in FIELDS or spec or conv:
            raise ConfigError(f"{where}: question {q['id']!r} names {{{field}}} in its text, and "
                              f"a question may name only {{day}}, {{other}} and {{name}}")


def load(path: str | os.PathLike = "interview") -> Battery:
    """The battery of a file (default: the home's configs/interview.json)."""
    try:
        c = config.load(path, schema="interview")
    except ValueError as e:   # a brace the formatter cannot read
        raise ConfigError(f"{path}: {e}") from None
    return of(config.thaw(c.value), c.path, c.digest)


def of(value: Mapping, path: Path | None = None, sha256: str = "") -> Battery:
    where = str(path) if path is not None else "the battery"
    qs, seen = [], set()
    for q in value["questions"]:
        if q["id"] in seen:
            raise ConfigError(f"{where}: question ids are each given once, and {q['id']!r} is "
                              f"given twice")
        seen.add(q["id"])
        try:
            _fields(q, where)
        except ValueError as e:
            raise ConfigError(f"{where}: question {q['id']!r}: {e}") from None
        qs.append(Question(id=q["id"], category=q["category"], text=q["text"],
                           answer=q.get("answer")))
    vs, names = [], set()
    for v in value.get("variants", [{"name": "full"}]):
        if v["name"] in names:
            raise ConfigError(f"{where}: variant names are each given once, and {v['name']!r} "
                              f"is given twice")
        names.add(v["name"])
        vs.append(Variant(name=v["name"], description=v.get("description", ""),
                          hide=tuple(v.get("hide", ())), retrieval=v.get("retrieval"),
                          basins=v.get("interests", True), needs=v.get("needs")))
    return Battery(path=path, sha256=sha256 or config.digest(config.thaw(value)), questions=tuple(qs), variants=tuple(vs),
                   chars=value.get("chars", ANSWER_CHARS), limit=value.get("limit", LIMIT))


def other_of(villager: int, rows: Sequence[Memory], names: Mapping[int, str]) -> str:
    """The villager `villager`'s rows are most about (the lowest id among equals), by name; the
    villager itself where its rows are about nobody else."""
    c: Counter[int] = Counter(i for m in rows for i in m.about if i != villager and i in names)
    if not c:
        return names.get(villager, "nobody")
    top = max(c.values())
    return names[min(i for i, n in c.items() if n == top)]
