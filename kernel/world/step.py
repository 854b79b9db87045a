"""The village's state and its one law of motion: `step(state, tick) -> (state, events)`.

This module owns the world's state (villagers' spots, bellies and hands,
the food on every cell, who is in whose sight) and the seeded policy that
moves it one tick on. `step` is a pure function of its arguments: every
random draw of a tick comes from a PCG64 stream seeded by (world seed,
tick) through numpy's SeedSequence, and only its raw 64-bit outputs are
used, as integers, so no generator state hides between ticks and no float
decides anything. It must not write the log, read files, or know what a
memory is: perception reads the events it returns.

Units: food and bellies in milligrams, positions and distances in
millicells (a cell is 1000 millicells; a villager stands on a spot inside
its cell), chances in 10,000.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from math import isqrt

import numpy as np

from kernel import events as ev
from kernel.errors import VillageError
from kernel.world.config import WorldConfig


class WorldError(VillageError):
    """The world was asked to do something its rules do not allow."""


DRAWS = 8
"""Raw draws per villager per tick, used by position so that one villager's
choices never shift another's stream."""

_FOOD_STREAM = 1
_TICK_STREAM = 0


@dataclass(frozen=True, slots=True)
class Villager:
    id: int
    name: str
    founded: int
    here: bool                    # founded yet
    px: int                       # spot, millicells
    py: int
    belly: int                    # milligrams
    hands: int                    # parcels carried
    dest: tuple[int, int] | None  # the cell a journey is heading for
    eating: bool

    @property
    def cell(self) -> tuple[int, int]:
        return self.px // 1000, self.py // 1000


@dataclass(frozen=True, slots=True)
class World:
    """The whole village between ticks. `tick` is the tick `step` must be given next."""

    config: WorldConfig
    tick: int
    villagers: tuple[Villager, ...]
    food: tuple[int, ...]         # milligrams on each cell (row-major) as of `grown`
    grown: tuple[int, ...]        # the tick each cell's food was last written at
    sight: frozenset[tuple[int, int]]  # (a, b) with a < b: a and b see each other

    def food_at(self, x: int, y: int, tick: int | None = None) -> int:
        i = y * self.config.width + x
        return _grown(self.config, self.food[i], self.grown[i], self.tick if tick is None else tick)

    def by_id(self, villager: int) -> Villager:
        for v in self.villagers:
            if v.id == villager:
                return v
        raise WorldError(f"no villager with id {villager} in this world")


def _stream(seed: int, key: tuple[int, ...], n: int) -> list[int]:
    # Raw PCG64 words: the bit generator's algorithm is fixed, unlike the
    # Generator's float and bounded-integer methods, which numpy may change.
    ss = np.random.SeedSequence(entropy=seed, spawn_key=key)
    return np.random.PCG64(ss).random_raw(n).tolist() if n else []


def _grown(cfg: WorldConfig, mg: int, since: int, tick: int) -> int:
    # Regrowth is computed when a cell is read rather than applied to every
    # cell every tick: same numbers, no per-tick sweep of the grid.
    return min(cfg.food_max, mg + cfg.regrow * (tick - since))


def initial(cfg: WorldConfig) -> World:
    """The village before tick 0: food laid out from the seed, nobody founded yet."""
    cells = cfg.width * cfg.height
    lo, hi = cfg.food_start
    raw = _stream(cfg.seed, (_FOOD_STREAM,), cells)
    food = tuple(lo + r % (hi - lo + 1) for r in raw)
    people = tuple(
        Villager(id=p.id, name=p.name, founded=p.founded, here=False,
                 px=p.x * 1000 + 500, py=p.y * 1000 + 500, belly=cfg.policy.belly_start,
                 hands=0, dest=None, eating=False)
        for p in cfg.people
    )
    return World(config=cfg, tick=0, villagers=people, food=food, grown=(0,) * cells,
                 sight=frozenset())


def distance(a: Villager, b: Villager) -> int:
    """Straight-line distance between two spots, in whole millicells (rounded down)."""
    dx, dy = a.px - b.px, a.py - b.py
    return isqrt(dx * dx + dy * dy)


def _sign(n: int) -> int:
    return (n > 0) - (n < 0)


def _spot(cell: int, word: int) -> int:
    # Somewhere in the middle eight-tenths of the cell, so two villagers on
    # one cell stand apart and neighbours' distances are not all whole cells.
    return cell * 1000 + 100 + word % 801


class _Tick:
    """The mutable scratch of one step; nothing of it outlives `step`."""

    def __init__(self, state: World, tick: int):
        self.cfg = state.config
        self.pol = state.config.policy
        self.tick = tick
        self.vs = list(state.villagers)
        self.food = list(state.food)
        self.grown = list(state.grown)
        self.sight = state.sight
        self.index = {v.id: i for i, v in enumerate(self.vs)}
        self.events: list[ev.Event] = []

    # -- food ------------------------------------------------------------

    def food_here(self, x: int, y: int) -> int:
        i = y * self.cfg.width + x
        return _grown(self.cfg, self.food[i], self.grown[i], self.tick)

    def remove_food(self, x: int, y: int, mg: int) -> None:
        i = y * self.cfg.width + x
        self.food[i] = self.food_here(x, y) - mg
        self.grown[i] = self.tick

    # -- who is near -------------------------------------------------------

    def near(self, i: int) -> list[int]:
        """Indices of villagers this one saw last tick and can reach now, by id."""
        v = self.vs[i]
        out = []
        for j, u in enumerate(self.vs):
            if j == i or not u.here:
                continue
            pair = (v.id, u.id) if v.id < u.id else (u.id, v.id)
            if pair in self.sight and distance(v, u) <= self.cfg.reach:
                out.append(j)
        return out

    # -- acts ----------------------------------------------------------------

    def found(self, i: int, d: list[int]) -> None:
        v = self.vs[i]
        x, y = v.cell
        self.vs[i] = replace(v, here=True, px=_spot(x, d[0]), py=_spot(y, d[1]))
        self.events.append(ev.Founded(villager=v.id, name=v.name, x=x, y=y))

    def walk(self, i: int, d: list[int]) -> None:
        v = self.vs[i]
        x, y = v.cell
        tx, ty = v.dest  # type: ignore[misc]
        nx, ny = x + _sign(tx - x), y + _sign(ty - y)
        arrived = (nx, ny) == (tx, ty)
        self.vs[i] = replace(v, px=_spot(nx, d[0]), py=_spot(ny, d[1]),
                             dest=None if arrived else v.dest)
        self.events.append(ev.Walked(villager=v.id, from_x=x, from_y=y, to_x=nx, to_y=ny))

    def set_out(self, i: int, dest: tuple[int, int], d: list[int]) -> None:
        # The first step is taken at once, so a journey's steps are on
        # consecutive ticks and a reader can tell where one journey ends.
        self.vs[i] = replace(self.vs[i], dest=dest, eating=False)
        self.walk(i, d)

    def eat(self, i: int) -> bool:
        """One mouthful from the cell, or from the hands if the cell is bare; False if neither."""
        v = self.vs[i]
        x, y = v.cell
        here = self.food_here(x, y)
        if here >= max(1, self.pol.mouthful // 4):
            mg = min(self.pol.mouthful, here)
            self.remove_food(x, y, mg)
            self.vs[i] = replace(v, belly=v.belly + mg, eating=True)
        elif v.hands > 0:
            mg = self.pol.parcel
            self.vs[i] = replace(v, belly=v.belly + mg, hands=v.hands - 1, eating=True)
        else:
            return False
        self.events.append(ev.Ate(villager=v.id, x=x, y=y, mouthfuls=1, milligrams=mg))
        return True

    def give(self, i: int, j: int, d: list[int]) -> bool:
        v, u = self.vs[i], self.vs[j]
        lo, hi = self.pol.gift_parcels
        n = min(v.hands, lo + d[5] % (hi - lo + 1), self.pol.hands_max - u.hands)
        if n <= 0:
            return False
        self.vs[i] = replace(v, hands=v.hands - n)
        self.vs[j] = replace(u, hands=u.hands + n)
        self.events.append(ev.Gave(giver=v.id, receiver=u.id, parcels=n,
                                   milligrams=n * self.pol.parcel))
        return True

    def take(self, i: int, j: int, d: list[int]) -> bool:
        v, u = self.vs[i], self.vs[j]
        lo, hi = self.pol.take_parcels
        n = min(u.hands, lo + d[5] % (hi - lo + 1), self.pol.hands_max - v.hands)
        if n <= 0:
            return False
        self.vs[i] = replace(v, hands=v.hands + n)
        self.vs[j] = replace(u, hands=u.hands - n)
        self.events.append(ev.Took(taker=v.id, owner=u.id, parcels=n,
                                   milligrams=n * self.pol.parcel))
        return True

    def gather(self, i: int, d: list[int]) -> bool:
        v = self.vs[i]
        x, y = v.cell
        lo, hi = self.pol.gather_parcels
        n = min(lo + d[5] % (hi - lo + 1), self.pol.hands_max - v.hands,
                self.food_here(x, y) // self.pol.parcel)
        if n < lo:
            return False
        mg = n * self.pol.parcel
        self.remove_food(x, y, mg)
        self.vs[i] = replace(v, hands=v.hands + n)
        self.events.append(ev.Gathered(villager=v.id, x=x, y=y, parcels=n, milligrams=mg))
        return True

    def forage_target(self, i: int) -> tuple[int, int] | None:
        """The richest cell within forage range, if it holds a meal's worth; nearest, then y, x, on ties."""
        x, y = self.vs[i].cell
        r = self.pol.forage_cells
        best = None
        for cy in range(max(0, y - r), min(self.cfg.height, y + r + 1)):
            for cx in range(max(0, x - r), min(self.cfg.width, x + r + 1)):
                if (cx, cy) == (x, y):
                    continue
                key = (-self.food_here(cx, cy), max(abs(cx - x), abs(cy - y)), cy, cx)
                if best is None or key < best:
                    best = key
        if best is None or -best[0] < 10 * self.pol.mouthful:
            return None
        return best[3], best[2]

    def visit_target(self, i: int, d: list[int]) -> tuple[int, int] | None:
        """The cell of someone this villager saw last tick, if it is not this cell."""
        v = self.vs[i]
        seen = sorted(b if a == v.id else a for a, b in self.sight if v.id in (a, b))
        if not seen:
            return None
        cell = self.vs[self.index[seen[d[6] % len(seen)]]].cell
        return None if cell == v.cell else cell

    def wander_target(self, i: int, d: list[int]) -> tuple[int, int] | None:
        x, y = self.vs[i].cell
        w = self.pol.wander_cells
        dx = d[7] % (2 * w + 1) - w
        dy = (d[7] >> 32) % (2 * w + 1) - w
        tx = min(self.cfg.width - 1, max(0, x + dx))
        ty = min(self.cfg.height - 1, max(0, y + dy))
        return None if (tx, ty) == (x, y) else (tx, ty)

    # -- the policy ----------------------------------------------------------

    def act(self, i: int, d: list[int]) -> None:
        pol = self.pol
        v = self.vs[i]
        v = self.vs[i] = replace(v, belly=max(0, v.belly - pol.burn))
        if v.dest is not None:
            self.walk(i, d)
            return
        if v.eating:
            # A meal goes on until the belly is full or there is nothing left;
            # the tick it stops is a tick of nothing, which closes the meal.
            if v.belly >= pol.belly_full or not self.eat(i):
                self.vs[i] = replace(self.vs[i], eating=False)
            return
        chance = [w % 10000 for w in d[2:5]]
        if v.belly < pol.hungry_below:
            if self.eat(i):
                return
            givers = [j for j in self.near(i) if self.vs[j].hands > 0]
            if givers and chance[0] < pol.beg:
                x, y = v.cell
                self.events.append(ev.Begged(villager=v.id, x=x, y=y))
                return
            if givers:
                return  # stay near those who carry food, and ask again later
            dest = self.forage_target(i) or self.wander_target(i, d)
            if dest is not None:
                self.set_out(i, dest, d)
            return
        near = self.near(i)
        if v.hands > 0 and near:
            hungry = [j for j in near if self.vs[j].belly < pol.hungry_below]
            if hungry and chance[0] < pol.give_to_hungry:
                if self.give(i, hungry[d[6] % len(hungry)], d):
                    return
            elif chance[0] < pol.give:
                if self.give(i, near[d[6] % len(near)], d):
                    return
        carrying = [j for j in near if self.vs[j].hands > 0]
        if carrying and chance[1] < pol.take:
            if self.take(i, carrying[d[6] % len(carrying)], d):
                return
        if v.hands < pol.hands_max and chance[2] < pol.gather:
            if self.gather(i, d):
                return
        if (d[6] >> 32) % 10000 < pol.wander:
            dest = self.visit_target(i, d) if (d[5] >> 32) % 10000 < pol.visit else None
            dest = dest or self.wander_target(i, d)
            if dest is not None:
                self.set_out(i, dest, d)

    def look(self) -> None:
        """Who sees whom once everyone has acted; a change is an event for each viewer."""
        now: set[tuple[int, int]] = set()
        found: list[ev.Event] = []
        here = [v for v in self.vs if v.here]
        far: dict[tuple[int, int], int] = {}
        for a in range(len(here)):
            va = here[a]
            for b in range(a + 1, len(here)):
                vb = here[b]
                d = distance(va, vb)
                pair = (va.id, vb.id) if va.id < vb.id else (vb.id, va.id)
                if d <= self.cfg.sight:
                    now.add(pair)
                    far[pair] = d
        for a, b in sorted(now - self.sight):
            found.append(ev.CameIntoSight(viewer=a, seen=b, millicells=far[(a, b)]))
            found.append(ev.CameIntoSight(viewer=b, seen=a, millicells=far[(a, b)]))
        for a, b in sorted(self.sight - now):
            found.append(ev.WentOutOfSight(viewer=a, seen=b))
            found.append(ev.WentOutOfSight(viewer=b, seen=a))
        found.sort(key=lambda e: (e.viewer, e.seen))  # type: ignore[attr-defined]
        self.events.extend(found)
        self.sight = frozenset(now)


def step(state: World, tick: int) -> tuple[World, tuple[ev.Event, ...]]:
    """The village one tick on, and what happened in it, in the order it happened.

    Founders first, then every villager in the config's order, then the
    changes of sight. A pure function of (state, tick): the same two give
    the same world and the same events, on any machine.
    """
    if type(tick) is not int or tick != state.tick:
        raise WorldError(f"step takes the world's next tick, {state.tick}, but got tick={tick!r}")
    n = len(state.villagers)
    raw = _stream(state.config.seed, (_TICK_STREAM, tick), n * DRAWS)
    t = _Tick(state, tick)
    for i, v in enumerate(t.vs):
        if not v.here and v.founded == tick:
            t.found(i, raw[i * DRAWS:(i + 1) * DRAWS])
    for i, v in enumerate(t.vs):
        if v.here and v.founded != tick:
            t.act(i, raw[i * DRAWS:(i + 1) * DRAWS])
    t.look()
    after = World(config=state.config, tick=tick + 1, villagers=tuple(t.vs), food=tuple(t.food),
                  grown=tuple(t.grown), sight=t.sight)
    return after, tuple(t.events)
