"""The basins: a few weighted basins of interest that drift with each conversation (the
source document's attractor basins).

This module owns the basins' state values and the rules that move them:
the current rules (`update_basins`), the proposed single rule beside them
(`update_basins_single`) so the two can be compared on the same inputs,
and the readings `entropy` and `trajectory`. It must not call a model or
parse a model's reply: it is handed an update already read into values, and
it refuses one that names a basin the state does not have or carries a delta
that is not a finite number. Every function returns a new state.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from kernel.laws._errors import LawError, integer, real

CONVERGING = "converging"
RESTRUCTURING = "restructuring"
DIVERGING = "diverging"
STABLE = "stable"


def slugify(label: str) -> str:
    """A basin's key: the label lower-cased, every run of other characters one hyphen."""
    if not isinstance(label, str):
        raise LawError(f"Expected a label as a string but got label={label!r}")
    slug = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")
    if not slug:
        raise LawError(f"Expected a label with a letter or digit but got label={label!r}")
    return slug


def _strings(name: str, value: object) -> tuple[str, ...]:
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise LawError(f"Expected a tuple of strings but got {name}={value!r}")
    out = tuple(value)
    if not all(isinstance(s, str) for s in out):
        raise LawError(f"Expected a tuple of strings but got {name}={value!r}")
    return out


def _slugs_once(basins: Iterable[Any], kind: type, each: str) -> tuple[Any, ...]:
    """`basins` as a tuple of `kind`, no slug twice; `each` names what is once, in the refusal."""
    out = tuple(basins)
    if not all(isinstance(b, kind) for b in out):
        raise LawError(f"Expected basins of {kind.__name__} but got basins={basins!r}")
    slugs = [b.slug for b in out]
    if len(set(slugs)) != len(slugs):
        raise LawError(f"Expected {each} once but got slugs {slugs}")
    return out


@dataclass(frozen=True, slots=True)
class BasinsParams:
    """The numbers the basins run on.

    A proposed delta is clamped to +-`max_delta`; a weight is bounded to
    [`floor`, `ceiling`]; a basin left alone closes `relax` of its gap to
    `baseline` each update (0.95 ** n of the gap remains, half after about
    13.5 updates). Seeded basins start at `seed_weight`, later ones at
    `new_weight`. A basin keeps its newest `keyword_cap` keywords and is due
    for consolidation after `consolidate_after` cap hits; `patterns` emerging
    patterns are carried; `history` weights per basin are kept for `trajectory`.
    """

    max_delta: float = 0.3
    floor: float = 0.05
    ceiling: float = 1.0
    baseline: float = 0.3
    relax: float = 0.05
    seed_weight: float = 0.5
    new_weight: float = 0.4
    keyword_cap: int = 10
    consolidate_after: int = 2
    patterns: int = 5
    history: int = 10

    def __post_init__(self) -> None:
        real("max_delta", self.max_delta, low=0.0)
        real("floor", self.floor, low=0.0)
        real("ceiling", self.ceiling, above=self.floor)
        real("baseline", self.baseline, low=self.floor, high=self.ceiling)
        real("relax", self.relax, low=0.0, high=1.0)
        real("seed_weight", self.seed_weight, low=self.floor, high=self.ceiling)
        real("new_weight", self.new_weight, low=self.floor, high=self.ceiling)
        integer("keyword_cap", self.keyword_cap, at_least=1)
        integer("consolidate_after", self.consolidate_after, at_least=1)
        integer("patterns", self.patterns, at_least=0)
        integer("history", self.history, at_least=2)


@dataclass(frozen=True, slots=True)
class Basin:
    """One basin: its weight, keywords (oldest first), connections (sorted slugs), the
    newest weights it has had (oldest first), conversations it was used in, the
    update it was last used in, and how often its keywords hit the cap."""

    slug: str
    label: str
    weight: float
    keywords: tuple[str, ...] = ()
    connections: tuple[str, ...] = ()
    trajectory: tuple[float, ...] = ()
    conversations: int = 0
    last_active: int | None = None
    cap_hits: int = 0
    consolidations: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.slug, str) or not self.slug:
            raise LawError(f"Expected a slug but got slug={self.slug!r}")
        if not isinstance(self.label, str):
            raise LawError(f"Expected a label as a string but got label={self.label!r}")
        object.__setattr__(self, "weight", real("weight", self.weight, low=0.0))
        object.__setattr__(self, "keywords", _strings("keywords", self.keywords))
        object.__setattr__(
            self, "connections", tuple(sorted(set(_strings("connections", self.connections))))
        )
        object.__setattr__(
            self, "trajectory", tuple(real("trajectory", w, low=0.0) for w in self.trajectory)
        )
        integer("conversations", self.conversations, at_least=0)
        integer("cap_hits", self.cap_hits, at_least=0)
        integer("consolidations", self.consolidations, at_least=0)


@dataclass(frozen=True, slots=True)
class BasinsState:
    """The basins in the order they arose, the phase counter, the number of updates
    applied, and the emerging patterns the last update carried."""

    basins: tuple[Basin, ...] = ()
    phase: int = 0
    updates: int = 0
    emerging: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "basins", _slugs_once(self.basins, Basin, "each basin"))
        object.__setattr__(self, "emerging", _strings("emerging", self.emerging))
        integer("phase", self.phase, at_least=0)
        integer("updates", self.updates, at_least=0)

    def basin(self, slug: str) -> Basin:
        for b in self.basins:
            if b.slug == slug:
                return b
        raise LawError(f"Expected a basin this state has but got slug={slug!r}")

    def has(self, slug: str) -> bool:
        return any(b.slug == slug for b in self.basins)

    @property
    def weights(self) -> tuple[float, ...]:
        return tuple(b.weight for b in self.basins)


@dataclass(frozen=True, slots=True)
class BasinUpdate:
    """What one update says of a basin: the delta it proposes and keyword edits."""

    slug: str
    delta: float = 0.0
    add_keywords: tuple[str, ...] = ()
    remove_keywords: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.slug, str) or not self.slug:
            raise LawError(f"Expected a slug but got slug={self.slug!r}")
        object.__setattr__(self, "delta", real("delta", self.delta))
        object.__setattr__(self, "add_keywords", _strings("add_keywords", self.add_keywords))
        object.__setattr__(
            self, "remove_keywords", _strings("remove_keywords", self.remove_keywords)
        )


@dataclass(frozen=True, slots=True)
class NewBasin:
    """A basin an update proposes, by label; it is added only if its slug is new."""

    label: str
    keywords: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        slugify(self.label)
        object.__setattr__(self, "keywords", _strings("keywords", self.keywords))


@dataclass(frozen=True, slots=True)
class BasinsUpdate:
    """One conversation's update, already read out of the model's reply."""

    basins: tuple[BasinUpdate, ...] = ()
    new_basins: tuple[NewBasin, ...] = ()
    connections: tuple[tuple[str, str], ...] = ()
    emerging_patterns: tuple[str, ...] = ()
    phase_shift: bool = False

    def __post_init__(self) -> None:
        basins = _slugs_once(self.basins, BasinUpdate, "each basin updated")
        news = tuple(self.new_basins)
        if not all(isinstance(b, NewBasin) for b in news):
            raise LawError(
                f"Expected new_basins of NewBasin but got new_basins={self.new_basins!r}"
            )
        pairs = tuple(tuple(_strings("a connection", c)) for c in self.connections)
        if any(len(c) != 2 or c[0] == c[1] for c in pairs):
            raise LawError(
                f"Expected connections as pairs of two basins but got connections={self.connections!r}"
            )
        if not isinstance(self.phase_shift, bool):
            raise LawError(
                f"Expected phase_shift as a bool but got phase_shift={self.phase_shift!r}"
            )
        object.__setattr__(self, "basins", basins)
        object.__setattr__(self, "new_basins", news)
        object.__setattr__(self, "connections", pairs)
        object.__setattr__(
            self, "emerging_patterns", _strings("emerging_patterns", self.emerging_patterns)
        )


def seed_basins(
    labels: Iterable[str], params: BasinsParams = BasinsParams()
) -> BasinsState:
    """New basins: one basin per label, every one at the seed weight, so none is favoured."""
    labels = _strings("labels", labels)
    basins = tuple(
        Basin(
            slug=slugify(label),
            label=label,
            weight=params.seed_weight,
            trajectory=(params.seed_weight,),
        )
        for label in labels
    )
    return BasinsState(basins=basins)


def _edit_keywords(
    kept: tuple[str, ...], add: Iterable[str], remove: Iterable[str], cap: int
) -> tuple[tuple[str, ...], bool]:
    gone = {k.casefold() for k in remove}
    words = [k for k in kept if k.casefold() not in gone]
    have = {k.casefold() for k in words}
    for k in add:
        if k.casefold() not in have:
            words.append(k)
            have.add(k.casefold())
    if len(words) > cap:
        return tuple(words[-cap:]), True
    return tuple(words), False


def _bound(w: float, p: BasinsParams) -> float:
    return min(p.ceiling, max(p.floor, w))


def _clamp_delta(delta: float, p: BasinsParams) -> float:
    delta = real("delta", delta)
    return max(-p.max_delta, min(p.max_delta, delta))


def _apply(
    state: BasinsState, update: BasinsUpdate, p: BasinsParams, single: bool
) -> BasinsState:
    if not isinstance(state, BasinsState):
        raise LawError(f"Expected an BasinsState but got state={state!r}")
    if not isinstance(update, BasinsUpdate):
        raise LawError(f"Expected an BasinsUpdate but got update={update!r}")
    said = {u.slug: u for u in update.basins}
    for slug in said:
        if not state.has(slug):
            raise LawError(f"Expected updates to basins this state has but got slug={slug!r}")
    n = state.updates + 1
    basins = _moved(state, said, p, single, n)
    basins = _linked(_born(basins, update, p, n), update)
    return BasinsState(
        basins=tuple(basins),
        phase=state.phase + (1 if update.phase_shift else 0),
        updates=n,
        emerging=update.emerging_patterns[: p.patterns],
    )


def _moved(
    state: BasinsState, said: dict[str, BasinUpdate], p: BasinsParams, single: bool, n: int
) -> list[Basin]:
    """Every basin the state has, after its signal (if said) or its relaxation (if not)."""
    deltas = {slug: _clamp_delta(u.delta, p) for slug, u in said.items()}
    basins: list[Basin] = []
    for b in state.basins:
        u = said.get(b.slug)
        delta = deltas.get(b.slug, 0.0)
        if single:
            # one rule for all: relax, then the bounded signal, then the limits,
            # so a basin left out and a basin given 0 end up the same
            w = _bound(b.weight + (p.baseline - b.weight) * p.relax + delta, p)
        elif u is not None:
            w = _bound(b.weight + delta, p)
        else:
            w = b.weight + (p.baseline - b.weight) * p.relax
        used = delta > 0
        keywords, hit = b.keywords, False
        if u is not None:
            keywords, hit = _edit_keywords(
                b.keywords, u.add_keywords, u.remove_keywords, p.keyword_cap
            )
        basins.append(
            replace(
                b,
                weight=w,
                keywords=keywords,
                trajectory=(*b.trajectory, w)[-p.history :],
                conversations=b.conversations + (1 if used else 0),
                last_active=n if used else b.last_active,
                cap_hits=b.cap_hits + (1 if hit else 0),
            )
        )
    return basins


def _born(
    basins: list[Basin], update: BasinsUpdate, p: BasinsParams, n: int
) -> list[Basin]:
    """The basins, then each new one whose slug is not taken yet, at the new weight."""
    slugs = {b.slug for b in basins}
    for new in update.new_basins:
        slug = slugify(new.label)
        if slug in slugs:
            continue
        keywords, hit = _edit_keywords((), new.keywords, (), p.keyword_cap)
        basins.append(
            Basin(
                slug=slug,
                label=new.label,
                weight=p.new_weight,
                keywords=keywords,
                trajectory=(p.new_weight,),
                conversations=1,
                last_active=n,
                cap_hits=1 if hit else 0,
            )
        )
        slugs.add(slug)
    return basins


def _linked(basins: list[Basin], update: BasinsUpdate) -> list[Basin]:
    """The basins with the update's connections added both ways, each basin's sorted."""
    links: dict[str, set[str]] = {b.slug: set(b.connections) for b in basins}
    for a, b in update.connections:
        for s in (a, b):
            if s not in links:
                raise LawError(
                    f"Expected connections between basins this state has but got slug={s!r}"
                )
        links[a].add(b)
        links[b].add(a)
    return [replace(b, connections=tuple(sorted(links[b.slug]))) for b in basins]


def update_basins(
    state: BasinsState, update: BasinsUpdate, params: BasinsParams = BasinsParams()
) -> BasinsState:
    """The current rules: a basin the update lists moves by its delta clamped to
    +-max_delta and is bounded to [floor, ceiling]; a basin it leaves out closes
    `relax` of its gap to the baseline. Listed with a delta of 0 or below still
    counts as touched (no relaxing), but only a positive delta counts as use.
    A new basin whose slug is new joins at `new_weight`; connections are
    symmetric and only ever added; keywords are capped, the oldest dropped.
    """
    return _apply(state, update, params, single=False)


def update_basins_single(
    state: BasinsState, update: BasinsUpdate, params: BasinsParams = BasinsParams()
) -> BasinsState:
    """The proposed single rule, for comparison: every basin relaxes toward the
    baseline, then takes its clamped delta (0 if left out), then is bounded.
    Everything but the weight rule is as in `update_basins`."""
    return _apply(state, update, params, single=True)


def consolidation_due(basin: Basin, params: BasinsParams = BasinsParams()) -> bool:
    """Whether a basin's keywords have hit the cap often enough to be rewritten as fewer."""
    return basin.cap_hits >= params.consolidate_after


CONSOLIDATED = 5
"""The most keywords a consolidation leaves a basin."""


def consolidated(
    state: BasinsState, slug: str, keywords: Iterable[str], params: BasinsParams = BasinsParams()
) -> BasinsState:
    """The state with basin `slug`'s keywords rewritten as `keywords` (fewer, more general):
    deduplicated ignoring case, at most CONSOLIDATED kept (the first), its cap hits back to 0
    and its consolidations counted. Refused for a basin not due (`consolidation_due`)."""
    if not isinstance(state, BasinsState):
        raise LawError(f"Expected an BasinsState but got state={state!r}")
    b = state.basin(slug)
    if not consolidation_due(b, params):
        raise LawError(f"Expected a basin due for consolidation but got slug={slug!r} "
                       f"with {b.cap_hits} cap hits")
    kept = _first_distinct(_strings("keywords", keywords), CONSOLIDATED)
    return replace(state, basins=tuple(
        replace(x, keywords=kept, cap_hits=0, consolidations=x.consolidations + 1)
        if x.slug == slug else x for x in state.basins))


def _first_distinct(words: tuple[str, ...], most: int) -> tuple[str, ...]:
    out: list[str] = []
    seen: set[str] = set()
    for w in words:
        if w.casefold() not in seen:
            seen.add(w.casefold())
            out.append(w)
    return tuple(out[:most])


def entropy(weights: Iterable[float] | BasinsState) -> float:
    """Normalised Shannon entropy of the weights taken as a distribution, in [0, 1].

    1 when weight is spread evenly, 0 when one basin holds all of it. A total
    of 0 (no basins, or all at 0) gives 1; a single basin gives 0.
    """
    if isinstance(weights, BasinsState):
        weights = weights.weights
    if isinstance(weights, str | bytes) or not isinstance(weights, Iterable):
        raise LawError(f"Expected weights as numbers but got weights={weights!r}")
    ws = [real("a weight in weights", w, low=0.0) for w in weights]
    total = math.fsum(ws)
    if total == 0:
        return 1.0
    if len(ws) == 1:
        return 0.0
    h = -math.fsum((w / total) * math.log2(w / total) for w in ws if w > 0)
    return min(1.0, max(0.0, h / math.log2(len(ws))))


def trajectory(state: BasinsState) -> str:
    """Where the basins are heading, read from each basin's last step.

    With c the mean of |last - previous| weight over basins that have two
    weights: "converging" if the top basin grew and c < 0.10; else
    "restructuring" if c > 0.15; else "diverging" if c > 0.05; else "stable".
    Checked in that order. The top basin is the heaviest now, the earliest
    in the state among equals.
    """
    if not isinstance(state, BasinsState):
        raise LawError(f"Expected an BasinsState but got state={state!r}")
    steps = [
        abs(b.trajectory[-1] - b.trajectory[-2]) for b in state.basins if len(b.trajectory) >= 2
    ]
    if not steps:
        return STABLE
    mean = math.fsum(steps) / len(steps)
    top = max(state.basins, key=lambda b: b.weight)
    grew = len(top.trajectory) >= 2 and top.trajectory[-1] > top.trajectory[-2]
    if grew and mean < 0.10:
        return CONVERGING
    if mean > 0.15:
        return RESTRUCTURING
    if mean > 0.05:
        return DIVERGING
    return STABLE
