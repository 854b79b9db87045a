"""Perception: the pure fold that turns a tick's events into memory rows.

`perceive(state, tick, events) -> (state, rows)` is the whole of it. A row
goes to each villager who did the thing (`did`), saw it (`saw`) or heard it
(`heard`), with a line in the memory's own register, its weight from the
importance table and the villagers it is `about`. A thought event from a
reflection becomes a `thought` row with the id, weight, about and
drawn_from it carries. Ids are dense and global to the run, in log order.

What a villager remembers is what a person would: a meal is one row per
run of mouthfuls on one cell (at most the table's `meal_run`), a journey is
one row from where it began to where it stopped, a sighting is one row when
someone comes into sight and one when they leave it. A run is remembered in
the first frame it does not continue in, so a row at tick T depends on the
events at ticks up to T and on nothing after. A villager is given a row
about another only while that other is in its sight, as the sight events in
the log say.

Where the log names places (its `placed` events, at tick 0), the world is in
words, and a row says where by them and holds no figure: "you ate barley in
the mill field", "you walked from the well to the east meadow", "you handed
Ander two parcels", "you saw Ander come near", "you lost sight of Ander",
"Halla handed you a parcel", "Mose took three parcels out of your hands": a
row speaks to its villager as a prompt does (its own deeds and what it heard
in the second person, `OWN`, and itself as "you" where another did something
to it; kernel.laws.places owns a cell's words and a count's). The figures stay in the events' fields. Where the log names
none, every row is worded with its figures, as it always was.

The fold is the cost of every index and replay, so it is written for speed
without giving up purity: a state's maps are never changed once the state
is made, and a frame copies only the maps it changes (copy on write), so an
old state (a preview, a fork's point) stays what it was. World rows are made
with `Memory.trusted`, as this fold builds every column itself.

This module owns that fold and the wording of world rows. It must not read
the log, files or a clock: the edge that reads a log calls it frame by frame.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from kernel import events as ev
from kernel.laws._errors import LawError, PerceptionError
from kernel.laws._errors import tick as check_tick
from kernel.laws.importance import HIGHEST, LOWEST, Importance
from kernel.laws.memory import Memory
from kernel.laws.places import Place, Places, parcels, rects_of

SIGHTED = "you saw {} come near"
PARTED = "you lost sight of {}"
"""A world in words' rows of a villager coming into sight and going out of it (`what`
"sighting" and "parting"): the words a prompt that folds them (kernel.laws.window) reads."""


FIRST_ID = 1
"""The first row of a run is memory 1, as a reader counts."""

_row = Memory.trusted
_alike = Memory.trusted_alike
_EMPTY: frozenset = frozenset()
OWN = frozenset({"did", "heard"})
"""The kinds of row a villager lived itself, which a world in words tells in the second person
("you ate barley in the mill field", "you heard Ander ask for food"), as a prompt speaks to
its villager: a model shown a deed with no one doing it took it for another's ("I came into
sight this evening" of a line that Rasmus came into sight) or another's for its own."""


class Run(NamedTuple):
    """An open meal (on one cell) or journey (from a cell to the latest), not yet remembered."""

    villager: int
    x: int              # a meal's cell; a journey's first cell
    y: int
    to_x: int           # a journey's latest cell; a meal's cell again
    to_y: int
    count: int          # mouthfuls or steps
    milligrams: int
    last: int           # the tick of its latest mouthful or step


_run = tuple.__new__
"""`_run(Run, values)`: a Run without the keyword handling of `Run(...)`, made once a mouthful."""


_KNOWN = 4096
"""The most (key, grams) pairs whose weights the fold keeps: a long run's meals weigh many
grams, and past this many the rest are worked out each time."""


class _Table:
    """The importance table as the fold reads it a million times: plain dicts and integers."""

    __slots__ = ("rules", "base", "bonus", "bands", "high_first", "at_zero", "meal_run",
                 "journey_run", "known")

    def __init__(self, rules: Importance):
        self.rules = rules
        self.base = dict(rules.base)
        self.bonus = rules.first_bonus
        self.bands = tuple(rules.bands)
        self.high_first = tuple(reversed(self.bands))
        self.at_zero = rules.band(0)
        self.meal_run = rules.meal_run
        self.journey_run = rules.journey_run
        self.known: dict[tuple[tuple[str, str], int], tuple[int, int]] = {}

    def weights(self, key: tuple[str, str], milligrams: int) -> tuple[int, int] | None:
        """Importance.weigh's arithmetic for a row of `key` (kind, event) and `milligrams`:
        (its weight, its weight as the first of its kind), or None where Importance.weigh
        must judge it (an unknown key, grams that are not a count), refusals and all.

        A busy village weighs the same few (key, grams) again and again (a plea, a
        parcel or two), so each pair's answer is kept once worked out, up to `_KNOWN`."""
        if type(milligrams) is not int:
            return None
        got = self.known.get((key, milligrams))
        if got is not None:
            return got
        b = self.base.get(key)
        if b is None or milligrams < 0:
            return None
        if milligrams:
            for at, add in self.high_first:
                if milligrams >= at:
                    b += add
                    break
        else:
            b += self.at_zero
        f = b + self.bonus
        got = (LOWEST if b < LOWEST else HIGHEST if b > HIGHEST else b,
               LOWEST if f < LOWEST else HIGHEST if f > HIGHEST else f)
        if len(self.known) < _KNOWN:
            self.known[(key, milligrams)] = got
        return got


@dataclass(frozen=True, slots=True)
class Perception:
    """Everything perception carries from one frame to the next; rows themselves are not kept.

    The maps are never changed once a state holds them: a frame that changes
    one works on a copy, and the next state holds the copy.
    """

    rules: Importance
    next_id: int = FIRST_ID
    last_tick: int | None = None
    names: Mapping[int, str] = field(default_factory=dict)
    sight: Mapping[int, frozenset[int]] = field(default_factory=dict)       # viewer -> seen
    seers: Mapping[int, tuple[int, ...]] = field(default_factory=dict,     # seen -> viewers
                                                 compare=False)
    meals: Mapping[int, Run] = field(default_factory=dict)                  # by villager
    journeys: Mapping[int, Run] = field(default_factory=dict)
    meal_cells: frozenset[tuple[int, int, int]] = field(default=frozenset(),  # (villager, x, y)
                                                        compare=False)   # of each open meal
    firsts: Mapping[int, frozenset[tuple[str, str]]] = field(default_factory=dict)
    table: _Table | None = field(default=None, compare=False, repr=False)
    places: Places | None = None      # the log's places; None: a world not in words

    def name(self, villager: int) -> str:
        return self.names.get(villager, f"villager {villager}")

    def sees(self, viewer: int, seen: int) -> bool:
        return seen in self.sight.get(viewer, _EMPTY)


def start(rules: Importance) -> Perception:
    """Perception before a run's first frame."""
    if not isinstance(rules, Importance):
        raise LawError(f"Expected an Importance table but got rules={rules!r}")
    return Perception(rules=rules, table=_Table(rules))


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


def _pair(a: int, b: int) -> tuple[int, ...]:
    """{a, b} as an ascending tuple, each once."""
    return (a, b) if a < b else (b, a) if b < a else (a,)


# -- the fold -----------------------------------------------------------------


class _Frame:
    """The scratch of one perceive call: copies made only of what the frame changes.

    It is one piece because every handler of an event kind writes into the same copy-on-write
    maps of one frame (sight, runs, firsts) and the same row list and next id: split apart, each
    part would hand the others the frame's whole state."""

    def __init__(self, state: Perception, tick: int):
        self.state = state
        self.table = state.table if state.table is not None else _Table(state.rules)
        self.tick = tick
        self.next_id = state.next_id
        self.names = state.names
        self.names_copied = False
        self.sight = state.sight
        self.seers = state.seers
        self.sight_copied = False
        self.meals = dict(state.meals)
        self.journeys = dict(state.journeys)
        self.meal_cells = state.meal_cells
        self.meal_cells_copied = False
        self.firsts = state.firsts
        self.firsts_copied = False
        self.places = state.places
        self.rows: list[Memory] = []

    def name(self, villager: int) -> str:
        n = self.names.get(villager)
        return n if n is not None else f"villager {villager}"

    def sees(self, viewer: int, *others: int) -> bool:
        seen = self.sight.get(viewer, _EMPTY)
        for o in others:
            if o != viewer and o not in seen:
                return False
        return True

    def first(self, villager: int, kind: str, event: str) -> bool:
        had = self.firsts.get(villager, _EMPTY)
        if (kind, event) in had:
            return False
        if not self.firsts_copied:
            self.firsts = dict(self.firsts)
            self.firsts_copied = True
        self.firsts[villager] = had | {(kind, event)}
        return True

    def row(self, villager: int, kind: str, event: str, text: str, about: tuple[int, ...],
            milligrams: int = 0) -> None:
        """A world row, `about` already an ascending tuple of ids, each once."""
        # the rule in one place: nothing about another unless they are in sight now
        if about:
            seen = self.sight.get(villager, _EMPTY)
            for o in about:
                if o != villager and o not in seen:
                    return
        # self.first written out, since this runs once a row; the weight is _Table.weights'
        key = (kind, event)
        had = self.firsts.get(villager, _EMPTY)
        first = key not in had
        if first:
            if not self.firsts_copied:
                self.firsts = dict(self.firsts)
                self.firsts_copied = True
            self.firsts[villager] = had | {key}
        w = self.table.weights(key, milligrams)
        w = (self.table.rules.weigh(kind, event, first=first, milligrams=milligrams) if w is None
             else w[1] if first else w[0])
        text = self.told(kind, text)
        self.rows.append(_row(self.next_id, villager, self.tick, kind, event, text, w, about))
        self.next_id += 1

    def told(self, kind: str, text: str) -> str:
        """A row's text as its villager is told it: in a world in words, its own deeds and what
        it heard in the second person (`OWN`); elsewhere as it is."""
        return f"you {text}" if self.places is not None and kind in OWN else text

    def rows_of_witnesses(self, who: list[int], kind: str, event: str, text: str,
                          about: tuple[int, ...], milligrams: int = 0) -> None:
        """`row` for each of `who`, every one already known to see everyone in `about`.

        Most rows of a busy village are witnesses' rows of one event: one text,
        one weight with the first bonus and one without, so both are worked
        out once here rather than once a row.
        """
        key = (kind, event)
        both = self.table.weights(key, milligrams)
        if both is None:
            for w in who:
                self.row(w, kind, event, text, about, milligrams)
            return
        plain, first = both
        firsts = self.firsts
        weights = []
        for w in who:
            had = firsts.get(w, _EMPTY)
            if key in had:
                weights.append(plain)
            else:
                if not self.firsts_copied:
                    firsts = self.firsts = dict(firsts)
                    self.firsts_copied = True
                firsts[w] = had | {key}
                weights.append(first)
        text = self.told(kind, text)
        self.rows.extend(_alike(self.next_id, who, weights, self.tick, kind, event, text, about))
        self.next_id += len(who)

    def witnesses(self, *parties: int) -> list[int]:
        """Everyone else who has every party in sight, by id."""
        sight = self.sight
        out = []
        for w in self.seers.get(parties[0], ()):
            if w in parties:
                continue
            seen = sight.get(w, _EMPTY)
            for p in parties:
                if p not in seen:
                    break
            else:
                out.append(w)
        return out

    # -- runs ---------------------------------------------------------------

    def remember_meal(self, r: Run) -> None:
        self.harvest(r.villager, "meal", "ate", _count(r.count, "mouthful", "mouthfuls"),
                     r.x, r.y, r.milligrams)

    def harvest(self, villager: int, event: str, verb: str, count: str, x: int, y: int,
                milligrams: int) -> None:
        """A villager's row of food it took from a cell (a meal, a gathering): in a world in
        words what grows there and where ("ate beans in the bean rows"), elsewhere the count,
        the cell and the grams ("ate 3 mouthfuls on 4,5, 1.5 grams")."""
        pl = self.places
        if pl is None:
            text = f"{verb} {count} on {x},{y}, {grams(milligrams)}"
        else:
            w = pl.where(x, y)
            text = f"{verb} {w.place.grows} {w.at}"
        self.row(villager, "did", event, text, (), milligrams)

    def remember_journey(self, r: Run) -> None:
        pl = self.places
        if pl is None:
            text = f"went from {r.x},{r.y} to {r.to_x},{r.to_y}"
        else:
            a, b = pl.where(r.x, r.y), pl.where(r.to_x, r.to_y)
            text = (f"walked about {a.place.name}" if a.place is b.place
                    else f"walked from {a.spot} to {b.spot}")
        self.row(r.villager, "did", "walk", text, ())

    def at(self, x: int, y: int) -> str:
        """Where a deed on cell (x, y) was done: "on 8,5", or "by the well" in a world in words."""
        pl = self.places
        return f"on {x},{y}" if pl is None else pl.where(x, y).at

    def open_cells(self) -> set[tuple[int, int, int]]:
        if not self.meal_cells_copied:
            self.meal_cells = set(self.meal_cells)  # type: ignore[assignment]
            self.meal_cells_copied = True
        return self.meal_cells  # type: ignore[return-value]

    def close_stopped(self, events: tuple[ev.Event, ...]) -> None:
        # A run that does not go on in this frame stopped last tick: remember
        # it now, before anything else of this frame, in villager order.
        meals, journeys = self.meals, self.journeys
        if not meals and not journeys:
            return
        # Every open run went on in the state's last frame (one that did not was
        # closed there), so all stop when this frame does not follow it at once,
        # and otherwise exactly those this frame does not continue.
        following = self.state.last_tick == self.tick - 1
        if meals:
            if following:
                ate = ev.Ate
                eating = {(e.villager, e.x, e.y) for e in events if isinstance(e, ate)}
                stopped = sorted(v for v, _, _ in self.meal_cells - eating)
            else:
                stopped = sorted(meals)
            if stopped:
                cells = self.open_cells()
                for v in stopped:
                    r = meals.pop(v)
                    cells.discard((v, r.x, r.y))
                    self.remember_meal(r)
        if journeys:
            if following:
                walked = ev.Walked
                stopped = sorted(journeys.keys() - {e.villager for e in events
                                                    if isinstance(e, walked)})
            else:
                stopped = sorted(journeys)
            for v in stopped:
                self.remember_journey(journeys.pop(v))

    def ate(self, e: ev.Ate) -> None:
        # The hottest handler of a hungry village: a meal's fields read by position
        # (villager, x, y, to_x, to_y, count, milligrams, last), and a meal's cell is
        # both its ends.
        v, x, y = e.villager, e.x, e.y
        meals = self.meals
        r = meals.get(v)
        if r is not None and (r[1] != x or r[2] != y):
            del meals[v]
            self.open_cells().discard((v, r[1], r[2]))
            self.remember_meal(r)
            r = None
        if r is None:
            count, mg, opened = e.mouthfuls, e.milligrams, True
        else:
            count, mg, opened = r[5] + e.mouthfuls, r[6] + e.milligrams, False
        r = _run(Run, (v, x, y, x, y, count, mg, self.tick))
        if count >= self.table.meal_run:
            meals.pop(v, None)
            if not opened:
                self.open_cells().discard((v, x, y))
            self.remember_meal(r)
        else:
            meals[v] = r
            if opened:
                self.open_cells().add((v, x, y))

    def walked(self, e: ev.Walked) -> None:
        v = e.villager
        journeys = self.journeys
        r = journeys.get(v)
        if r is None:
            r = _run(Run, (v, e.from_x, e.from_y, e.to_x, e.to_y, 1, 0, self.tick))
        else:
            r = _run(Run, (v, r.x, r.y, e.to_x, e.to_y, r.count + 1, r.milligrams, self.tick))
        if r.count >= self.table.journey_run:
            journeys.pop(v, None)
            self.remember_journey(r)
        else:
            journeys[v] = r

    # -- one event ----------------------------------------------------------

    def see(self, e: ev.Event) -> None:
        how = PERCEIVED[e.kind]
        if how is not None:
            getattr(self, how)(e)

    def came_into_sight(self, e: ev.CameIntoSight) -> None:
        self.set_sight(e.viewer, e.seen, True)
        text = (f"{self.name(e.seen)} came into sight, {cells(e.millicells)} off"
                if self.places is None else SIGHTED.format(self.name(e.seen)))
        self.row(e.viewer, "saw", "sighting", text, (e.seen,))

    def went_out_of_sight(self, e: ev.WentOutOfSight) -> None:
        text = (f"{self.name(e.seen)} went out of sight" if self.places is None
                else PARTED.format(self.name(e.seen)))
        self.row(e.viewer, "saw", "parting", text, (e.seen,))
        self.set_sight(e.viewer, e.seen, False)

    def gave(self, e: ev.Gave) -> None:
        a, b, n, mg = e.giver, e.receiver, e.parcels, e.milligrams
        what = (f"{_count(n, 'parcel', 'parcels')}, {grams(mg)}" if self.places is None
                else parcels(n))
        name = self.name
        self.row(a, "did", "gift", f"handed {name(b)} {what}", (b,), mg)
        told = f"{name(a)} handed {name(b)} {what}"
        about = _pair(a, b)
        self.row(b, "saw", "gift", told if self.places is None else f"{name(a)} handed you {what}",
                 about, mg)
        self.rows_of_witnesses(self.witnesses(a, b), "saw", "gift", told, about, mg)

    def took(self, e: ev.Took) -> None:
        a, b, n, mg = e.taker, e.owner, e.parcels, e.milligrams
        what = (f"{_count(n, 'parcel', 'parcels')} out of {self.name(b)}'s hands, {grams(mg)}"
                if self.places is None else f"{parcels(n)} out of {self.name(b)}'s hands")
        self.row(a, "did", "take", f"took {what}", (b,), mg)
        told = f"{self.name(a)} took {what}"
        about = _pair(a, b)
        self.row(b, "saw", "take", told if self.places is None
                 else f"{self.name(a)} took {parcels(n)} out of your hands", about, mg)
        self.rows_of_witnesses(self.witnesses(a, b), "saw", "take", told, about, mg)

    def gathered(self, e: ev.Gathered) -> None:
        self.harvest(e.villager, "gather", "gathered", _count(e.parcels, "parcel", "parcels"),
                     e.x, e.y, e.milligrams)

    def begged(self, e: ev.Begged) -> None:
        v = e.villager
        self.row(v, "did", "plea", f"asked for food {self.at(e.x, e.y)}", ())
        witnesses = self.witnesses(v)
        if witnesses:
            self.rows_of_witnesses(witnesses, "heard", "plea", f"heard {self.name(v)} ask for food",
                                   (v,))

    def founded(self, e: ev.Founded) -> None:
        if not self.names_copied:
            self.names = dict(self.names)
            self.names_copied = True
        self.names[e.villager] = e.name
        self.row(e.villager, "did", "founding", f"came to live {self.at(e.x, e.y)}", ())

    def placed(self, e: ev.Placed) -> None:
        # The world's places are named before anyone lives in it: a place named later would
        # word the rows after it otherwise than those before, and no world writes one.
        if self.names or self.state.last_tick is not None:
            raise PerceptionError(f"the place {e.name!r} is named at tick {self.tick}, after the "
                                  f"world began: places are named at its first tick, before "
                                  f"anyone is founded")
        try:
            p = Place(name=e.name, grows=e.grows, rects=rects_of(e.cells),
                      preposition=e.preposition)
            self.places = (self.places or Places()).with_place(p)
        except LawError as err:
            raise PerceptionError(f"the place {e.name!r} at tick {self.tick} is not one a world "
                                  f"may name: {err}") from None

    def set_sight(self, viewer: int, seen: int, on: bool) -> None:
        if not self.sight_copied:
            self.sight = dict(self.sight)
            self.seers = dict(self.seers)
            self.sight_copied = True
        had = self.sight.get(viewer, _EMPTY)
        viewers = self.seers.get(seen, ())
        if on:
            if seen not in had:
                self.sight[viewer] = had | {seen}
                # kept in id order, so witnesses come out in id order with no sort
                self.seers[seen] = tuple(sorted((*viewers, viewer)))
        elif seen in had:
            self.sight[viewer] = had - {seen}
            self.seers[seen] = tuple(w for w in viewers if w != viewer)

    def given(self, e: ev.Given) -> None:
        # A given row is the villager's before it has lived anything: about whom the scenario
        # says, in sight or not, so it is made here and not by `row`; given rows are few.
        # It is given as its villager is founded (kernel.mind.given), so never to one that no
        # founding before it named: a log with one is not a run's, whatever its chain says.
        if e.villager not in self.names:
            raise PerceptionError(f"a given row at tick {self.tick} is for villager {e.villager}, "
                                  f"whom no founding before it names: a given row is given to a "
                                  f"villager as it is founded")
        w = self.table.rules.weigh("given", e.event, first=self.first(e.villager, "given", e.event))
        self.rows.append(_row(self.next_id, e.villager, self.tick, "given", e.event, e.text, w,
                              tuple(sorted(set(e.about)))))
        self.next_id += 1

    def spoke(self, e: ev.Spoke) -> None:
        # The speaker remembers saying it; the listener hears it only while it has the speaker
        # in sight (the rule of `row`), as a claim of the speaker's, not a thing it has seen.
        a, b = e.speaker, e.listener
        self.row(a, "did", "talk", f"said to {self.name(b)}: \"{e.text}\"", (b,))
        self.row(b, "heard", "talk", f"heard {self.name(a)} say: \"{e.text}\"", (a,))

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
        # A frame's names are kept when it founded someone new, as the fold always did: a
        # second founding of one villager (no world makes one) names them for its frame only.
        names = self.names if len(self.names) != len(s.names) else s.names
        return Perception(
            rules=s.rules, next_id=self.next_id, last_tick=self.tick, names=names,
            sight=self.sight, seers=self.seers, meals=self.meals, journeys=self.journeys,
            meal_cells=self.meal_cells,
            firsts=self.firsts, table=self.table, places=self.places)


_MEAL_CELL = re.compile(r"^ate .* on (\d+),(\d+), ")


def meal_cell(row: Memory) -> tuple[int, int] | None:
    """The cell a meal row says it was eaten on (`remember_meal` writes it), else None: None
    for every meal row of a world in words, which names a place instead (kernel.laws.places)."""
    if row.kind != "did" or row.event != "meal":
        return None
    m = _MEAL_CELL.match(row.text)
    return None if m is None else (int(m.group(1)), int(m.group(2)))


PERCEIVED: dict[str, str | None] = {
    # a place is no row: it is how every row after it says where
    "placed": "placed",
    "founded": "founded", "walked": "walked", "ate": "ate", "gathered": "gathered",
    "begged": "begged", "gave": "gave", "took": "took", "came_into_sight": "came_into_sight",
    "went_out_of_sight": "went_out_of_sight", "thought": "thought",
    # what a villager was given at its founding, and words said and heard
    "given": "given", "spoke": "spoke",
    # answers and refusals are the mind's bookkeeping, not things a villager perceived
    "answered": None, "refusal": None,
    # how strongly a row is felt is the felt projection's (kernel.engine.felt), not a new row
    "refelt": None, "recurred": None, "forgotten": None, "absorbed": None,
    # basins and plans are shown in prompts as they stand (kernel.mind.basins,
    # kernel.mind.plans), never written as rows
    "basins_seeded": None, "basins_moved": None, "keywords_consolidated": None,
    "intended": None,
}
"""What a villager perceives of each event kind: the method of the fold that turns it into rows."""


# The handler of each event type, looked up once a kind rather than by name once an event.
_HANDLERS: dict[type, object] = {
    ev.KINDS[kind]: (getattr(_Frame, how) if how is not None else None)
    for kind, how in PERCEIVED.items() if kind in ev.KINDS
}


def perceive(state: Perception, tick: int, events: Iterable[ev.Event]
             ) -> tuple[Perception, tuple[Memory, ...]]:
    """Fold one tick frame into perception: the state after it, and the rows it gave, in id order."""
    p = Perceiving(state, tick)
    p.add(tuple(events))
    return p.after(), p.rows


class Perceiving:
    """One frame perceived as its events come, each event once: what `perceive` folds in one
    call, taken in parts (a tick's phases each add their events to the frame so far).

    The first part closes the runs that stopped, as `perceive` does before a frame's events,
    so it must hold every meal and walk of the frame: a later part holding one is refused, for
    the rows of the frame would then depend on how it was cut. `rows` is the frame's rows so
    far, `state()` the perception they leave (who has whom in sight), and `after()` the state
    after the whole frame; the state this began from stays what it was.
    """

    __slots__ = ("_f", "_opened")

    def __init__(self, state: Perception, tick: int):
        tick = check_tick("tick", tick)
        if state.last_tick is not None and tick <= state.last_tick:
            raise PerceptionError(f"frames come in tick order, but tick {tick} follows tick "
                                  f"{state.last_tick}")
        self._f = _Frame(state, tick)
        self._opened = False

    def add(self, events: tuple[ev.Event, ...]) -> None:
        """Perceive the frame's next events."""
        f = self._f
        if not self._opened:
            self._opened = True
            f.close_stopped(events)
        elif any(type(e) in _RUNS for e in events):
            raise PerceptionError(f"a frame's meals and walks come in its first part, but a "
                                  f"later part of tick {f.tick} holds one")
        handlers = _HANDLERS
        for e in events:
            how = handlers.get(type(e), _see)
            if how is not None:
                how(f, e)

    @property
    def rows(self) -> tuple[Memory, ...]:
        return tuple(self._f.rows)

    def state(self) -> Perception:
        """The perception the frame's events so far leave: a state of its own, which the
        frame's later events do not change."""
        f = self._f
        got = f.state_after()
        f.meals, f.journeys = dict(f.meals), dict(f.journeys)
        f.names_copied = f.sight_copied = f.meal_cells_copied = f.firsts_copied = False
        return got

    def after(self) -> Perception:
        """The perception after the frame, once its last events are in."""
        return self._f.state_after()


_RUNS = (ev.Ate, ev.Walked)
"""The events whose runs a frame closes before anything else of it (`_Frame.close_stopped`)."""


_see = _Frame.see
"""An event of a type the table lacks goes the long way, and an unknown kind is refused there."""
