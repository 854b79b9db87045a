"""The oracle a scenario run asks: one process, a pool of Ray workers, or a pool of servers.

This module owns choosing it from what `village run` was given (the backend,
`--workers N`, `--ray ADDRESS|auto`, `--record`) and refusing, in one line,
the combinations that make no sense, before anything is started: a pool for
a run that asks no model (a world run), a pool answering from a recording
(a replay reads its calls in order, in one process), or Ray workers for a
backend whose pool is its list of servers (Ollama, the OpenAI protocol: the
servers are the workers). It
must not run anything or print anything.

Whatever answers, the run is the same bytes: a pool gathers a group's
answers in the asks' order, and a recording made through it holds the calls
a recording made without it holds.
"""

from __future__ import annotations

from typing import Any

from kernel.errors import VillageError
from kernel.oracle import REGISTRY, make, recording
from kernel.oracle.base import Oracle


def for_run(sc: Any, backend: str, *, workers: int | None = None, address: str | None = None,
            record: bool = False, accept_digest: bool = False) -> Oracle | None:
    """The oracle that answers scenario `sc`'s calls (None for a world run), recording if asked.

    `workers` starts a local Ray of that many CPUs and `address` joins a
    running one; either makes a pool of the live backend's workers. With the
    Ollama backend, more than one host (`ollama.hosts`, `OLLAMA_HOSTS`) is a
    pool of its own, with no Ray.
    """
    pooled = workers is not None or address is not None
    b = REGISTRY.get(backend)
    if b is None:
        raise VillageError(f"Expected an oracle in {', '.join(sorted(REGISTRY))} but got "
                           f"--oracle {backend!r}")
    if record and not b.live:
        raise VillageError(f"--record needs a live oracle, and {backend} answers from a "
                           f"recording: use a live one ({', '.join(sorted(k for k, v in REGISTRY.items() if v.live))})")
    if pooled:
        flag = "--workers" if workers is not None else "--ray"
        if sc.world_only:
            raise VillageError(f"scenario {sc.name} is a world run: nobody reflects, so there are "
                               f"no model calls for {flag} to share out; drop {flag}")
        if not b.live:
            raise VillageError(f"{flag} shares a live model's calls among workers, and "
                               f"--oracle {backend} reads them off a recording, in order, in one "
                               f"process: drop {flag}, or use --oracle llamacpp")
        if b.pools_itself:
            what, where = b.pool
            raise VillageError(f"with --oracle {backend} the pool is {what}, not Ray "
                               f"workers: drop {flag} and list {where}")
    if sc.world_only:
        return None
    if not b.live and sc.exemplars is None:
        raise VillageError(f"scenario {sc.name} has no recording to replay: run it with a live "
                           f"--oracle")
    if record and sc.exemplars is None:
        raise VillageError(f"scenario {sc.name} names no exemplar file to record to")
    record_to = sc.exemplars if record else None
    if pooled:
        from kernel.cluster.pool import start
        return start(backend, sc.models, workers, address=address, accept_digest=accept_digest,
                     record_to=record_to)
    if not b.live:
        return make(backend, sc.models, replay_from=sc.exemplars)
    # the embedder config the scenario read, so a backend that embeds through it reads no file
    live = make(backend, sc.models, accept_digest=accept_digest,
                embedder=dict(sc.configs).get("embedder"))
    try:
        # The pre-flight, before anything is printed or written: every model the run asks
        # for, at its pinned digest, on every host. The oracle keeps each digest it proves,
        # so the engine's pre-flight is answered from here and no server is asked twice.
        for model in sc.settings.models:
            live.digest(model)
    except BaseException:
        live.close()
        raise
    return live if record_to is None else recording(live, record_to)


def describe(oracle: Oracle | None, backend: str) -> str:
    """Who answers, in a few words: the backend, and its workers or hosts where it has a pool."""
    if oracle is None:
        return "none (nobody reflects)"
    inner = getattr(oracle, "inner", oracle)
    if hasattr(inner, "workers"):
        return f"{backend} on {len(inner.workers)} Ray workers"
    note = inner.note() if hasattr(inner, "note") else ""
    if hasattr(inner, "hosts") and len(inner.hosts) > 1:
        word = getattr(inner, "word", "server")
        return f"{backend} on {len(inner.hosts)} {word}s" + (f" ({note})" if note else "")
    return backend + (f" ({note})" if note else "")
