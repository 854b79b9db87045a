"""The recording oracle: a live oracle's calls passed through and kept as exemplars.

This module owns wrapping another oracle and writing what it answered, in the
order it answered, to one exemplar file labelled with the backend and every
model's digest. Retries, limits and recording are wrappers, not flags: the
wrapped oracle neither knows nor cares. It must not change a request or an
answer on its way through, and it writes nothing until `save`, which replaces
the file atomically.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from kernel.errors import OracleError
from kernel.oracle import exemplar, price
from kernel.oracle.base import Ask, Oracle, Said


class RecordingOracle(Oracle):
    """Passes every call to `inner` and records it; `save(path)` writes the exemplar file."""

    def __init__(self, inner: Oracle, path: str | os.PathLike | None = None):
        super().__init__()
        if not isinstance(inner, Oracle):
            raise OracleError(f"Expected an oracle to record but got inner={inner!r}")
        self.inner = inner
        self.backend = inner.backend
        self.path = None if path is None else Path(path)
        self.held = None
        if self.path is not None:
            exemplar.check_target(self.path)   # before the run, not after it
            self.held = exemplar.hold(self.path)   # and no other process records there meanwhile
        self.records: list[dict[str, Any]] = []

    def _digest(self, model: str) -> str:
        return self.inner.digest(model)

    def _generate(self, ask: Ask) -> Said:
        said = self.inner.generate(ask)
        self.records.append(exemplar.generate_record(ask, said, self.backend))
        return said

    def _embed(self, model: str, texts: list[str], purpose: str) -> tuple[np.ndarray, int, int]:
        before = len(self.inner.costs)
        vectors = self.inner.embed(model, texts, purpose=purpose)
        # The inner oracle measured the call; its cost entry is the truth.
        cost = self.inner.costs[-1] if len(self.inner.costs) > before else None
        took, tokens = (cost.took_ns, cost.tokens_in) if cost else (0, 0)
        self.records.append(exemplar.embed_record(
            purpose=purpose, model=model, digest=self.inner.digest(model), backend=self.backend,
            texts=texts, vectors=vectors, took_ns=took, tokens_in=tokens))
        return vectors, took, tokens

    def document(self) -> dict[str, Any]:
        # The machine rides beside the calls for the price a replay prints; nothing compares it.
        # Where a server answered, and what of each ask it could not be sent, rides beside it too.
        served = self.inner.served() if hasattr(self.inner, "served") else None
        return {**exemplar.document(self.backend, self.records), "answered_on": price.machine(),
                **({"served": served} if served else {})}

    def save(self, path: str | os.PathLike | None = None) -> Path:
        """Write every call so far to `path` (or the path given at construction), atomically."""
        target = Path(path) if path is not None else self.path
        if target is None:
            raise OracleError("the recording has no file to go to: pass save() a path")
        try:
            return exemplar.save(target, self.document())
        finally:
            self.release()

    def release(self) -> None:
        """Let another process record to this recording's path."""
        if self.held is not None:
            self.held.release()
            self.held = None

    def close(self) -> None:
        self.inner.close()


class RecordingPool(RecordingOracle):
    """The recording oracle for a pool: `generate_many` asks the pool together and records in order.

    `inner` is an oracle that answers many asks `together` (a pool of Ray
    workers, a pool of Ollama hosts). The records are those `RecordingOracle`
    makes of the same calls one by one: the pool gives its answers in the
    asks' order, and this records them in that order.
    """

    together = True

    def _generate_many(self, asks: list[Ask]) -> list[Said]:
        saids = self.inner.generate_many(asks)
        self.records.extend(exemplar.generate_record(a, said, self.backend)
                            for a, said in zip(asks, saids, strict=True))
        return saids


def recording(live: Oracle, path: str | os.PathLike | None = None) -> RecordingOracle:
    """The recording oracle for `live`: a pool's (many asks put together, recorded in the asks'
    order) where `live` answers `together`, one call at a time otherwise; both record the same
    calls."""
    together = isinstance(live, Oracle) and live.together
    return RecordingPool(live, path) if together else RecordingOracle(live, path)
