"""Retrieval: which of a villager's memories a question brings back, and in what order.

This module owns `recency`, `cosine`, `rank` and their values `Retrieval`
and `Ranked`. It must not embed text, call a model or read the log: it is
handed rows, their vectors and a query vector, and answers with numbers.

The order `rank` answers in is total and does not depend on the order of the
input, on BLAS or on the machine's vector width. A fast pass over the whole
matrix (float32 where the vectors are float32) only nominates candidates: every
row whose fast score is within a proven error margin of the k-th best. Each
candidate is then scored again on its own, in float64, with a correctly
rounded sum (`math.fsum`) over exactly rounded products, so its score is a
function of that row, the query and the parameters alone. The order is by
score rounded to 12 decimal places, highest first; then the newer tick first;
then the lower id first.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter

import numpy as np

from kernel.laws._errors import LawError, integer, real, tick
from kernel.laws.memory import Memory

PLACES = 12
"""Decimal places a score is rounded to before it is compared: far below any
difference a model's embedding means, far above any a summation order makes."""


def recency(now: int, tick_: int, half_life: float) -> float:
    """How fresh a row at `tick_` is at `now`: 0.5 ** ((now - tick_) / half_life)."""
    now = tick("now", now)
    tick_ = tick("tick", tick_)
    if tick_ > now:
        raise LawError(f"Expected a tick no later than now={now!r} but got tick={tick_!r}")
    half_life = real("half_life", half_life, above=0.0)
    return 0.5 ** ((now - tick_) / half_life)


def _exact_cosine(v: np.ndarray, q: np.ndarray, q_norm: float) -> float:
    # every product is one IEEE rounding and fsum is correctly rounded, so this
    # is the same float on every machine, whatever order the terms come in
    v = v.astype(np.float64, copy=False)
    v_norm = math.sqrt(math.fsum((v * v).tolist()))
    if v_norm == 0.0 or q_norm == 0.0:
        return 0.0
    dot = math.fsum((v * q).tolist())
    return max(-1.0, min(1.0, dot / (v_norm * q_norm)))


def cosine(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """The cosine of two vectors, the same float on every machine; 0.0 when either is zero."""
    x = _vector("a", a)
    y = _vector("b", b)
    if x.shape != y.shape:
        raise LawError(f"Expected vectors of one length but got a of {x.shape[0]} and b of {y.shape[0]}")
    return _exact_cosine(x, y, math.sqrt(math.fsum((y * y).tolist())))


def _vector(name: str, value: object) -> np.ndarray:
    try:
        v = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise LawError(f"Expected a vector of numbers but got {name}={value!r}") from e
    if v.ndim != 1:
        raise LawError(f"Expected a 1-D vector but got {name} of shape {v.shape}")
    if not np.isfinite(v).all():
        raise LawError(f"Expected a vector of finite numbers but got {name}={value!r}")
    return v


@dataclass(frozen=True, slots=True)
class Retrieval:
    """The retrieval block: recency half-life in ticks, the three weights
    (recency, importance, relevance) and how many rows come back."""

    half_life: float = 250
    weights: tuple[float, float, float] = (1.0, 1.0, 3.0)
    k: int = 8

    def __post_init__(self) -> None:
        real("half_life", self.half_life, above=0.0)
        integer("k", self.k, at_least=0)
        if isinstance(self.weights, str | bytes) or len(tuple(self.weights)) != 3:
            raise LawError(
                f"Expected three weights (recency, importance, relevance) but got weights={self.weights!r}"
            )
        ws = tuple(real("weights", w) for w in self.weights)
        object.__setattr__(self, "weights", ws)

    @classmethod
    def of(cls, params: Retrieval | Mapping[str, object]) -> Retrieval:
        """Accept the value, or a mapping with any of "half_life", "weights" and "k"; the
        weights as three numbers or as a mapping of "recency", "importance" and "relevance"."""
        if isinstance(params, Retrieval):
            return params
        if not isinstance(params, Mapping):
            raise LawError(f"Expected a Retrieval or a mapping but got params={params!r}")
        unknown = set(params) - {"half_life", "weights", "k"}
        if unknown:
            raise LawError(f"Expected keys half_life, weights and k but got params={dict(params)!r}")
        given = dict(params)
        ws = given.get("weights")
        if isinstance(ws, Mapping):
            if set(ws) != {"recency", "importance", "relevance"}:
                raise LawError(
                    "Expected weights for recency, importance and relevance "
                    f"but got weights={dict(ws)!r}"
                )
            given["weights"] = (ws["recency"], ws["importance"], ws["relevance"])
        elif ws is not None:
            given["weights"] = tuple(ws)  # type: ignore[arg-type]
        return cls(**given)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Ranked:
    """One retrieved row with the three parts of its score and the score itself."""

    memory: Memory
    recency: float
    importance: float
    relevance: float
    score: float


_ticks_of = attrgetter("tick")
_weights_of = attrgetter("weight")
_ids_of = attrgetter("id")


def _key(r: Ranked) -> tuple[float, int, int]:
    return (-round(r.score, PLACES), -r.memory.tick, r.memory.id)


def rank(
    now: int,
    rows: Sequence[Memory],
    vectors: np.ndarray,
    query: Sequence[float] | np.ndarray,
    params: Retrieval | Mapping[str, object] = Retrieval(),
) -> tuple[Ranked, ...]:
    """The top k of `rows` at ticks up to `now` for `query`, best first.

    score = w_r * recency + w_i * weight / 10 + w_v * cosine(query, vector),
    with recency = 0.5 ** ((now - tick) / half_life) and the cosine of a zero
    vector 0. Rows after `now` are not eligible. `vectors` is a 2-D float
    array, row i the vector of rows[i]. Ordered by the score rounded to 12
    places (highest first), then by tick (newest first), then by id (lowest
    first): a total order, unchanged by shuffling the input, and each row's
    score depends on that row alone.
    """
    now = tick("now", now)
    p = Retrieval.of(params)
    w_r, w_i, w_v = p.weights
    rows = rows if isinstance(rows, Sequence) else tuple(rows)
    n = len(rows)
    m = np.asarray(vectors)
    if m.ndim != 2 or m.shape[0] != n:
        raise LawError(f"Expected vectors of shape ({n}, d), one per row, but got shape {m.shape}")
    if m.dtype not in (np.float32, np.float64):
        if not (np.issubdtype(m.dtype, np.number) and not np.issubdtype(m.dtype, np.complexfloating)):
            raise LawError(f"Expected vectors of real numbers but got dtype {m.dtype}")
        m = m.astype(np.float32 if m.dtype == np.float16 else np.float64)
    q = _vector("query", query)
    if q.shape[0] != m.shape[1]:
        raise LawError(f"Expected a query of length {m.shape[1]}, as the vectors, but got {q.shape[0]}")
    if p.k == 0 or n == 0:
        return ()
    try:
        ticks = np.fromiter(map(_ticks_of, rows), dtype=np.int64, count=n)
        weights = np.fromiter(map(_weights_of, rows), dtype=np.float64, count=n)
    except (AttributeError, TypeError) as e:
        raise LawError(f"Expected rows of Memory but got a row that is not: {e}") from e
    eligible = ticks <= now
    if not eligible.any():
        return ()

    q_norm = math.sqrt(math.fsum((q * q).tolist()))
    candidates = _nominate(m, q, q_norm, ticks, weights, eligible, now, p)

    out = []
    for i in candidates.tolist():
        row = rows[i]
        rec = 0.5 ** ((now - row.tick) / p.half_life)
        imp = row.weight / 10
        rel = _exact_cosine(m[i], q, q_norm)
        if not all(map(math.isfinite, (rec, imp, rel))):
            raise LawError(f"Expected finite scores but memory {row.id} scores rel={rel!r}")
        out.append(Ranked(row, rec, imp, rel, w_r * rec + w_i * imp + w_v * rel))
    out.sort(key=_key)
    ids = [r.memory.id for r in out]
    if len(set(ids)) != len(ids):
        raise LawError(f"Expected each row once but got ids {sorted(ids)} among the best rows")
    return tuple(out[: p.k])


def _nominate(
    m: np.ndarray,
    q: np.ndarray,
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
    if int(eligible.sum()) <= p.k:
        return np.flatnonzero(eligible)
    fin = np.finfo(m.dtype)
    # the query is scaled to unit length first so that a tiny query cannot
    # underflow when cast down to the matrix's precision
    q_unit = (q / q_norm if q_norm > 0 else q).astype(m.dtype)
    # einsum runs numpy's own loop, which here is faster than BLAS gemv and
    # touches each row once per pass
    dots = np.einsum("ij,j->i", m, q_unit).astype(np.float64)
    sq = np.einsum("ij,ij->i", m, m).astype(np.float64)
    # rows the error bound does not cover (overflow, or so small that
    # products underflow) are scored exactly whatever their fast score
    odd = ~np.isfinite(dots) | ~np.isfinite(sq) | (sq < fin.tiny * 2.0**30)
    odd_rows = np.flatnonzero(odd)
    if odd_rows.size:
        few = m[odd_rows]
        finite = np.isfinite(few).all(axis=1)
        if not finite.all():
            row = int(odd_rows[np.argmin(finite)])
            raise LawError(f"Expected finite vectors but row {row} of vectors is not finite")
        # a vector of exact zeros has relevance 0 by definition, fast or exact
        odd[odd_rows[~few.any(axis=1)]] = False
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(odd | (sq == 0) | (q_norm == 0), 0.0, dots / np.sqrt(sq))
    rec = np.power(0.5, (now - ticks) / float(p.half_life))
    fast = w_r * rec + w_i * (weights / 10) + w_v * rel
    fast = np.where(eligible & ~odd, fast, -np.inf)

    # |fast relevance - exact relevance| <= (1.5 dim + 3) u for a float sum of
    # dim products in any order, the query's cast and the norm's sqrt; twice that
    # for slack, plus float64 dust for the other two terms and the 12-place rounding
    u = float(fin.eps) / 2
    margin = abs(w_v) * (2 * dim + 8) * u + 1e-12 * (1 + abs(w_r) + abs(w_i) + abs(w_v))
    ordinary = int((eligible & ~odd).sum())
    if ordinary > p.k:
        kth = np.partition(fast, n - p.k)[n - p.k]
        keep = fast >= kth - 2 * margin - 2 * 10.0**-PLACES
    else:
        keep = eligible & ~odd
    return np.flatnonzero(keep | (odd & eligible))
