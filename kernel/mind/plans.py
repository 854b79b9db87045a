"""Plans for tomorrow: a few from a closed set, proposed at night, checked by code,
and handed to the world's policy the next day.

At every night, after consolidation and the basins' update, each villager who reflects gets
one plan call: its basins as they stand after tonight's update, its thoughts of the day, the
villagers it has met (anyone its rows are about) and the cells it remembers eating on (its
living meal rows; in a world in words, the places, by name), and the plan schema (kernel.seam.basins) built from those, so a grammar
can only name the known. The answer becomes a value through `shaped`; each plan is then
judged in order and refused by the check it fails (one `Rejection` event each), or accepted as
a `Planned` event for the next day:

1. its act is one of the closed set, with the parameter that act takes and no other;
2. a villager it names is one this villager has met, a cell one it remembers eating on (a
   place, in a world in words: the plan goes to the place's anchor cell);
3. the same act on the same villager or cell is not given twice;
4. it does not undo an earlier accepted one (seek or share with someone it also keeps away
   from, or the other way round).

`PlanBook` is the projection: the accepted plans of each day, by villager, folded from
`Planned` events. What the world does with them is kernel.world.step's. This module owns the
plan's order, its checks and their wording; it writes nothing and calls no model but through
the oracle it is handed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from kernel import events as ev
from kernel.calendar import Calendar
from kernel.errors import Refused
from kernel.events import Purpose
from kernel.laws import basins as la
from kernel.laws.memory import Memory
from kernel.laws.perception import meal_cell
from kernel.laws.places import Places, last_named
from kernel.mind import calls
from kernel.mind.basins import view
from kernel.mind.calls import Rejection
from kernel.mind.felt import FeltBook
from kernel.mind.reflect import Due
from kernel.mind.settings import Settings
from kernel.oracle.base import Said
from kernel.seam import Rendered, render, shaped
from kernel.seam.basins import ACTS, CELL_ACTS, PLAN, WHOM_ACTS, plan_schema
from kernel.world.step import Plan

PLACES = 6
"""The most cells a plan call shows: the newest remembered first."""
THOUGHTS = 4
"""The most of the day's thoughts a plan call shows: the newest."""
UNDOES = {"seek": "avoid", "share": "avoid", "avoid": ("seek", "share")}


class PlanBook:
    """The accepted plans of each day, by villager, in the order accepted."""

    def __init__(self) -> None:
        self.start()

    def start(self) -> None:
        self.days: dict[int, dict[int, list[Plan]]] = {}

    def apply(self, tick: int, events: Sequence[ev.Event]) -> None:
        for e in events:
            if isinstance(e, ev.Planned):
                self.days.setdefault(e.day, {}).setdefault(e.villager, []).append(plan_of(e))

    def of_day(self, day: int) -> dict[int, tuple[Plan, ...]]:
        """Each villager's plans for `day` (0-based), by villager id; empty for none."""
        return {v: tuple(xs) for v, xs in self.days.get(day, {}).items()}


def plan_of(e: ev.Planned) -> Plan:
    return Plan(act=e.act, whom=e.whom,
                  cell=None if e.x is None or e.y is None else (e.x, e.y))


@dataclass(slots=True)
class Planning:
    """One villager's plan call and what became of each plan."""

    villager: int
    name: str
    now: int
    seed: int
    prompt: Rendered
    schema: bytes
    people: dict[str, int]
    places: tuple[tuple[int, int], ...] | tuple[str, ...]   # cells, or places' names in words
    said: Said | None = None
    refused: list[Rejection] = field(default_factory=list)
    accepted: list[ev.Planned] = field(default_factory=list)
    where: Places | None = None     # the world's places, where it is in words


@dataclass(frozen=True, slots=True)
class Plans:
    """A night's plans for tomorrow and the events they gave."""

    now: int
    plans: tuple[Planning, ...]
    events: tuple[ev.Event, ...]

    @property
    def calls(self) -> int:
        return sum(1 for p in self.plans if p.said is not None)

    @property
    def counts(self) -> dict[str, int]:
        """What the night's plans came to: asked, refused whole, plans accepted and refused."""
        whole = sum(1 for p in self.plans if p.refused and p.refused[0].check == "shaped")
        return {"asked": len(self.plans), "refused_whole": whole,
                "accepted": sum(len(p.accepted) for p in self.plans),
                "refused": sum(len(p.refused) for p in self.plans) - whole}


def met(stream: Sequence[Memory], villager: int, names: Mapping[int, str]) -> dict[str, int]:
    """The villagers `villager`'s rows are about, other than itself, by name, in id order."""
    ids = sorted({a for m in stream for a in m.about if a != villager and a in names})
    return {names[i]: i for i in ids}


def _eaten_at(m: Memory, words: Places | None) -> tuple[int, int] | str | None:
    if words is None:
        return meal_cell(m)
    return last_named(m.text, words.names) if m.kind == "did" and m.event == "meal" else None


def places(stream: Sequence[Memory], book: FeltBook | None, words: Places | None = None
           ) -> tuple[tuple[int, int], ...] | tuple[str, ...]:
    """The cells of `stream`'s living meal rows (in a world in `words`, the places' names),
    each once, newest first, at most PLACES."""
    out: list = []
    for m in sorted(stream, key=lambda m: (m.tick, m.id), reverse=True):
        c = _eaten_at(m, words)
        if c is None or c in out:
            continue
        if book is not None and m.id in book.rows and not book.rows[m.id].living:
            continue
        out.append(c)
        if len(out) == PLACES:
            break
    return tuple(out)


def shown(cells: Sequence[tuple[int, int] | str]) -> list[str]:
    """Places as a plan's prompt and request name them: a cell as "x,y", a place by its name."""
    return [f"{c[0]},{c[1]}" if isinstance(c, tuple) else c for c in cells]


def plan_round(now: int, villagers: Sequence[Due], streams: Mapping[int, Sequence[Memory]],
               states: Mapping[int, la.BasinsState], book: FeltBook | None, oracle,
               st: Settings, world) -> Plans:
    """The plans for tomorrow at tick `now` for `villagers` (in order): every call, then each
    answer judged plan by plan. `world` is the scenario's world config, whose
    people's names a plan may seek and whose calendar says which day tomorrow is."""
    names = {q.id: q.name for q in world.people}
    calendar: Calendar = world.calendar
    p = st.plan
    assert p is not None
    day = calendar.day_of(now) + 1
    since = now - calendar.ticks_per_day
    where = st.words.places if st.words is not None else None
    plans: list[Planning] = []
    for d in villagers:
        stream = streams.get(d.villager, ())
        people = met(stream, d.villager, names)
        cells = places(stream, book, where)
        thoughts = [m for m in stream if m.kind == "thought" and since < m.tick <= now]
        prompt = render(st.template(PLAN), name=d.name, interests=view(states.get(d.villager), st),
                        memories=thoughts[-THOUGHTS:], people=list(people),
                        places=shown(cells), count=p.intentions)
        schema = plan_schema(p.intentions, list(people), shown(cells))
        plans.append(Planning(villager=d.villager, name=d.name, now=now, seed=now + d.villager,
                              prompt=prompt, schema=schema, people=people, places=cells,
                              where=where))
    said = calls.generate_all(oracle, [calls.ask(st, Purpose.PLAN, x.prompt, x.schema, x.seed,
                                                 limit=p.limit) for x in plans])
    events: list[ev.Event] = []
    for x, got in zip(plans, said, strict=True):
        x.said = got
        events += _judged(x, day, p.intentions)
    return Plans(now=now, plans=tuple(plans), events=tuple(events))


def _judged(x: Planning, day: int, most: int) -> list[ev.Event]:
    assert x.said is not None
    events: list[ev.Event] = [calls.answered(x.villager, Purpose.PLAN, 0, x.seed, x.prompt, x.said)]
    try:
        got = shaped(x.said, plan_schema(most))
    except Refused as e:
        x.refused.append(Rejection("shaped", str(e)))
        return [*events, calls.refusal(x.villager, Purpose.PLAN, 0, x.refused[-1])]
    taken: list[tuple[str, int | tuple[int, int] | None]] = []
    for i, item in enumerate(got["plan"], start=1):
        verdict = judge(item, x, taken)
        if isinstance(verdict, Rejection):
            x.refused.append(verdict)
            events.append(calls.refusal(x.villager, Purpose.PLAN, i, verdict))
            continue
        act, target = verdict
        taken.append(verdict)
        whom = target if isinstance(target, int) else None
        cell = target if isinstance(target, tuple) else None
        e = ev.Planned(villager=x.villager, day=day, index=i, act=act, whom=whom,
                        x=None if cell is None else cell[0], y=None if cell is None else cell[1])
        x.accepted.append(e)
        events.append(e)
    return events


def judge(item: Mapping, x: Planning, taken: Sequence[tuple]) -> tuple | Rejection:
    """One plan against the rules above: (act, its villager id or cell or None), or the
    refusal of the first rule it fails."""
    act = item["do"]
    who, at = item.get("who"), item.get("at")
    if act not in ACTS:
        return Rejection("act", f"{act!r} is not one of {', '.join(ACTS)}")
    wants = "who" if act in WHOM_ACTS else "at" if act in CELL_ACTS else None
    given = [k for k in ("who", "at") if item.get(k) is not None]
    if given != ([wants] if wants else []):
        said = " and ".join(given) or "nothing"
        return Rejection("act", f"{act} takes {wants or 'nothing'}, and the plan gave {said}")
    target: int | tuple[int, int] | None = None
    if act in WHOM_ACTS:
        if who not in x.people:
            return Rejection("unknown", f"{x.name} has met nobody named {who!r}")
        target = x.people[who]
    elif act in CELL_ACTS:
        if x.where is None:
            cell = _cell(at)
            if cell is None or cell not in x.places:
                return Rejection("unknown", f"{x.name} remembers eating on no cell {at!r}")
        else:
            place = x.where.named(at) if at in x.places else None
            if place is None:
                return Rejection("unknown", f"{x.name} remembers eating in no place {at!r}")
            cell = place.anchor
        target = cell
    if (act, target) in taken:
        return Rejection("twice", f"{act} {who or at or ''} is in the plan already".replace("  ", " "))
    undone = UNDOES.get(act, ())
    for a in (undone,) if isinstance(undone, str) else undone:
        if (a, target) in taken:
            return Rejection("conflict", f"{act} {who} undoes the plan's earlier {a} {who}")
    return act, target


def _cell(at: object) -> tuple[int, int] | None:
    if not isinstance(at, str):
        return None
    parts = at.split(",")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        return None
    return int(parts[0]), int(parts[1])
