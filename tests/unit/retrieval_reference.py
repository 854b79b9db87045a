"""`laws.rank` as it was before it took columns: the tests' reference.

A copy of the ranking in kernel/laws/retrieval.py as it stood when `rank`
read ticks and weights from row objects and scored each candidate on its
own. tests/unit/test_rank_columns.py holds the kernel's ranking to it,
order, ties and every score. It is kept as it was; only this paragraph, the
imports, the call to the shared check of the vectors and the query handed to
the fast pass as one value (the kernel's `_Query`) are new. The fast
pass that nominates candidates (`_nominate`), the check and cast of the
vectors and the query (`_matrix_and_query`) and the exact cosine of one row
are the kernel's, imported: they are the same functions, and tests/properties/test_laws_retrieval_properties.py
holds them to a brute-force ranking.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from operator import attrgetter

import numpy as np

from kernel.laws._errors import LawError, real
from kernel.laws._errors import tick as as_tick
from kernel.laws.memory import Memory
from kernel.laws.retrieval import (
    PLACES,
    Ranked,
    Retrieval,
    _exact_cosine,
    _matrix_and_query,
    _nominate,
    _Query,
)

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
    m, q, _ = _matrix_and_query(m, query)
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
    candidates = _nominate(m, _Query(q, q_norm, q_unit), ticks, weights, eligible, now, p)

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
