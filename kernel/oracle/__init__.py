"""Model edges: the oracles a driver asks, and `make`, which picks one from the config.

This package owns every call to a model: `Ask` and `Said`, the counting base
`Oracle`, and the backends: `ReplayOracle` (answers from a recording, no
model at all), `OllamaOracle` (a local server), `LlamaCppOracle` (SmolLM2
embedded through llama.cpp) and `RecordingOracle` (wraps a live one and
writes exemplars). It must not parse answers (`kernel.seam.shaped` does),
render prompts, or touch the log. The backends with heavy imports are
loaded on first use, so replay runs where neither is installed.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from kernel.errors import OracleError
from kernel.oracle.base import Ask, Cost, Counters, Oracle, OracleLike, OracleUsageError, Said
from kernel.oracle.record import RecordingOracle
from kernel.oracle.replay import ReplayOracle, ReplayStopped

if TYPE_CHECKING:
    from kernel.oracle.llamacpp import LlamaCppOracle
    from kernel.oracle.ollama import OllamaOracle

BACKENDS = ("llamacpp", "ollama", "replay")

__all__ = [
    "BACKENDS",
    "Ask",
    "Cost",
    "Counters",
    "LlamaCppOracle",
    "OllamaOracle",
    "Oracle",
    "OracleLike",
    "OracleUsageError",
    "RecordingOracle",
    "ReplayOracle",
    "ReplayStopped",
    "Said",
    "make",
]


def __getattr__(name: str) -> Any:
    # Lazy: importing kernel.oracle must not import the ollama client's httpx
    # stack or llama.cpp unless that backend is used.
    if name == "OllamaOracle":
        from kernel.oracle.ollama import OllamaOracle
        return OllamaOracle
    if name == "LlamaCppOracle":
        from kernel.oracle.llamacpp import LlamaCppOracle
        return LlamaCppOracle
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def make(backend: str | None, models_config: Any = None, *,
         record_to: str | os.PathLike | None = None,
         replay_from: str | os.PathLike | None = None,
         accept_digest: bool = False) -> Oracle:
    """The oracle a run asks: `backend` is "llamacpp", "ollama" or "replay" (None: the config's).

    `models_config` is configs/models.json as loaded by `kernel.config.load("models")`
    (loaded here when None). `replay_from` is the exemplar file a replay reads;
    `record_to` wraps a live backend in a `RecordingOracle` that `save()`s there.
    `accept_digest` runs a model whose digest differs from the pinned one.
    """
    if models_config is None:
        from kernel import config
        models_config = config.load("models")
    backend = backend or models_config["backend"]
    if backend not in BACKENDS:
        raise OracleError(f"Expected a backend in {', '.join(BACKENDS)} but got backend={backend!r}")
    if backend == "replay":
        if replay_from is None:
            raise OracleError("a replay needs a recording to read: pass replay_from")
        if record_to is not None:
            raise OracleError("a replay answers from a recording and makes none: "
                              "drop record_to, or record from a live backend")
        return ReplayOracle(replay_from)
    if replay_from is not None:
        raise OracleError(f"replay_from is for the replay backend, not {backend}")
    live: Oracle
    if backend == "ollama":
        from kernel.oracle.ollama import OllamaOracle
        live = OllamaOracle.from_config(models_config, accept_digest=accept_digest)
    else:
        from kernel.oracle.llamacpp import LlamaCppOracle
        live = LlamaCppOracle.from_config(models_config, accept_digest=accept_digest)
    if record_to is not None:
        return RecordingOracle(live, record_to)
    return live
