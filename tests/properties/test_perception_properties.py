"""Perception's rules as properties over seeded villages and arbitrary tables."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernel import engine, world
from kernel import events as ev
from kernel.laws.importance import Importance
from kernel.laws.perception import perceive, start
from tests.strategies import importance_tables as tables
from tests.strategies import world_events, worlds

RULES = engine.load_rules()


def _fold(rules, frames):
    """Every row of these frames, through the engine's memory projection."""
    mem = engine.MemoryProjection(rules)
    for tick, events in frames:
        mem.apply(tick, events)
    return mem.rows
SLOW = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def day(cfg: world.WorldConfig, ticks: int, rules: Importance = RULES):
    frames = list(engine.world_frames(cfg, ticks))
    rows = _fold(rules, ((f.tick, f.events) for f in frames))
    return frames, rows


@given(tables, st.sampled_from([("did", "gift"), ("saw", "take"), ("heard", "plea")]),
       st.integers(0, 10**9), st.booleans())
def test_a_weight_is_always_between_1_and_10(table, row, milligrams, first):
    kind, event = row
    assert 1 <= table.weigh(kind, event, first=first, milligrams=milligrams) <= 10
    assert 1 <= table.thought().weigh(first) <= 10


@given(tables, st.lists(st.tuples(
    st.sampled_from([("did", "gift"), ("saw", "take"), ("heard", "plea"), ("did", "meal")]),
    st.integers(0, 60_000)), min_size=1, max_size=40), st.integers(0, 3))
def test_the_fold_weighs_a_row_as_the_table_does_whether_or_not_it_kept_the_answer(
        table, asks, room):
    from kernel.laws import perception

    kept = perception._Table(table)
    was, perception._KNOWN = perception._KNOWN, room  # a small store, so it fills up
    try:
        for key, mg in asks + asks:  # every answer asked for twice, the second time kept
            want = (table.weigh(*key, first=False, milligrams=mg),
                    table.weigh(*key, first=True, milligrams=mg))
            assert kept.weights(key, mg) == want
            assert kept.weights(key, True) is None  # not a count of milligrams: weigh judges it
        assert len(kept.known) <= room
    finally:
        perception._KNOWN = was


@SLOW
@given(worlds(), tables)
def test_every_row_a_day_gives_weighs_between_1_and_10(cfg, table):
    _, rows = day(cfg, 300, table)
    assert all(1 <= m.weight <= 10 for m in rows)


@SLOW
@given(worlds(), st.integers(1, 5))
def test_the_first_of_kind_bonus_applies_once_per_kind_per_villager(cfg, bonus):
    # base 1 and no bands: a row weighs 1 + bonus exactly when it is the first of its kind
    table = Importance(base=tuple(sorted((k, 1) for k, _ in RULES.base)),
                       first_bonus=bonus, bands=(), meal_run=RULES.meal_run,
                       journey_run=RULES.journey_run)
    _, rows = day(cfg, 400, table)
    seen: set = set()
    for m in rows:
        key = (m.villager, m.kind, m.event)
        assert m.weight == (1 if key in seen else 1 + bonus), m
        seen.add(key)


@SLOW
@given(worlds())
def test_every_row_is_about_villagers_that_exist(cfg):
    frames, rows = day(cfg, 300)
    founded_at = {p.id: p.founded for p in cfg.people}
    for m in rows:
        assert m.villager in founded_at and founded_at[m.villager] <= m.tick
        for who in m.about:
            assert who in founded_at and founded_at[who] <= m.tick, m


@SLOW
@given(worlds())
def test_perception_never_gives_a_row_about_someone_out_of_sight(cfg):
    # Sight is checked against the world's own geometry, not perception's
    # bookkeeping: the other must be within the radius before or after the tick.
    frames = list(engine.world_frames(cfg, 300))
    before = world.initial(cfg)
    state = start(RULES)
    for fr in frames:
        state, rows = perceive(state, fr.tick, fr.events)
        for m in rows:
            for who in m.about:
                if who == m.villager:
                    continue
                near = [
                    w.by_id(who).here and world.distance(w.by_id(m.villager), w.by_id(who)) <= cfg.sight
                    for w in (before, fr.world)
                ]
                assert any(near), m
        before = fr.world


@SLOW
@given(worlds())
def test_ids_are_dense_and_in_log_order(cfg):
    _, rows = day(cfg, 300)
    assert [m.id for m in rows] == list(range(1, len(rows) + 1))
    assert [m.tick for m in rows] == sorted(m.tick for m in rows)


@SLOW
@given(worlds(), st.integers(1, 299))
def test_rows_up_to_a_tick_depend_only_on_frames_up_to_it(cfg, cut):
    frames, rows = day(cfg, 300)
    early = _fold(RULES, ((f.tick, f.events) for f in frames if f.tick <= cut))
    assert early == [m for m in rows if m.tick <= cut]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(worlds())
def test_memory_rebuilt_from_the_log_is_the_memory_perceived_while_running(cfg):
    frames, rows = day(cfg, 200)
    with tempfile.TemporaryDirectory() as d:
        log = Path(d, "run.log")
        engine.run_world(cfg, 200, log)
        assert list(engine.memory_of(log, rules=RULES).rows) == rows


@settings(max_examples=30, deadline=None)
@given(st.lists(world_events(ev.CameIntoSight, ev.WentOutOfSight, ev.Gave, ev.Took, ev.Begged,
                            ev.Ate), max_size=40))
def test_on_any_events_a_row_about_another_needs_them_in_sight_as_the_log_says(events):
    state = start(RULES)
    seen: set = set()
    for t, e in enumerate(events):
        state, rows = perceive(state, t, [e])
        if isinstance(e, ev.CameIntoSight):
            seen.add((e.viewer, e.seen))
        for m in rows:
            assert all(w == m.villager or (m.villager, w) in seen for w in m.about), m
        if isinstance(e, ev.WentOutOfSight):
            seen.discard((e.viewer, e.seen))
