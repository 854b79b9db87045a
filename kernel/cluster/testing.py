"""A pool member for tests and experiments: a recording's answers, looked up, after a random wait.

This module owns `Recalled`, an oracle that answers a generation call with
the recorded answer to the same prompt and options, and an embedding call
with each text's recorded vector, whatever order the calls come in, after
sleeping a random time. A pool of them answers out of order on purpose, so
a test can hold the pool to writing the same bytes as a replay. It must not
be used by the kernel's own run path (which replays strictly in order with
`ReplayOracle`).
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path
from typing import Any

import numpy as np

from kernel.errors import OracleError
from kernel.oracle import exemplar
from kernel.oracle.base import Ask, Oracle, Said


def _key(ask: Ask) -> tuple[Any, ...]:
    return (ask.purpose, ask.model, ask.prompt_sha256, ask.seed, float(ask.temperature),
            ask.limit, ask.context)


class Recalled(Oracle):
    """Answers looked up in one recording by what is asked, each after a wait of up to `jitter` s.

    `seed` seeds the waits (with this process's id, so every pool member
    waits differently); `digest` replaces every recorded digest, and
    "{pid}" in it becomes this process's id, so every member differs.
    """

    def __init__(self, recording: str | os.PathLike, *, jitter: float = 0.05, seed: int = 0,
                 digest: str | None = None, backend: str | None = None):
        super().__init__()
        doc = exemplar.load(Path(recording))
        self.backend = backend or doc["backend"]
        mine = None if digest is None else digest.replace("{pid}", str(os.getpid()))
        self._recorded = {m: (mine if mine is not None else v["digest"])
                         for m, v in doc["models"].items()}
        self._answers: dict[tuple[Any, ...], Said] = {}
        self._vectors: dict[tuple[str, str], np.ndarray] = {}
        for rec in doc["calls"]:
            if rec["kind"] == "generate":
                key = (rec["purpose"], rec["model"], rec["prompt_sha256"], rec["options"]["seed"],
                       float(rec["options"]["temperature"]), rec["options"]["limit"],
                       rec["options"]["context"])
                self._answers[key] = exemplar.said(rec)
            else:
                for t, v in zip(rec["texts"], exemplar.vectors(rec), strict=True):
                    self._vectors[(rec["model"], t)] = v
        self.jitter = jitter
        self._rng = random.Random(seed * 1_000_003 + os.getpid())

    def _wait(self) -> None:
        if self.jitter > 0:
            time.sleep(self._rng.random() * self.jitter)

    def _digest(self, model: str) -> str:
        return self._recorded.get(model, "")

    def _generate(self, ask: Ask) -> Said:
        self._wait()
        said = self._answers.get(_key(ask))
        if said is None:
            raise OracleError(f"the recording holds no answer to the {ask.purpose} call with "
                              f"prompt sha256 {ask.prompt_sha256}")
        return said

    def _embed(self, model: str, texts: list[str], purpose: str) -> tuple[np.ndarray, int, int]:
        self._wait()
        rows = []
        for t in texts:
            v = self._vectors.get((model, t))
            if v is None:
                raise OracleError(f"the recording holds no {model} vector for the text {t[:60]!r}")
            rows.append(v)
        return np.stack(rows), 1_000 * len(texts), len(texts)


class RecalledMaker:
    """Builds a `Recalled` inside a pool worker (the arguments must pickle)."""

    def __init__(self, recording: str | os.PathLike, **kw: Any):
        self.recording = str(recording)
        self.kw = kw

    def __call__(self) -> Recalled:
        return Recalled(self.recording, **self.kw)
