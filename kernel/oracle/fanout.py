"""Pool scheduling: many calls shared among workers, answered in the calls' order.

This module owns what every pool (Ray workers, Ollama hosts, OpenAI-protocol
servers) shares in how it answers: `fan`, which gives each call to whichever
worker is free and hands the answers back in the calls' order, `embed_in_runs`,
which cuts one embedding call into contiguous runs of texts across the workers
and joins them, `Servers`, the pool of model servers a backend lists itself
(each server one worker, or `slots` workers where it may answer several calls at
once), `servers_env`, the servers an environment variable lists, and `backoff`, the wait before asking a busy server again (`Retry` holds how
often and how long). A pool plugs
these into the oracle base's `_generate_many` and `_embed`; counting, costing
and recording stay the base's, done once for every backend. It must not change
an ask or an answer, count anything, or know which backend it serves: only the
handles differ between a Ray actor and a server.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from kernel.errors import OracleError
from kernel.oracle.base import Ask, Oracle, Said

T = TypeVar("T")

# An embedding call of at least MIN_CHUNK texts is cut into CHUNKS_PER_WORKER runs a worker,
# so a worker that finishes early takes another; a smaller one goes to one worker whole,
# since shipping it costs more than it saves.
MIN_CHUNK = 8
CHUNKS_PER_WORKER = 4


def servers_env(name: str, servers: str, like: str) -> list[str] | None:
    """The servers the environment variable `name` lists, comma-separated, or None where it is
    unset or blank; a list with an empty item is refused (`servers` names what it lists, `like`
    shows a list that would do)."""
    env = os.environ.get(name)
    if env is None or not env.strip():
        return None
    listed = [s.strip() for s in env.split(",")]
    if not all(listed):
        raise OracleError(f"{name} is a comma-separated list of {servers} with none empty, not "
                          f"{env!r}: set it like {like}")
    return listed


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


def backoff(attempt: int, base_s: float, cap_s: float) -> float:
    """The wait before asking a busy server (429, 503) again after `attempt` busy answers
    (0 the first): exponential and capped, so a busy server is worth a few short waits,
    never a long silent stall."""
    return min(cap_s, base_s * 2 ** attempt)


BUSY = (429, 503)
"""The answers of a server too busy to take a call now: asked again after a `backoff`."""


@dataclass(frozen=True, slots=True)
class Retry:
    """How a backend asks a busy server again: `attempts` calls at most, the waits between
    them a `backoff` from `base_s` capped at `cap_s`, each waited out by `sleep` (a test
    hands its own, to wait no time and see the waits)."""

    attempts: int = 4
    base_s: float = 0.25
    cap_s: float = 2.0
    sleep: Callable[[float], None] = time.sleep


RETRY = Retry()
"""How every backend asks a busy server again unless told: four calls, the waits 0.25 s
doubling up to 2 s."""


def busy_retried(fn: Callable[[], T], *, retry: Retry,
                 code_of: Callable[[BaseException], Any]) -> T:
    """`fn()`, asked again after each `backoff` while it raises an error whose `code_of` is a
    BUSY status, `retry.attempts` times at most; the last attempt's error is raised as it is,
    for the backend to say in its one line."""
    attempts = retry.attempts
    for attempt in range(attempts):
        try:
            return fn()
        except Exception as e:
            if code_of(e) in BUSY and attempt + 1 < attempts:
                retry.sleep(backoff(attempt, retry.base_s, retry.cap_s))
                continue
            raise
    raise AssertionError("unreachable: the last attempt returns or raises")


class Servers(Oracle):
    """A pool of model servers answering as one oracle; `generate_many` asks them together.

    `members` are one oracle a server (each with a `host` and `close`), all of one
    backend. Each call goes to whichever server has a free slot (`slots` calls in flight a
    server, one unless a server is known to answer several alike), and the answers are
    gathered by the index of their ask, never by arrival, then counted and costed in the
    asks' order: the same answers give the same events for one server or many. An
    embedding call of many texts is cut into contiguous runs across the slots and joined
    in order. A pool shares one set of model digests: `digest` asks every server and
    refuses one that differs from the first, naming both. `word` is what a server is
    called in those lines ("Ollama host").
    """

    together = True

    def __init__(self, members: Sequence[Oracle], *, word: str, slots: int = 1):
        super().__init__()
        self.hosts = list(members)
        if len(self.hosts) < 1:
            raise OracleError(f"a pool of {word}s needs at least one {word}")
        if not (isinstance(slots, int) and not isinstance(slots, bool) and slots >= 1):
            raise OracleError(f"Expected slots >= 1 a {word} but got slots={slots!r}")
        self.word = word
        self.slots = slots
        self.backend = self.hosts[0].backend
        self.host = ",".join(h.host for h in self.hosts)
        # Worker w is a slot of server w % len(hosts): a round's first calls go one to each.
        self._workers = [self.hosts[w % len(self.hosts)] for w in range(len(self.hosts) * slots)]
        self._pool = ThreadPoolExecutor(max_workers=len(self._workers),
                                        thread_name_prefix="server")

    def _digest(self, model: str) -> str:
        """Every server's digest of `model` (each checked against the pin); the one they share."""
        futures = [self._pool.submit(h.digest, model) for h in self.hosts]
        wait(futures)
        got = [f.result() for f in futures]
        first = got[0]
        for h, d in zip(self.hosts[1:], got[1:], strict=True):
            if d != first:
                name = self.hosts[0]._name(model) if hasattr(self.hosts[0], "_name") else model
                raise OracleError(
                    f"a pool of {self.word}s shares one set of model digests, and {self.word} "
                    f"{h.host} has {name} at {d[:16]}, where {self.hosts[0].host} has it at "
                    f"{first[:16]}: refused before tick 0; serve the same model on every "
                    f"{self.word}, or leave {h.host} out")
        return first

    def _fan(self, fn: Callable[..., T], calls: Sequence[tuple[Any, ...]]) -> list[T]:
        """Each call's answer, in the calls' order, from whichever slot was free to make it."""
        return fan(calls, len(self._workers),
                   lambda w, args: self._pool.submit(fn, self._workers[w], *args),
                   lambda fs: wait(fs, return_when=FIRST_COMPLETED)[0],
                   lambda f: f.result())

    def _generate_many(self, asks: list[Ask]) -> list[Said]:
        return self._fan(lambda h, a: h.generate(a), [(a,) for a in asks])

    def _generate(self, ask: Ask) -> Said:
        return self._generate_many([ask])[0]

    def _embed(self, model: str, texts: list[str], purpose: str) -> tuple[np.ndarray, int, int]:
        def one(h: Oracle, part: list[str]) -> tuple[np.ndarray, int, int]:
            before = len(h.costs)
            v = h.embed(model, part, purpose=purpose)
            cost = h.costs[-1] if len(h.costs) > before else None
            return v, (cost.took_ns if cost else 0), (cost.tokens_in if cost else 0)

        return embed_in_runs(texts, len(self._workers),
                             lambda runs: self._fan(one, [(r,) for r in runs]),
                             what=f"the {purpose} call to {model}")

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        for h in self.hosts:
            h.close()
