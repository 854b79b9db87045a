"""The perception fold as it was before it was made fast: the tests' reference.

A copy of kernel/laws/perception.py as it stood when the fold was rewritten
for speed (every row checked as it is made, sight as a set of pairs, runs
replaced field by field). tests/unit/test_fold_fast.py holds the kernel's
fold to it, row for row, on every committed scenario and on random worlds.
It is kept as it was, but for this paragraph and the two kinds that came later (given rows
and words, written plainly below). PERCEIVED here must name every kind the kernel's does, as
perception's own tests require of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from kernel import events as ev
from kernel.laws._errors import LawError
from kernel.laws._errors import tick as check_tick
from kernel.laws.importance import Importance
from kernel.laws.memory import Memory

FIRST_ID = 1
"""The first row of a run is memory 1, as a reader counts."""


class PerceptionError(LawError):
    """The events handed to perception cannot be a frame of one run's log."""


@dataclass(frozen=True, slots=True)
class Run:
    """An open meal (on one cell) or journey (from a cell to the latest), not yet remembered."""

    villager: int
    x: int              # a meal's cell; a journey's first cell
    y: int
    to_x: int           # a journey's latest cell; a meal's cell again
    to_y: int
    count: int          # mouthfuls or steps
    milligrams: int
    last: int           # the tick of its latest mouthful or step


@dataclass(frozen=True, slots=True)
class Perception:
    """Everything perception carries from one frame to the next; rows themselves are not kept."""

    rules: Importance
    next_id: int = FIRST_ID
    last_tick: int | None = None
    names: tuple[tuple[int, str], ...] = ()
    sight: frozenset[tuple[int, int]] = frozenset()   # (viewer, seen)
    meals: tuple[Run, ...] = ()
    journeys: tuple[Run, ...] = ()
    firsts: frozenset[tuple[int, str, str]] = field(default=frozenset())

    def name(self, villager: int) -> str:
        for i, n in self.names:
            if i == villager:
                return n
        return f"villager {villager}"

    def sees(self, viewer: int, seen: int) -> bool:
        return (viewer, seen) in self.sight


def start(rules: Importance) -> Perception:
    """Perception before a run's first frame."""
    if not isinstance(rules, Importance):
        raise LawError(f"Expected an Importance table but got rules={rules!r}")
    return Perception(rules=rules)


def had_first(state: Perception, villager: int, kind: str, event: str) -> bool:
    """Whether `villager` already has a row of this kind and event (so no first bonus is due)."""
    return (villager, kind, event) in state.firsts


def thought_weight_for(state: Perception, villager: int) -> int:
    """What `villager`'s next thought weighs: the reflection base, plus the bonus if it is the first."""
    return state.rules.thought().weigh(not had_first(state, villager, "thought", "reflection"))


# -- wording ------------------------------------------------------------------


def grams(milligrams: int) -> str:
    """Milligrams as grams with one decimal, rounded half up, in integers: 23_450 -> '23.5 grams'."""
    tenths = (milligrams + 50) // 100
    return f"{tenths // 10}.{tenths % 10} grams"


def cells(millicells: int) -> str:
    tenths = (millicells + 50) // 100
    return f"{tenths // 10}.{tenths % 10} cells"


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


# -- the fold -----------------------------------------------------------------


class _Frame:
    """The scratch of one perceive call: copies made only of what the frame changes."""

    def __init__(self, state: Perception, tick: int):
        self.state = state
        self.tick = tick
        self.next_id = state.next_id
        self.names = dict(state.names)
        self.sight = state.sight
        self.sight_changed = False
        self.seers: dict[int, list[int]] | None = None
        self.meals = {r.villager: r for r in state.meals}
        self.journeys = {r.villager: r for r in state.journeys}
        self.firsts = state.firsts
        self.new_firsts: set[tuple[int, str, str]] = set()
        self.rows: list[Memory] = []

    def name(self, villager: int) -> str:
        return self.names.get(villager, f"villager {villager}")

    def sees(self, viewer: int, *others: int) -> bool:
        for o in others:
            if o != viewer and (viewer, o) not in self.sight:
                return False
        return True

    def first(self, villager: int, kind: str, event: str) -> bool:
        key = (villager, kind, event)
        if key in self.firsts or key in self.new_firsts:
            return False
        self.new_firsts.add(key)
        return True

    def row(self, villager: int, kind: str, event: str, text: str, about: Iterable[int],
            milligrams: int = 0) -> None:
        about = tuple(sorted(set(about)))
        # the rule in one place: nothing about another unless they are in sight now
        if not self.sees(villager, *about):
            return
        weight = self.state.rules.weigh(kind, event, first=self.first(villager, kind, event),
                                        milligrams=milligrams)
        self.rows.append(Memory(id=self.next_id, villager=villager, tick=self.tick, kind=kind,
                                event=event, text=text, weight=weight, about=about))
        self.next_id += 1

    def witnesses(self, *parties: int) -> list[int]:
        """Everyone else who has every party in sight, by id."""
        if self.seers is None:
            # who sees whom, turned round once a frame rather than once an event
            self.seers = {}
            for v, s in self.sight:
                self.seers.setdefault(s, []).append(v)
        return sorted(w for w in self.seers.get(parties[0], ())
                      if w not in parties and self.sees(w, *parties))

    # -- runs ---------------------------------------------------------------

    def remember_meal(self, r: Run) -> None:
        self.row(r.villager, "did", "meal",
                 f"ate {_count(r.count, 'mouthful', 'mouthfuls')} on {r.x},{r.y}, "
                 f"{grams(r.milligrams)}", (), r.milligrams)

    def remember_journey(self, r: Run) -> None:
        self.row(r.villager, "did", "walk", f"went from {r.x},{r.y} to {r.to_x},{r.to_y}", ())

    def close_stopped(self, events: tuple[ev.Event, ...]) -> None:
        # A run that does not go on in this frame stopped last tick: remember
        # it now, before anything else of this frame, in villager order.
        eating = {(e.villager, e.x, e.y) for e in events if isinstance(e, ev.Ate)}
        walking = {e.villager for e in events if isinstance(e, ev.Walked)}
        for v in sorted(self.meals):
            r = self.meals[v]
            if r.last != self.tick - 1 or (v, r.x, r.y) not in eating:
                del self.meals[v]
                self.remember_meal(r)
        for v in sorted(self.journeys):
            r = self.journeys[v]
            if r.last != self.tick - 1 or v not in walking:
                del self.journeys[v]
                self.remember_journey(r)

    def ate(self, e: ev.Ate) -> None:
        r = self.meals.get(e.villager)
        if r is not None and (r.x, r.y) != (e.x, e.y):
            del self.meals[e.villager]
            self.remember_meal(r)
            r = None
        if r is None:
            r = Run(e.villager, e.x, e.y, e.x, e.y, e.mouthfuls, e.milligrams, self.tick)
        else:
            r = replace(r, count=r.count + e.mouthfuls, milligrams=r.milligrams + e.milligrams,
                        last=self.tick)
        if r.count >= self.state.rules.meal_run:
            self.meals.pop(e.villager, None)
            self.remember_meal(r)
        else:
            self.meals[e.villager] = r

    def walked(self, e: ev.Walked) -> None:
        r = self.journeys.get(e.villager)
        if r is None:
            r = Run(e.villager, e.from_x, e.from_y, e.to_x, e.to_y, 1, 0, self.tick)
        else:
            r = replace(r, to_x=e.to_x, to_y=e.to_y, count=r.count + 1, last=self.tick)
        if r.count >= self.state.rules.journey_run:
            self.journeys.pop(e.villager, None)
            self.remember_journey(r)
        else:
            self.journeys[e.villager] = r

    # -- one event ----------------------------------------------------------

    def see(self, e: ev.Event) -> None:
        how = PERCEIVED[e.kind]
        if how is not None:
            getattr(self, how)(e)

    def came_into_sight(self, e: ev.CameIntoSight) -> None:
        self.set_sight(e.viewer, e.seen, True)
        self.row(e.viewer, "saw", "sighting",
                 f"{self.name(e.seen)} came into sight, {cells(e.millicells)} off", (e.seen,))

    def went_out_of_sight(self, e: ev.WentOutOfSight) -> None:
        self.row(e.viewer, "saw", "parting", f"{self.name(e.seen)} went out of sight", (e.seen,))
        self.set_sight(e.viewer, e.seen, False)

    def gave(self, e: ev.Gave) -> None:
        a, b, n, mg = e.giver, e.receiver, e.parcels, e.milligrams
        what = f"{_count(n, 'parcel', 'parcels')}, {grams(mg)}"
        self.row(a, "did", "gift", f"handed {self.name(b)} {what}", (b,), mg)
        told = f"{self.name(a)} handed {self.name(b)} {what}"
        for w in [b, *self.witnesses(a, b)]:
            self.row(w, "saw", "gift", told, (a, b), mg)

    def took(self, e: ev.Took) -> None:
        a, b, n, mg = e.taker, e.owner, e.parcels, e.milligrams
        what = f"{_count(n, 'parcel', 'parcels')} out of {self.name(b)}'s hands, {grams(mg)}"
        self.row(a, "did", "take", f"took {what}", (b,), mg)
        for w in [b, *self.witnesses(a, b)]:
            self.row(w, "saw", "take", f"{self.name(a)} took {what}", (a, b), mg)

    def gathered(self, e: ev.Gathered) -> None:
        self.row(e.villager, "did", "gather",
                 f"gathered {_count(e.parcels, 'parcel', 'parcels')} on {e.x},{e.y}, "
                 f"{grams(e.milligrams)}", (), e.milligrams)

    def begged(self, e: ev.Begged) -> None:
        v = e.villager
        self.row(v, "did", "plea", f"asked for food on {e.x},{e.y}", ())
        for w in self.witnesses(v):
            self.row(w, "heard", "plea", f"heard {self.name(v)} ask for food", (v,))

    def founded(self, e: ev.Founded) -> None:
        self.names[e.villager] = e.name
        self.row(e.villager, "did", "founding", f"came to live on {e.x},{e.y}", ())

    def set_sight(self, viewer: int, seen: int, on: bool) -> None:
        self.seers = None
        if not self.sight_changed:
            self.sight = set(self.sight)  # type: ignore[assignment]
            self.sight_changed = True
        if on:
            self.sight.add((viewer, seen))  # type: ignore[attr-defined]
        else:
            self.sight.discard((viewer, seen))  # type: ignore[attr-defined]

    def given(self, e: ev.Given) -> None:
        weight = self.state.rules.weigh("given", e.event,
                                        first=self.first(e.villager, "given", e.event))
        self.rows.append(Memory(id=self.next_id, villager=e.villager, tick=self.tick,
                                kind="given", event=e.event, text=e.text, weight=weight,
                                about=tuple(sorted(set(e.about)))))
        self.next_id += 1

    def spoke(self, e: ev.Spoke) -> None:
        self.row(e.speaker, "did", "talk", f"said to {self.name(e.listener)}: \"{e.text}\"",
                 (e.listener,))
        self.row(e.listener, "heard", "talk", f"heard {self.name(e.speaker)} say: \"{e.text}\"",
                 (e.speaker,))

    def thought(self, e: ev.Thought) -> None:
        if e.id != self.next_id:
            raise PerceptionError(
                f"thought {e.id} at tick {self.tick} does not continue the stream: "
                f"the next memory id is {self.next_id}")
        self.first(e.villager, "thought", "reflection")
        try:
            m = Memory(id=e.id, villager=e.villager, tick=self.tick, kind="thought",
                       event="reflection", text=e.text, weight=e.weight, about=tuple(e.about),
                       drawn_from=tuple(e.drawn_from))
        except LawError as err:
            raise PerceptionError(f"thought {e.id} at tick {self.tick} is not a memory row: {err}") from None
        self.rows.append(m)
        self.next_id += 1

    def state_after(self) -> Perception:
        s = self.state
        return Perception(
            rules=s.rules, next_id=self.next_id, last_tick=self.tick,
            names=tuple(sorted(self.names.items())) if len(self.names) != len(s.names) else s.names,
            sight=frozenset(self.sight) if self.sight_changed else s.sight,
            meals=tuple(self.meals[v] for v in sorted(self.meals)),
            journeys=tuple(self.journeys[v] for v in sorted(self.journeys)),
            firsts=s.firsts | self.new_firsts if self.new_firsts else s.firsts,
        )


PERCEIVED: dict[str, str | None] = {
    "founded": "founded", "walked": "walked", "ate": "ate", "gathered": "gathered",
    "begged": "begged", "gave": "gave", "took": "took", "came_into_sight": "came_into_sight",
    "went_out_of_sight": "went_out_of_sight", "thought": "thought",
    "given": "given", "spoke": "spoke",
    # answers and refusals are the mind's bookkeeping, not things a villager perceived
    "answered": None, "refusal": None,
    # how strongly a row is felt is the felt projection's (kernel.engine.felt), not a new row
    "refelt": None, "recurred": None, "forgotten": None, "absorbed": None,
    # basins and plans are shown in prompts as they stand, never written as rows
    "basins_seeded": None, "basins_moved": None, "keywords_consolidated": None,
    "intended": None,
    # the reference knows no world in words: a world that names places is the kernel's alone
    "placed": None,
}
"""What a villager perceives of each event kind: the method of the fold that turns it into rows."""


def perceive(state: Perception, tick: int, events: Iterable[ev.Event]
             ) -> tuple[Perception, tuple[Memory, ...]]:
    """Fold one tick frame into perception: the state after it, and the rows it gave, in id order."""
    tick = check_tick("tick", tick)
    if state.last_tick is not None and tick <= state.last_tick:
        raise PerceptionError(f"frames come in tick order, but tick {tick} follows tick "
                              f"{state.last_tick}")
    events = tuple(events)
    f = _Frame(state, tick)
    f.close_stopped(events)
    for e in events:
        f.see(e)
    return f.state_after(), tuple(f.rows)


def names_of(state: Perception) -> Mapping[int, str]:
    return dict(state.names)
