"""Worked numbers of the strength laws, in ticks of a 2000-tick day."""

from __future__ import annotations

import math

import pytest

from kernel.laws import LawError
from tests.unit import feeling_reference as feeling

DAY = feeling.TICKS_PER_DAY


def test_after_three_days_a_feeling_keeps_the_floor_and_a_1_over_e_share_of_the_rest():
    assert feeling.fading(1.0, 3 * DAY, 0.5) == pytest.approx(0.3 + 0.7 / math.e)
    assert feeling.fading(0.5, 0, 0.5) == 0.5


def test_a_negative_feeling_fades_with_a_time_constant_of_four_and_a_half_days():
    assert feeling.fading(1.0, 4.5 * DAY, -0.2) == pytest.approx(0.3 + 0.7 / math.e)
    assert feeling.Fading() == feeling.Fading(floor=0.3, tau=6000, negative_factor=1.5)


def test_reconsolidation_closes_six_tenths_of_the_gap_and_a_stronger_memory_stays():
    assert feeling.reconsolidate(0.2, 0.7) == pytest.approx(0.5)
    assert feeling.reconsolidate(0.9, 0.4) == 0.9
    assert feeling.reconsolidate(0.2, 0.7, closing=1.0) == 0.7


def test_the_forgetting_threshold_at_its_anchor_days_and_between_them_in_log_time():
    f = feeling.forgetting_threshold
    assert f(0) == 0.0
    assert f(DAY - 1) == 0.0
    assert f(DAY) == pytest.approx(0.2)
    assert f(7 * DAY) == pytest.approx(0.4)
    assert f(10 * DAY) == pytest.approx(0.5)
    assert f(30 * DAY) == pytest.approx(0.6)
    assert f(180 * DAY) == 0.8
    assert f(10_000 * DAY) == 0.8
    # halfway between 1 and 7 days in log time is sqrt(7) days
    assert f(math.sqrt(7) * DAY) == pytest.approx(0.3)


def test_a_memory_under_the_threshold_is_forgotten_and_nothing_is_before_a_day():
    assert feeling.forgets(0.19, 2 * DAY)
    assert not feeling.forgets(0.01, DAY // 2)


def test_combined_intensity_is_one_minus_the_product_of_what_each_leaves_out():
    assert feeling.combined_intensity([0.5, 0.5]) == 0.75
    assert feeling.combined_intensity([0.4, 0.5, 0.0]) == pytest.approx(0.7)
    assert feeling.combined_intensity([]) == 0.0
    assert feeling.combined_intensity([1.0, 0.2]) == 1.0


@pytest.mark.parametrize("bad", [1.2, -0.1, float("nan"), float("inf")])
def test_combined_intensity_refuses_a_value_outside_0_to_1(bad):
    with pytest.raises(LawError, match="intensity"):
        feeling.combined_intensity([0.5, bad])


def test_the_strength_laws_refuse_arguments_outside_their_domain():
    with pytest.raises(LawError, match="elapsed=-1"):
        feeling.fading(0.5, -1, 0.0)
    with pytest.raises(LawError, match="valence=2"):
        feeling.fading(0.5, 1, 2)
    with pytest.raises(LawError, match="closing=1.5"):
        feeling.reconsolidate(0.1, 0.2, 1.5)
    with pytest.raises(LawError, match="age=-5"):
        feeling.forgetting_threshold(-5)
    with pytest.raises(LawError, match="anchors"):
        feeling.ForgettingCurve(anchors=((7, 0.4), (1, 0.2)))


def test_a_construct_met_again_gains_a_tenth_up_to_one():
    assert feeling.reinforce(0.5) == pytest.approx(0.6)
    assert feeling.reinforce(0.95) == 1.0


def test_the_neutral_temperament_changes_nothing_and_a_bias_shifts_valence_in_logit_space():
    assert feeling.temper(0.3, 0.4) == (0.3, 0.4)
    v, i = feeling.temper(
        0.0, 0.25, feeling.Temperament(valence_bias=math.atanh(0.5), intensity_amplification=2)
    )
    assert v == pytest.approx(0.5)
    assert i == pytest.approx(0.5)


def test_a_felt_record_scores_its_meaning_times_its_strength():
    assert feeling.felt_score(0.5, 0.4) == pytest.approx(0.2)
