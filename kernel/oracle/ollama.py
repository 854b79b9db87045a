"""The Ollama oracle: a local Ollama server, through the official `ollama` client.

This module owns the wire to Ollama: every request carries temperature, seed,
num_predict and num_ctx (the server's defaults of 0.8, a random seed and a
context of its choosing would make an answer depend on the server), the
schema in `format` exactly as the caller gave it and no `format` key at all
when there is none, and a client timeout (the client's default is none). A
model is used only at the digest configs/models.json pins, read from the
server's model list, unless the caller accepts another. Busy answers (429,
503) are retried a few times with a capped exponential backoff; every other
failure is one line saying what to do, raised as `OracleError`. It must not
parse an answer (that is `shaped`) or choose a model: names come from the
config, logical name to Ollama name.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import httpx
import numpy as np
import ollama

from kernel.errors import OracleError
from kernel.oracle.base import Ask, Oracle, Said

T = TypeVar("T")

BUSY = (429, 503)


def _bare(digest: str | None) -> str | None:
    if digest is None:
        return None
    return digest.split(":", 1)[1] if digest.startswith("sha256:") else digest


class OllamaOracle(Oracle):
    """Generation and embeddings from an Ollama server at pinned digests.

    `models` maps a logical model name (the one an `Ask` carries, and a
    recording keeps) to `(ollama_name, pinned_digest_or_None)`. A name not in
    the map is sent as it is, with no digest pinned.
    """

    backend = "ollama"

    def __init__(self, *, host: str | None = None,
                 models: Mapping[str, tuple[str, str | None]] | None = None,
                 timeout: float = 120.0, keep_alive: str | None = None,
                 context: int = 2048, accept_digest: bool = False, attempts: int = 4,
                 backoff_s: float = 0.25, backoff_cap_s: float = 2.0,
                 sleep: Callable[[float], None] = time.sleep):
        super().__init__()
        if not (isinstance(timeout, int | float) and timeout > 0):
            raise OracleError(f"Expected a timeout > 0 seconds but got timeout={timeout!r}")
        if not (isinstance(attempts, int) and attempts >= 1):
            raise OracleError(f"Expected attempts >= 1 but got attempts={attempts!r}")
        self.host = host or os.environ.get("OLLAMA_HOST") or "http://127.0.0.1:11434"
        if not isinstance(self.host, str):
            raise OracleError(f"Expected the Ollama host as text but got host={self.host!r}")
        self.models = dict(models or {})
        self.timeout = float(timeout)
        self.keep_alive = keep_alive
        self.context = context
        self.accept_digest = accept_digest
        self.attempts = attempts
        self.backoff_s = backoff_s
        self.backoff_cap_s = backoff_cap_s
        self.sleep = sleep
        try:
            self.client = ollama.Client(host=self.host, timeout=self.timeout)
        except (ValueError, httpx.InvalidURL) as e:
            # The client parses the host when it is made: a port past 65535, an
            # unclosed IPv6 bracket, an address with an octet past 255.
            where = ("OLLAMA_HOST" if self.host == os.environ.get("OLLAMA_HOST")
                     else "the Ollama host")
            raise OracleError(f"{where} {self.host!r} is not a URL this client can reach "
                              f"({_one_line(str(e))}): set it like http://127.0.0.1:11434") from None
        self._served: dict[str, str] | None = None   # ollama name -> digest, from /api/tags
        self._digests: dict[str, str] = {}           # logical name -> digest checked

    @classmethod
    def from_config(cls, cfg: Any, *, accept_digest: bool = False, **kw: Any) -> OllamaOracle:
        """Build from configs/models.json; `$OLLAMA_HOST` wins over the file's host."""
        o = cfg["ollama"]
        models = {k: (v["name"], v["digest"]) for k, v in o["models"].items()}
        kw.setdefault("host", os.environ.get("OLLAMA_HOST") or o["host"])
        kw.setdefault("timeout", cfg["timeout_s"])
        kw.setdefault("keep_alive", cfg["keep_alive"])
        kw.setdefault("context", cfg["context"])
        return cls(models=models, accept_digest=accept_digest, **kw)

    # -- names and digests -------------------------------------------------------

    def _name(self, model: str) -> str:
        return self.models.get(model, (model, None))[0]

    def _not_pulled(self, name: str) -> OracleError:
        return OracleError(f"model {name} is not pulled on {self.host}: run `ollama pull {name}`")

    def digest(self, model: str) -> str:
        """The server's digest of `model`, checked against the pin (once per model)."""
        if model in self._digests:
            return self._digests[model]
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
        self._digests[model] = have
        return have

    # -- the wire ----------------------------------------------------------------

    def _call(self, what: str, name: str, fn: Callable[[], T]) -> T:
        for attempt in range(self.attempts):
            try:
                return fn()
            except ollama.ResponseError as e:
                code = e.status_code
                if code in BUSY and attempt + 1 < self.attempts:
                    # Capped exponential backoff: a busy server is worth a few
                    # short waits, never a long silent stall.
                    self.sleep(min(self.backoff_cap_s, self.backoff_s * 2 ** attempt))
                    continue
                raise self._failed(what, name, code, _one_line(e.error)) from None
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
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _failed(self, what: str, name: str, code: int, error: str) -> OracleError:
        if code in BUSY:
            return OracleError(f"Ollama at {self.host} stayed busy ({code}: {error}) through "
                               f"{self.attempts} attempts at the {what} call to {name}")
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
                        "num_predict": ask.limit, "num_ctx": ask.context},
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


def _one_line(s: str) -> str:
    s = " ".join(str(s).split())
    return s if len(s) <= 200 else s[:200] + "..."
