"""The hypothesis strategies more than one test draws from: small random worlds and their
villagers, perception's importance tables, world events, memory rows with their vectors and a
query, retrieval settings, and the bad config files a careless or hostile hand writes.

Each is the one definition its tests share, with the ranges those tests drew before, so a
property keeps its rule and its examples' reach wherever it is written. A strategy only one test
uses stays in that test. This module draws values; it asserts nothing and runs nothing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
from hypothesis import strategies as st

from kernel import config as configs
from kernel import events as ev
from kernel import laws
from kernel.laws.importance import Importance
from kernel.laws.memory import Memory
from kernel.world.config import WorldConfig, from_value


def examples(n: int) -> int:
    """A property's example count: `n` in the whole suite (`make test`), hypothesis's default of
    100 at most in the fast tier (`make check` sets VILLAGE_TESTS=check), so a raised count
    buys reach where there is time for it and the law is still tried between edits."""
    return min(n, 100) if os.environ.get("VILLAGE_TESTS") == "check" else n


NAMES = ("Halla", "Ander", "Mose", "Ilse", "Bram", "Sif")
"""Villagers' names, by position: a world of n villagers has the first n."""


@st.composite
def villagers(draw, n: int, width: int, height: int, *, last_founding: int,
              id_step: int = 1) -> list[dict]:
    """The config's list of `n` villagers (ids id_step, 2 * id_step, ...), each founded at a tick
    up to `last_founding` on a cell of a `width` by `height` grid."""
    return [
        {"id": id_step * (i + 1), "name": NAMES[i], "founded": draw(st.integers(0, last_founding)),
         "x": draw(st.integers(0, width - 1)), "y": draw(st.integers(0, height - 1))}
        for i in range(n)
    ]


@st.composite
def worlds(draw, most: int = 5) -> WorldConfig:
    """A world of 2 to `most` villagers (at most 6) on a grid of at most 8 by 8, founded in
    its first 20 ticks, under a busy policy (gifts, takes, pleas, gathers) and a random seed."""
    width, height = draw(st.integers(2, 8)), draw(st.integers(2, 8))
    n = draw(st.integers(2, most))
    value = configs.thaw(configs.load("world").value)
    value.pop("places", None)    # the shipped places are on the shipped grid, not on this one
    value.update({
        "seed": draw(st.integers(0, 2**63)),
        "grid": {"width": width, "height": height},
        "sight_cells": draw(st.sampled_from([1.5, 2, 3])),
        "reach_cells": 1.5,
        "villagers": draw(villagers(n, width, height, last_founding=20, id_step=10)),
    })
    value["policy"]["chances_in_10000"].update(
        {"give": 2000, "take": 1500, "beg": 5000, "wander": 300, "gather": 800})
    value["policy"]["burn_milligrams_per_tick"] = draw(st.sampled_from([50, 200, 400]))
    configs.validate("world", value)
    return from_value(value, digest=configs.digest(value))


# An importance table: one base weight for every row, a first-of-kind bonus, up to three bands
# of grams, and one run length for meals and journeys.
importance_tables = st.builds(
    lambda base, bonus, bands, run: Importance.from_value({
        "base": {
            "did": {k: base for k in ("founding", "walk", "meal", "gather", "gift", "take", "plea")},
            "saw": {k: base for k in ("sighting", "parting", "gift", "take")},
            "heard": {"plea": base}, "thought": {"reflection": base}},
        "first_bonus": bonus,
        "grams_bands": [{"grams_at_least": g, "add": a} for g, a in bands],
        "meal_run_mouthfuls": run, "journey_run_steps": run}),
    st.integers(1, 10), st.integers(0, 9),
    st.lists(st.tuples(st.integers(0, 40), st.integers(0, 9)), max_size=3), st.integers(1, 60),
)

_villager = st.integers(1, 4)
_WORLD_EVENTS = {
    ev.Founded: st.builds(ev.Founded, villager=_villager, name=st.sampled_from(NAMES),
                          x=st.integers(0, 9), y=st.integers(0, 9)),
    ev.CameIntoSight: st.builds(ev.CameIntoSight, viewer=_villager, seen=_villager,
                                millicells=st.integers(0, 5000)),
    ev.WentOutOfSight: st.builds(ev.WentOutOfSight, viewer=_villager, seen=_villager),
    ev.Gave: st.builds(ev.Gave, giver=_villager, receiver=_villager, parcels=st.integers(1, 50),
                       milligrams=st.integers(0, 30000)),
    ev.Took: st.builds(ev.Took, taker=_villager, owner=_villager, parcels=st.integers(1, 50),
                       milligrams=st.integers(0, 30000)),
    ev.Begged: st.builds(ev.Begged, villager=_villager, x=st.integers(0, 9), y=st.integers(0, 9)),
    ev.Gathered: st.builds(ev.Gathered, villager=_villager, x=st.integers(0, 2),
                           y=st.integers(0, 2), parcels=st.integers(1, 5),
                           milligrams=st.integers(-5, 30000)),
    ev.Ate: st.builds(ev.Ate, villager=_villager, x=st.integers(0, 2), y=st.integers(0, 2),
                      mouthfuls=st.integers(1, 60), milligrams=st.integers(0, 30000)),
    ev.Walked: st.builds(ev.Walked, villager=_villager, from_x=st.integers(0, 2),
                         from_y=st.integers(0, 2), to_x=st.integers(0, 2), to_y=st.integers(0, 2)),
}


def world_events(*kinds: type[ev.Event]) -> st.SearchStrategy[ev.Event]:
    """Any one event of these kinds (every world kind if none is named) among villagers 1 to 4,
    on small cells and amounts, each field free of the world's rules: what a fold must take or
    refuse, not what a step would write."""
    return st.one_of(*(_WORLD_EVENTS[k] for k in kinds or _WORLD_EVENTS))


@st.composite
def memory_rows(draw, *, least: int, most: int, top_id: int, last_tick: int) -> list[Memory]:
    """`least` to `most` sightings with distinct ids up to `top_id`, of villager 1, at ticks up to
    `last_tick`, each of weight 1 to 10."""
    n = draw(st.integers(least, most))
    ids = draw(st.lists(st.integers(0, top_id), min_size=n, max_size=n, unique=True))
    return [Memory(i, 1, draw(st.integers(0, last_tick)), "saw", "sighting", "x",
                   draw(st.integers(1, 10)), ()) for i in ids]


VECTOR_STYLES = ("random", "ties", "near", "zeros")


@st.composite
def vectors(draw, n: int, dim: int, *, styles: tuple[str, ...], dtypes: tuple[type, ...]
            ) -> tuple[np.ndarray, np.ndarray]:
    """`n` vectors of length `dim` in one of `styles` (random; few-valued, so scores tie exactly;
    near-copies of one vector, so scores differ only in the last places; all zero), cast to
    one of `dtypes`, and a query: random, or (if there are rows) a copy of the first vector."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    style = draw(st.sampled_from(styles))
    if style == "random":
        m = rng.standard_normal((n, dim))
    elif style == "ties":
        m = rng.integers(-1, 2, size=(n, dim)).astype(np.float64)
    elif style == "near":
        m = rng.standard_normal(dim) + 1e-6 * rng.standard_normal((n, dim))
    else:
        m = np.zeros((n, dim))
    dtype = draw(st.sampled_from(dtypes))
    q = rng.standard_normal(dim) if n == 0 or draw(st.booleans()) else m[0] + 0.0
    return m.astype(dtype), q


RETRIEVAL_WEIGHTS = ((1.0, 1.0, 3.0), (0.0, 0.0, 1.0), (0.5, 2.0, 3.0), (1.0, 0.0, -1.0))


def retrievals(*, most_k: int, weights: tuple[tuple[float, float, float], ...] = RETRIEVAL_WEIGHTS,
               importances: tuple[str, ...] = ()) -> st.SearchStrategy[laws.Retrieval]:
    """Retrieval settings: a half-life of 1 to 1000 ticks, one of `weights`, k up to `most_k`,
    and (if any are named) one of `importances`, else the default importance."""
    more = {"importance": st.sampled_from(importances)} if importances else {}
    return st.builds(laws.Retrieval, half_life=st.sampled_from([1, 50, 250, 1000]),
                     weights=st.sampled_from(weights), k=st.integers(0, most_k), **more)


# JSON a model or a hand might write: the scalars of strict JSON, and the hostile ones a reader
# must refuse in one line (NaN, the infinities, integers past any float).
JSON_SCALARS = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                | st.text(max_size=20))
HOSTILE_SCALARS = (st.none() | st.booleans() | st.integers()
                   | st.integers(min_value=-(10 ** 40), max_value=10 ** 40)
                   | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=20))


def json_values(scalars: st.SearchStrategy = JSON_SCALARS, *, key_size: int = 10,
                leaves: int = 12) -> st.SearchStrategy:
    """Any JSON value of these scalars in lists and objects of up to four, object keys up to
    `key_size` characters long, at most `leaves` scalars in all."""
    return st.recursive(scalars, lambda kids: st.lists(kids, max_size=4)
                        | st.dictionaries(st.text(max_size=key_size), kids, max_size=4),
                        max_leaves=leaves)


# -- config files a careless or hostile hand writes -------------------------------------

_REPO = Path(__file__).resolve().parents[1]
SHIPPED = {name: json.loads((_REPO / "configs" / f"{name}.json").read_text(encoding="utf-8"))
           for name in ("world", "importance", "thought", "models")}
SHIPPED["scenario"] = json.loads((_REPO / "fixtures" / "day-of-three" / "scenario.json").read_text())
"""The shipped value of each config a project holds, that `mutated` changes one part of."""

hostile_json = json_values(HOSTILE_SCALARS, key_size=8, leaves=20)


def dumps(v) -> str:
    # allow_nan: NaN and Infinity go in as the literals a hand-written file would hold.
    return json.dumps(v, allow_nan=True)


@st.composite
def nested(draw) -> str:
    """Arrays or objects nested 1 to 100,000 deep around a leaf, closed or left open."""
    depth = draw(st.sampled_from([1, 31, 33, 65, 333, 996, 5_000, 100_000]))
    opener = draw(st.sampled_from(["[", '{"a":', '[{"a":']))
    closer = {"[": "]", '{"a":': "}", '[{"a":': "}]"}[opener]
    inner = draw(st.sampled_from(["1", "[]", '"x"', "NaN", "1e999", "1" + "0" * 5000]))
    closed = draw(st.booleans())
    return opener * depth + inner + (closer * depth if closed else "")


@st.composite
def mutated(draw, name: str) -> str:
    """The shipped file with one leaf (or one subtree) replaced by a random value."""
    v = json.loads(json.dumps(SHIPPED[name]))
    node, key = v, None
    path = []
    while isinstance(node, dict | list) and node:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        key = draw(st.sampled_from(keys))
        path.append((node, key))
        if draw(st.booleans()):
            break
        node = node[key]
    if path:
        parent, key = path[-1]
        parent[key] = draw(hostile_json)
    text = dumps(v)
    if draw(st.booleans()) and isinstance(v, dict) and v:
        k = draw(st.sampled_from(list(v)))      # the same key once more, a later value
        text = text[:-1] + f", {json.dumps(k)}: {dumps(draw(hostile_json))}" + "}"
    return text


def config_bytes(name: str | None = None) -> st.SearchStrategy[bytes]:
    """A file's bytes: random bytes, random JSON, deep nesting, or (for a config `name` that
    ships) the shipped file with one part changed."""
    out = st.binary(max_size=200) | hostile_json.map(dumps).map(str.encode) | nested().map(str.encode)
    return out | mutated(name).map(str.encode) if name is not None else out
