"""The felt laws in thousandths: fading, reconsolidation, forgetting and combining, as rules."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kernel.laws import LawError
from kernel.laws import felt as lf
from tests.unit import feeling_reference as feeling

strengths = st.integers(0, 1000)
valences = st.integers(-1000, 1000)
ticks = st.integers(0, 10**7)
days = st.sampled_from([1, 24, 2000, 86_400])


@given(strengths, ticks, valences, days)
def test_felt_now_lies_between_the_floor_and_what_was_stored(stored, elapsed, val, tpd):
    now = lf.fading(stored, elapsed, val, tpd)
    assert round(Fraction(3, 10) * stored) <= now <= stored


@given(strengths, ticks, ticks, valences, days)
def test_felt_now_never_rises_as_time_passes_without_an_event(stored, a, b, val, tpd):
    early, late = sorted((a, b))
    assert lf.fading(stored, late, val, tpd) <= lf.fading(stored, early, val, tpd)


@given(strengths, st.integers(1, 10**6), days)
def test_a_negative_feeling_fades_no_faster_than_a_positive_one(stored, elapsed, tpd):
    assert lf.fading(stored, elapsed, -1, tpd) >= lf.fading(stored, elapsed, 1, tpd)


@given(strengths, st.integers(0, 10**6), valences)
def test_the_integer_fading_is_the_float_law_to_the_nearest_thousandth(stored, elapsed, val):
    f = feeling.fading(stored / 1000, elapsed, val / 1000)
    assert abs(lf.fading(stored, elapsed, val, feeling.TICKS_PER_DAY) - 1000 * f) <= 0.5 + 1e-6


@given(strengths, strengths)
def test_a_re_felt_row_never_passes_felt_now_and_a_stronger_row_keeps_its_strength(fallen, now):
    new = lf.reconsolidate(fallen, now)
    if now <= fallen:
        assert new == fallen
    else:
        assert fallen <= new <= now
        exact = fallen + Fraction(6, 10) * (now - fallen)
        assert abs(new - exact) <= Fraction(1, 2)


@given(st.lists(strengths, max_size=30))
def test_the_anchors_strength_is_one_minus_the_product_of_what_each_left(ss):
    left = Fraction(1)
    for s in ss:
        left *= Fraction(1000 - s, 1000)
    exact = 1000 * (1 - left)
    got = lf.combined(ss)
    assert abs(got - exact) <= Fraction(1, 2) + Fraction(1, 10**12)
    assert got >= max(ss, default=0)
    assert got == lf.combined(list(reversed(ss)))


@given(st.integers(0, 400 * 2000), strengths)
def test_forgetting_is_the_float_curve_and_nothing_is_forgotten_under_a_day(age, stored):
    t = float(lf.threshold(age, 2000))
    assert t == pytest.approx(feeling.forgetting_threshold(age), abs=1e-12)
    if age < 2000:
        assert not lf.forgets(stored, age, 2000)


def test_the_curve_passes_through_the_seeds_anchors():
    for d, t in ((1, 200), (7, 400), (10, 500), (30, 600), (180, 800), (400, 800)):
        assert lf.threshold_milli(d * 2000, 2000) == t
    assert lf.threshold_milli(1999, 2000) == 0
    # a weight-1 row (0.1) falls under the curve after one day; a weight-2 row (0.2) does not yet
    assert lf.forgets(100, 2000, 2000) and not lf.forgets(200, 2000, 2000)


@given(st.lists(valences, max_size=20))
def test_a_thoughts_valence_is_the_mean_of_its_citations_truncated_toward_zero(vs):
    m = lf.mean_valence(vs)
    if not vs:
        assert m == 0
    else:
        exact = Fraction(sum(vs), len(vs))
        assert abs(m) <= abs(exact) < abs(m) + 1
        assert m == 0 or (m > 0) == (exact > 0)


@given(st.integers(1, 10), valences)
def test_a_row_is_born_at_its_weight_over_ten(weight, val):
    assert lf.intensity(weight) == weight * 100
    assert lf.fading(lf.intensity(weight), 0, val, 2000) == weight * 100


def test_the_laws_refuse_numbers_outside_their_domain():
    for bad in (lambda: lf.fading(1001, 0, 0, 2000), lambda: lf.fading(10, -1, 0, 2000),
                lambda: lf.fading(10, 1, 1001, 2000), lambda: lf.reconsolidate(-1, 5),
                lambda: lf.combined([1200]), lambda: lf.intensity(0),
                lambda: lf.fading(10, 1, 0, 0), lambda: lf.Felt(curve=((7, 1), (1, 2)))):
        with pytest.raises(LawError):
            bad()


def test_a_rows_role_is_actor_for_its_doer_target_when_about_itself_else_witness():
    assert lf.role(1, "did", (2,)) == "actor"
    assert lf.role(2, "saw", (1, 2)) == "target"
    assert lf.role(3, "saw", (1, 2)) == "witness"
    assert lf.role(3, "heard", (1,)) == "witness"


@given(st.lists(st.tuples(st.integers(1, 10), st.integers(0, 500)), min_size=1, max_size=30),
       st.integers(0, 2**32 - 1))
def test_felt_retrieval_at_each_rows_weight_over_ten_ranks_as_weight_retrieval(rows, seed):
    import numpy as np

    from kernel.laws import Memory, Retrieval, rank
    ms = [Memory(id=i + 1, villager=1, tick=t, kind="did", event="meal", text=f"row {i}",
                 weight=w, about=()) for i, (w, t) in enumerate(rows)]
    rng = np.random.default_rng(seed)
    vecs = rng.standard_normal((len(ms), 6)).astype(np.float32)
    q = rng.standard_normal(6)
    by_weight = rank(500, ms, vecs, q, Retrieval())
    by_felt = rank(500, ms, vecs, q, Retrieval(importance="felt"), felt=[m.weight / 10 for m in ms])
    assert [(x.memory.id, x.score) for x in by_felt] == [(x.memory.id, x.score) for x in by_weight]


def test_felt_retrieval_without_felt_strengths_is_refused():
    import numpy as np

    from kernel.laws import Memory, Retrieval, rank
    m = Memory(id=1, villager=1, tick=0, kind="did", event="meal", text="x", weight=1, about=())
    with pytest.raises(LawError, match="felt"):
        rank(1, [m], np.ones((1, 2)), [1.0, 0.0], Retrieval(importance="felt"))


@given(strengths, st.integers(0, 200 * 2000), st.sampled_from([24, 2000]))
def test_forgetting_by_the_first_age_below_the_curve_is_forgetting_by_the_curve(s, age, tpd):
    assert lf.forgets(s, age, tpd) == (Fraction(s, 1000) < Fraction(lf.threshold(age, tpd)))
