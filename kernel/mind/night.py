"""The night: consolidation by a checked plan, then forgetting, for each villager who reflects.

At a day's last tick, after its reflections, each villager who reflects and
has at least two living non-thought rows felt since its last night (the
previous day's last tick) gets one plan call: the newest `shown` of those
rows as `[id] line`, temperature 0, a seed of the tick plus its id, the
night block's token limit, and the plan schema (kernel.seam.plan). Calls are
made villager by villager with the one generation model, so a night changes
the resident model at most once. The plan's text becomes a value only
through `shaped`; its groups are then judged in order by the rules below,
each refused whole (a `Rejection`) or accepted (an `Absorbed`), and the
others stand:

1. every id was shown, is living, and is not in an earlier accepted group;
2. no id is given twice within the group;
3. the anchor is not a thought and is stored at least at `anchor_minimum`;
4. no member is stored stronger than the anchor.

An accepted group gives the anchor the combined strength of it and its
members (`laws.felt.combined`). Then every living non-thought row of each
such villager whose stored strength is below the forgetting curve for the
time since it was last felt is forgotten (`Forgotten`). Thoughts are never
absorbed or forgotten. Nothing is edited: these are events about rows.

This module owns the order of a night and the checks' wording; a group's
verdict is a `kernel.mind.calls.Rejection`, and the plan call's `Ask`,
`Answered` and `Rejection` are built there, as the round's are. It writes
nothing: it returns the events to append, so a night that fails half-way
leaves the log as it was. It must not read the log or decide when a night
falls (the engine does).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from kernel import events as ev
from kernel.errors import Refused
from kernel.events import Purpose
from kernel.laws import felt as lf
from kernel.laws.memory import PROTECTED, Memory
from kernel.laws.reflection import recent
from kernel.mind import calls
from kernel.mind.calls import Rejection
from kernel.mind.felt import FeltBook
from kernel.mind.reflect import Due
from kernel.mind.settings import NightSettings, Settings
from kernel.oracle.base import Said
from kernel.seam import render, shaped
from kernel.seam.plan import NIGHT, plan_schema

FEWEST_FELT = 2
"""A night asks for a plan only from a villager with at least this many rows felt since its
last night: a group needs two rows."""


def night_of(sc) -> NightSettings | None:
    """A scenario's night settings: none for a world run or a thought file with no night block."""
    return sc.night


@dataclass(slots=True)
class Group:
    """One group of a plan as the model gave it, and the verdict on it."""

    index: int
    anchor: int
    absorbed: tuple[int, ...]
    refused: Rejection | None = None
    before: int = 0
    stored: int = 0
    members: tuple[tuple[int, int], ...] = ()    # (id, stored) of each member, when judged

    @property
    def ok(self) -> bool:
        return self.refused is None

    @property
    def check(self) -> str | None:
        return None if self.refused is None else self.refused.check

    @property
    def reason(self) -> str:
        return "" if self.refused is None else self.refused.reason


@dataclass(slots=True)
class NightPlan(calls.VillagerCall):
    """One villager's night call and what became of its plan."""

    schema: bytes = b""                          # the ask's schema: ids among those shown
    said: Said | None = None
    refused: Rejection | None = None               # the plan refused whole, by shaped
    groups: list[Group] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Forgetting:
    villager: int
    id: int
    stored: int
    threshold: int
    last_felt: int


@dataclass(frozen=True, slots=True)
class Night:
    now: int
    villagers: tuple[int, ...]
    plans: tuple[NightPlan, ...]
    forgotten: tuple[Forgetting, ...]
    events: tuple[ev.Event, ...]

    @property
    def calls(self) -> int:
        return sum(1 for p in self.plans if p.said is not None)


def candidates(book: FeltBook, villager: int, since: int) -> list[int]:
    """Ids of `villager`'s living non-thought rows felt after tick `since`, in id order."""
    return [r.id for r in book.of(villager)
            if r.living and not r.is_thought and r.last_felt > since]


def judge(group: Group, shown: set[int], claimed: set[int], book: FeltBook,
          laws: lf.Felt = lf.LAWS) -> Group:
    """Judge one group against the rows shown, those already claimed tonight and the felt
    state; sets its `refused` when it fails. Changes nothing in `book`."""
    ids = (group.anchor, *group.absorbed)
    for i in ids:
        if i not in shown:
            group.refused = Rejection("shown", f"memory {i} was not shown tonight")
            return group
        r = book.rows[i]
        if not r.living:
            group.refused = Rejection("living", book.gone(r.villager)[i])
            return group
        if i in claimed:
            group.refused = Rejection("claimed", f"memory {i} is in an earlier group tonight")
            return group
    if len(set(ids)) != len(ids):
        twice = next(i for i in ids if ids.count(i) > 1)
        group.refused = Rejection("distinct", f"memory {twice} is given twice in the group")
        return group
    a = book.rows[group.anchor]
    group.before = a.stored
    group.members = tuple((i, book.rows[i].stored) for i in group.absorbed)
    if a.is_thought:
        group.refused = Rejection("anchor", f"memory {a.id} is a thought, and cannot anchor")
        return group
    given = next((i for i in group.absorbed if book.rows[i].kind == "given"), None)
    if given is not None:
        group.refused = Rejection("given", f"memory {given} was given, and is never absorbed")
        return group
    if a.stored < laws.anchor_minimum:
        group.refused = Rejection("anchor", f"memory {a.id} is stored at {a.stored / 1000:.3f}, "
                                          f"below the anchor minimum "
                                          f"{laws.anchor_minimum / 1000:.3f}")
        return group
    for i, s in group.members:
        if s > a.stored:
            group.refused = Rejection("stronger", f"memory {i} is stored at {s / 1000:.3f}, "
                                                f"stronger than its anchor {a.id} at "
                                                f"{a.stored / 1000:.3f}")
            return group
    group.stored = lf.combined([a.stored, *(s for _, s in group.members)])
    return group


def night_round(now: int, villagers: Sequence[Due], streams: Mapping[int, Sequence[Memory]],
                book: FeltBook, oracle, st: Settings, ns: NightSettings) -> Night:
    """The night at tick `now` for `villagers` (in the order given).

    `streams` holds each villager's rows up to now, this tick's included;
    `book` their felt state as it stands after this tick's reflections, and
    it is changed in place as the night goes (a scratch copy, not the
    projection). Rows felt after `now - ticks_per_day` count as felt since
    the last night.
    """
    plans = _ask_plans(now, villagers, streams, book, oracle, st, ns)
    check = plan_schema(ns.groups, ns.members)
    events: list[ev.Event] = []
    for p in plans:
        events += _consolidate(now, p, check, book)
    forgotten: list[Forgetting] = []
    for d in villagers:
        for f in _forgetting(now, d.villager, book):
            e = ev.Forgotten(villager=f.villager, id=f.id, stored=f.stored, threshold=f.threshold)
            book.felt(now, (e,))
            forgotten.append(f)
            events.append(e)
    return Night(now=now, villagers=tuple(d.villager for d in villagers), plans=tuple(plans),
                 forgotten=tuple(forgotten), events=tuple(events))


def _ask_plans(now: int, villagers: Sequence[Due], streams: Mapping[int, Sequence[Memory]],
               book: FeltBook, oracle, st: Settings, ns: NightSettings) -> list[NightPlan]:
    """One plan call for each villager with enough rows felt since its last night, in order,
    asked together as every other round is (`calls.generate_all`): no plan's prompt reads
    another's answer, so the answers, and the events, are those of the asks made one by one."""
    since = now - book.ticks_per_day
    plans: list[NightPlan] = []
    for d in villagers:
        ids = set(candidates(book, d.villager, since))
        if len(ids) < FEWEST_FELT:
            continue
        rows = [m for m in streams.get(d.villager, ()) if m.id in ids]
        shown = recent(rows, now, ns.shown)
        anchors = _anchors(shown, book)
        if not anchors:
            continue
        prompt = render(st.template(NIGHT), name=d.name,
                        memories=st.shown(shown, now))
        schema = plan_schema(ns.groups, ns.members, [m.id for m in shown], anchors)
        plans.append(NightPlan(villager=d.villager, name=d.name, now=now, seed=now + d.villager,
                          shown=shown, prompt=prompt, schema=schema))
    if not plans:
        return plans        # nobody to ask: no call at all
    asks = [calls.ask(st, Purpose.NIGHT, p.prompt, p.schema, p.seed, limit=ns.limit) for p in plans]
    for p, said in zip(plans, calls.generate_all(oracle, asks), strict=True):
        p.said = said
    return plans


def _anchors(shown: Sequence[Memory], book: FeltBook) -> list[int]:
    """The shown rows that can hold a group as the night begins (rule 3: not a thought, stored
    at least at the anchor minimum, and another shown row no stronger than it to take in):
    what the ask offers as anchors. The request only; every group is still judged by `judge`.
    Where none can hold one, no answer could be accepted, and the night asks nothing of
    that villager (as where fewer than FEWEST_FELT rows were felt)."""
    least = book.laws.anchor_minimum
    stored = {m.id: book.rows[m.id].stored for m in shown}
    return [m.id for m in shown if not book.rows[m.id].is_thought and stored[m.id] >= least
            and any(s <= stored[m.id] for i, s in stored.items() if i != m.id)]


def _consolidate(now: int, p: NightPlan, check: bytes, book: FeltBook) -> list[ev.Event]:
    """One villager's plan: its answer, then each group refused or absorbed, in order (an
    absorbed group folded into `book` before the next is judged). `check` is the plan's
    shape as the seam reads it; which ids a group may hold is judged group by group."""
    assert p.said is not None
    events: list[ev.Event] = [calls.answered(p.villager, Purpose.NIGHT, 0, p.seed, p.prompt, p.said)]
    try:
        plan = shaped(p.said, check)
    except Refused as e:
        p.refused = Rejection("shaped", str(e))
        events.append(calls.refusal(p.villager, Purpose.NIGHT, 0, p.refused))
        return events
    shown = {m.id for m in p.shown}
    claimed: set[int] = set()
    for i, g in enumerate(plan["groups"], start=1):
        group = judge(Group(index=i, anchor=g["anchor"], absorbed=tuple(g["absorbed"])),
                      shown, claimed, book, book.laws)
        p.groups.append(group)
        if group.refused is not None:
            events.append(calls.refusal(p.villager, Purpose.NIGHT, i, group.refused))
            continue
        claimed.update((group.anchor, *group.absorbed))
        e = ev.Absorbed(villager=p.villager, group=i, anchor=group.anchor,
                        absorbed=group.absorbed, before=group.before, stored=group.stored)
        book.felt(now, (e,))
        events.append(e)
    return events


def _forgetting(now: int, villager: int, book: FeltBook) -> list[Forgetting]:
    """`villager`'s living rows below the forgetting curve tonight, in id order: neither a
    thought nor a given row, which the curve never forgets (EmoStack row 113)."""
    laws = book.laws
    out: list[Forgetting] = []
    for r in book.of(villager):
        if not r.living or r.kind in PROTECTED:
            continue
        age = now - r.last_felt
        if lf.forgets(r.stored, age, book.ticks_per_day, laws):
            out.append(Forgetting(villager=villager, id=r.id, stored=r.stored,
                                  threshold=lf.threshold_milli(age, book.ticks_per_day, laws),
                                  last_felt=r.last_felt))
    return out
