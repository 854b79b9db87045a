"""Retrieval: which of a villager's memories a question brings back, and in what order.

This module owns `recency`, `cosine`, `rank_columns` (and `rank`, the same
ranking of row objects) and their values `Retrieval`, `Scored` and
`Ranked`. It must not embed text, call a model or read the log: it is
handed columns (ids, ticks, weights or felt strengths), one matrix of their
vectors and a query vector, and answers with numbers. A caller that ranks
one matrix for many queries works out its squared norms once (`squares`).

The order `rank` answers in is total and does not depend on the order of the
input, on BLAS or on the machine's vector width. A fast pass over the whole
matrix (float32 where the vectors are float32) only nominates candidates: every
row whose fast score is within a proven error margin of the k-th best. Each
candidate is then scored again on its own, in float64, with a correctly
rounded sum (`math.fsum`) over exactly rounded products, so its score is a
function of that row, the query and the parameters alone. The order is by
score rounded to 12 decimal places, highest first; then the newer tick first;
then the lower id first. (Recency goes through the platform's `pow`, which
may differ between C libraries in the last bit; the rounding absorbs that
unless a score falls within a bit of a rounding boundary.)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import NamedTuple

import numpy as np

from kernel.laws._errors import LawError, integer, real
from kernel.laws._errors import tick as as_tick
from kernel.laws.memory import Memory

PLACES = 12
"""Decimal places a score is rounded to before it is compared: far below any
difference a model's embedding means, far above any a summation order makes."""


def recency(now: int, tick: int, half_life: float) -> float:
    """How fresh a row at `tick` is at `now`: 0.5 ** ((now - tick) / half_life)."""
    now = as_tick("now", now)
    tick = as_tick("tick", tick)
    if tick > now:
        raise LawError(f"Expected a tick no later than now={now!r} but got tick={tick!r}")
    half_life = real("half_life", half_life, above=0.0)
    return 0.5 ** ((now - tick) / half_life)


def _cos(dot: float, self_square: float, q_norm: float) -> float:
    """A cosine from exact sums: 0.0 where either vector is zero, clamped to [-1, 1]."""
    v_norm = math.sqrt(self_square)
    if v_norm == 0.0 or q_norm == 0.0:
        return 0.0
    return max(-1.0, min(1.0, dot / (v_norm * q_norm)))


def _exact_cosine(v: np.ndarray, q: np.ndarray, q_norm: float) -> float:
    # every product is one IEEE rounding and fsum is correctly rounded, so this
    # is the same float on every machine, whatever order the terms come in
    v = v.astype(np.float64, copy=False)
    return _cos(math.fsum((v * q).tolist()), math.fsum((v * v).tolist()), q_norm)


def cosine(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """The cosine of two vectors, the same float on every machine; 0.0 when either is zero."""
    x = _vector("a", a)
    y = _vector("b", b)
    if x.shape != y.shape:
        raise LawError(
            f"Expected vectors of one length but got a of {x.shape[0]} and b of {y.shape[0]}"
        )
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


IMPORTANCE = ("weight", "felt")
"""What a row's importance term is: its weight / 10, or what it is felt at now."""


@dataclass(frozen=True, slots=True)
class Retrieval:
    """The retrieval block: recency half-life in ticks, the three weights
    (recency, importance, relevance) and how many rows come back."""

    half_life: float = 250
    weights: tuple[float, float, float] = (1.0, 1.0, 3.0)
    k: int = 8
    importance: str = "weight"    # the importance term: "weight" (weight / 10) or "felt" (felt now)

    def __post_init__(self) -> None:
        real("half_life", self.half_life, above=0.0)
        integer("k", self.k, at_least=0)
        if self.importance not in IMPORTANCE:
            raise LawError(f"Expected importance among {IMPORTANCE} but got "
                           f"importance={self.importance!r}")
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
        unknown = set(params) - {"half_life", "weights", "k", "importance"}
        if unknown:
            raise LawError(
                f"Expected keys half_life, weights, k and importance but got params={dict(params)!r}"
            )
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


@dataclass(frozen=True, slots=True)
class Scored:
    """One retrieved row by its place `at` in the columns ranked, with its score's parts."""

    at: int
    recency: float
    importance: float
    relevance: float
    score: float


_ticks_of = attrgetter("tick")
_weights_of = attrgetter("weight")
_ids_of = attrgetter("id")


def rank(
    now: int,
    rows: Sequence[Memory],
    vectors: np.ndarray,
    query: Sequence[float] | np.ndarray,
    params: Retrieval | Mapping[str, object] = Retrieval(),
    *,
    felt: Sequence[float] | np.ndarray | None = None,
    columns: RowColumns | tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    squares: np.ndarray | None = None,
) -> tuple[Ranked, ...]:
    """The top k of `rows` at ticks up to `now` for `query`, best first.

    `rank_columns` of the rows' ids, ticks and weights, each answer with its
    row: see there for the score and the order. `vectors` is a 2-D float
    array, row i the vector of rows[i]; `felt[i]` what rows[i] is felt at now.
    A caller ranking the same rows for many queries may hand in their
    `row_columns` and the vectors' `squares`, worked out once.
    """
    rows = rows if isinstance(rows, Sequence) else tuple(rows)
    cols = row_columns(rows) if columns is None else columns
    return ranked(rows, rank_columns(now, cols, vectors, query, params, felt=felt,
                                     squares=squares))


class RowColumns(NamedTuple):
    """The rows `rank_columns` ranks, as columns in one order: row i is `ids[i]` at `ticks[i]`
    of weight `weights[i]`. A plain tuple of the three is read alike."""

    ids: np.ndarray
    ticks: np.ndarray
    weights: np.ndarray


def row_columns(rows: Sequence[Memory]) -> RowColumns:
    """The ids, ticks and weights of `rows` as int64 columns, in their order: what
    `rank_columns` reads, read once for a caller that ranks the same rows many times."""
    n = len(rows)
    try:
        return RowColumns(np.fromiter(map(_ids_of, rows), dtype=np.int64, count=n),
                       np.fromiter(map(_ticks_of, rows), dtype=np.int64, count=n),
                       np.fromiter(map(_weights_of, rows), dtype=np.int64, count=n))
    except (AttributeError, TypeError) as e:
        raise LawError(f"Expected rows of Memory but got a row that is not: {e}") from e


def ranked(rows: Sequence[Memory], scored: Sequence[Scored]) -> tuple[Ranked, ...]:
    """Each answer of `rank_columns` over `rows`' columns with its row."""
    return tuple(Ranked(rows[s.at], s.recency, s.importance, s.relevance, s.score)
                 for s in scored)


def _column(name: str, value: object, n: int | None, dtype: type) -> np.ndarray:
    """A 1-D column of numbers (integers, for dtype int64), one per row when `n` is given."""
    try:
        c = np.asarray(value)
    except (TypeError, ValueError) as e:
        raise LawError(f"Expected a column of numbers but got {name}={value!r}") from e
    if c.ndim != 1 or (n is not None and c.shape[0] != n):
        raise LawError(f"Expected {name} as one value per row ({n}) but got shape {c.shape}")
    n = c.shape[0]
    if n and not (np.issubdtype(c.dtype, np.integer) or np.issubdtype(c.dtype, np.floating)):
        raise LawError(f"Expected {name} as numbers but got dtype {c.dtype}")
    if dtype is np.int64 and n and not np.issubdtype(c.dtype, np.integer):
        raise LawError(f"Expected {name} as integers but got dtype {c.dtype}")
    return c


def _felt_column(felt: Sequence[float] | np.ndarray, n: int) -> np.ndarray:
    """Each row's felt strength as float64, every one a finite number in [0, 1]."""
    if isinstance(felt, np.ndarray) and felt.ndim == 1 and felt.dtype.kind in "fiu":
        f = felt.astype(np.float64, copy=False)
        good = np.isfinite(f) & (f >= 0.0) & (f <= 1.0)
        if not good.all():
            real("a felt strength in felt", felt[int(np.argmin(good))].item(), low=0.0, high=1.0)
    else:
        f = np.asarray([real("a felt strength in felt", x, low=0.0, high=1.0) for x in felt],
                       dtype=np.float64)
    if f.shape[0] != n:
        raise LawError(f"Expected one felt strength per row ({n}) but got {f.shape[0]}")
    return f


def squares(vectors: np.ndarray) -> np.ndarray:
    """Each row's squared norm in the matrix's own precision, as `rank_columns` works it out.

    A caller that ranks one matrix for many queries works these out once and
    hands them to each ranking (`squares=`)."""
    return _products(vectors, None)[1]


def _matrix_and_query(m: np.ndarray, query: object) -> tuple[np.ndarray, np.ndarray, bool]:
    """The vectors as float32 or float64 (float16 widened to float32, other real numbers to
    float64) and the query checked against their width; and whether the vectors were cast."""
    cast = m.dtype not in (np.float32, np.float64)
    if cast:
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
    return m, q, cast


def rank_columns(
    now: int,
    columns: RowColumns | tuple[np.ndarray, np.ndarray, np.ndarray],
    vectors: np.ndarray,
    query: Sequence[float] | np.ndarray,
    params: Retrieval | Mapping[str, object] = Retrieval(),
    *,
    felt: Sequence[float] | np.ndarray | None = None,
    squares: np.ndarray | None = None,
) -> tuple[Scored, ...]:
    """The top k of the rows at ticks up to `now` for `query`, best first, by their places.

    Row i of `columns` is `ids[i]` at `ticks[i]` of weight `weights[i]` (1..10),
    its vector `vectors[i]`. score = w_r * recency + w_i * importance + w_v *
    cosine(query, vector), where importance is weight / 10, or, when
    `params.importance` is "felt", `felt[i]`: what row i is felt at now
    (thousandths / 1000, in [0, 1]), with recency = 0.5 ** ((now - tick) /
    half_life) and the cosine of a zero vector 0. Rows after `now` are not
    eligible. Ordered by the score rounded to 12 places (highest first), then
    by tick (newest first), then by id (lowest first): a total order,
    unchanged by shuffling the input, and each row's score depends on that
    row alone. `squares`, when given, must be `squares(vectors)`: it only
    saves working them out again.
    """
    now = as_tick("now", now)
    p = Retrieval.of(params)
    ids, ticks, weights, m = _checked_columns(columns, vectors)
    n = ids.shape[0]
    m, q, cast = _matrix_and_query(m, query)
    given = None if cast else squares  # squares of the matrix as it came are not its cast's
    if p.k == 0 or n == 0:
        return ()
    if ticks.min() < 0:
        as_tick("a tick in ticks", int(ticks.min()))
    asked = _Query.of(q, m.dtype)
    felt_now = _felt_now(p, felt, n)
    # the fast pass scales weights by 1/10: a felt strength is ten of those
    fast_weights = felt_now * 10 if felt_now is not None else weights.astype(np.float64)
    if squares is not None:
        _column("squares", squares, n, np.float64)
    if given is not None:
        given = np.asarray(given).astype(m.dtype, copy=False)
    eligible = ticks <= now
    if not eligible.any():
        return ()
    candidates = _nominate(m, asked, ticks, fast_weights, eligible, now, p, given)
    imp_of = (felt_now[candidates].tolist() if felt_now is not None
              else [w / 10 for w in weights[candidates].tolist()])
    return _scored(now, candidates, RowColumns(ids, ticks, weights), imp_of, m, asked, p)


def _checked_columns(columns: object, vectors: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The ids, ticks and weights as columns of numbers, one per row, and the vectors as an
    array of one row each."""
    if not isinstance(columns, tuple) or len(columns) != 3:
        raise LawError(f"Expected the columns (ids, ticks, weights) but got {columns!r}")
    ids = _column("ids", columns[0], None, np.int64)
    n = ids.shape[0]
    m = np.asarray(vectors)
    if m.ndim != 2 or m.shape[0] != n:
        raise LawError(f"Expected vectors of shape ({n}, d), one per row, but got shape {m.shape}")
    ticks = _column("ticks", columns[1], n, np.int64)
    weights = _column("weights", columns[2], n, np.float64)
    return ids, ticks, weights, m


@dataclass(frozen=True, slots=True)
class _Query:
    """The query as both passes read it: as given (float64), its norm, and scaled to unit
    length in the matrix's precision (the fast pass's)."""

    exact: np.ndarray
    norm: float
    unit: np.ndarray

    @classmethod
    def of(cls, q: np.ndarray, dtype: np.dtype) -> _Query:
        norm = math.sqrt(math.fsum((q * q).tolist()))
        # the query is scaled to unit length first so that a tiny query cannot
        # underflow when cast down to the matrix's precision
        return cls(q, norm, (q / norm if norm > 0 else q).astype(dtype))


def _felt_now(p: Retrieval, felt: Sequence[float] | np.ndarray | None,
              n: int) -> np.ndarray | None:
    """Each row's felt strength, checked, where the importance term is what it is felt at now;
    else None."""
    if p.importance != "felt":
        return None
    if felt is None:
        raise LawError("Expected each row's felt strength (felt=...) for felt retrieval "
                       "but got none")
    return _felt_column(felt, n)


def _scored(
    now: int,
    candidates: np.ndarray,
    columns: RowColumns,
    imp_of: list[float],
    m: np.ndarray,
    query: _Query,
    p: Retrieval,
) -> tuple[Scored, ...]:
    """The candidates' exact scores, best first, the top k of them (rank_columns' second pass)."""
    w_r, w_i, w_v = p.weights
    q, q_norm = query.exact, query.norm
    picked = m[candidates]
    finite = np.isfinite(picked).all(axis=1)
    if not finite.all():
        row = int(candidates[np.argmin(finite)])
        raise LawError(f"Expected finite vectors but row {row} of vectors is not finite")
    # every product is one IEEE rounding and fsum is correctly rounded, so each
    # relevance is the same float on every machine, whatever order the terms come in
    exact = picked.astype(np.float64)
    selves = list(map(math.fsum, (exact * exact).tolist()))
    dots = list(map(math.fsum, (exact * q).tolist()))
    at = candidates.tolist()
    tick_of = columns.ticks[candidates].tolist()
    id_of = columns.ids[candidates].tolist()
    half_life = p.half_life
    out = []
    for j, i in enumerate(at):
        rec = 0.5 ** ((now - tick_of[j]) / half_life)
        imp = imp_of[j]
        rel = _cos(dots[j], selves[j], q_norm)
        score = w_r * rec + w_i * imp + w_v * rel
        out.append(((-round(score, PLACES), -tick_of[j], id_of[j]), Scored(i, rec, imp, rel, score)))
    out.sort(key=_first)
    if len(set(id_of)) != len(id_of):
        raise LawError(f"Expected each row once but got ids {sorted(id_of)} among the best rows")
    return tuple(s for _, s in out[: p.k])


def _first(pair: tuple) -> object:
    return pair[0]


_CHUNK_BYTES = 3 << 18
"""Rows are read in blocks of about 768 KB, which fit in a core's L2 cache, so
the second product over a block (its squared norms) reads it from cache and
the matrix crosses the memory bus once, not twice."""

_rowdot = getattr(np, "vecdot", None)


def _products(m: np.ndarray, q: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Each row's product with the unit query (none without one) and with itself, in the
    matrix's precision."""
    n, dim = m.shape
    dots = np.empty(n if q is not None else 0, dtype=m.dtype)
    squares = np.empty(n, dtype=m.dtype)
    step = max(1, _CHUNK_BYTES // max(1, dim * m.itemsize))
    # overflow and underflow are expected here and caught by the caller's
    # check of the squares; they are not worth a warning
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        for a in range(0, n, step):
            block = m[a : a + step]
            if _rowdot is not None:
                if q is not None:
                    _rowdot(block, q, out=dots[a : a + step])
                _rowdot(block, block, out=squares[a : a + step])
            else:  # numpy < 2 has no vecdot; einsum is the same product, a little slower
                if q is not None:
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
    query: _Query,
    ticks: np.ndarray,
    weights: np.ndarray,
    eligible: np.ndarray,
    now: int,
    p: Retrieval,
    squares: np.ndarray | None = None,
) -> np.ndarray:
    """Indices of every row that could be in the top k, found by a fast pass with a proven margin."""
    w_r, w_i, w_v = p.weights
    dim = m.shape[1]
    if int(np.count_nonzero(eligible)) <= p.k:
        return np.flatnonzero(eligible)
    dots, squares = _fast_products(m, query.unit, squares)
    odd, odd_rows = _set_aside(m, dots, squares)
    fast = _fast_scores(dots, squares, query.norm, ticks, weights, now, p)
    if not eligible.all():
        fast[~eligible] = -np.inf
    if odd_rows.size:
        fast[odd_rows] = -np.inf

    # |fast relevance - exact relevance| <= (1.5 dim + 3) u for a float sum of
    # dim products in any order, the query's cast and the norm's sqrt; twice that
    # for slack, plus float64 dust for the other two terms and the 12-place rounding
    u = float(np.finfo(m.dtype).eps) / 2
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


def _fast_products(m: np.ndarray, q_unit: np.ndarray,
                   squares: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Each row's product with the unit query and with itself (a copy of `squares` where they
    are known), in the matrix's precision: the fast pass's, to be written over."""
    if squares is None:
        return _products(m, q_unit)
    # the squares are known: one product with the query, a pass the BLAS makes at
    # the speed of memory (any order of the sum is within the margin below)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        dots = m @ q_unit
    return dots, squares.copy()


def _set_aside(m: np.ndarray, dots: np.ndarray,
               squares: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows the fast pass cannot score within its margin (a mask, and their indices):
    scored exactly whatever their fast score. Their products are made harmless in place."""
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
    return odd, odd_rows


def _fast_scores(dots: np.ndarray, squares: np.ndarray, q_norm: float, ticks: np.ndarray,
                 weights: np.ndarray, now: int, p: Retrieval) -> np.ndarray:
    """Every row's score in float64 from the fast products: within the margin of its exact one."""
    w_r, w_i, w_v = p.weights
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
    return fast
