"""The temperament in thousandths (EmoStack row 60): a valence bent in logit space and a
strength bent as a power, as rules, and held to the float reference within a thousandth."""

from __future__ import annotations

import decimal
import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from kernel.laws import LawError
from kernel.laws import felt as lf
from tests.unit import feeling_reference as feeling

strengths = st.integers(0, 1000)
valences = st.integers(-1000, 1000)
inner = st.integers(-999, 999)                  # a valence short of the two ends
biases = st.integers(-lf.BIAS_MOST, lf.BIAS_MOST)
amplifications = st.integers(1, 20_000)
config_biases = st.integers(-3000, 3000)        # what a world config may give (schema)
config_amplifications = st.integers(250, 4000)


@given(valences, strengths)
def test_a_neutral_temperament_gives_back_every_valence_and_strength_unchanged(v, s):
    assert lf.bent_valence(v, 0) == v
    assert lf.bent_strength(s, 1000) == s


@given(valences, biases)
def test_a_bent_valence_is_always_a_valence(v, b):
    assert -1000 <= lf.bent_valence(v, b) <= 1000


@given(strengths, amplifications)
def test_a_bent_strength_is_always_a_strength(s, a):
    assert 0 <= lf.bent_strength(s, a) <= 1000


@given(valences, st.integers(1, lf.BIAS_MOST))
def test_a_positive_bias_never_lowers_a_valence_and_a_negative_one_never_raises_it(v, b):
    assert lf.bent_valence(v, b) >= v
    assert lf.bent_valence(v, -b) <= v


@given(st.integers(-990, 990), st.integers(100, lf.BIAS_MOST))
def test_a_bias_of_a_tenth_or_more_moves_a_valence_away_from_the_ends_strictly(v, b):
    assert lf.bent_valence(v, b) > v
    assert lf.bent_valence(v, -b) < v


@given(valences, valences, biases)
def test_a_bent_valence_keeps_the_order_of_valences(a, b, bias):
    lo, hi = sorted((a, b))
    assert lf.bent_valence(lo, bias) <= lf.bent_valence(hi, bias)


@given(valences, biases, biases)
def test_a_larger_bias_never_gives_a_lower_valence(v, a, b):
    lo, hi = sorted((a, b))
    assert lf.bent_valence(v, lo) <= lf.bent_valence(v, hi)


@given(biases)
def test_the_two_ends_of_the_valence_scale_stay_where_they_are_under_any_bias(b):
    assert lf.bent_valence(1000, b) == 1000
    assert lf.bent_valence(-1000, b) == -1000


@given(inner, biases)
def test_a_bias_bends_a_valence_and_its_opposite_symmetrically(v, b):
    assert lf.bent_valence(-v, -b) == -lf.bent_valence(v, b)


@given(st.integers(0, 999), st.integers(1001, 20_000))
def test_an_amplification_above_one_never_lowers_a_strength_below_full(s, a):
    assert lf.bent_strength(s, a) >= s


@given(st.integers(0, 999), st.integers(1, 999))
def test_an_amplification_below_one_never_raises_a_strength(s, a):
    assert lf.bent_strength(s, a) <= s


@given(st.integers(1, 999), st.integers(1001, 20_000))
def test_an_amplification_above_one_raises_a_strength_wherever_the_power_moves_it_a_thousandth(
        s, a):
    exact = 1000 * (s / 1000) ** (1000 / a)
    assume(exact - s >= 1.01)
    assert lf.bent_strength(s, a) > s


@given(strengths, strengths, amplifications)
def test_a_bent_strength_keeps_the_order_of_strengths(a, b, amp):
    lo, hi = sorted((a, b))
    assert lf.bent_strength(lo, amp) <= lf.bent_strength(hi, amp)


@given(amplifications)
def test_nothing_and_full_strength_stay_where_they_are_under_any_amplification(a):
    assert lf.bent_strength(0, a) == 0
    assert lf.bent_strength(1000, a) == 1000


@given(valences, config_biases)
def test_the_integer_bent_valence_is_the_float_law_within_a_thousandth(v, b):
    f = feeling.bent_valence(v / 1000, b / 1000)
    assert abs(lf.bent_valence(v, b) - 1000 * f) <= 1


@given(strengths, config_amplifications)
def test_the_integer_bent_strength_is_the_float_law_within_a_thousandth(s, a):
    f = feeling.bent_strength(s / 1000, a / 1000)
    assert abs(lf.bent_strength(s, a) - 1000 * f) <= 1


@given(valences, strengths, config_biases, config_amplifications)
def test_the_two_halves_are_the_float_temper_together(v, s, b, a):
    fv, fs = feeling.temper(v / 1000, s / 1000, feeling.Temperament(b / 1000, a / 1000))
    assert abs(lf.bent_valence(v, b) - 1000 * fv) <= 1
    assert abs(lf.bent_strength(s, a) - 1000 * fs) <= 1


@given(inner, config_biases, strengths, config_amplifications)
def test_the_same_arguments_give_the_same_integers_whatever_the_callers_decimal_context(v, b, s, a):
    want = (lf.bent_valence(v, b), lf.bent_strength(s, a))
    with decimal.localcontext() as ctx:
        ctx.prec, ctx.rounding = 3, decimal.ROUND_FLOOR
        assert (lf.bent_valence(v, b), lf.bent_strength(s, a)) == want


def test_the_bent_valence_is_tanh_of_atanh_plus_the_bias_on_known_values():
    assert lf.bent_valence(0, 500) == round(1000 * math.tanh(0.5)) == 462
    assert lf.bent_valence(300, -500) == -188
    assert lf.bent_strength(500, 2000) == 707        # 0.5 ** (1 / 2)
    assert lf.bent_strength(500, 500) == 250         # 0.5 ** 2


@pytest.mark.parametrize(("call", "named"), [
    (lambda: lf.bent_valence(0, lf.BIAS_MOST + 1), "valence_bias"),
    (lambda: lf.bent_valence(0, 0.5), "valence_bias"),
    (lambda: lf.bent_valence(1001, 100), "valence"),
    (lambda: lf.bent_strength(500, 0), "intensity_amplification"),
    (lambda: lf.bent_strength(-1, 2000), "strength"),
    (lambda: lf.bent_strength(500, True), "intensity_amplification"),
])
def test_a_temperament_law_refuses_an_argument_out_of_its_range_naming_it(call, named):
    with pytest.raises(LawError, match=named):
        call()
