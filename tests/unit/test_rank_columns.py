"""Ranking on columns is the ranking on row objects it replaced: order, ties and scores.

`laws.rank_columns` reads ids, ticks, weights (or felt strengths) and one
vector matrix; `laws.rank` on rows is a thin wrapper over it. Both are held
here to the object ranking as it was (tests/unit/retrieval_reference.py),
under weight and felt importance, with the squared norms worked out by the
ranking or handed in, on random rows, exact ties and near-copies.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernel import laws
from kernel.laws import LawError, Memory
from tests.strategies import (
    RETRIEVAL_WEIGHTS,
    VECTOR_STYLES,
    examples,
    memory_rows,
    retrievals,
    vectors,
)


def _reference():
    path = Path(__file__).with_name("retrieval_reference.py")
    spec = importlib.util.spec_from_file_location("_retrieval_reference", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


REF = _reference()
MANY = settings(max_examples=examples(150), deadline=None)


@st.composite
def streams(draw, max_rows: int = 40, dim: int = 6):
    """Rows, felt strengths, vectors and a query: random, few-valued (exact ties)
    or near-copies of one vector (scores that differ in the last places)."""
    rows = draw(memory_rows(least=0, most=max_rows, top_id=100_000, last_tick=40))
    felt = [draw(st.sampled_from([0.0, 0.25, 0.5, 1.0, 0.123, 0.999])) for _ in rows]
    m, q = draw(vectors(len(rows), dim, styles=VECTOR_STYLES,
                        dtypes=(np.float16, np.float32, np.float64)))
    return rows, felt, m, q


params = retrievals(most_k=12, weights=(*RETRIEVAL_WEIGHTS, (0.0, 1.0, 0.0)),
                    importances=("weight", "felt"))


@MANY
@given(streams(), st.integers(0, 45), params)
def test_ranking_columns_gives_the_object_rankings_rows_scores_and_order(data, now, p):
    rows, felt, m, q = data
    want = REF.rank_reference(now, rows, m, q, p, felt=felt)
    assert laws.rank(now, rows, m, q, p, felt=felt) == want
    ids, ticks, weights = laws.row_columns(rows)
    for sq in (None, laws.squares(m)):
        got = laws.rank_columns(now, (ids, ticks, weights), m, q, p,
                                felt=np.array(felt, dtype=np.float64), squares=sq)
        assert laws.ranked(rows, got) == want


@MANY
@given(streams(), st.integers(0, 45), params)
def test_columns_of_any_integer_width_rank_alike(data, now, p):
    rows, felt, m, q = data
    ids, ticks, weights = laws.row_columns(rows)
    want = laws.rank_columns(now, (ids, ticks, weights), m, q, p, felt=felt)
    got = laws.rank_columns(now, (ids.astype(np.int32), ticks.astype(np.uint32),
                                  weights.astype(np.int8)), m, q, p,
                            felt=np.array(felt, dtype=np.float64))
    assert got == want


@pytest.mark.parametrize("importance", ["weight", "felt"])
def test_a_large_ranking_on_columns_is_the_object_ranking(importance):
    rng = np.random.default_rng(5)
    n, dim = 20_000, 32
    ticks = rng.integers(0, 3000, n)
    weights = rng.integers(1, 11, n)
    rows = [Memory(i, 1, int(t), "saw", "sighting", "x", int(w), ())
            for i, (t, w) in enumerate(zip(ticks.tolist(), weights.tolist(), strict=True))]
    felt = rng.integers(0, 1001, n) / 1000
    m = rng.standard_normal((n, dim)).astype(np.float32)
    m[::7] = m[3]                      # exact ties among many rows
    q = rng.standard_normal(dim)
    p = laws.Retrieval(k=8, importance=importance)
    want = REF.rank_reference(2999, rows, m, q, p, felt=felt.tolist())
    got = laws.rank_columns(2999, (np.arange(n), ticks, weights), m, q, p, felt=felt,
                            squares=laws.squares(m))
    assert laws.ranked(rows, got) == want


def test_a_felt_strength_out_of_range_is_refused_as_it_was_from_a_list():
    rows = [Memory(i, 1, 1, "saw", "sighting", "x", 3, ()) for i in range(3)]
    m = np.ones((3, 2))
    p = laws.Retrieval(importance="felt")
    for bad in ([0.5, 1.5, 0.2], [0.5, float("nan"), 0.2], [-0.1, 0.5, 0.2]):
        with pytest.raises(LawError) as want:
            REF.rank_reference(2, rows, m, [1.0, 0.0], p, felt=bad)
        with pytest.raises(LawError) as got:
            laws.rank_columns(2, laws.row_columns(rows), m, [1.0, 0.0], p, felt=np.array(bad))
        assert str(got.value) == str(want.value)
    with pytest.raises(LawError, match="one felt strength per row"):
        laws.rank_columns(2, laws.row_columns(rows), m, [1.0, 0.0], p, felt=np.ones(2))


def test_columns_not_one_per_row_are_refused_naming_the_column():
    ids, ticks, weights = np.arange(3), np.ones(3, dtype=np.int64), np.full(3, 4)
    m = np.ones((3, 2))
    with pytest.raises(LawError, match=r"ticks as one value per row \(3\)"):
        laws.rank_columns(2, (ids, ticks[:2], weights), m, [1.0, 0.0])
    with pytest.raises(LawError, match=r"ticks as integers"):
        laws.rank_columns(2, (ids, ticks + 0.5, weights), m, [1.0, 0.0])
    with pytest.raises(LawError, match=r"shape \(3, d\)"):
        laws.rank_columns(2, (ids, ticks, weights), m[:2], [1.0, 0.0])
    with pytest.raises(LawError, match=r"squares as one value per row"):
        laws.rank_columns(2, (ids, ticks, weights), m, [1.0, 0.0], squares=np.ones(4))
    with pytest.raises(LawError, match="tick"):
        laws.rank_columns(2, (ids, -ticks, weights), m, [1.0, 0.0])
