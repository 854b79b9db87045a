"""The world's rules as properties over many seeded villages: pure, reproducible, conserving."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernel import config as configs
from kernel import engine, world
from kernel import events as ev
from kernel.world.config import from_value
from tests.strategies import villagers


@st.composite
def world_values(draw) -> dict:
    width = draw(st.integers(2, 9))
    height = draw(st.integers(2, 9))
    n = draw(st.integers(2, 5))
    sight = draw(st.integers(1, 4))
    people = draw(villagers(n, width, height, last_founding=30))
    value = configs.thaw(configs.load("world").value)
    value.pop("places", None)    # the shipped places are on the shipped grid, not on this one
    value.update({
        "seed": draw(st.integers(0, 2**64 - 1)),
        "grid": {"width": width, "height": height},
        "sight_cells": sight,
        "reach_cells": draw(st.sampled_from([0.5, 1, 1.5])) if sight >= 1.5 else 1,
        "villagers": people,
    })
    # sociable policies, so gifts and takes happen inside a short run
    value["policy"]["chances_in_10000"].update({
        "give": draw(st.integers(0, 3000)), "take": draw(st.integers(0, 3000)),
        "wander": draw(st.integers(50, 2000)), "gather": draw(st.integers(50, 2000)),
    })
    configs.validate("world", value)
    return value


def make(value: dict) -> world.WorldConfig:
    return from_value(value, digest=configs.digest(value))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(world_values(), st.integers(50, 250))
def test_rerunning_a_config_writes_the_same_bytes(value, ticks):
    cfg = make(value)
    with tempfile.TemporaryDirectory() as d:
        a, b = Path(d, "a.log"), Path(d, "b.log")
        ra = engine.run_world(cfg, ticks, a)
        rb = engine.run_world(make(value), ticks, b)
        assert a.read_bytes() == b.read_bytes()
        assert ra.head_hex == rb.head_hex


@settings(max_examples=15, deadline=None)
@given(world_values(), st.integers(20, 200))
def test_step_is_a_function_of_the_state_and_the_tick_alone(value, at):
    cfg = make(value)
    w = world.initial(cfg)
    for t in range(at):
        w, _ = world.step(w, t)
    again_w, again_e = world.step(w, at)
    once_w, once_e = world.step(w, at)
    assert again_w == once_w and again_e == once_e


@settings(max_examples=15, deadline=None)
@given(world_values(), st.integers(50, 300))
def test_food_and_hands_stay_within_bounds_and_parcels_are_conserved(value, ticks):
    cfg = make(value)
    w = world.initial(cfg)
    for fr in engine.world_frames(cfg, ticks):
        before = {v.id: v.hands for v in w.villagers}
        moved = {v.id: 0 for v in w.villagers}
        for e in fr.events:
            if isinstance(e, ev.Gave):
                moved[e.giver] -= e.parcels
                moved[e.receiver] += e.parcels
                assert e.parcels > 0 and e.milligrams == e.parcels * cfg.policy.parcel
            elif isinstance(e, ev.Took):
                moved[e.taker] += e.parcels
                moved[e.owner] -= e.parcels
            elif isinstance(e, ev.Gathered):
                moved[e.villager] += e.parcels
            elif isinstance(e, ev.Ate):
                assert 0 < e.milligrams <= max(cfg.policy.mouthful, cfg.policy.parcel)
        w = fr.world
        for v in w.villagers:
            assert 0 <= v.hands <= cfg.policy.hands_max
            eaten_from_hands = before[v.id] + moved[v.id] - v.hands
            assert eaten_from_hands in (0, 1)  # at most one parcel a tick goes into a mouth
        for y in range(cfg.height):
            for x in range(cfg.width):
                assert 0 <= w.food_at(x, y) <= cfg.food_max


@settings(max_examples=15, deadline=None)
@given(world_values(), st.integers(40, 200))
def test_each_villager_is_founded_once_at_its_founding_tick(value, ticks):
    cfg = make(value)
    founded = [(fr.tick, e.villager) for fr in engine.world_frames(cfg, ticks)
               for e in fr.events if isinstance(e, ev.Founded)]
    want = sorted((p.founded, p.id) for p in cfg.people if p.founded < ticks)
    assert sorted(founded) == want
