"""Properties of the basins over generated sequences of updates, under the
current rules and under the proposed single rule."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernel import laws
from kernel.laws import BasinsUpdate, BasinUpdate, LawError, NewBasin

FAST = settings(max_examples=50, deadline=None)
LABELS = ["systems", "music", "cooking", "tide", "rope"]
RULES = [laws.update_basins, laws.update_basins_single]
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
    return BasinsUpdate(
        basins, news, tuple(pairs), tuple(draw(st.lists(words, max_size=7))), draw(st.booleans())
    )


@st.composite
def histories(draw):
    """Seeded basins, a rule, and the states after each of a run of updates."""
    rule = draw(st.sampled_from(RULES))
    state = laws.seed_basins(draw(st.lists(st.sampled_from(LABELS), unique=True, max_size=4)))
    states = [state]
    for _ in range(draw(st.integers(1, 12))):
        state = rule(state, draw(updates(tuple(b.slug for b in state.basins))))
        states.append(state)
    return rule, states


@FAST
@given(histories())
def test_basin_weights_stay_in_five_hundredths_to_one(history):
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
    state = laws.BasinsState(basins=(laws.Basin("a", "a", w, trajectory=(w,)),))
    for _ in range(n):
        state = laws.update_basins(state, BasinsUpdate())
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
    assert laws.update_basins_single(
        state, BasinsUpdate(basins=(BasinUpdate(slug, 0.0),))
    ) == laws.update_basins_single(state, BasinsUpdate())


@FAST
@given(st.sampled_from(RULES), st.sampled_from([math.nan, math.inf, -math.inf]))
def test_a_non_finite_delta_is_refused_by_either_rule(rule, bad):
    state = laws.seed_basins(["music"])
    with pytest.raises(LawError):
        rule(state, BasinsUpdate(basins=(BasinUpdate("music", bad),)))


@FAST
@given(histories(), st.data())
def test_an_update_returns_a_new_state_and_leaves_the_old_one_as_it_was(history, data):
    rule, states = history
    before = states[-1]
    snapshot = laws.BasinsState(before.basins, before.phase, before.updates, before.emerging)
    rule(before, data.draw(updates(tuple(b.slug for b in before.basins))))
    assert before == snapshot


# --- each rule of the document, over generated updates -------------------------------


def _relaxed(w: float) -> float:
    return w + (0.3 - w) * 0.05


def _bounded(w: float) -> float:
    return min(1.0, max(0.05, w))


def _clamped(d: float) -> float:
    return max(-0.3, min(0.3, d))


def _step(history, data):
    """The last state of a history, an update drawn for it, and both rules' answers."""
    _, states = history
    before = states[-1]
    update = data.draw(updates(tuple(b.slug for b in before.basins)))
    return before, update, laws.update_basins(before, update), laws.update_basins_single(
        before, update
    )


@FAST
@given(histories(), st.data())
def test_under_the_current_rules_a_listed_basin_moves_by_its_clamped_delta_and_one_left_out_closes_5_percent_of_its_gap_to_0_3(
    history, data
):
    before, update, after, _ = _step(history, data)
    said = {u.slug: u.delta for u in update.basins}
    for b in before.basins:
        w = after.basin(b.slug).weight
        if b.slug in said:
            assert w == pytest.approx(_bounded(b.weight + _clamped(said[b.slug])), abs=1e-12)
        else:
            assert w == pytest.approx(_relaxed(b.weight), abs=1e-12)


@FAST
@given(histories(), st.data())
def test_under_the_single_rule_every_basin_relaxes_then_takes_its_clamped_delta_then_is_bounded(
    history, data
):
    before, update, _, after = _step(history, data)
    said = {u.slug: u.delta for u in update.basins}
    for b in before.basins:
        expected = _bounded(_relaxed(b.weight) + _clamped(said.get(b.slug, 0.0)))
        assert after.basin(b.slug).weight == pytest.approx(expected, abs=1e-12)


@FAST
@given(histories(), st.data())
def test_no_update_moves_a_weight_by_more_than_three_tenths_past_its_relaxation_whatever_delta_it_is_handed(
    history, data
):
    before, _, current, single = _step(history, data)
    for b in before.basins:
        assert abs(current.basin(b.slug).weight - b.weight) <= 0.3 + 1e-12
        assert abs(single.basin(b.slug).weight - _relaxed(b.weight)) <= 0.3 + 1e-12


@FAST
@given(histories(), st.data())
def test_only_a_positive_delta_counts_as_use_under_either_rule(history, data):
    before, update, *afters = _step(history, data)
    said = {u.slug: u.delta for u in update.basins}
    for after in afters:
        for b in before.basins:
            now = after.basin(b.slug)
            used = said.get(b.slug, 0.0) > 0
            assert now.conversations == b.conversations + (1 if used else 0)
            assert now.last_active == (after.updates if used else b.last_active)


@FAST
@given(histories(), st.data())
def test_a_new_basin_joins_at_four_tenths_used_once_only_if_its_slug_is_not_taken(history, data):
    before, update, *afters = _step(history, data)
    fresh = []
    for n in update.new_basins:
        slug = laws.slugify(n.label)
        if not before.has(slug) and slug not in fresh:
            fresh.append(slug)
    for after in afters:
        assert [b.slug for b in after.basins] == [b.slug for b in before.basins] + fresh
        for slug in fresh:
            b = after.basin(slug)
            assert (b.weight, b.conversations, b.last_active) == (0.4, 1, after.updates)


def _kept(kept, add, remove):
    """The document's keyword rule, written out: removals, then additions not already
    there (ignoring case), then the newest ten; and whether the cap was hit."""
    gone = {k.lower() for k in remove}
    words = [k for k in kept if k.lower() not in gone]
    for k in add:
        if k.lower() not in {w.lower() for w in words}:
            words.append(k)
    return tuple(words[-10:]), len(words) > 10


@FAST
@given(histories(), st.data())
def test_keywords_keep_the_newest_ten_each_cap_hit_is_counted_and_consolidation_is_due_from_the_second(
    history, data
):
    before, update, *afters = _step(history, data)
    said = {u.slug: u for u in update.basins}
    for after in afters:
        for b in before.basins:
            now = after.basin(b.slug)
            u = said.get(b.slug)
            kept, hit = (
                _kept(b.keywords, u.add_keywords, u.remove_keywords) if u else (b.keywords, False)
            )
            assert now.keywords == kept
            assert now.cap_hits == b.cap_hits + (1 if hit else 0)
        for b in after.basins:
            assert laws.consolidation_due(b) == (b.cap_hits >= 2)


@FAST
@given(histories(), st.data())
def test_a_phase_shift_adds_one_to_the_phase_and_the_first_five_emerging_patterns_are_carried(
    history, data
):
    before, update, *afters = _step(history, data)
    for after in afters:
        assert after.phase == before.phase + (1 if update.phase_shift else 0)
        assert after.emerging == update.emerging_patterns[:5]


@FAST
@given(st.lists(st.sampled_from(LABELS), unique=True, min_size=1, max_size=5))
def test_seeded_basins_all_start_at_one_half_unused_so_entropy_is_one(labels):
    s = laws.seed_basins(labels)
    assert s.weights == (0.5,) * len(labels)
    assert all(b.conversations == 0 and b.last_active is None for b in s.basins)
    assert laws.entropy(s) == pytest.approx(1.0 if len(labels) > 1 else 0.0, abs=1e-12)


@FAST
@given(st.floats(0.05, 1.0), st.integers(2, 8), st.integers(0, 8))
def test_entropy_is_one_for_an_even_spread_and_zero_when_one_basin_holds_everything(w, n, zeros):
    assert laws.entropy([w] * n) == pytest.approx(1.0, abs=1e-12)
    assert laws.entropy([w] + [0.0] * zeros) == 0.0
    assert laws.entropy([0.0] * zeros) == 1.0


weights = st.floats(0.05, 1.0)


@FAST
@given(st.lists(st.tuples(weights, weights), min_size=1, max_size=5))
def test_the_trajectory_label_is_the_first_of_converging_restructuring_diverging_stable_that_holds(
    steps,
):
    state = laws.BasinsState(
        basins=tuple(
            laws.Basin(f"b{i}", f"b{i}", after, trajectory=(before, after))
            for i, (before, after) in enumerate(steps)
        )
    )
    mean = math.fsum(abs(a - b) for b, a in steps) / len(steps)
    top = max(range(len(steps)), key=lambda i: steps[i][1])
    grew = steps[top][1] > steps[top][0]
    if grew and mean < 0.10:
        expected = laws.CONVERGING
    elif mean > 0.15:
        expected = laws.RESTRUCTURING
    elif mean > 0.05:
        expected = laws.DIVERGING
    else:
        expected = laws.STABLE
    assert laws.trajectory(state) == expected


# --- the document's own experiment: four signal patterns under both rules -------------
# One basin ("a") gets the signal; the others are only ever left out. Each property says
# what the rule does with the pattern, as a closed form the weights must meet.

OTHERS = ("b", "c", "d")
signal = st.floats(0.001, 0.3)
stretch = st.integers(1, 40)


def _start(w: float, rest: tuple[float, ...]) -> laws.BasinsState:
    return laws.BasinsState(
        basins=tuple(
            laws.Basin(slug, slug, x, trajectory=(x,))
            for slug, x in zip(("a", *OTHERS), (w, *rest), strict=True)
        )
    )


def _run(rule, state, deltas):
    """The weights of basin "a" after each update giving it each delta in turn
    (None: "a" left out), and the last state."""
    out = []
    for d in deltas:
        basins = () if d is None else (BasinUpdate("a", d),)
        state = rule(state, BasinsUpdate(basins=basins))
        out.append(state.basin("a").weight)
    return out, state


rests = st.tuples(weights, weights, weights)


@FAST
@given(weights, rests, signal, stretch)
def test_under_the_current_rules_repeated_positive_signals_climb_by_the_delta_to_the_ceiling_and_stay_there(
    w, rest, d, n
):
    seen, state = _run(laws.update_basins, _start(w, rest), [d] * n)
    for k, x in enumerate(seen, 1):
        assert x == pytest.approx(min(1.0, w + k * d), abs=1e-9)
    hit = next((k for k, x in enumerate(seen) if x == 1.0), None)
    if hit is not None:
        assert seen[hit:] == [1.0] * (n - hit)
    for slug, x in zip(OTHERS, rest, strict=True):
        assert state.basin(slug).weight - 0.3 == pytest.approx((x - 0.3) * 0.95**n, abs=1e-12)


@FAST
@given(weights, rests, signal, stretch)
def test_under_the_single_rule_repeated_positive_signals_approach_0_3_plus_twenty_deltas_held_under_the_ceiling(
    w, rest, d, n
):
    # each update is w -> min(1, 0.95 w + 0.015 + d), a contraction by 0.95 whose fixed
    # point is 0.3 + 20 d, or the ceiling when that is above it
    target = min(1.0, 0.3 + 20 * d)
    seen, _ = _run(laws.update_basins_single, _start(w, rest), [d] * n)
    for k, x in enumerate(seen, 1):
        assert x <= 1.0
        assert abs(x - target) <= 0.95**k * abs(w - target) + 1e-12


@FAST
@given(rests, st.floats(0.001, 0.0349))
def test_under_the_single_rule_a_repeated_signal_below_0_035_cannot_hold_a_basin_at_the_ceiling(
    rest, d
):
    seen, _ = _run(laws.update_basins_single, _start(1.0, rest), [d] * 3)
    assert all(x < 1.0 for x in seen)
    held, _ = _run(laws.update_basins, _start(1.0, rest), [d] * 3)
    assert held == [1.0] * 3


@FAST
@given(weights, rests, signal, stretch)
def test_under_the_current_rules_alternating_signals_hold_a_band_of_width_the_delta_where_the_basin_started(
    w, rest, d, n
):
    # +d then -d, n pairs: the basin never relaxes, so it swings between two weights
    lo = min(w, 1.0 - d)
    seen, _ = _run(laws.update_basins, _start(w, rest), [d, -d] * n)
    for k, x in enumerate(seen):
        assert x == pytest.approx(lo + d if k % 2 == 0 else lo, abs=1e-9)


@FAST
@given(weights, rests, signal, stretch)
def test_under_the_single_rule_alternating_signals_settle_into_0_3_plus_or_minus_the_delta_over_1_95(
    w, rest, d, n
):
    # +d then -d: the two-update cycle is 0.3 - d/1.95 after a -d and 0.3 + d/1.95 after
    # a +d, and every update closes 5% of the distance to it, wherever the basin started
    low, high = 0.3 - d / 1.95, 0.3 + d / 1.95
    seen, _ = _run(laws.update_basins_single, _start(w, rest), [d, -d] * n)
    for k, x in enumerate(seen, 1):
        near = high if k % 2 else low
        assert abs(x - near) <= 0.95**k * abs(w - low) + 1e-12


@FAST
@given(histories(), stretch)
def test_a_quiet_stretch_closes_each_gap_to_0_3_to_0_95_to_the_n_and_both_rules_agree(history, n):
    _, states = history
    start = states[-1]
    current, single = start, start
    entropies = [laws.entropy(start)]
    for _ in range(n):
        current = laws.update_basins(current, BasinsUpdate())
        single = laws.update_basins_single(single, BasinsUpdate())
        entropies.append(laws.entropy(current))
    assert current == single
    for b in start.basins:
        assert current.basin(b.slug).weight - 0.3 == pytest.approx(
            (b.weight - 0.3) * 0.95**n, abs=1e-12
        )
        assert current.basin(b.slug).conversations == b.conversations
    # a quiet step mixes the proportions with the even spread, so entropy never falls
    assert all(b >= a - 1e-12 for a, b in zip(entropies, entropies[1:], strict=False))


@FAST
@given(weights, rests, stretch)
def test_under_the_current_rules_a_basin_left_out_relaxes_while_one_given_zero_holds(w, rest, n):
    omitted, o = _run(laws.update_basins, _start(w, rest), [None] * n)
    zeroed, z = _run(laws.update_basins, _start(w, rest), [0.0] * n)
    assert zeroed == [w] * n
    assert omitted[-1] - 0.3 == pytest.approx((w - 0.3) * 0.95**n, abs=1e-12)
    if abs(w - 0.3) > 1e-6:
        assert omitted[-1] != zeroed[-1]
    assert o.basin("a").conversations == z.basin("a").conversations == 0
    assert o.basins[1:] == z.basins[1:]


@FAST
@given(weights, rests, stretch)
def test_under_the_single_rule_a_basin_left_out_and_one_given_zero_are_the_same_over_any_stretch(
    w, rest, n
):
    omitted, o = _run(laws.update_basins_single, _start(w, rest), [None] * n)
    zeroed, z = _run(laws.update_basins_single, _start(w, rest), [0.0] * n)
    assert o == z
    assert omitted[-1] - 0.3 == pytest.approx((w - 0.3) * 0.95**n, abs=1e-12)


@FAST
@given(st.sampled_from(RULES), st.integers(0, 5), st.integers(0, 3))
def test_each_update_that_pushes_a_basin_past_ten_keywords_is_one_cap_hit_and_consolidation_is_due_from_the_second(
    rule, hits, quiet
):
    state = laws.seed_basins(["music", "rope"])
    for k in range(hits):
        fresh = tuple(f"w{k}-{i}" for i in range(11))
        state = rule(state, BasinsUpdate(basins=(BasinUpdate("music", 0.1, fresh),)))
        for _ in range(quiet):
            # its newest keyword again, in other case: a duplicate, so no hit
            again = (state.basin("music").keywords[-1].upper(),)
            state = rule(state, BasinsUpdate(basins=(BasinUpdate("music", 0.0, again),)))
    b = state.basin("music")
    assert b.cap_hits == hits
    assert len(b.keywords) == (10 if hits else 0)
    assert laws.consolidation_due(b) == (hits >= 2)
    assert not laws.consolidation_due(state.basin("rope"))
