"""The world's policy under plans: a preference among what the draws allow, never a new
act and never a new draw; and no plans is the world as it always was."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernel import config as configs
from kernel import events as ev
from kernel.world.config import from_value
from kernel.world.step import (
    _TICK_STREAM,
    CHANCE,
    DRAWS,
    PICK,
    TAKE,
    Plan,
    _stream,
    initial,
    step,
)
from tests.properties.test_world_properties import world_values

TICKS = 120
SLOW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def worlds_and_plans(draw):
    value = draw(world_values())
    cfg = from_value(value, digest=configs.digest(value))
    ids = [p.id for p in cfg.people]
    plans = {}
    for v in ids:
        others = [i for i in ids if i != v]
        acts = draw(st.lists(st.sampled_from(["seek", "avoid", "share", "forage", "home"]),
                             max_size=3))
        xs = []
        for a in acts:
            if a in ("seek", "avoid", "share"):
                xs.append(Plan(a, whom=draw(st.sampled_from(others))))
            elif a == "forage":
                xs.append(Plan(a, cell=(draw(st.integers(0, cfg.width - 1)),
                                          draw(st.integers(0, cfg.height - 1)))))
            else:
                xs.append(Plan(a))
        plans[v] = tuple(xs)
    return cfg, plans


def _run(cfg, ticks, plans=None):
    w, out = initial(cfg), []
    for t in range(ticks):
        before = w
        w, events = step(w, t, plans)
        out.append((before, events))
    return w, out


@SLOW
@given(worlds_and_plans())
def test_a_world_without_plans_is_the_world_as_it_always_was(case):
    cfg, _ = case
    a, ea = _run(cfg, TICKS)
    b, eb = _run(cfg, TICKS, {})
    c, ec = _run(cfg, TICKS, {p.id: () for p in cfg.people})
    assert [e for _, e in ea] == [e for _, e in eb] == [e for _, e in ec]
    assert a == b == c


@SLOW
@given(worlds_and_plans())
def test_a_plan_never_makes_an_act_the_draws_did_not_allow(case):
    """A gift needs the draw's chance to give, a take the draw's chance to take, and a fed
    villager's setting out the draw's chance to wander, with plans as without."""
    cfg, plans = case
    pol = cfg.policy
    deal = max(pol.give_to_hungry, pol.give)
    index = {p.id: i for i, p in enumerate(cfg.people)}
    _, frames = _run(cfg, TICKS, plans)
    for t, (before, events) in enumerate(frames):
        draws = _stream(cfg.seed, (_TICK_STREAM, t), len(cfg.people) * DRAWS).reshape(-1, DRAWS)
        for e in events:
            if isinstance(e, ev.Gave):
                assert draws[index[e.giver]][CHANCE] % 10000 < deal
            elif isinstance(e, ev.Took):
                assert draws[index[e.taker]][TAKE] % 10000 < pol.take
            elif isinstance(e, ev.Walked):
                i = index[e.villager]
                fed = before.belly[i] - pol.burn >= pol.hungry_below
                journeying = before.dest[i] is not None
                if fed and not journeying and before.here[i]:
                    assert (int(draws[i][PICK]) >> 32) % 10000 < pol.wander


@SLOW
@given(worlds_and_plans())
def test_the_same_world_and_plans_give_the_same_ticks(case):
    cfg, plans = case
    assert _run(cfg, TICKS, plans)[1] == _run(cfg, TICKS, dict(plans))[1]


@SLOW
@given(worlds_and_plans())
def test_a_villager_keeping_away_from_another_never_gives_to_it_or_takes_from_it(case):
    cfg, plans = case
    _, frames = _run(cfg, TICKS, plans)
    for _, events in frames:
        for e in events:
            if isinstance(e, ev.Gave):
                assert Plan("avoid", whom=e.receiver) not in plans[e.giver]
            elif isinstance(e, ev.Took):
                assert Plan("avoid", whom=e.owner) not in plans[e.taker]
                assert Plan("share", whom=e.owner) not in plans[e.taker]
