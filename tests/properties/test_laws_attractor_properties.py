"""Properties of the attractor over generated sequences of updates, under the
current rules and under the proposed single rule."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernel import laws
from kernel.laws import AttractorUpdate, BasinUpdate, LawError, NewBasin

FAST = settings(max_examples=50, deadline=None)
LABELS = ["systems", "music", "cooking", "tide", "rope"]
RULES = [laws.attractor_update, laws.attractor_update_single]
words = st.sampled_from(
    [
        "Salt",
        "salt",
        "rope",
        "knot",
        "tide",
        "net",
        "boat",
        "gull",
        "wind",
        "oar",
        "sail",
        "fish",
        "reef",
    ]
)


@st.composite
def updates(draw, present: tuple[str, ...]):
    listed = (
        draw(st.lists(st.sampled_from(present), unique=True, max_size=len(present)))
        if present
        else []
    )
    basins = tuple(
        BasinUpdate(
            s,
            draw(st.floats(-2.0, 2.0)),
            tuple(draw(st.lists(words, max_size=4))),
            tuple(draw(st.lists(words, max_size=2))),
        )
        for s in listed
    )
    news = tuple(
        NewBasin(label, tuple(draw(st.lists(words, max_size=12))))
        for label in draw(st.lists(st.sampled_from(LABELS), max_size=2))
    )
    will_have = sorted(set(present) | {n.label for n in news})
    pairs = (
        draw(
            st.lists(
                st.tuples(st.sampled_from(will_have), st.sampled_from(will_have)).filter(
                    lambda p: p[0] != p[1]
                ),
                max_size=3,
            )
        )
        if len(will_have) > 1
        else []
    )
    return AttractorUpdate(
        basins, news, tuple(pairs), tuple(draw(st.lists(words, max_size=7))), draw(st.booleans())
    )


@st.composite
def histories(draw):
    """A seeded attractor, a rule, and the states after each of a run of updates."""
    rule = draw(st.sampled_from(RULES))
    state = laws.attractor_seed(draw(st.lists(st.sampled_from(LABELS), unique=True, max_size=4)))
    states = [state]
    for _ in range(draw(st.integers(1, 12))):
        state = rule(state, draw(updates(tuple(b.slug for b in state.basins))))
        states.append(state)
    return rule, states


@FAST
@given(histories())
def test_attractor_weights_stay_in_five_hundredths_to_one(history):
    _, states = history
    assert all(0.05 <= b.weight <= 1.0 for s in states for b in s.basins)


@FAST
@given(histories())
def test_connections_are_symmetric_and_never_removed(history):
    _, states = history
    for before, after in zip(states, states[1:], strict=False):
        links = {b.slug: set(b.connections) for b in after.basins}
        assert all(a in links[b] for a, bs in links.items() for b in bs)
        assert all(set(b.connections) <= links[b.slug] for b in before.basins)


@FAST
@given(histories())
def test_a_basin_keeps_at_most_ten_keywords_each_once_ignoring_case(history):
    _, states = history
    for s in states:
        for b in s.basins:
            assert len(b.keywords) <= 10
            assert len({k.casefold() for k in b.keywords}) == len(b.keywords)


@FAST
@given(histories())
def test_basins_are_never_removed_and_updates_are_counted(history):
    _, states = history
    for n, (before, after) in enumerate(zip(states, states[1:], strict=False), 1):
        assert [b.slug for b in before.basins] == [b.slug for b in after.basins][
            : len(before.basins)
        ]
        assert after.updates == n
        assert len(after.emerging) <= 5


@FAST
@given(histories())
def test_entropy_is_in_0_to_1_and_blind_to_scale(history):
    _, states = history
    for s in states:
        h = laws.entropy(s)
        assert 0.0 <= h <= 1.0
        assert laws.entropy([3 * w for w in s.weights]) == pytest.approx(h, abs=1e-9)


@FAST
@given(histories())
def test_the_trajectory_is_one_of_four_labels(history):
    _, states = history
    assert {laws.trajectory(s) for s in states} <= {
        laws.CONVERGING,
        laws.RESTRUCTURING,
        laws.DIVERGING,
        laws.STABLE,
    }


@FAST
@given(st.floats(0.05, 1.0), st.integers(0, 60))
def test_an_untouched_basin_keeps_0_95_to_the_n_of_its_gap_to_0_3(w, n):
    state = laws.AttractorState(basins=(laws.Basin("a", "a", w, trajectory=(w,)),))
    for _ in range(n):
        state = laws.attractor_update(state, AttractorUpdate())
    assert state.basin("a").weight - 0.3 == pytest.approx((w - 0.3) * 0.95**n, abs=1e-12)
    if n >= 14:
        assert abs(state.basin("a").weight - 0.3) <= abs(w - 0.3) / 2 + 1e-12


@FAST
@given(histories(), st.data())
def test_under_the_single_rule_a_zero_delta_is_the_same_as_leaving_a_basin_out(history, data):
    _, states = history
    state = states[-1]
    if not state.basins:
        return
    slug = data.draw(st.sampled_from([b.slug for b in state.basins]))
    assert laws.attractor_update_single(
        state, AttractorUpdate(basins=(BasinUpdate(slug, 0.0),))
    ) == laws.attractor_update_single(state, AttractorUpdate())


@FAST
@given(st.sampled_from(RULES), st.sampled_from([math.nan, math.inf, -math.inf]))
def test_a_non_finite_delta_is_refused_by_either_rule(rule, bad):
    state = laws.attractor_seed(["music"])
    with pytest.raises(LawError):
        rule(state, AttractorUpdate(basins=(BasinUpdate("music", bad),)))


@FAST
@given(histories(), st.data())
def test_an_update_returns_a_new_state_and_leaves_the_old_one_as_it_was(history, data):
    rule, states = history
    before = states[-1]
    snapshot = laws.AttractorState(before.basins, before.phase, before.updates, before.emerging)
    rule(before, data.draw(updates(tuple(b.slug for b in before.basins))))
    assert before == snapshot
