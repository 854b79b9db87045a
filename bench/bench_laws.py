"""Benchmark of `laws.rank`: top-k over 100,000 memories with 384-wide float32 vectors.

This module owns the retrieval benchmark and nothing else: it builds a
synthetic stream in memory with a seeded generator, and times `laws.rank`
against two references measured in the same process, best of several runs:

- the generative_agents retrieval loop, re-implemented here from its
  published description (a Python cosine per memory, min-max normalisation
  of recency, importance and relevance, weights 0.5 / 3 / 2, recency decayed
  by 0.995 per place in the order of last access, then a sort). It is run on
  a 10,000-row slice and scaled linearly to 100,000, because it is linear in
  the rows and the full run takes a minute;
- the floor: one numpy matmul pass, `matrix @ query`, over the same matrix.

It writes no files and touches no other part of the kernel than `kernel.laws`.
`run()` returns the lines; `python -m bench.bench_laws` prints them.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter

import numpy as np
from numpy import dot
from numpy.linalg import norm

from bench import interleaved, verdict
from kernel import laws
from kernel.laws import retrieval

ROWS = 100_000
DIM = 384
LOOP_ROWS = 10_000
K = 8
SEED = 20_260_911


def _stream(
    rng: np.random.Generator, n: int
) -> tuple[list[laws.Memory], np.ndarray, np.ndarray, int]:
    now = 200_000
    ticks = rng.integers(0, now + 1, size=n)
    weights = rng.integers(1, 11, size=n)
    kinds = ("saw", "did", "heard")
    rows = [
        laws.Memory(i, 1, int(t), kinds[i % 3], "meal", f"row {i}", int(w), (1,))
        for i, (t, w) in enumerate(zip(ticks.tolist(), weights.tolist(), strict=True))
    ]
    vectors = rng.standard_normal((n, DIM), dtype=np.float32)
    query = rng.standard_normal(DIM, dtype=np.float32)
    return rows, vectors, query, now


class _Node:
    """A memory as the generative_agents loop holds one: a node with a last
    access time, a poignancy and the key of its embedding."""

    __slots__ = ("node_id", "last_accessed", "poignancy", "embedding_key")

    def __init__(self, node_id: int, last_accessed: int, poignancy: int, embedding_key: str):
        self.node_id = node_id
        self.last_accessed = last_accessed
        self.poignancy = poignancy
        self.embedding_key = embedding_key


def _normalise(d: dict[int, float], low: float, high: float) -> dict[int, float]:
    lo, hi = min(d.values()), max(d.values())
    span = hi - lo
    if span == 0:
        return {key: (high - low) / 2 for key in d}
    return {key: (v - lo) * (high - low) / span + low for key, v in d.items()}


def _cos_sim(a: list[float], b: list[float]) -> float:
    return dot(a, b) / (norm(a) * norm(b))


def generative_agents_loop(
    nodes: list[_Node], embeddings: dict[str, list[float]], focal: list[float], n: int
) -> list[int]:
    """The reference loop: one pass per component over every node, then a sort."""
    by_access = sorted(nodes, key=lambda node: node.last_accessed, reverse=True)
    recency = {node.node_id: 0.995**place for place, node in enumerate(by_access, 1)}
    importance = {node.node_id: float(node.poignancy) for node in nodes}
    relevance = {node.node_id: _cos_sim(embeddings[node.embedding_key], focal) for node in nodes}
    recency = _normalise(recency, 0, 1)
    importance = _normalise(importance, 0, 1)
    relevance = _normalise(relevance, 0, 1)
    gw = (0.5, 3, 2)
    master = {
        key: recency[key] * gw[0] + relevance[key] * gw[1] + importance[key] * gw[2]
        for key in recency
    }
    return [key for key, _ in sorted(master.items(), key=lambda kv: kv[1], reverse=True)[:n]]


SIZES = (1_000, 10_000, ROWS)
"""Row counts the ranking is timed at against the floor; the target holds at 10,000 and up."""


def _columns_at(rng: np.random.Generator, n: int, repeats: int) -> tuple[dict[str, float], object]:
    """Ranking on columns at `n` rows, beside the object ranking and the floor."""
    rows, vectors, query, now = _stream(rng, n)
    ids, ticks, weights = laws.row_columns(rows)
    felt = weights / 10
    squares = laws.squares(vectors)
    p = laws.Retrieval(half_life=250, weights=(1.0, 1.0, 3.0), k=K)
    pf = laws.Retrieval(half_life=250, weights=(1.0, 1.0, 3.0), k=K, importance="felt")
    timed: dict[str, Callable[[], object]] = {
        "floor": lambda: vectors @ query,
        "rows": lambda: laws.rank(now, rows, vectors, query, p),
        "columns": lambda: laws.rank_columns(now, (ids, ticks, weights), vectors, query, p),
        "squares": lambda: laws.rank_columns(now, (ids, ticks, weights), vectors, query, p,
                                             squares=squares),
        "felt": lambda: laws.rank_columns(now, (ids, ticks, weights), vectors, query, pf,
                                          felt=felt, squares=squares),
    }
    best = interleaved(timed, repeats)
    same = laws.ranked(rows, timed["squares"]()) == timed["rows"]()  # type: ignore[operator]
    return best, same


def run(repeats: int = 9) -> list[str]:
    rng = np.random.default_rng(SEED)
    rows, vectors, query, now = _stream(rng, ROWS)
    params = laws.Retrieval(half_life=250, weights=(1.0, 1.0, 3.0), k=K)

    # embeddings as lists, keyed by string, as the reference keeps them
    nodes = [_Node(m.id, m.tick, m.weight, f"e{m.id}") for m in rows[:LOOP_ROWS]]
    embeddings = {f"e{i}": vectors[i].tolist() for i in range(LOOP_ROWS)}
    focal = query.tolist()
    unit = (query / np.linalg.norm(query)).astype(np.float32)

    def read_rows() -> object:
        ticks = np.fromiter(map(attrgetter("tick"), rows), dtype=np.int64, count=ROWS)
        weights = np.fromiter(map(attrgetter("weight"), rows), dtype=np.float64, count=ROWS)
        return ticks, weights

    best = interleaved({
        "rank": lambda: laws.rank(now, rows, vectors, query, params),
        "floor": lambda: vectors @ query,
        "loop": lambda: generative_agents_loop(nodes, embeddings, focal, K),
        "read": read_rows,
        "products": lambda: retrieval._products(vectors, unit),
    }, repeats)

    top = laws.rank(now, rows, vectors, query, params)
    t_rank, t_floor = best["rank"], best["floor"]
    t_loop = best["loop"] * ROWS / LOOP_ROWS
    faster = t_loop / t_rank
    mb = vectors.nbytes / 1e6
    lines = [
        f"laws.rank: top {K} of {ROWS:,} rows x {DIM} float32 ({mb:.1f} MB), "
        f"best of {repeats} interleaved rounds, numpy {np.__version__}",
        f"  {'laws.rank on row objects':<44} {t_rank * 1e3:10.2f} ms",
        f"  {'  of which: ticks and weights read from rows':<44} {best['read'] * 1e3:10.2f} ms",
        f"  {'  of which: dot and norm, one blocked pass':<44} {best['products'] * 1e3:10.2f} ms",
        f"  {'matmul floor (matrix @ query)':<44} {t_floor * 1e3:10.2f} ms",
        f"  {'generative_agents loop':<44} {t_loop * 1e3:10.2f} ms  "
        f"(measured on {LOOP_ROWS:,} rows: {best['loop'] * 1e3:.2f} ms, scaled x{ROWS // LOOP_ROWS})",
        f"  rank vs the loop          {faster:8.1f}x faster  target >= 100x  "
        + verdict(faster >= 100, "ranking is less than 100 times the per-row loop"),
        f"  best row: id {top[0].memory.id}, score {top[0].score:.6f}",
        "laws.rank_columns: ids, ticks, weights (or felt) and one float32 matrix, against the "
        "floor; 'squares known' is the matrix's squared norms handed in, as a round does for "
        "every question of a villager's",
        f"  {'rows':>8} {'floor':>9} {'on rows':>16} {'columns':>16} {'squares known':>16} "
        f"{'felt, squares known':>20}  target (squares known, >= 10,000 rows)",
    ]
    for n in SIZES:
        b, same = _columns_at(np.random.default_rng(SEED + n), n, repeats)
        f = b["floor"]

        def cell(name: str, width: int = 16, b=b, f=f) -> str:
            return f"{b[name] * 1e3:7.3f} ms {b[name] / f:5.2f}x".rjust(width)

        said = "" if n < 10_000 else "<= 3x " + verdict(
            b["squares"] / f <= 3, "reading the columns costs more than twice the matmul")
        lines.append(f"  {n:>8,} {f * 1e3:6.3f} ms {cell('rows')} {cell('columns')} "
                     f"{cell('squares')} {cell('felt', 20)}  {said}"
                     f"{'' if same else '  RANKINGS DIFFER'}")
    return lines


if __name__ == "__main__":
    for line in run():
        print(line)
