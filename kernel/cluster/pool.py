"""The pool oracle: a round's independent calls fanned out over Ray actors, gathered in order.

This module owns `PoolOracle`, an `Oracle` whose answers come from N Ray
actors, each holding its own oracle (with the embedded backend: its own
llama.cpp model and sentence embedder); its recording oracle is
kernel.oracle.record's `RecordingPool`, as any pool's is. It must not change
an ask or an answer, count one (the oracle base does, once for every
backend), decide which calls are independent (the round does:
`generate_many` is given them), or write anything.

Choices, and why:
- Answers are gathered by the index of their ask, never by arrival, and
  counted, costed and recorded afterwards in the asks' order, so the
  counters, the cost list and a recording are those of the same calls made
  one by one: only durations differ.
- A call goes to whichever worker is free (one call in flight a worker),
  so a slow answer holds up one worker, not a share of the queue. The
  scheduling is kernel.oracle.fanout's `fan`, which a pool of Ollama hosts uses
  too: on an error, every call started is let finish, and the first error
  in the calls' order is raised.
- An embedding call is cut into contiguous runs of texts, embedded on
  several workers and joined in order. Both embedders run the model once a
  text, so a vector never depends on its neighbours, and the joined matrix
  is the one a single worker gives, bit for bit.
- A pool shares one set of model digests: every worker is asked for every
  model's digest before the pool is used, and a pool whose workers differ
  is refused, naming both. A worker that dies is restarted by Ray and its
  call retried; a model at temperature zero answers the retried call as it
  would have the first time.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kernel.cluster.session import ClusterError, ray, unwrap
from kernel.errors import OracleError
from kernel.oracle.base import Ask, Oracle, Said
from kernel.oracle.fanout import embed_in_runs, fan
from kernel.oracle.record import RecordingPool, recording

Maker = Callable[[], Oracle]


class Worker:
    """One pool member: an oracle built in the worker's process by `maker`, and its two calls."""

    def __init__(self, maker: Maker):
        self.oracle = maker()
        if not isinstance(self.oracle, Oracle):
            raise OracleError(f"a pool worker's maker gave {self.oracle!r}, not an oracle")

    def where(self) -> tuple[str, int]:
        return socket.gethostname(), os.getpid()

    def digests(self, models: Sequence[str]) -> dict[str, str]:
        return {m: self.oracle.digest(m) for m in models}

    def generate(self, ask: Ask) -> Said:
        return self.oracle.generate(ask)

    def embed(self, model: str, texts: list[str], purpose: str) -> tuple[np.ndarray, int, int]:
        before = len(self.oracle.costs)
        v = self.oracle.embed(model, texts, purpose=purpose)
        cost = self.oracle.costs[-1] if len(self.oracle.costs) > before else None
        return v, (cost.took_ns if cost else 0), (cost.tokens_in if cost else 0)

    def close(self) -> None:
        self.oracle.close()


class PoolOracle(Oracle):
    """N Ray actors answering as one oracle; `generate_many` asks them together.

    `maker` builds each worker's oracle in the worker's own process (it must
    pickle); `models` are the models whose digests every worker must share;
    `backend` is the name recordings are labelled with (the workers'
    backend, so a recording made through the pool is labelled as one made
    without it). Connect to Ray first (`kernel.cluster.connect`).
    """

    together = True

    def __init__(self, maker: Maker, workers: int, *, models: Sequence[str], backend: str,
                 cpus_per_worker: float = 1, max_restarts: int = 3):
        super().__init__()
        if type(workers) is not int or workers < 1:
            raise ClusterError(f"Expected a pool of at least 1 worker but got workers={workers!r}")
        r = ray()
        if not r.is_initialized():
            raise ClusterError("the pool needs a connection to Ray first: kernel.cluster.connect()")
        self.backend = backend
        self.models = tuple(models)
        actor = r.remote(Worker).options(num_cpus=cpus_per_worker, max_restarts=max_restarts,
                                         max_task_retries=max_restarts)
        self.workers = [actor.remote(maker) for _ in range(workers)]
        self.owns_ray = False
        try:
            self.where = self._gather([w.where.remote() for w in self.workers])
            self._check_digests(self.models)
        except BaseException:
            self.close()
            raise

    # -- digests --------------------------------------------------------------

    def _check_digests(self, models: Sequence[str]) -> None:
        got = self._gather([w.digests.remote(list(models)) for w in self.workers])
        for m in models:
            first = got[0][m]
            for i, d in enumerate(got[1:], start=1):
                if d[m] != first:
                    raise OracleError(
                        f"a pool shares one set of model digests, and its workers differ on {m}: "
                        f"worker 0 ({self._at(0)}) has {first[:16] or '(none)'}, worker {i} "
                        f"({self._at(i)}) has {d[m][:16] or '(none)'}; install the same model "
                        f"files on every machine")
            self._proven[m] = first     # proven for the pool: the base answers from it

    def _at(self, i: int) -> str:
        host, pid = self.where[i]
        return f"{host} pid {pid}"

    def _digest(self, model: str) -> str:
        self._check_digests([model])
        return self._proven[model]

    # -- gathering --------------------------------------------------------------

    def _gather(self, refs: list[Any]) -> list[Any]:
        r = ray()
        try:
            return r.get(refs)
        except r.exceptions.RayError as e:
            raise unwrap(e) from None

    def _fan(self, method: str, calls: Sequence[tuple[Any, ...]]) -> list[Any]:
        """Each call's answer, in the calls' order, from whichever worker was free to make it."""
        r = ray()
        return fan(calls, len(self.workers),
                   lambda w, args: getattr(self.workers[w], method).remote(*args),
                   lambda refs: r.wait(refs, num_returns=1)[0],
                   lambda ref: self._gather([ref])[0])

    # -- the calls ----------------------------------------------------------------

    def _generate_many(self, asks: list[Ask]) -> list[Said]:
        return self._fan("generate", [(a,) for a in asks])

    def _generate(self, ask: Ask) -> Said:
        return self._generate_many([ask])[0]

    def _embed(self, model: str, texts: list[str], purpose: str) -> tuple[np.ndarray, int, int]:
        return embed_in_runs(texts, len(self.workers),
                             lambda runs: self._fan("embed", [(model, r, purpose) for r in runs]),
                             what=f"the {purpose} call to {model}")

    def close(self) -> None:
        """Let the workers go (and a local Ray this pool's `start` began). Safe to call twice."""
        r = ray()
        workers, self.workers = getattr(self, "workers", []), []
        for w in workers:
            try:
                r.kill(w)
            except Exception:  # a worker already gone has nothing to let go of
                pass
        if getattr(self, "owns_ray", False) and r.is_initialized():
            self.owns_ray = False
            r.shutdown()


class LiveMaker:
    """Builds a registered live backend inside a worker, from values the driver resolved.

    `models` is configs/models.json's value; `home` the project home whose
    configs (the sentence embedder's, for one) the worker reads, where that
    folder exists on the worker's machine; `threads` replaces the llama.cpp
    thread count for each worker (the models config's when None).
    """

    def __init__(self, backend: str, models: dict, *, home: str | None = None,
                 threads: int | None = None, accept_digest: bool = False):
        self.backend = backend
        self.models = models
        self.home = home
        self.threads = threads
        self.accept_digest = accept_digest

    def __call__(self) -> Oracle:
        from kernel import config
        from kernel.oracle import make

        if self.home is not None and os.path.isdir(self.home):
            config.set_home(self.home)
        models = config.thaw(self.models)
        if self.threads is not None and isinstance(models.get("llamacpp"), dict):
            models["llamacpp"]["threads"] = self.threads
        return make(self.backend, models, accept_digest=self.accept_digest)


def start(backend: str, models: Any, workers: int | None = None, *, address: str | None = None,
          threads: int | None = None, accept_digest: bool = False,
          record_to: str | os.PathLike | None = None,
          home: str | os.PathLike | None = None) -> PoolOracle | RecordingPool:
    """A pool of a live backend's workers, recording if asked; connected to Ray here if need be.

    `workers` starts a local Ray of that many CPUs (when this process is not
    connected yet); `address` joins a running cluster, and without `workers`
    the pool has a worker for each of its CPUs. `models` is configs/models.json
    as loaded (`kernel.config.load("models")`) or its value. `threads` is each
    worker's llama.cpp thread count: by default, on a local Ray, the models
    config's `threads` shared among the workers (at least 1 each); joining a
    cluster, the config's as it is. Every worker must hold the same digests
    of the models named for generating and embedding, or the pool is
    refused. A Ray this call started is shut down when the pool is closed.
    """
    from kernel import config
    from kernel.cluster.session import connect, cpus
    from kernel.oracle import REGISTRY, backends

    b = REGISTRY.get(backend)
    if b is None or not b.live:
        live = ", ".join(backends(live=True))
        raise ClusterError(f"a pool is made of live backends ({live}), not {backend!r}: a "
                           f"recording replays in order, in one process")
    value = config.thaw(getattr(models, "value", models))
    started = connect(workers, address)
    try:
        n = workers if workers is not None else cpus()
        if threads is None and address is None and isinstance(value.get("llamacpp"), dict):
            threads = max(1, int(value["llamacpp"].get("threads", 1)) // n)
        if home is None:
            h = config.project_home()
            home = str(h) if h is not None else None
        maker = LiveMaker(backend, value, home=None if home is None else str(home),
                          threads=threads, accept_digest=accept_digest)
        pool = PoolOracle(maker, n, models=(value["generate"], value["embed"]), backend=backend)
    except BaseException:
        if started:
            ray().shutdown()
        raise
    pool.owns_ray = started
    return recording(pool, record_to) if record_to is not None else pool
