"""`laws.rank` as it was before it took columns: the tests' reference.

A copy of the ranking in kernel/laws/retrieval.py as it stood when `rank`
read ticks and weights from row objects and scored each candidate on its
own. tests/properties/test_rank_columns.py holds the kernel's ranking to it,
order, ties and every score. It is kept as it was; only this paragraph and
the imports are new.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from operator import attrgetter

import numpy as np

from kernel.laws._errors import LawError, real
from kernel.laws._errors import tick as as_tick
from kernel.laws.memory import Memory
from kernel.laws.retrieval import PLACES, Ranked, Retrieval, _vector


def _exact_cosine(v: np.ndarray, q: np.ndarray, q_norm: float) -> float:
    v = v.astype(np.float64, copy=False)
    v_norm = math.sqrt(math.fsum((v * v).tolist()))
    if v_norm == 0.0 or q_norm == 0.0:
        return 0.0
    dot = math.fsum((v * q).tolist())
    return max(-1.0, min(1.0, dot / (v_norm * q_norm)))


_ticks_of = attrgetter("tick")
_weights_of = attrgetter("weight")
_ids_of = attrgetter("id")


def _key(r: Ranked) -> tuple[float, int, int]:
    return (-round(r.score, PLACES), -r.memory.tick, r.memory.id)


def rank_reference(
    now: int,
    rows: Sequence[Memory],
    vectors: np.ndarray,
    query: Sequence[float] | np.ndarray,
    params: Retrieval | Mapping[str, object] = Retrieval(),  # noqa: B008
    *,
    felt: Sequence[float] | np.ndarray | None = None,
) -> tuple[Ranked, ...]:
    """The top k of `rows` at ticks up to `now` for `query`, best first.

    score = w_r * recency + w_i * importance + w_v * cosine(query, vector),
    where importance is weight / 10, or, when `params.importance` is "felt",
    `felt[i]`: what rows[i] is felt at now (thousandths / 1000, in [0, 1]),
    with recency = 0.5 ** ((now - tick) / half_life) and the cosine of a zero
    vector 0. Rows after `now` are not eligible. `vectors` is a 2-D float
    array, row i the vector of rows[i]. Ordered by the score rounded to 12
    places (highest first), then by tick (newest first), then by id (lowest
    first): a total order, unchanged by shuffling the input, and each row's
    score depends on that row alone.
    """
    now = as_tick("now", now)
    p = Retrieval.of(params)
    w_r, w_i, w_v = p.weights
    rows = rows if isinstance(rows, Sequence) else tuple(rows)
    n = len(rows)
    m = np.asarray(vectors)
    if m.ndim != 2 or m.shape[0] != n:
        raise LawError(f"Expected vectors of shape ({n}, d), one per row, but got shape {m.shape}")
    if m.dtype not in (np.float32, np.float64):
        if not (
            np.issubdtype(m.dtype, np.number) and not np.issubdtype(m.dtype, np.complexfloating)
        ):
            raise LawError(f"Expected vectors of real numbers but got dtype {m.dtype}")
        m = m.astype(np.float32 if m.dtype == np.float16 else np.float64)
    q = _vector("query", query)
    if q.shape[0] != m.shape[1]:
        raise LawError(
            f"Expected a query of length {m.shape[1]}, as the vectors, but got {q.shape[0]}"
        )
    if p.k == 0 or n == 0:
        return ()
    q_norm = math.sqrt(math.fsum((q * q).tolist()))
    # the query is scaled to unit length first so that a tiny query cannot
    # underflow when cast down to the matrix's precision
    q_unit = (q / q_norm if q_norm > 0 else q).astype(m.dtype)
    try:
        ticks = np.fromiter(map(_ticks_of, rows), dtype=np.int64, count=n)
        weights = np.fromiter(map(_weights_of, rows), dtype=np.float64, count=n)
    except (AttributeError, TypeError) as e:
        raise LawError(f"Expected rows of Memory but got a row that is not: {e}") from e
    felt_now: list[float] | None = None
    if p.importance == "felt":
        if felt is None:
            raise LawError("Expected each row's felt strength (felt=...) for felt retrieval "
                           "but got none")
        felt_now = [real("a felt strength in felt", f, low=0.0, high=1.0) for f in felt]
        if len(felt_now) != n:
            raise LawError(f"Expected one felt strength per row ({n}) but got {len(felt_now)}")
        # the fast pass scales weights by 1/10: a felt strength is ten of those
        weights = np.asarray(felt_now, dtype=np.float64) * 10
    eligible = ticks <= now
    if not eligible.any():
        return ()
    candidates = _nominate(m, q_unit, q_norm, ticks, weights, eligible, now, p)

    out = []
    for i in candidates.tolist():
        row = rows[i]
        rec = 0.5 ** ((now - row.tick) / p.half_life)
        imp = row.weight / 10 if felt_now is None else felt_now[i]
        v = m[i]
        if not np.isfinite(v).all():
            raise LawError(f"Expected finite vectors but row {i} of vectors is not finite")
        rel = _exact_cosine(v, q, q_norm)
        out.append(Ranked(row, rec, imp, rel, w_r * rec + w_i * imp + w_v * rel))
    out.sort(key=_key)
    ids = [r.memory.id for r in out]
    if len(set(ids)) != len(ids):
        raise LawError(f"Expected each row once but got ids {sorted(ids)} among the best rows")
    return tuple(out[: p.k])


_CHUNK_BYTES = 3 << 18
"""Rows are read in blocks of about 768 KB, which fit in a core's L2 cache, so
the second product over a block (its squared norms) reads it from cache and
the matrix crosses the memory bus once, not twice."""

_rowdot = getattr(np, "vecdot", None)


def _products(m: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's product with the unit query and with itself, in the matrix's precision."""
    n, dim = m.shape
    dots = np.empty(n, dtype=m.dtype)
    squares = np.empty(n, dtype=m.dtype)
    step = max(1, _CHUNK_BYTES // max(1, dim * m.itemsize))
    # overflow and underflow are expected here and caught by the caller's
    # check of the squares; they are not worth a warning
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        for a in range(0, n, step):
            block = m[a : a + step]
            if _rowdot is not None:
                _rowdot(block, q, out=dots[a : a + step])
                _rowdot(block, block, out=squares[a : a + step])
            else:  # numpy < 2 has no vecdot; einsum is the same product, a little slower
                np.einsum("ij,j->i", block, q, out=dots[a : a + step])
                np.einsum("ij,ij->i", block, block, out=squares[a : a + step])
    return dots, squares


def _kth_largest(fast: np.ndarray, k: int) -> float:
    """The k-th largest of `fast`, without partitioning the whole array.

    The k-th largest of any subset is no greater than the k-th largest of the
    whole, so a strided sample gives a lower bound cheaply; every one of the
    top k is at or above it, the values there are few, and the k-th largest
    among them is the k-th largest of all."""
    n = fast.shape[0]
    stride = max(1, n // (64 * k))
    if stride > 1:
        sample = fast[::stride]
        if sample.shape[0] > k:
            low = np.partition(sample, sample.shape[0] - k)[sample.shape[0] - k]
            if np.isfinite(low):
                above = fast[fast >= low]
                if above.shape[0] >= k:
                    return float(np.partition(above, above.shape[0] - k)[above.shape[0] - k])
    return float(np.partition(fast, n - k)[n - k])


def _nominate(
    m: np.ndarray,
    q_unit: np.ndarray,
    q_norm: float,
    ticks: np.ndarray,
    weights: np.ndarray,
    eligible: np.ndarray,
    now: int,
    p: Retrieval,
) -> np.ndarray:
    """Indices of every row that could be in the top k, found by a fast pass with a proven margin."""
    w_r, w_i, w_v = p.weights
    n, dim = m.shape
    if int(np.count_nonzero(eligible)) <= p.k:
        return np.flatnonzero(eligible)
    dots, squares = _products(m, q_unit)
    fin = np.finfo(m.dtype)
    # rows the error bound does not cover (a square that overflowed, or one so
    # small its products underflow, or not a number) are scored exactly,
    # whatever their fast score; the comparisons are false for NaN
    odd = ~((squares >= fin.tiny * 2.0**30) & (squares <= fin.max))
    odd_rows = np.flatnonzero(odd)
    if odd_rows.size:
        few = m[odd_rows]
        finite = np.isfinite(few).all(axis=1)
        if not finite.all():
            row = int(odd_rows[np.argmin(finite)])
            raise LawError(f"Expected finite vectors but row {row} of vectors is not finite")
        # a vector of exact zeros has relevance 0 by definition, fast or exact
        zeros = odd_rows[~few.any(axis=1)]
        odd[zeros] = False
        odd_rows = np.flatnonzero(odd)
        squares[odd] = 1
        squares[zeros] = 1
        dots[odd] = 0
    fast = dots.astype(np.float64)
    if q_norm > 0:
        fast /= np.sqrt(squares, dtype=np.float64)
    else:
        fast[:] = 0.0
    fast *= w_v
    age = (now - ticks).astype(np.float64)
    age *= -1.0 / float(p.half_life)
    fast += w_r * np.exp2(age)
    fast += (w_i / 10) * weights
    if not eligible.all():
        fast[~eligible] = -np.inf
    if odd_rows.size:
        fast[odd_rows] = -np.inf

    # |fast relevance - exact relevance| <= (1.5 dim + 3) u for a float sum of
    # dim products in any order, the query's cast and the norm's sqrt; twice that
    # for slack, plus float64 dust for the other two terms and the 12-place rounding
    u = float(fin.eps) / 2
    margin = abs(w_v) * (2 * dim + 8) * u + 1e-12 * (1 + abs(w_r) + abs(w_i) + abs(w_v))
    ordinary = int(np.count_nonzero(eligible)) - int(np.count_nonzero(odd & eligible))
    if ordinary > p.k:
        kth = _kth_largest(fast, p.k)
        keep = fast >= kth - 2 * margin - 2 * 10.0**-PLACES
    else:
        keep = eligible & ~odd
    if odd_rows.size:
        keep |= odd & eligible
    return np.flatnonzero(keep)
