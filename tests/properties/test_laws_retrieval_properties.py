"""Properties of retrieval: a total order that ignores input order, scores
that depend on their own row alone, and a fast pass that never loses a row
the exact order would keep."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kernel import laws
from kernel.laws import Memory
from tests.strategies import memory_rows, retrievals, vectors

FAST = settings(max_examples=80, deadline=None)


@st.composite
def memories(draw, max_rows: int = 24, dim: int = 6):
    """Rows, their vectors and a query; vectors come in three temperaments:
    random, few-valued (so scores tie exactly) and near-copies of one vector
    (so scores differ only in the last places the fast pass can see)."""
    rows = draw(memory_rows(least=1, most=max_rows, top_id=10_000, last_tick=30))
    m, q = draw(vectors(len(rows), dim, styles=("random", "ties", "near"),
                        dtypes=(np.float32, np.float64)))
    return rows, m, q


params = retrievals(most_k=10)


def key(r: laws.Ranked):
    return (-round(r.score, laws.PLACES), -r.memory.tick, r.memory.id)


def brute(now, rows, m, q, p):
    """Every eligible row scored on its own with the public cosine, sorted by the stated rule."""
    w_r, w_i, w_v = p.weights
    out = []
    for row, v in zip(rows, m, strict=True):
        if row.tick <= now:
            rec = laws.recency(now, row.tick, p.half_life)
            rel = laws.cosine(v, q)
            out.append(
                laws.Ranked(
                    row, rec, row.weight / 10, rel, w_r * rec + w_i * row.weight / 10 + w_v * rel
                )
            )
    return tuple(sorted(out, key=key)[: p.k])


@FAST
@given(memories(), st.integers(0, 35), params)
def test_rank_is_the_top_k_of_every_row_scored_on_its_own_in_the_stated_order(data, now, p):
    rows, m, q = data
    assert laws.rank(now, rows, m, q, p) == brute(now, rows, m, q, p)


@FAST
@given(memories(), st.integers(0, 35), params, st.randoms(use_true_random=False))
def test_rank_is_unchanged_by_shuffling_its_input_rows(data, now, p, rnd):
    rows, m, q = data
    order = list(range(len(rows)))
    rnd.shuffle(order)
    shuffled = laws.rank(now, [rows[i] for i in order], m[order], q, p)
    assert shuffled == laws.rank(now, rows, m, q, p)


@FAST
@given(memories(), st.integers(0, 35), params, st.data())
def test_adding_a_row_never_changes_another_row_s_score(data, now, p, more):
    rows, m, q = data
    extra = Memory(
        20_000,
        1,
        more.draw(st.integers(0, 35)),
        "did",
        "walk",
        "y",
        more.draw(st.integers(1, 10)),
        (),
    )
    v = np.asarray(
        more.draw(st.lists(st.floats(-3, 3), min_size=m.shape[1], max_size=m.shape[1])),
        dtype=m.dtype,
    )
    everyone = laws.Retrieval(p.half_life, p.weights, k=len(rows) + 1)
    before = {r.memory.id: r for r in laws.rank(now, rows, m, q, everyone)}
    after = {r.memory.id: r for r in laws.rank(now, [*rows, extra], np.vstack([m, v]), q, everyone)}
    assert all(after[i] == r for i, r in before.items())


@FAST
@given(memories(), st.integers(0, 35), params)
def test_rank_returns_at_most_k_rows_all_at_ticks_up_to_now_in_a_strict_total_order(data, now, p):
    rows, m, q = data
    got = laws.rank(now, rows, m, q, p)
    assert len(got) == min(p.k, sum(r.tick <= now for r in rows))
    assert all(r.memory.tick <= now for r in got)
    keys = [key(r) for r in got]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert all(math.isfinite(r.score) and -1.0 <= r.relevance <= 1.0 for r in got)


@FAST
@given(memories(max_rows=40), st.integers(0, 35), params)
def test_a_small_k_is_the_head_of_the_whole_ranking(data, now, p):
    rows, m, q = data
    whole = laws.rank(now, rows, m, q, laws.Retrieval(p.half_life, p.weights, k=len(rows)))
    assert laws.rank(now, rows, m, q, p) == whole[: p.k]


@FAST
@given(st.integers(0, 10_000), st.integers(0, 10_000), st.floats(1, 5000))
def test_recency_is_one_at_now_halves_every_half_life_and_never_rises_with_age(a, b, h):
    now = max(a, b)
    older, newer = min(a, b), max(a, b)
    assert laws.recency(now, now, h) == 1.0
    assert 0.0 <= laws.recency(now, older, h) <= laws.recency(now, newer, h) <= 1.0
