"""Pool scheduling: many calls shared among workers, answered in the calls' order.

This module owns what every pool (Ray workers, Ollama hosts) shares in how it
answers: `fan`, which gives each call to whichever worker is free and hands the
answers back in the calls' order, and `embed_in_runs`, which cuts one embedding
call into contiguous runs of texts across the workers and joins them. A pool
plugs these into the oracle base's `_generate_many` and `_embed`; counting,
costing and recording stay the base's, done once for every backend. It must not
change an ask or an answer, count anything, or know which pool it serves: only
the handles differ between a Ray actor and an Ollama host.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from kernel.errors import OracleError

# An embedding call of at least MIN_CHUNK texts is cut into CHUNKS_PER_WORKER runs a worker,
# so a worker that finishes early takes another; a smaller one goes to one worker whole,
# since shipping it costs more than it saves.
MIN_CHUNK = 8
CHUNKS_PER_WORKER = 4


def chunks(n: int, parts: int) -> list[tuple[int, int]]:
    """`n` items cut into at most `parts` contiguous runs of near-equal size, as (start, stop)."""
    parts = max(1, min(parts, n))
    size, extra = divmod(n, parts)
    out, at = [], 0
    for i in range(parts):
        step = size + (1 if i < extra else 0)
        out.append((at, at + step))
        at += step
    return out


def embed_in_runs(texts: list[str], workers: int, fan, *, what: str
                  ) -> tuple[np.ndarray, int, int]:
    """One embedding call answered in runs of `texts` by `fan(runs)` -> [(vectors, ns, tokens)]
    in the runs' order; the vectors joined in the texts' order, the time and tokens summed as
    one worker's call would report them. `what` names the call in the error of mixed widths."""
    parts = workers * CHUNKS_PER_WORKER if len(texts) >= MIN_CHUNK else 1
    got = fan([texts[a:b] for a, b in chunks(len(texts), parts)])
    widths = {np.shape(v)[1] for v, _, _ in got}
    if len(widths) != 1:
        raise OracleError(f"the workers answered {what} with vectors of {len(widths)} widths "
                          f"({sorted(widths)})")
    vectors = np.concatenate([np.asarray(v, dtype=np.float32) for v, _, _ in got], axis=0)
    return vectors, sum(t for _, t, _ in got), sum(n for _, _, n in got)


def fan(calls: Sequence[tuple], workers: int, submit: Callable[[int, tuple], Any],
        wait_some: Callable[[list], Iterable], result: Callable[[Any], Any]) -> list:
    """Each call's answer, in the calls' order, from whichever of `workers` was free to make it.

    `submit(worker, args)` starts a call and gives a handle, `wait_some(handles)` the handles
    done, at least one, and `result(handle)` the answer or its error. Every call started is let
    finish; then the first error, in the calls' order, is raised. What a pool of Ray workers
    and a pool of Ollama hosts share: only the handles differ.
    """
    answers: list[Any] = [None] * len(calls)
    errors: dict[int, BaseException] = {}
    todo = deque(enumerate(calls))
    free = deque(range(workers))
    running: dict[Any, tuple[int, int]] = {}
    while todo or running:
        while todo and free and not errors:
            w = free.popleft()
            i, args = todo.popleft()
            running[submit(w, args)] = (i, w)
        if not running:
            break
        for h in wait_some(list(running)):
            i, w = running.pop(h)
            try:
                answers[i] = result(h)
            except BaseException as e:  # kept, so the others finish before it is raised
                errors[i] = e
            free.append(w)
    if errors:
        raise errors[min(errors)]
    return answers
