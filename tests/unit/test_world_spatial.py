"""Sight and reach through the spatial index give the same village as the pairwise rule.

The world once found who sees whom by checking every villager against
every other, and who is within reach the same way. That rule is kept here,
whole, as the reference (`PairwiseWorld`): the world step as it stood,
villagers as frozen objects, the pairwise `near` and `look`. The step in
kernel.world must give the same events, byte for byte, tick by tick, for
any world; these tests hold it to that on seeded and random worlds of at
most 64 villagers and 300 ticks, and on every committed scenario of at most
64 villagers for all its ticks (the pairwise rule is quadratic, so larger
worlds are held to their committed head hash by `village replay`). Large
worlds take the step's array path; the tests send small ones down it too
by lowering `_VECTOR_FROM`.

The bench imports `PairwiseWorld` from this file to measure the step
against it; nothing in kernel/ may import it.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import random
from dataclasses import dataclass, replace
from math import isqrt

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernel import config as configs
from kernel import events as ev
from kernel import world
from kernel.world.config import WorldConfig, from_value

# kernel.world's `step` is the function; the module is its owner.
step_module = importlib.import_module("kernel.world.step")

# -- the reference: the pairwise rule, as the world step once was ------------------


@dataclass(frozen=True, slots=True)
class _V:
    id: int
    name: str
    founded: int
    here: bool
    px: int
    py: int
    belly: int
    hands: int
    dest: tuple[int, int] | None
    eating: bool

    @property
    def cell(self) -> tuple[int, int]:
        return self.px // 1000, self.py // 1000


def _raw(seed: int, key: tuple[int, ...], n: int) -> list[int]:
    ss = np.random.SeedSequence(entropy=seed, spawn_key=key)
    return np.random.PCG64(ss).random_raw(n).tolist() if n else []


def _dist(a: _V, b: _V) -> int:
    dx, dy = a.px - b.px, a.py - b.py
    return isqrt(dx * dx + dy * dy)


def _sign(n: int) -> int:
    return (n > 0) - (n < 0)


def _spot(cell: int, word: int) -> int:
    return cell * 1000 + 100 + word % 801


class PairwiseWorld:
    """The world step with every villager checked against every other, for sight and for reach."""

    def __init__(self, cfg: WorldConfig):
        self.cfg = cfg
        self.pol = cfg.policy
        self.tick = 0
        lo, hi = cfg.food_start
        self.food = [lo + r % (hi - lo + 1) for r in _raw(cfg.seed, (1,), cfg.width * cfg.height)]
        self.grown = [0] * (cfg.width * cfg.height)
        self.vs = [_V(id=p.id, name=p.name, founded=p.founded, here=False, px=p.x * 1000 + 500,
                      py=p.y * 1000 + 500, belly=cfg.policy.belly_start, hands=0, dest=None,
                      eating=False) for p in cfg.people]
        self.sight: frozenset[tuple[int, int]] = frozenset()
        self.index = {v.id: i for i, v in enumerate(self.vs)}

    @classmethod
    def at(cls, w: world.World) -> PairwiseWorld:
        """The pairwise world standing where `w` stands, to step on from there."""
        ref = cls(w.config)
        ref.tick = w.tick
        ref.food, ref.grown, ref.sight = list(w.food), list(w.grown), w.sight
        ref.vs = [_V(**{f: getattr(v, f) for f in _V.__slots__}) for v in w.villagers]
        return ref

    def food_here(self, x: int, y: int) -> int:
        i = y * self.cfg.width + x
        return min(self.cfg.food_max, self.food[i] + self.cfg.regrow * (self.tick - self.grown[i]))

    def remove_food(self, x: int, y: int, mg: int) -> None:
        i = y * self.cfg.width + x
        self.food[i] = self.food_here(x, y) - mg
        self.grown[i] = self.tick

    def near(self, i: int) -> list[int]:
        v = self.vs[i]
        out = []
        for j, u in enumerate(self.vs):
            if j == i or not u.here:
                continue
            pair = (v.id, u.id) if v.id < u.id else (u.id, v.id)
            if pair in self.sight and _dist(v, u) <= self.cfg.reach:
                out.append(j)
        return out

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
        self.vs[i] = replace(self.vs[i], dest=dest, eating=False)
        self.walk(i, d)

    def eat(self, i: int) -> bool:
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

    def act(self, i: int, d: list[int]) -> None:
        pol = self.pol
        v = self.vs[i]
        v = self.vs[i] = replace(v, belly=max(0, v.belly - pol.burn))
        if v.dest is not None:
            self.walk(i, d)
            return
        if v.eating:
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
                return
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
        now: set[tuple[int, int]] = set()
        found: list[ev.Event] = []
        here = [v for v in self.vs if v.here]
        far: dict[tuple[int, int], int] = {}
        for a in range(len(here)):
            va = here[a]
            for b in range(a + 1, len(here)):
                vb = here[b]
                d = _dist(va, vb)
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

    def step(self) -> tuple[ev.Event, ...]:
        """One tick on; its events, in the order they happened."""
        tick = self.tick
        raw = _raw(self.cfg.seed, (0, tick), len(self.vs) * 8)
        self.events: list[ev.Event] = []
        for i, v in enumerate(self.vs):
            if not v.here and v.founded == tick:
                self.found(i, raw[i * 8:(i + 1) * 8])
        for i, v in enumerate(self.vs):
            if v.here and v.founded != tick:
                self.act(i, raw[i * 8:(i + 1) * 8])
        self.look()
        self.tick += 1
        return tuple(self.events)


# -- worlds to compare them on ----------------------------------------------------

SYLLABLES = [o + v for o in "bdfghklmnrstv" for v in "aeiou"]


def village_value(n: int, width: int, height: int, seed: int, *, founded_by: int = 0,
                  sight_cells: float = 3, reach_cells: float = 1.5, chances: dict | None = None,
                  ids: list[int] | None = None) -> dict:
    """The shipped world's policy with `n` villagers placed from `seed` on a `width` by `height` grid."""
    rng = random.Random(seed)
    value = configs.thaw(configs.load("world").value)
    value.pop("places", None)    # the shipped places are on the shipped grid, not on this one
    ids = ids or list(range(1, n + 1))
    value.update({
        "seed": seed,
        "grid": {"width": width, "height": height},
        "sight_cells": sight_cells,
        "reach_cells": reach_cells,
        "villagers": [
            {"id": ids[i], "name": (SYLLABLES[i // len(SYLLABLES)] + SYLLABLES[i % len(SYLLABLES)]).title(),
             "founded": rng.randint(0, founded_by), "x": rng.randrange(width),
             "y": rng.randrange(height)}
            for i in range(n)
        ],
    })
    value["policy"]["chances_in_10000"].update(chances or {})
    configs.validate("world", value)
    return value


def make(value: dict) -> WorldConfig:
    return from_value(value, digest=configs.digest(value))


def first_difference(cfg: WorldConfig, ticks: int) -> str | None:
    """Where the step and the pairwise reference part, or None when every tick's events agree."""
    ref = PairwiseWorld(cfg)
    w = world.initial(cfg)
    for t in range(ticks):
        w, got = world.step(w, t)
        want = ref.step()
        if t == 0:     # a world in words names its places first (no rule of sight or reach)
            want = (*step_module.placed(cfg), *want)
        if got != want:
            return f"tick {t}: the step gave {got}, the pairwise rule {want}"
        if tick_state(w) != tick_state_of(ref):
            return f"tick {t}: same events, but the villagers or food differ"
    return None


def tick_state(w: world.World) -> tuple:
    return (w.villagers, w.food, w.grown, w.sight)


def tick_state_of(ref: PairwiseWorld) -> tuple:
    vs = tuple(step_module.Villager(**{f: getattr(v, f) for f in v.__slots__}) for v in ref.vs)
    return (vs, tuple(ref.food), tuple(ref.grown), ref.sight)


# The shipped policy is shy (gifts and takes are rare); a sociable one makes
# reach matter on most ticks.
SOCIABLE = {"give": 3000, "take": 2500, "wander": 1500, "gather": 1500, "visit": 8000,
            "give_to_hungry": 6000, "beg": 5000}


# -- the rules ----------------------------------------------------------------------


@pytest.mark.parametrize("n,width,height,seed", [
    (3, 12, 10, 20240611),
    (24, 32, 30, 7),
    (64, 50, 50, 11),
    (64, 12, 12, 3),       # crowded: most pairs are in sight on most ticks
])
def test_the_spatial_index_gives_the_same_events_as_the_pairwise_rule(n, width, height, seed):
    cfg = make(village_value(n, width, height, seed, founded_by=20, chances=SOCIABLE))
    assert first_difference(cfg, 300) is None


FIXTURES = configs.home() / "fixtures"
SMALL_SCENARIOS = sorted(
    d.name for d in FIXTURES.iterdir()
    if (d / "world.json").is_file() and (d / "scenario.json").is_file()
    and len(json.loads((d / "world.json").read_text())["villagers"]) <= 64
)


@pytest.mark.parametrize("name", SMALL_SCENARIOS)
def test_every_committed_scenario_steps_to_the_same_events_as_under_the_pairwise_rule(name):
    # Larger ones (town-of-1536) are held to their head hash by `village
    # replay`; the pairwise rule would take most of an hour over them.
    cfg = world.load(FIXTURES / name / "world.json")
    ticks = json.loads((FIXTURES / name / "scenario.json").read_text())["ticks"]
    assert first_difference(cfg, ticks) is None


def test_the_array_search_gives_the_same_events_as_the_pairwise_rule(monkeypatch):
    monkeypatch.setattr(step_module, "_VECTOR_FROM", 1)
    cfg = make(village_value(64, 20, 20, 5, founded_by=20, chances=SOCIABLE))
    assert first_difference(cfg, 300) is None


@pytest.mark.parametrize("seed,sight,forage,grams,regrow,side", [
    (1, 0.3, 5, (0, 3), 40, 7), (2, 0.5, 3, (0, 3), 40, 7), (4, 0.2, 0, (0, 3), 40, 7),
    (1, 0.3, 2, (0, 8), 5, 6), (2, 0.3, 4, (0, 8), 20, 6), (3, 0.3, 2, (0, 30), 5, 6),
    (5, 0.3, 4, (78, 80), 40, 7),
])
def test_crowded_short_sighted_hungry_villages_step_as_under_the_pairwise_rule(
        monkeypatch, seed, sight, forage, grams, regrow, side):
    # Short sight on a crowded grid: villagers who see nobody share cells
    # and stand within forage range of the hungry, where an act taken out of
    # turn would show (a forager weighing a cell after a mouthful that comes
    # later in the order picks another). Bellies start near hunger; thin
    # food runs out, so meals go to the hands and stop.
    monkeypatch.setattr(step_module, "_VECTOR_FROM", 1)
    value = village_value(64, side, side, seed, founded_by=15, sight_cells=sight,
                          reach_cells=min(sight, 0.3), chances=SOCIABLE)
    value["policy"].update(belly_start_grams=21, forage_cells=forage)
    value["food"].update(start_grams_min=grams[0], start_grams_max=grams[1],
                         regrow_milligrams_per_tick=regrow)
    assert first_difference(make(value), 300) is None


def test_ids_out_of_config_order_keep_the_pairwise_rules_orders():
    # `near` keeps the config's order and `visit` the order of ids; they
    # part when ids do not rise with position in the config.
    ids = random.Random(9).sample(range(1, 1000), 40)
    cfg = make(village_value(40, 14, 14, 9, founded_by=10, chances=SOCIABLE, ids=ids))
    assert first_difference(cfg, 300) is None


@pytest.mark.parametrize("sight,reach", [(0.001, 0.001), (1, 0.5), (2.5, 2.5), (7, 1)])
def test_radii_at_the_edges_of_a_bucket_give_the_same_events_as_the_pairwise_rule(sight, reach):
    cfg = make(village_value(48, 16, 16, 13, founded_by=5, sight_cells=sight,
                             reach_cells=reach, chances=SOCIABLE))
    assert first_difference(cfg, 200) is None


@pytest.mark.parametrize("vector_from", [1, 10**9])
def test_both_searches_find_exactly_the_pairs_within_the_radius(vector_from):
    rng = random.Random(vector_from)
    search = step_module._pairs_by_arrays if vector_from == 1 else step_module._pairs_by_sweep
    for _ in range(200):
        n = rng.randint(0, 60)
        side = rng.randint(1, 9000)
        radius = rng.choice([0, 1, 599, 600, 999, 1000, 1001, 2400, 3000, rng.randint(0, 5000)])
        # On a lattice of 600 and 800, many pairs stand exactly at a radius
        # (600, 800, 1000, 1200, ...), where `<` and `<=` part.
        unit = rng.choice([1, 200])
        px = [rng.randint(0, side) // unit * unit * 3 for _ in range(n)]
        py = [rng.randint(0, side) // unit * unit * 4 for _ in range(n)]
        who = sorted(rng.sample(range(n), rng.randint(0, n)))
        found = list(zip(*(list(map(int, c)) for c in search(who, px, py, radius)), strict=True))
        got = {(min(i, j), max(i, j)): d2 for i, j, d2 in found}
        want = {(i, j): (px[i] - px[j]) ** 2 + (py[i] - py[j]) ** 2
                for a, i in enumerate(who) for j in who[a + 1:]
                if isqrt((px[i] - px[j]) ** 2 + (py[i] - py[j]) ** 2) <= radius}
        assert got == want
        assert len(got) == len(found)  # no pair found twice


@pytest.mark.parametrize("vector_from", [1, 10**9])
def test_a_step_leaves_the_world_it_was_given_as_it_was(monkeypatch, vector_from):
    monkeypatch.setattr(step_module, "_VECTOR_FROM", vector_from)
    cfg = make(village_value(30, 10, 10, 4, chances=SOCIABLE))
    w = world.initial(cfg)
    for t in range(50):
        w, _ = world.step(w, t)
    before = (tick_state(w), w.food_mg, w.grown_at)
    world.step(w, 50)
    assert (tick_state(w), w.food_mg, w.grown_at) == before


def test_the_pairwise_world_steps_on_from_any_world_as_the_step_does():
    cfg = make(village_value(40, 12, 12, 21, founded_by=30, chances=SOCIABLE))
    w = world.initial(cfg)
    for t in range(120):
        w, _ = world.step(w, t)
    ref = PairwiseWorld.at(w)
    for t in range(120, 200):
        w, got = world.step(w, t)
        assert got == ref.step()


@pytest.mark.parametrize("vector_from", [1, 10**9])
def test_a_world_made_with_another_sight_is_stepped_by_that_sight(monkeypatch, vector_from):
    # The step keeps who-saw-whom beside `sight` to save rebuilding it; a
    # World copied with another sight must not be stepped by the old one.
    monkeypatch.setattr(step_module, "_VECTOR_FROM", vector_from)
    cfg = make(village_value(40, 8, 8, 17, chances=SOCIABLE))
    w = world.initial(cfg)
    for t in range(60):
        w, _ = world.step(w, t)
    assert w.sight
    blind = dataclasses.replace(w, sight=frozenset())
    ref = PairwiseWorld.at(blind)
    for t in range(60, 90):
        blind, got = world.step(blind, t)
        assert got == ref.step()


@pytest.mark.parametrize("vector_from", [1, 10**9])
def test_a_world_whose_spots_were_moved_is_seen_anew_even_in_a_tick_nobody_walks(
        monkeypatch, vector_from):
    # A tick in which nobody founds or walks keeps the last tick's sight; that holds only
    # for the spots the step itself left, never for a World copied with others.
    monkeypatch.setattr(step_module, "_VECTOR_FROM", vector_from)
    cfg = make(village_value(40, 8, 8, 17, chances={**SOCIABLE, "wander": 0}))
    w = world.initial(cfg)
    for t in range(60):
        w, _ = world.step(w, t)
    # every other villager's spot mirrored across the grid, inside it
    moved = dataclasses.replace(w, px=tuple((7 - x // 1000) * 1000 + x % 1000 if i % 2 else x
                                            for i, x in enumerate(w.px)))
    ref = PairwiseWorld.at(moved)
    stills = 0
    for t in range(60, 90):
        moved, got = world.step(moved, t)
        assert got == ref.step()
        stills += not any(isinstance(e, ev.Walked | ev.Founded) for e in got)
    assert stills  # the rule under test had ticks to act in


def test_a_tick_in_which_nobody_founds_or_walks_keeps_who_sees_whom():
    cfg = make(village_value(40, 8, 8, 17, chances={**SOCIABLE, "wander": 0}))
    w = world.initial(cfg)
    kept = 0
    for t in range(120):
        before = w.sight
        w, got = world.step(w, t)
        if not any(isinstance(e, ev.Walked | ev.Founded) for e in got):
            assert w.sight == before
            assert not any(isinstance(e, ev.CameIntoSight | ev.WentOutOfSight) for e in got)
            kept += 1
    assert kept


@st.composite
def worlds(draw) -> dict:
    n = draw(st.integers(1, 64))
    width = draw(st.integers(1, 24))
    height = draw(st.integers(1, 24))
    sight = draw(st.sampled_from([0.5, 1, 1.5, 2, 3, 4.2]))
    reach = draw(st.sampled_from([r for r in (0.3, 0.5, 1, 1.5, 3) if r <= sight]))
    chances = {k: draw(st.integers(0, 10000)) for k in
               ("wander", "visit", "gather", "give_to_hungry", "give", "take", "beg")}
    return village_value(n, width, height, draw(st.integers(0, 2**64 - 1)),
                         founded_by=draw(st.integers(0, 40)), sight_cells=sight,
                         reach_cells=reach, chances=chances)


@settings(max_examples=25)
@given(worlds(), st.integers(1, 300), st.booleans())
def test_any_world_steps_to_the_same_events_as_under_the_pairwise_rule(value, ticks, arrays):
    old = step_module._VECTOR_FROM
    step_module._VECTOR_FROM = 1 if arrays else 10**9
    try:
        assert first_difference(make(value), ticks) is None
    finally:
        step_module._VECTOR_FROM = old
