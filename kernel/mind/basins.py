"""Basins: each villager's basins, folded from the log, shown in its
prompts, and moved each night by one checked update call.

A villager the world config gives basins holds them from its founding tick (a `BasinsSeeded`
event, where the thought settings have an `attractor` block). At every night, after
consolidation, each villager who holds basins gets one update call: its basins as shown (the
view, `view`), the day's rows, thoughts first, and the update schema (kernel.seam.basins)
built from its basins' labels. The answer becomes a value only through `shaped`; then each
part is judged on its own, refused by the check it fails (one `Rejection` event each) and left
out, and the rest is one `BasinsMoved` event, applied by the basins' laws under the
settings' rule: a basin named moves by its delta, clamped to the law's bound as it is read
here; the others relax (or, under the single rule, every basin relaxes and takes its delta).
An answer that is not the shape refused whole changes nothing, not even the relaxing. A basin
whose keywords have hit their cap often enough then gets one consolidation call, whose
accepted answer is a `KeywordsConsolidated` event; one refused keeps the keywords as they were.

`BasinBook` is the projection: every villager's `BasinsState` and, for each night it moved,
the weights, normalised entropy and trajectory (`BasinReading`), folded from those events and
nothing else. This module owns the order of the basins' night, its checks and their wording,
and the view's budget; the rules that move a weight are kernel.laws.basins's. It writes
nothing: it returns the events to append.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from kernel import events as ev
from kernel.errors import Refused
from kernel.events import Purpose
from kernel.laws import basins as la
from kernel.laws.memory import Memory
from kernel.mind import calls
from kernel.mind.calls import Rejection
from kernel.mind.reflect import Due
from kernel.mind.settings import BasinsSettings, Settings
from kernel.oracle.base import Said
from kernel.seam import Rendered, render, shaped
from kernel.seam.basins import (
    BASINS_KEYWORDS,
    BASINS_UPDATE,
    BASINS_VIEW,
    KEYWORDS_KEPT,
    LIFE,
    NO_NEW,
    WORDS,
    keywords_schema,
    update_schema,
)
from kernel.seam.schemas import line_words

PARAMS = la.BasinsParams()
"""The basins' numbers, the source document's: seed 0.5, new 0.4, floor 0.05, drift to 0.3."""

RULES = {"current": la.update_basins, "single": la.update_basins_single}
"""The two update rules a thought file may choose between."""

ACTIVE = 0.4
"""A basin above this weight is shown with its weight, trend and connections; the rest are
named only, as resting."""

MILLI = 1000


@dataclass(frozen=True, slots=True)
class BasinReading:
    """One villager's basins after one night's update: weights by slug, entropy, trajectory."""

    tick: int
    weights: tuple[tuple[str, float], ...]
    entropy: float
    trajectory: str


class BasinBook:
    """Every villager's basins, folded from `BasinsSeeded`, `BasinsMoved` and
    `KeywordsConsolidated` events, and a `BasinReading` for every night one moved."""

    def __init__(self, params: la.BasinsParams = PARAMS):
        self.params = params
        self.start()

    def start(self) -> None:
        self.states: dict[int, la.BasinsState] = {}
        self.readings: dict[int, list[BasinReading]] = {}

    def apply(self, tick: int, events: Sequence[ev.Event]) -> None:
        for e in events:
            if isinstance(e, ev.BasinsSeeded | ev.BasinsMoved | ev.KeywordsConsolidated):
                self.states[e.villager] = folded(self.states.get(e.villager), e, self.params)
                if isinstance(e, ev.BasinsMoved):
                    s = self.states[e.villager]
                    self.readings.setdefault(e.villager, []).append(reading(tick, s))

    def of(self, villager: int) -> la.BasinsState | None:
        return self.states.get(villager)

    def after(self, events: Sequence[ev.Event]) -> dict[int, la.BasinsState]:
        """Every villager's state with `events` (a tick's so far) folded in, the book unchanged."""
        out = dict(self.states)
        for e in events:
            if isinstance(e, ev.BasinsSeeded | ev.BasinsMoved | ev.KeywordsConsolidated):
                out[e.villager] = folded(out.get(e.villager), e, self.params)
        return out


def reading(tick: int, s: la.BasinsState) -> BasinReading:
    return BasinReading(tick=tick, weights=tuple((b.slug, b.weight) for b in s.basins),
                   entropy=la.entropy(s), trajectory=la.trajectory(s))


def folded(state: la.BasinsState | None, e: ev.Event,
           params: la.BasinsParams = PARAMS) -> la.BasinsState:
    """One basins event folded into a villager's state (None before its seeding)."""
    if isinstance(e, ev.BasinsSeeded):
        return la.seed_basins(e.labels, params)
    if state is None:
        state = la.BasinsState()
    if isinstance(e, ev.KeywordsConsolidated):
        return la.consolidated(state, e.basin, e.keywords, params)
    assert isinstance(e, ev.BasinsMoved)
    return RULES[e.rule](state, update_of(e), params)


def update_of(e: ev.BasinsMoved) -> la.BasinsUpdate:
    """The law's update that a `BasinsMoved` event records (deltas back from thousandths)."""
    return la.BasinsUpdate(
        basins=tuple(la.BasinUpdate(slug=s, delta=d / MILLI, add_keywords=a, remove_keywords=r)
                     for s, d, a, r in zip(e.basins, e.deltas, e.added, e.removed, strict=True)),
        new_basins=(la.NewBasin(label=e.born, keywords=e.born_keywords),) if e.born else (),
        connections=tuple(zip(e.linked_from, e.linked_to, strict=True)),
        emerging_patterns=e.emerging, phase_shift=e.phase_shift)


# --- the view -----------------------------------------------------------------------


def _trend(b: la.Basin) -> str:
    if len(b.trajectory) < 2 or b.trajectory[-1] == b.trajectory[-2]:
        return "steady"
    return "rising" if b.trajectory[-1] > b.trajectory[-2] else "falling"


def view(state: la.BasinsState | None, st: Settings) -> str:
    """The basins block a prompt shows, within the `attractor` block's budget of characters:
    basins above ACTIVE, heaviest first, with weight, trend and connections; the others
    named only. Over budget, the lightest active basin is named only, then the last names
    go, until it fits. No basins: the empty text."""
    if state is None or not state.basins or st.basins is None:
        return ""
    label = {b.slug: b.label for b in state.basins}
    order = sorted(state.basins, key=lambda b: (-b.weight, state.basins.index(b)))
    active = [b for b in order if b.weight > ACTIVE]
    resting = [b.label for b in order if b.weight <= ACTIVE]
    while True:
        text = render(st.template(BASINS_VIEW), active=[
            {"label": b.label, "weight": f"{b.weight:.2f}", "trend": _trend(b),
             "links": [label[c] for c in b.connections]} for b in active],
            dormant=resting).text
        if len(text) <= st.basins.budget or not (active or resting):
            return text
        if active:
            resting.insert(0, active.pop().label)
        else:
            resting.pop()


# --- the night ------------------------------------------------------------------------


@dataclass(slots=True)
class Update(calls.VillagerCall):
    """One villager's update call and what became of it."""

    schema: bytes
    said: Said | None = None
    refused: list[Rejection] = field(default_factory=list)
    moved: ev.BasinsMoved | None = None


@dataclass(frozen=True, slots=True)
class BasinsNight:
    """A night's basin updates and keyword consolidations, and the events they gave."""

    now: int
    updates: tuple[Update, ...]
    consolidations: int
    events: tuple[ev.Event, ...]

    @property
    def calls(self) -> int:
        return sum(1 for u in self.updates if u.said is not None) + self.consolidations

    @property
    def counts(self) -> dict[str, int]:
        """What the night's updates came to: asked, refused whole, basins moved, born, parts
        refused, keyword consolidations asked and accepted."""
        moved = [u.moved for u in self.updates if u.moved is not None]
        return {"asked": len(self.updates),
                "refused_whole": sum(1 for u in self.updates if u.moved is None),
                "moved": sum(len(m.basins) for m in moved),
                "born": sum(1 for m in moved if m.born),
                "parts_refused": sum(len(u.refused) for u in self.updates if u.moved is not None),
                "consolidations": self.consolidations,
                "consolidated": sum(1 for e in self.events
                                    if isinstance(e, ev.KeywordsConsolidated))}


def seeded(founded: Iterable[ev.Event], basins: Mapping[int, tuple[str, ...]]) -> list[ev.Event]:
    """A `BasinsSeeded` for every villager founded among `founded` that `basins` gives any."""
    return [ev.BasinsSeeded(villager=e.villager, labels=basins[e.villager])
            for e in founded if isinstance(e, ev.Founded) and basins.get(e.villager)]


def day_rows(stream: Sequence[Memory], now: int, since: int, n: int) -> tuple[Memory, ...]:
    """The rows an update shows: the day's thoughts (after `since`), then its newest other
    rows, at most `n` in all, in the order lived."""
    day = [m for m in stream if since < m.tick <= now]
    thoughts = [m for m in day if m.kind == "thought"][-n:]
    rest = [m for m in day if m.kind != "thought"][-(n - len(thoughts)):] if n > len(thoughts) else []
    return tuple(sorted((*thoughts, *rest), key=lambda m: (m.tick, m.id)))


def day_words(shown: Sequence[Memory], names: Mapping[int, str]) -> list[str]:
    """The words of the rows an update shows that it offers as keywords: each villager's name
    and each longer word of theirs (`line_words`; a capitalised word that names nobody, such as
    a sentence's first, is left out), lower-case, each once, in the order they come."""
    known = set(names.values())
    return list(dict.fromkeys(w.lower() for w in line_words([m.text for m in shown], 2 * WORDS)
                              if not w[0].isupper() or w in known))[:WORDS]


def day_names(shown: Sequence[Memory], villager: int, names: Mapping[int, str]) -> list[str]:
    """Whom else the rows an update shows are about, by name, in id order: the new basins it
    may name."""
    return [names[i] for i in sorted({a for m in shown for a in m.about})
            if i != villager and i in names]


def basins_round(now: int, villagers: Sequence[Due], streams: Mapping[int, Sequence[Memory]],
                 states: Mapping[int, la.BasinsState], oracle, st: Settings,
                 ticks_per_day: int, names: Mapping[int, str]) -> BasinsNight:
    """The basins' night at tick `now` for `villagers` (in order), from their `states` as the
    night stands: every update call, then each answer judged, then the consolidations due."""
    a = st.basins
    assert a is not None
    ups: list[Update] = []
    for d in villagers:
        s = states.get(d.villager)
        if s is None or not s.basins:
            continue
        shown = day_rows(streams.get(d.villager, ()), now, now - ticks_per_day, a.shown)
        prompt = render(st.template(BASINS_UPDATE), name=d.name, interests=view(s, st),
                        memories=st.shown(shown, now))
        schema = update_schema([(b.label, b.keywords) for b in s.basins], day_words(shown, names),
                               day_names(shown, d.villager, names))
        ups.append(Update(villager=d.villager, name=d.name, now=now, seed=now + d.villager,
                          shown=shown, prompt=prompt, schema=schema))
    said = calls.generate_all(oracle, [calls.ask(st, Purpose.BASINS, u.prompt, u.schema, u.seed,
                                                 limit=a.limit) for u in ups])
    events: list[ev.Event] = []
    after = dict(states)
    for u, got in zip(ups, said, strict=True):
        u.said = got
        events += _judged(u, after[u.villager], a)
        if u.moved is not None:
            after[u.villager] = folded(after[u.villager], u.moved)
    kept, n = _consolidations(now, ups, after, oracle, st)
    return BasinsNight(now=now, updates=tuple(ups), consolidations=n, events=(*events, *kept))


def _judged(u: Update, state: la.BasinsState, a: BasinsSettings) -> list[ev.Event]:
    """One update answer: its `Answered`, then a refusal for each part that fails, then the
    accepted rest as one `BasinsMoved` (none where the answer is not the shape at all)."""
    assert u.said is not None
    events: list[ev.Event] = [calls.answered(u.villager, Purpose.BASINS, 0, u.seed, u.prompt, u.said)]
    try:
        got = shaped(u.said, update_schema())
    except Refused as e:
        u.refused.append(Rejection("shaped", str(e)))
        return [*events, calls.refusal(u.villager, Purpose.BASINS, 0, u.refused[-1])]
    parts = _Parts(state, u)
    for i, item in enumerate(got["updates"], start=1):
        parts.update(i, item)
    if got["new"] != NO_NEW:
        parts.born(got["new"])
    for i, pair in enumerate(got["links"], start=1):
        parts.link(i, pair)
    u.moved = ev.BasinsMoved(
        villager=u.villager, rule=a.rule, basins=tuple(parts.slugs), deltas=tuple(parts.deltas),
        added=tuple(parts.added), removed=tuple(parts.removed), born=parts.new_label,
        born_keywords=(), linked_from=tuple(x for x, _ in parts.links),
        linked_to=tuple(y for _, y in parts.links),
        emerging=tuple(got["patterns"])[:PARAMS.patterns], phase_shift=got["life"] == LIFE[1])
    return [*events, *(calls.refusal(u.villager, p, i, r) for p, i, r in parts.refusals),
            u.moved]


class _Parts:
    """The parts of one update answer as they are judged, in order: what stands, what not."""

    def __init__(self, state: la.BasinsState, u: Update):
        self.state, self.u = state, u
        self.slugs: list[str] = []
        self.deltas: list[int] = []
        self.added: list[tuple[str, ...]] = []
        self.removed: list[tuple[str, ...]] = []
        self.new_label = ""
        self.links: list[tuple[str, str]] = []
        self.refusals: list[tuple[str, int, Rejection]] = []

    def refuse(self, purpose: str, i: int, check: str, reason: str) -> None:
        r = Rejection(check, reason)
        self.u.refused.append(r)
        self.refusals.append((purpose, i, r))

    def slug(self, label: str) -> str | None:
        try:
            s = la.slugify(label)
        except la.LawError:
            return None
        return s if self.state.has(s) or s == _slug_or_none(self.new_label) else None

    def update(self, i: int, item: Mapping) -> None:
        label, delta = item["basin"], item["delta"]
        s = self.slug(label)
        if s is None or not self.state.has(s):
            return self.refuse(Purpose.BASINS, i, "unknown",
                               f"{self.u.name} has no basin {label!r} to move")
        if s in self.slugs:
            return self.refuse(Purpose.BASINS, i, "twice", f"basin {label!r} is moved twice")
        if isinstance(delta, bool) or not isinstance(delta, int | float) or not math.isfinite(delta):
            return self.refuse(Purpose.BASINS, i, "delta", f"basin {label!r} has delta {delta!r}, "
                                                     f"which is not a finite number")
        clamped = max(-PARAMS.max_delta, min(PARAMS.max_delta, float(delta)))
        self.slugs.append(s)
        self.deltas.append(int(round(clamped * MILLI)))
        self.added.append(tuple(item["add"]))
        self.removed.append(tuple(item["remove"]))

    def born(self, label: str) -> None:
        s = _slug_or_none(label)
        if s is None:
            return self.refuse(Purpose.NEW_BASIN, 1, "label",
                               f"the new basin {label!r} has no letter or digit")
        if self.state.has(s):
            return self.refuse(Purpose.NEW_BASIN, 1, "exists",
                               f"{self.u.name} has a basin {label!r} already")
        self.new_label = label

    def link(self, i: int, pair: Sequence[str]) -> None:
        a, b = (self.slug(x) for x in pair)
        if a is None or b is None:
            unknown = pair[0] if a is None else pair[1]
            return self.refuse(Purpose.BASIN_LINK, i, "unknown",
                               f"{self.u.name} has no basin {unknown!r} to connect")
        if a == b:
            return self.refuse(Purpose.BASIN_LINK, i, "same", f"basin {pair[0]!r} is linked to itself")
        self.links.append((a, b))


def _slug_or_none(label: str) -> str | None:
    if not label:
        return None
    try:
        return la.slugify(label)
    except la.LawError:
        return None


def _consolidations(now: int, ups: Sequence[Update], states: Mapping[int, la.BasinsState],
                    oracle, st: Settings) -> tuple[list[ev.Event], int]:
    """One keyword consolidation call for each basin due (villager by villager, basin by
    basin), each answer accepted as a `KeywordsConsolidated` or refused (keywords kept)."""
    a = st.basins
    assert a is not None
    due: list[tuple[Update, la.Basin, Rendered, int, int]] = []
    for u in ups:
        for k, b in enumerate(states[u.villager].basins):
            if la.consolidation_due(b, PARAMS):
                prompt = render(st.template(BASINS_KEYWORDS), name=u.name, label=b.label,
                                keywords=list(b.keywords), count=KEYWORDS_KEPT)
                due.append((u, b, prompt, k + 1, now + u.villager + k + 1))
    asks = [calls.ask(st, Purpose.KEYWORDS, p, keywords_schema(request=True), seed, limit=a.limit)
            for _, _, p, _, seed in due]
    events: list[ev.Event] = []
    for (u, b, prompt, k, seed), said in zip(due, calls.generate_all(oracle, asks), strict=True):
        # `index` is the basin's number among the villager's, from 1
        events.append(calls.answered(u.villager, Purpose.KEYWORDS, k, seed, prompt, said))
        try:
            words = shaped(said, keywords_schema())["keywords"]
        except Refused as e:
            events.append(calls.refusal(u.villager, Purpose.KEYWORDS, k, Rejection("shaped", str(e))))
            continue
        events.append(ev.KeywordsConsolidated(villager=u.villager, basin=b.slug,
                                              keywords=tuple(words)[:KEYWORDS_KEPT]))
    return events, len(due)
