"""Worked numbers of retrieval, and the ways `rank` refuses a bad argument."""

from __future__ import annotations

import math

import numpy as np
import pytest

from kernel import laws
from kernel.laws import LawError, Memory


def row(id_: int, tick: int, weight: int = 3) -> Memory:
    return Memory(id_, 1, tick, "saw", "sighting", f"row {id_}", weight, (1,))


def test_recency_at_2900_of_rows_at_2883_and_2899_with_half_life_250():
    assert round(laws.recency(2900, 2883, 250), 4) == 0.9540
    assert round(laws.recency(2900, 2899, 250), 4) == 0.9972
    assert laws.recency(2900, 2900, 250) == 1.0
    assert laws.recency(500, 250, 250) == 0.5


def test_a_row_of_weight_3_recency_0_9540_and_relevance_0_3904_scores_2_4252():
    # 0.9540 + 1 * 3/10 + 3 * 0.3904 = 0.9540 + 0.3 + 1.1712
    query = np.array([0.3904, math.sqrt(1 - 0.3904**2)])
    (r,) = laws.rank(2900, [row(87, 2883)], np.array([[1.0, 0.0]]), query, laws.Retrieval())
    assert round(r.recency, 4) == 0.9540
    assert r.importance == 0.3
    assert round(r.relevance, 4) == 0.3904
    assert round(r.score, 4) == 2.4252


def test_the_retrieval_block_defaults_are_the_seed_s():
    assert laws.Retrieval() == laws.Retrieval(half_life=250, weights=(1.0, 1.0, 3.0), k=8)
    assert (
        laws.Retrieval.of(
            {"half_life": 250, "weights": {"recency": 1, "importance": 1, "relevance": 3}, "k": 8}
        )
        == laws.Retrieval()
    )


def test_a_zero_vector_has_relevance_0_not_nan():
    rows = [row(1, 10), row(2, 10)]
    out = laws.rank(
        10, rows, np.zeros((2, 3), dtype=np.float32), np.array([1.0, 2.0, 3.0]), {"k": 2}
    )
    assert [r.relevance for r in out] == [0.0, 0.0]
    out = laws.rank(10, rows, np.ones((2, 3)), np.zeros(3), {"k": 2})
    assert [r.relevance for r in out] == [0.0, 0.0]
    assert laws.cosine([0, 0], [1, 1]) == 0.0


def test_equal_scores_go_newest_first_then_lowest_id_first():
    rows = [row(5, 10), row(3, 10), row(9, 12), row(4, 12)]
    out = laws.rank(
        12, rows, np.zeros((4, 2)), np.ones(2), laws.Retrieval(weights=(0.0, 1.0, 1.0), k=4)
    )
    assert [r.memory.id for r in out] == [4, 9, 3, 5]


def test_rows_after_now_are_not_retrieved():
    rows = [row(1, 10), row(2, 11)]
    out = laws.rank(10, rows, np.ones((2, 2)), np.ones(2), {"k": 5})
    assert [r.memory.id for r in out] == [1]


def test_rank_refuses_vectors_not_aligned_with_rows_and_a_query_of_the_wrong_length():
    rows = [row(1, 10), row(2, 11)]
    with pytest.raises(LawError, match=r"shape \(2, d\)"):
        laws.rank(10, rows, np.ones((3, 2)), np.ones(2))
    with pytest.raises(LawError, match="query of length 2"):
        laws.rank(10, rows, np.ones((2, 2)), np.ones(3))
    with pytest.raises(LawError, match="finite"):
        laws.rank(10, rows, np.ones((2, 2)), np.array([1.0, np.nan]))
    with pytest.raises(LawError, match="k=-1"):
        laws.rank(10, rows, np.ones((2, 2)), np.ones(2), {"k": -1})


def test_rank_refuses_a_matrix_holding_a_nan_naming_its_row():
    rows = [row(i, 1) for i in range(20)]
    m = np.ones((20, 4), dtype=np.float32)
    m[13, 2] = np.nan
    with pytest.raises(LawError, match="row 13"):
        laws.rank(5, rows, m, np.ones(4), {"k": 2})


def test_huge_and_tiny_vectors_are_scored_exactly_not_overflowed():
    rows = [row(i, 1) for i in range(12)]
    m = np.full((12, 4), 1e-3, dtype=np.float32)
    m[3] = [3e38, 3e38, 0, 0]  # its float32 squared norm overflows
    m[7] = [1e-40, 0, 0, 0]  # its float32 square underflows to zero
    out = laws.rank(5, rows, m, np.array([1.0, 0, 0, 0]), {"k": 3, "weights": (0, 0, 1)})
    assert {r.memory.id for r in out[:2]} == {7, 3} or out[0].memory.id == 7
    by_id = {r.memory.id: r for r in laws.rank(5, rows, m, np.array([1.0, 0, 0, 0]), {"k": 12})}
    assert by_id[7].relevance == 1.0
    assert by_id[3].relevance == pytest.approx(math.sqrt(0.5))


def test_the_cosine_is_the_same_float_whatever_the_order_of_its_terms():
    rng = np.random.default_rng(7)
    a = rng.standard_normal(384)
    b = rng.standard_normal(384)
    order = rng.permutation(384)
    assert laws.cosine(a, b) == laws.cosine(a[order], b[order])


def test_rank_refuses_a_non_finite_vector_even_when_every_row_is_returned():
    rows = [row(1, 1), row(2, 1)]
    m = np.array([[1.0, np.inf], [1.0, 0.0]])
    with pytest.raises(LawError, match="row 0"):
        laws.rank(5, rows, m, np.ones(2), {"k": 8})


@pytest.mark.parametrize("style", ["random", "near", "ties"])
def test_a_large_ranking_is_the_head_of_every_row_scored_exactly(style):
    rng = np.random.default_rng(11)
    n, dim = 6000, 16
    rows = [
        row(i, int(t), int(w))
        for i, (t, w) in enumerate(
            zip(rng.integers(0, 400, n), rng.integers(1, 11, n), strict=True)
        )
    ]
    if style == "random":
        m = rng.standard_normal((n, dim)).astype(np.float32)
    elif style == "near":
        m = (rng.standard_normal(dim) + 1e-6 * rng.standard_normal((n, dim))).astype(np.float32)
    else:
        m = rng.integers(-1, 2, size=(n, dim)).astype(np.float32)
    q = rng.standard_normal(dim)
    p = laws.Retrieval(k=5)
    whole = laws.rank(400, rows, m, q, laws.Retrieval(k=n))
    assert laws.rank(400, rows, m, q, p) == whole[:5]
    order = rng.permutation(n)
    assert laws.rank(400, [rows[i] for i in order], m[order], q, p) == whole[:5]
