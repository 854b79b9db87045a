"""Properties of the strength laws: fading, reconsolidation, forgetting and combining."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernel.laws import LawError
from tests.strategies import examples
from tests.unit import feeling_reference as feeling

FAST = settings(max_examples=examples(200), deadline=None)
intensity = st.floats(0.0, 1.0)
valence = st.floats(-1.0, 1.0)
elapsed = st.floats(0.0, 1e7)
fadings = st.builds(
    feeling.Fading,
    floor=st.floats(0.0, 1.0),
    tau=st.floats(1.0, 1e5),
    negative_factor=st.floats(1.0, 5.0),
)


@FAST
@given(intensity, valence, fadings)
def test_fading_is_the_intensity_itself_at_elapsed_0(i, v, p):
    assert feeling.fading(i, 0, v, p) == i


@FAST
@given(intensity, elapsed, elapsed, valence, fadings)
def test_fading_never_increases_with_time(i, a, b, v, p):
    early, late = min(a, b), max(a, b)
    assert feeling.fading(i, late, v, p) <= feeling.fading(i, early, v, p)


@FAST
@given(intensity, elapsed, valence, fadings)
def test_fading_never_falls_below_floor_times_intensity_nor_rises_above_intensity(i, t, v, p):
    felt = feeling.fading(i, t, v, p)
    assert i * p.floor <= felt <= i


@FAST
@given(intensity, st.floats(0.0, 1e6), st.floats(-1.0, -1e-9), st.floats(0.0, 1.0), fadings)
def test_a_negative_feeling_fades_no_faster_than_a_positive_one(i, t, neg, pos, p):
    assert feeling.fading(i, t, neg, p) >= feeling.fading(i, t, pos, p)


@FAST
@given(st.floats(0.01, 1.0), st.floats(1.0, 30_000.0))
def test_with_the_default_law_a_negative_feeling_is_strictly_slower(i, t):
    assert feeling.fading(i, t, -0.5) > feeling.fading(i, t, 0.5)


@FAST
@given(intensity, intensity, st.floats(0.0, 1.0))
def test_reconsolidation_never_passes_felt_now_and_never_lowers_a_stronger_memory(
    stored, now, closing
):
    new = feeling.reconsolidate(stored, now, closing)
    assert new >= stored
    if now >= stored:
        assert new <= now
    else:
        assert new == stored


@FAST
@given(intensity, intensity)
def test_reconsolidation_closes_six_tenths_of_a_gap_upward(stored, now):
    new = feeling.reconsolidate(stored, now)
    if now > stored:
        assert new == pytest.approx(stored + 0.6 * (now - stored), abs=1e-12)


@FAST
@given(st.floats(0.0, 1e9), st.floats(0.0, 1e9))
def test_the_forgetting_threshold_never_falls_as_a_memory_ages_and_stays_in_0_to_0_8(a, b):
    young, old = min(a, b), max(a, b)
    t_young = feeling.forgetting_threshold(young)
    t_old = feeling.forgetting_threshold(old)
    assert 0.0 <= t_young <= t_old + 1e-12 <= 0.8 + 1e-12


@FAST
@given(st.floats(0.0, 1999.999))
def test_nothing_is_forgotten_before_a_day(age):
    assert feeling.forgetting_threshold(age) == 0.0
    assert not feeling.forgets(0.0, age)


@FAST
@given(st.lists(intensity, max_size=12), st.randoms(use_true_random=False))
def test_combined_intensity_is_in_0_to_1_at_least_the_strongest_part_and_order_free(xs, rnd):
    c = feeling.combined_intensity(xs)
    assert 0.0 <= c <= 1.0
    assert c >= max(xs, default=0.0) - 1e-12
    shuffled = list(xs)
    rnd.shuffle(shuffled)
    assert feeling.combined_intensity(shuffled) == pytest.approx(c, abs=1e-12)
    assert math.isclose(feeling.combined_intensity([*xs, 0.0]), c, abs_tol=1e-15)


@FAST
@given(
    st.lists(intensity, max_size=5),
    st.one_of(st.floats(allow_nan=True).filter(lambda x: not 0 <= x <= 1)),
)
def test_combined_intensity_refuses_any_value_outside_0_to_1(xs, bad):
    with pytest.raises(LawError):
        feeling.combined_intensity([*xs, bad])


@FAST
@given(valence, intensity, st.floats(-3, 3), st.floats(0.2, 5))
def test_a_tempered_feeling_stays_on_its_scales_and_keeps_its_sign_under_no_bias(v, i, bias, amp):
    tv, ti = feeling.temper(v, i, feeling.Temperament(bias, amp))
    assert -1.0 <= tv <= 1.0 and 0.0 <= ti <= 1.0
    nv, _ = feeling.temper(v, i, feeling.Temperament(0.0, amp))
    assert nv == pytest.approx(v, abs=1e-9)
