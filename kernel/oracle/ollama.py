"""The Ollama oracle: a local Ollama server, through the official `ollama` client.

This module owns the wire to Ollama: every request carries temperature, seed,
num_predict, num_ctx and the ask's decoding (repeat_penalty, repeat_last_n,
top_k, top_p, min_p: the server's defaults of 0.8, a random seed, a penalty
of 1.1 and a context of its choosing would make an answer depend on the server;
never `fill`, which is the embedded backend's: Ollama samples every token), the
schema in `format` exactly as the caller gave it and no `format` key at all
when there is none, and a client timeout (the client's default is none). A
model is used only at the digest configs/models.json pins, read from the
server's model list, unless the caller accepts another. Busy answers (429,
503) are retried a few times with a capped exponential backoff; every other
failure is one line saying what to do, raised as `OracleError`. It must not
parse an answer (that is `shaped`) or choose a model: names come from the
config, logical name to Ollama name.

With more than one host (`ollama.hosts` in configs/models.json, or
`OLLAMA_HOSTS`, comma-separated) the oracle is `OllamaHosts`: one
`OllamaOracle` a host, a round's independent calls sent to whichever host
is free and gathered in the asks' order. The hosts are the workers, so no
Ray is needed; every host must hold every model at the same digest, checked
before tick 0. Where a model runs is not what it answers: the hosts stay
out of the config digest, like the one host.
"""

from __future__ import annotations

import json
import os
import time
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import httpx
import numpy as np

from kernel.errors import OracleError
from kernel.oracle.base import Ask, Oracle, Said
from kernel.oracle.fanout import BUSY, RETRY, Retry, Servers, busy_retried, servers_env


def _import_client():
    """The `ollama` package, imported with OLLAMA_HOST out of sight.

    Its import makes a default client from OLLAMA_HOST, parsing the host then
    and there: a bad one raised from inside the library, in whatever command
    first imported it, before `check_host` could say which setting is wrong.
    Every host this module uses is checked there instead, naming its setting.
    """
    saved = os.environ.pop("OLLAMA_HOST", None)
    try:
        import ollama
    finally:
        if saved is not None:
            os.environ["OLLAMA_HOST"] = saved
    return ollama


ollama = _import_client()

T = TypeVar("T")


HOSTS_ENV = "OLLAMA_HOSTS"
"""Comma-separated Ollama hosts: a pool of servers, ahead of the config's `hosts` and `host`."""

HOST_RULE = "an Ollama host is [http[s]://]host[:port] with a port from 1 to 65535"


def check_host(host: str, where: str) -> str:
    """`host` if the client can reach a server by it; else one line naming `where` it was set.

    The client's own parse (the scheme split off, then `urlsplit` and httpx)
    raises from inside the library for an unclosed IPv6 bracket, a port past
    65535 or an octet past 255, and takes port 0 as no port at all, which would
    send the calls to another port than the one named.
    """
    if not isinstance(host, str):
        raise OracleError(f"Expected the Ollama host as text but got host={host!r}")
    url = host if "://" in host else f"http://{host}"
    try:
        if urllib.parse.urlsplit(url).port == 0:
            raise ValueError("port 0")
        httpx.URL(url)
    except (ValueError, httpx.InvalidURL) as e:
        raise OracleError(f"{where} {host!r} is not a URL this client can reach "
                          f"({_one_line(str(e))}): {HOST_RULE}; "
                          f"set it like http://127.0.0.1:11434") from None
    return host


def _bare(digest: str | None) -> str | None:
    if digest is None:
        return None
    return digest.split(":", 1)[1] if digest.startswith("sha256:") else digest


class OllamaOracle(Oracle):
    """Generation and embeddings from an Ollama server at pinned digests.

    `models` maps a logical model name (the one an `Ask` carries, and a
    recording keeps) to `(ollama_name, pinned_digest_or_None)`. A name not in
    the map is sent as it is, with no digest pinned. `retry` is how a busy
    server is asked again.
    """

    backend = "ollama"

    def __init__(self, *, host: str | None = None,
                 models: Mapping[str, tuple[str, str | None]] | None = None,
                 timeout: float = 120.0, keep_alive: str | None = None,
                 context: int = 2048, accept_digest: bool = False, retry: Retry = RETRY):
        super().__init__()
        if not (isinstance(timeout, int | float) and timeout > 0):
            raise OracleError(f"Expected a timeout > 0 seconds but got timeout={timeout!r}")
        attempts = retry.attempts
        if not (isinstance(attempts, int) and attempts >= 1):
            raise OracleError(f"Expected attempts >= 1 but got attempts={attempts!r}")
        self.host = host or os.environ.get("OLLAMA_HOST") or "http://127.0.0.1:11434"
        where = ("OLLAMA_HOST" if self.host == os.environ.get("OLLAMA_HOST")
                 else "the Ollama host")
        check_host(self.host, where)
        self.models = dict(models or {})
        self.timeout = float(timeout)
        self.keep_alive = keep_alive
        self.context = context
        self.accept_digest = accept_digest
        self.retry = retry
        try:
            self.client = ollama.Client(host=self.host, timeout=self.timeout)
        except (ValueError, httpx.InvalidURL) as e:
            # What check_host let through and the client still refuses is said the same way.
            raise OracleError(f"{where} {self.host!r} is not a URL this client can reach "
                              f"({_one_line(str(e))}): {HOST_RULE}; "
                              f"set it like http://127.0.0.1:11434") from None
        self._served: dict[str, str] | None = None   # ollama name -> digest, from /api/tags

    @classmethod
    def from_config(cls, cfg: Any, *, accept_digest: bool = False,
                    **kw: Any) -> OllamaOracle | OllamaHosts:
        """Build from configs/models.json: one host, or a pool of them (`OllamaHosts`).

        The hosts are, first found: `$OLLAMA_HOSTS` (comma-separated),
        `$OLLAMA_HOST`, the file's `ollama.hosts`, the file's `ollama.host`.
        """
        o = cfg["ollama"]
        models = {k: (v["name"], v["digest"]) for k, v in o["models"].items()}
        kw.setdefault("timeout", cfg["timeout_s"])
        kw.setdefault("keep_alive", cfg["keep_alive"])
        kw.setdefault("context", cfg["context"])
        if "host" in kw:
            return cls(models=models, accept_digest=accept_digest, **kw)
        hosts = hosts_of(o)
        if len(hosts) == 1:
            return cls(host=hosts[0], models=models, accept_digest=accept_digest, **kw)
        return OllamaHosts([cls(host=h, models=models, accept_digest=accept_digest, **kw)
                            for h in hosts])

    @classmethod
    def check_settings(cls, cfg: Any) -> None:
        """Refuse hosts no client could reach, as `from_config` would, without reaching one."""
        hosts_of(cfg["ollama"])

    @classmethod
    def embedder(cls, model: str | None, *, accept_digest: bool = False
                 ) -> tuple[OllamaOracle | OllamaHosts, str]:
        """What `village embed` asks, and the model (configs/models.json's `embed` when None)."""
        from kernel import config

        models = config.load("models")
        return cls.from_config(models, accept_digest=accept_digest), model or models["embed"]

    # -- names and digests -------------------------------------------------------

    def _name(self, model: str) -> str:
        return self.models.get(model, (model, None))[0]

    def _not_pulled(self, name: str) -> OracleError:
        return OracleError(f"model {name} is not pulled on {self.host}: run `ollama pull {name}`")

    def _digest(self, model: str) -> str:
        """The server's digest of `model`, checked against the pin (the base keeps it)."""
        name, pinned = self.models.get(model, (model, None))
        if self._served is None:
            listed = self._call("list models", name, self.client.list)
            self._served = {}
            for m in listed.models or ():
                if m.model:
                    # Listed with no digest is kept as "": the model is there, and
                    # saying "not pulled" of it would send the user the wrong way.
                    self._served[m.model] = _bare(m.digest) or ""
        have = self._served.get(name)
        if have is None and ":" not in name:
            have = self._served.get(name + ":latest")
        if have is None:
            raise self._not_pulled(name)
        if not have:
            raise OracleError(f"{self.host} lists model {name} with no digest, so which weights "
                              f"it holds cannot be checked or recorded: this server does not "
                              f"report digests; use an Ollama server that does")
        pinned = _bare(pinned)
        if not self.accept_digest:
            if pinned is None:
                raise OracleError(f"configs/models.json pins no digest for {name}, and {self.host} "
                                  f"has it at {have}: pin that digest, or accept it (accept_digest)")
            if pinned != have:
                raise OracleError(f"model {name} on {self.host} is at digest {have[:16]}, and "
                                  f"configs/models.json pins {pinned[:16]}: it is another model; "
                                  f"pull the pinned one, or accept this one (accept_digest)")
        return have

    # -- the wire ----------------------------------------------------------------

    def _call(self, what: str, name: str, fn: Callable[[], T]) -> T:
        try:
            return busy_retried(fn, retry=self.retry,
                                code_of=lambda e: getattr(e, "status_code", None)
                                if isinstance(e, ollama.ResponseError) else None)
        except ollama.ResponseError as e:
            raise self._failed(what, name, e.status_code, _one_line(e.error)) from None
        except ConnectionError:
            raise OracleError(f"no Ollama server at {self.host}: start it with "
                              f"`ollama serve`") from None
        except httpx.TimeoutException:
            raise OracleError(f"Ollama at {self.host} did not answer the {what} call to "
                              f"{name} within {self.timeout:g} s") from None
        except httpx.HTTPError as e:
            raise OracleError(f"Ollama at {self.host} failed on the {what} call to {name}: "
                              f"{type(e).__name__}: {_one_line(str(e))}") from None
        except ValueError as e:
            # A body that is not JSON, or not the shape the client reads.
            raise OracleError(f"Ollama at {self.host} answered the {what} call to {name} "
                              f"with a body this client cannot read: "
                              f"{_one_line(str(e))}") from None

    def _failed(self, what: str, name: str, code: int, error: str) -> OracleError:
        if code in BUSY:
            return OracleError(f"Ollama at {self.host} stayed busy ({code}: {error}) through "
                               f"{self.retry.attempts} attempts at the {what} call to {name}")
        if code == 404:
            return self._not_pulled(name)
        if code >= 500:
            return OracleError(f"Ollama at {self.host} failed on the {what} call to {name}: "
                               f"{code} {error}")
        return OracleError(f"Ollama at {self.host} refused the {what} call to {name}: "
                           f"{code} {error}")

    def _generate(self, ask: Ask) -> Said:
        name = self._name(ask.model)
        digest = self.digest(ask.model)
        kwargs: dict[str, Any] = {
            "model": name,
            "prompt": ask.prompt_text,
            "stream": False,
            "options": {"temperature": float(ask.temperature), "seed": ask.seed,
                        "num_predict": ask.limit, "num_ctx": ask.context,
                        **ask.decoding.sampling()},
        }
        if ask.schema is not None:
            # The client takes a dict; parsed from the caller's bytes and sent
            # as is. Left out entirely when there is none: an empty format is
            # not the same request as no format.
            kwargs["format"] = json.loads(ask.schema)
        if self.keep_alive is not None:
            kwargs["keep_alive"] = self.keep_alive
        start = time.perf_counter_ns()
        r = self._call(ask.purpose, name, lambda: self.client.generate(**kwargs))
        took = r.total_duration or (time.perf_counter_ns() - start)
        return Said(text=r.response or "", done_reason=r.done_reason or "",
                    tokens_in=r.prompt_eval_count or 0, tokens_out=r.eval_count or 0,
                    took_ns=took, load_ns=r.load_duration or 0, model=ask.model, digest=digest)

    def _embed(self, model: str, texts: list[str], purpose: str) -> tuple[np.ndarray, int, int]:
        name = self._name(model)
        self.digest(model)
        kwargs: dict[str, Any] = {"model": name, "input": texts,
                                  "options": {"num_ctx": self.context}}
        if self.keep_alive is not None:
            kwargs["keep_alive"] = self.keep_alive
        start = time.perf_counter_ns()
        r = self._call(purpose, name, lambda: self.client.embed(**kwargs))
        took = r.total_duration or (time.perf_counter_ns() - start)
        try:
            v = np.asarray(r.embeddings, dtype=np.float32)
        except (TypeError, ValueError):
            raise OracleError(f"Ollama at {self.host} answered the {purpose} call to {name} "
                              f"with embeddings that are not a table of numbers") from None
        if v.ndim != 2 or v.shape[0] != len(texts):
            raise OracleError(f"Ollama at {self.host} answered {len(texts)} texts with "
                              f"embeddings of shape {v.shape}")
        return v, took, r.prompt_eval_count or 0

    def close(self) -> None:
        self.client.close()


def hosts_of(o: Any) -> list[str]:
    """The Ollama hosts a run uses, from the environment or the config's `ollama` block."""
    hosts = servers_env(HOSTS_ENV, "Ollama hosts", "http://10.0.0.1:11434,http://10.0.0.2:11434")
    if hosts is not None:
        for h in hosts:
            check_host(h, f"a host of {HOSTS_ENV}")
        where = HOSTS_ENV
    elif os.environ.get("OLLAMA_HOST"):
        return [check_host(os.environ["OLLAMA_HOST"], "OLLAMA_HOST")]
    elif o.get("hosts"):
        hosts, where = [str(h) for h in o["hosts"]], "ollama.hosts in configs/models.json"
        for h in hosts:
            check_host(h, "a host of ollama.hosts in configs/models.json")
    else:
        return [check_host(o["host"], "ollama.host in configs/models.json")]
    seen = [h for i, h in enumerate(hosts) if h in hosts[:i]]
    if seen:
        raise OracleError(f"{where} names the Ollama host {seen[0]} twice: a host is one "
                          f"worker of the pool, listed once")
    return hosts


class OllamaHosts(Servers):
    """A pool of Ollama servers answering as one oracle (`kernel.oracle.fanout.Servers`):
    one call in flight a host, the answers gathered in the asks' order, one set of digests."""

    backend = "ollama"

    def __init__(self, hosts: Sequence[OllamaOracle]):
        super().__init__(hosts, word="Ollama host")


def _one_line(s: str) -> str:
    s = " ".join(str(s).split())
    return s if len(s) <= 200 else s[:200] + "..."
