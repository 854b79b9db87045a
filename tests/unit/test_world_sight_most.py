"""A villager keeps at most `sight_max_villagers` others in sight: its nearest, each among the other's.

Without the bound, a crowd on one cell sees all of itself, so who sees whom,
and the events and memories of it, grow with the square of the crowd. These
tests hold both searches (the small village's sweep and the large one's
buckets, the crowd's blocks cut small so a bucket takes many) to one
rule written out plainly here, the step to it on crowded worlds either way,
and the default to a bound no committed world reaches.
"""

from __future__ import annotations

import importlib
import random
from collections import Counter
from math import isqrt

import numpy as np
import pytest

from kernel import config as configs
from kernel import world
from kernel.errors import ConfigError
from kernel.world.config import SIGHT_MOST, from_value
from tests.unit.test_world_spatial import SOCIABLE, make, village_value

step_module = importlib.import_module("kernel.world.step")


def _nearest_rule(who, px, py, radius, most, ids) -> dict[tuple[int, int], int]:
    """The rule, pair by pair: within the radius, and each among the other's `most` nearest
    (by squared distance, then id)."""
    near: dict[int, list[tuple[int, int, int]]] = {}
    for a, i in enumerate(who):
        for j in who[a + 1:]:
            d2 = (px[i] - px[j]) ** 2 + (py[i] - py[j]) ** 2
            if isqrt(d2) <= radius:
                near.setdefault(i, []).append((d2, ids[j], j))
                near.setdefault(j, []).append((d2, ids[i], i))
    top = {i: {j for *_, j in sorted(got)[:most]} for i, got in near.items()}
    return {(i, j): (px[i] - px[j]) ** 2 + (py[i] - py[j]) ** 2
            for i in top for j in top[i] if i < j and i in top[j]}


def _ranks(ids: list[int]) -> np.ndarray:
    rank = np.empty(len(ids), dtype=np.int64)
    rank[np.argsort(np.array(ids, dtype=np.int64), kind="stable")] = np.arange(len(ids))
    return rank


@pytest.mark.parametrize("block", [1 << 20, 7])
def test_both_searches_keep_exactly_the_pairs_each_among_the_others_nearest(monkeypatch, block):
    monkeypatch.setattr(step_module, "_BLOCK", block)
    rng = random.Random(block)
    for _ in range(150):
        n = rng.randint(0, 90)
        side = rng.randint(1, 3000)
        radius = rng.choice([0, 1, 600, 1000, 3000, rng.randint(0, 5000)])
        unit = rng.choice([1, 50])   # on a lattice, many stand at one distance and ids decide
        px = [rng.randint(0, side) // unit * unit for _ in range(n)]
        py = [rng.randint(0, side) // unit * unit for _ in range(n)]
        who = sorted(rng.sample(range(n), rng.randint(0, n)))
        most = rng.choice([1, 2, 3, 5, 10, 64])
        ids = [i * 7 + 1 for i in rng.sample(range(n), n)]
        want = _nearest_rule(who, px, py, radius, most, ids)
        a, b, d2 = step_module._pairs_by_arrays(who, px, py, radius, most, _ranks(ids))
        got = {(min(int(i), int(j)), max(int(i), int(j))): int(d) for i, j, d in zip(a, b, d2, strict=True)}
        assert got == want and len(a) == len(got)
        a, b, d2 = step_module._nearest_of_lists(*step_module._pairs_by_sweep(who, px, py, radius),
                                                 tuple(ids), most)
        got = {(min(i, j), max(i, j)): d for i, j, d in zip(a, b, d2, strict=True)}
        assert got == want and len(a) == len(got)


def _crowd(n: int, most: int | None, seed: int = 5) -> dict:
    value = village_value(n, 2, 2, seed, chances=SOCIABLE, sight_cells=3)
    if most is not None:
        value["sight_max_villagers"] = most
    configs.validate("world", value)
    return value


def _run(value: dict, ticks: int):
    w = world.initial(make(value))
    out = []
    for t in range(ticks):
        w, events = world.step(w, t)
        out.append((events, w.sight))
    return out


@pytest.mark.parametrize("most", [1, 4, 9])
def test_a_crowd_steps_the_same_by_either_search_and_nobody_sees_more_than_the_bound(
        monkeypatch, most):
    small = _run(_crowd(120, most), 60)
    monkeypatch.setattr(step_module, "_VECTOR_FROM", 1)
    large = _run(_crowd(120, most), 60)
    assert small == large
    for _, sight in small:
        seen = Counter(v for pair in sight for v in pair)
        assert max(seen.values(), default=0) <= most


def test_a_world_whose_crowd_stays_within_the_bound_steps_as_with_no_bound():
    # 30 on four cells see at most 29 each: under the default bound nothing is left out.
    assert SIGHT_MOST >= 29
    assert _run(_crowd(30, None), 80) == _run(_crowd(30, 100_000), 80)


def test_sight_max_villagers_must_be_a_whole_number_from_1():
    for bad in (0, -1, 2.5, "8"):
        with pytest.raises(ConfigError, match="sight_max_villagers"):
            configs.validate("world", {**_crowd(3, None), "sight_max_villagers": bad})
    assert from_value(_crowd(3, None), digest="x").sight_most == SIGHT_MOST
