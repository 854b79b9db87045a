"""The OpenAI-protocol oracle: any server that speaks chat completions, through the `openai` client.

This module owns the wire to a server of the OpenAI protocol (vLLM, llama.cpp's
`llama-server`, llama-cpp-python's `python -m llama_cpp.server`, LM Studio,
Ollama's `/v1`): every request carries temperature, seed, the token limit and
the ask's decoding under the names the server's `dialect` reads them by, and
the schema the way that server enforces it (a `json_schema` response format, or
the GBNF grammar llama-cpp-python takes, since its server passes a
`json_schema` format by unread). What a dialect cannot send (`fill`, which is
the embedded backend's own way of decoding, on every server; the repeat window
on a server that sets it once for the process; every sampler but top_p on
Ollama's `/v1`) is said once, at pre-flight, in one line, and kept in the
recording's `served` label, so a reader of the recording knows which of the
ask's options reached the model.

A model is pinned by what the server can prove: the digest its `/v1/models`
entry reports where it reports one; else its served name and the sha256 of its
weights as the models config gives it (`weights_sha256`); else it is refused
unless the caller accepts it (`accept_digest`), and then labelled by its served
name alone. A model the config gives the onnxruntime runtime (the sentence
embedder) is answered in process, as the embedded backend answers it; any
other embeds through `/v1/embeddings`.

Busy answers (429, 503) are retried a few times with a capped backoff; a
server gone, a timeout, a refusal or a body the client cannot read is one
line, raised as `OracleError`. With more than one base URL (`openai.base_urls`,
or `OPENAI_BASE_URLS`, comma-separated) the servers are a pool
(`kernel.oracle.fanout.Servers`): one call in flight a server unless
`concurrent` says a server may take more, which is recorded, since a server
that batches concurrent asks may answer them otherwise than one at a time. It
must not parse an answer (that is `shaped`) or choose a model: names come
from the config, logical name to served name.
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from kernel import jsonstrict
from kernel.errors import OracleError, Unstrict
from kernel.oracle.base import Ask, Oracle, Said, needed
from kernel.oracle.fanout import BUSY, RETRY, Retry, Servers, busy_retried, servers_env
from kernel.oracle.minilm import Composed

T = TypeVar("T")

BACKEND = "openai"
EXTRA = "village-kernel[server]"

URL_ENV = "OPENAI_BASE_URL"
URLS_ENV = "OPENAI_BASE_URLS"
"""Comma-separated base URLs: a pool of servers, ahead of `OPENAI_BASE_URL` and the config."""
KEY_ENV = "OPENAI_API_KEY"

URL_RULE = ("a base URL is http[s]://host[:port][/path] with a port from 1 to 65535, "
            "like http://127.0.0.1:8000/v1")


@dataclass(frozen=True, slots=True)
class Dialect:
    """What one kind of OpenAI-protocol server reads beside the protocol's own fields.

    `sent` maps each sampler value of the ask (`Decoding.sampling()`) this server takes
    per request to the name it reads it by; `schema_as` is how the schema is sent where
    the server takes no grammar, or llama.cpp's converter is not installed here
    ("json_schema" as a response format, "json_object" as llama-cpp-python's format with a
    schema); `grammar` says the server takes GBNF text (`grammar`), which is then sent: the
    very grammar the embedded backend decodes with, where a server's own converter would
    refuse a schema or read it another way (llama-server refuses `"items": false`, which
    every statement schema holds); `process` names the
    sampler values the server sets once for its process; `seed` says whether the
    server honours a request's seed.
    """

    name: str
    sent: Mapping[str, str]
    schema_as: str = "json_schema"
    grammar: bool = False
    process: tuple[str, ...] = ()
    seed: bool = True
    why: str = ""


SAMPLERS = ("repeat_penalty", "repeat_last_n", "top_k", "top_p", "min_p")

DIALECTS: dict[str, Dialect] = {d.name: d for d in (
    Dialect("llama-cpp-python", {"repeat_penalty": "repeat_penalty", "top_k": "top_k",
                                 "top_p": "top_p", "min_p": "min_p"},
            schema_as="json_object", grammar=True, process=("repeat_last_n",),
            why="its repeat window is the server's --last_n_tokens_size"),
    Dialect("llama-server", {"repeat_penalty": "repeat_penalty", "repeat_last_n": "repeat_last_n",
                             "top_k": "top_k", "top_p": "top_p", "min_p": "min_p"}, grammar=True),
    Dialect("vllm", {"repeat_penalty": "repetition_penalty", "top_k": "top_k", "top_p": "top_p",
                     "min_p": "min_p"},
            why="vLLM's repetition penalty covers the whole answer, with no window"),
    Dialect("ollama", {"top_p": "top_p"},
            why="Ollama's /v1 takes no repeat penalty, top_k or min_p: its defaults apply "
                "(the native API, --oracle ollama, takes them all)"),
    Dialect("openai", {"top_p": "top_p"}, seed=False,
            why="the protocol itself has no repeat penalty, top_k or min_p, and its seed is "
                "best effort"),
)}


def check_url(url: Any, where: str) -> str:
    """`url` if the client can reach a server by it; else one line naming `where` it was set."""
    if not isinstance(url, str) or not url.strip():
        raise OracleError(f"{where} {url!r} is not a base URL: {URL_RULE}")
    try:
        import httpx

        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("no http or https scheme and host")
        if parts.port == 0:
            raise ValueError("port 0")
        httpx.URL(url)
    except (ValueError, TypeError, httpx.InvalidURL) as e:
        raise OracleError(f"{where} {url!r} is not a URL this client can reach "
                          f"({_one_line(str(e))}): {URL_RULE}") from None
    return url


def base_urls_of(o: Mapping[str, Any]) -> tuple[list[str], str]:
    """The base URLs a run asks and where they were set, first found: `$OPENAI_BASE_URLS`,
    `$OPENAI_BASE_URL`, the config's `openai.base_urls`, its `openai.base_url`."""
    urls = servers_env(URLS_ENV, "base URLs", "http://10.0.0.1:8000/v1,http://10.0.0.2:8000/v1")
    if urls is not None:
        where, each = URLS_ENV, f"a URL of {URLS_ENV}"
    elif os.environ.get(URL_ENV):
        return [check_url(os.environ[URL_ENV], URL_ENV)], URL_ENV
    elif o.get("base_urls"):
        urls = [str(u) for u in o["base_urls"]]
        where = "openai.base_urls in configs/models.json"
        each = f"a URL of {where}"
    else:
        return [check_url(o.get("base_url"), "openai.base_url in configs/models.json")], \
            "openai.base_url in configs/models.json"
    for u in urls:
        check_url(u, each)
    twice = [u for i, u in enumerate(urls) if u in urls[:i]]
    if twice:
        raise OracleError(f"{where} names the server {twice[0]} twice: a server is one "
                          f"worker of the pool, listed once")
    return urls, where


def _import_client() -> Any:
    return needed("openai", OracleError,
                  f"the openai backend needs the openai client: pip install '{EXTRA}'")


class OpenAIOracle(Oracle):
    """Generation and embeddings from one OpenAI-protocol server at `base_url`.

    `models` maps a logical model name (the one an `Ask` carries, and a recording
    keeps) to `(served_name, digest_or_None, weights_sha256_or_None)`; a name not in
    the map is sent as it is, with nothing pinned. `retry` is how a busy server is asked
    again.
    """

    backend = BACKEND

    def __init__(self, *, base_url: str, models: Mapping[str, tuple[str, str | None, str | None]],
                 dialect: str = "llama-cpp-python", api_key: str | None = None,
                 timeout: float = 120.0, accept_digest: bool = False, where: str = "the base URL",
                 retry: Retry = RETRY):
        super().__init__()
        attempts = retry.attempts
        if dialect not in DIALECTS:
            raise OracleError(f"Expected a dialect in {', '.join(DIALECTS)} but got "
                              f"dialect={dialect!r}")
        if not (isinstance(timeout, int | float) and timeout > 0):
            raise OracleError(f"Expected a timeout > 0 seconds but got timeout={timeout!r}")
        if not (isinstance(attempts, int) and attempts >= 1):
            raise OracleError(f"Expected attempts >= 1 but got attempts={attempts!r}")
        self.base_url = check_url(base_url, where)
        parts = urllib.parse.urlsplit(base_url)
        self.host = parts.netloc
        self.dialect = DIALECTS[dialect]
        self.models = dict(models)
        self.timeout = float(timeout)
        self.accept_digest = accept_digest
        self.retry = retry
        self._openai = _import_client()
        self._key = api_key or os.environ.get(KEY_ENV) or "none"
        try:
            self.client = self._client()
        except Exception as e:  # what check_url let through and the client still refuses
            raise OracleError(f"{where} {base_url!r} is not a URL this client can reach "
                              f"({_one_line(str(e))}): {URL_RULE}") from None
        self._served: dict[str, dict[str, Any]] | None = None   # served name -> its entry
        self._schema_as = self._how_schema()

    def _client(self) -> Any:
        return self._openai.OpenAI(base_url=self.base_url, api_key=self._key,
                                   timeout=self.timeout, max_retries=0)

    # -- what is sent, said once ----------------------------------------------------

    def _how_schema(self) -> str:
        """How a schema goes out: as GBNF where the server takes it and llama.cpp's converter
        is installed here to write it, else as the dialect's own schema format."""
        if not self.dialect.grammar:
            return self.dialect.schema_as
        import importlib.util

        return "grammar" if importlib.util.find_spec("llama_cpp") else self.dialect.schema_as

    def served(self) -> dict[str, Any]:
        """What a recording says of where and how its answers were made (never compared)."""
        d = self.dialect
        not_sent = ["fill"] + [k for k in SAMPLERS if k not in d.sent]
        return {"protocol": "openai", "host": self.host, "dialect": d.name,
                "schema_as": self._schema_as, "not_sent": not_sent,
                "seed": "sent" if d.seed else "sent, best effort"}

    def note(self) -> str:
        """The one line a run prints at pre-flight: what of an ask this server does not read."""
        s = self.served()
        missing = [k for k in s["not_sent"] if k not in self.dialect.process]
        parts = [f"schema as {s['schema_as']}"]
        if missing:
            parts.append(f"not sent: {', '.join(missing)}")
        if self.dialect.process:
            parts.append(f"set by the server process: {', '.join(self.dialect.process)}")
        if not self.dialect.seed:
            parts.append("seed best effort")
        why = f" ({d})" if (d := self.dialect.why) else ""
        return f"{self.dialect.name} at {self.host}: {'; '.join(parts)}{why}"

    # -- names and digests ----------------------------------------------------------

    def _name(self, model: str) -> str:
        return self.models.get(model, (model, None, None))[0]

    def _not_served(self, name: str) -> OracleError:
        have = ", ".join(sorted(self._served or ())) or "none"
        return OracleError(f"the server at {self.host} does not serve model {name}: it serves "
                           f"{have}; start it with that model, or name a served one in "
                           f"openai.models of configs/models.json")

    def _digest(self, model: str) -> str:
        name, pinned, weights = self.models.get(model, (model, None, None))
        if self._served is None:
            body = self._call("list models", name, lambda: self.client.models.with_raw_response.list())
            self._served = self._checked("list models", name, _listed, body)
        entry = self._served.get(name)
        if entry is None:
            raise self._not_served(name)
        reported = entry.get("digest")
        if reported:
            if pinned and pinned != reported and not self.accept_digest:
                raise OracleError(f"model {name} on {self.host} is at digest {reported[:16]}, "
                                  f"and configs/models.json pins {pinned[:16]}: it is another "
                                  f"model; serve the pinned one, or accept this one "
                                  f"(accept_digest)")
            if not pinned and not self.accept_digest:
                raise OracleError(f"configs/models.json pins no digest for {name}, and "
                                  f"{self.host} reports it at {reported}: pin that digest, or "
                                  f"accept it (accept_digest)")
            return reported
        if pinned and not self.accept_digest:
            raise OracleError(f"configs/models.json pins {name} at digest {pinned[:16]}, and "
                              f"{self.host} reports no digest to check it by: pin its weights' "
                              f"sha256 (weights_sha256) instead, or accept it (accept_digest)")
        if weights and not self.accept_digest:
            return weights     # accepted, the claim is not what answered: it is labelled by name
        if not self.accept_digest:
            raise OracleError(f"{self.host} reports no digest for {name}, and configs/models.json "
                              f"gives no weights_sha256 for it, so which weights answer cannot "
                              f"be recorded: give the served file's sha256 as weights_sha256, "
                              f"or accept the served name alone (accept_digest)")
        return f"served:{name}"

    # -- the wire -------------------------------------------------------------------

    def _call(self, what: str, name: str, fn: Callable[[], Any]) -> Any:
        """The JSON value of the body the server answers `fn`'s request with (`fn` asks the
        client for the raw response), read by the strict reader; every way the server can fail
        to give one is one line. `timeout` bounds the whole answer, not each read of it: a
        server that drips its body slower than that is cut off, its connection closed."""
        o = self._openai
        try:
            raw = busy_retried(lambda: self._within(fn, what), retry=self.retry,
                               code_of=lambda e: e.status_code
                               if isinstance(e, o.APIStatusError) else None)
        except _Dripped:
            raise OracleError(f"the server at {self.host} did not finish its answer to the "
                              f"{what} call to {name} within {self.timeout:g} s (timeout_s bounds "
                              f"a whole answer, not each read of it): its connection is "
                              f"closed") from None
        except o.APIStatusError as e:
            raise self._failed(what, name, e.status_code, _message(e)) from None
        except o.APITimeoutError:   # before APIConnectionError: it is one of those
            raise OracleError(f"the server at {self.host} did not answer the {what} call to "
                              f"{name} within {self.timeout:g} s") from None
        except o.APIConnectionError as e:
            if _redirects(e):
                raise OracleError(f"the server at {self.base_url} redirected the {what} call to "
                                  f"{name} round and round ({_one_line(str(_redirects(e)))}): "
                                  f"fix the base URL or the server's redirects") from None
            raise OracleError(f"no server at {self.base_url} answered the {what} call to "
                              f"{name}: start it, or set {URL_ENV}") from None
        except (o.APIError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise OracleError(f"the server at {self.host} answered the {what} call to {name} "
                              f"with a body this client cannot read: "
                              f"{type(e).__name__}: {_one_line(str(e))}") from None
        content = getattr(raw, "content", raw)
        try:
            text = content.decode("utf-8") if isinstance(content, bytes | bytearray) else content
            return jsonstrict.decode(text, max_depth=BODY_DEPTH)
        except UnicodeDecodeError as e:
            raise self._bad(what, name, f"a body that is not UTF-8 (byte {e.start})") from None
        except Unstrict as e:
            raise self._bad(what, name, f"a body that is not strict JSON ({_why(e.why)})") from None
        except (AttributeError, TypeError):
            raise self._bad(what, name, "no body to read") from None

    def _within(self, fn: Callable[[], T], what: str) -> T:
        """`fn()`, given `timeout` seconds for all of it (the client's own timeout bounds each
        read, which a server sending a byte at a time never passes); past it the connection is
        closed and `_Dripped` raised."""
        box: dict[str, Any] = {}

        def asked() -> None:
            try:
                box["value"] = fn()
            except BaseException as e:  # noqa: BLE001 - handed to the caller's thread whole
                box["error"] = e

        worker = threading.Thread(target=asked, name=f"openai {what}", daemon=True)
        worker.start()
        worker.join(self.timeout + 1.0)   # the client's own timeout ends a silent server first
        if worker.is_alive():
            self._cut_off()
            raise _Dripped()
        if "error" in box:
            raise box["error"]
        return box["value"]

    def _cut_off(self) -> None:
        """Close the client (and so the connection a server is dripping into) and start a new
        one for any call after this."""
        try:
            self.client.close()
        except Exception:  # noqa: BLE001 - it is being thrown away
            pass
        self.client = self._client()

    def _bad(self, what: str, name: str, detail: str) -> OracleError:
        return OracleError(f"the server at {self.host} answered the {what} call to {name} with "
                           f"{detail}: nothing of it is used or recorded")

    def _checked(self, what: str, name: str, check: Callable[[Any], T], body: Any) -> T:
        """`check(body)`: what a body holds, once each field is the type and range it must be."""
        try:
            return check(body)
        except _Bad as e:
            raise self._bad(what, name, str(e)) from None

    def _failed(self, what: str, name: str, code: int, error: str) -> OracleError:
        if code in BUSY:
            return OracleError(f"the server at {self.host} stayed busy ({code}: {error}) through "
                               f"{self.retry.attempts} attempts at the {what} call to {name}")
        if code == 404:
            return OracleError(f"the server at {self.host} has no {what} for model {name} "
                               f"(404: {error}): serve that model, or check the base URL's path "
                               f"(most servers answer under /v1)")
        verb = "failed on" if code >= 500 else "refused"
        return OracleError(f"the server at {self.host} {verb} the {what} call to {name}: "
                           f"{code} {error}")

    def request(self, ask: Ask) -> dict[str, Any]:
        """The chat-completion request for `ask`, as the client is given it (a wire test pins it)."""
        d = self.dialect
        sampling = ask.decoding.sampling()
        body: dict[str, Any] = {
            "model": self._name(ask.model),
            "messages": [{"role": "user", "content": ask.prompt_text}],
            "temperature": float(ask.temperature),
            "seed": ask.seed,
            "max_tokens": ask.limit,
        }
        extra: dict[str, Any] = {}
        for k, wire in d.sent.items():
            if wire == "top_p":
                body["top_p"] = sampling[k]
            else:
                extra[wire] = sampling[k]
        if ask.schema is not None:
            if self._schema_as == "grammar":
                from kernel.oracle.llamacpp import json_gbnf

                extra["grammar"] = json_gbnf(ask.schema)
            elif self._schema_as == "json_object":
                body["response_format"] = {"type": "json_object",
                                           "schema": json.loads(ask.schema)}
            else:
                body["response_format"] = {"type": "json_schema", "json_schema": {
                    "name": "answer", "schema": json.loads(ask.schema), "strict": True}}
        if extra:
            body["extra_body"] = extra
        return body

    def _generate(self, ask: Ask) -> Said:
        name = self._name(ask.model)
        digest = self.digest(ask.model)
        req = self.request(ask)
        start = time.perf_counter_ns()
        body = self._call(ask.purpose, name,
                          lambda: self.client.chat.completions.with_raw_response.create(**req))
        took = time.perf_counter_ns() - start
        text, reason, tokens_in, tokens_out = self._checked(ask.purpose, name, _completion, body)
        return Said(text=text, done_reason=reason, tokens_in=tokens_in, tokens_out=tokens_out,
                    took_ns=took, load_ns=0, model=ask.model, digest=digest)

    def _embed(self, model: str, texts: list[str], purpose: str) -> tuple[np.ndarray, int, int]:
        name = self._name(model)
        self.digest(model)
        start = time.perf_counter_ns()
        body = self._call(purpose, name, lambda: self.client.embeddings.with_raw_response.create(
            model=name, input=texts))
        took = time.perf_counter_ns() - start
        v, tokens = self._checked(purpose, name, lambda b: _embeddings(b, len(texts)), body)
        return v, took, tokens

    def close(self) -> None:
        self.client.close()


class OpenAIServers(Servers):
    """A pool of OpenAI-protocol servers answering as one oracle (`Servers`), `slots` calls in
    flight a server (`concurrent`), the answers gathered in the asks' order."""

    backend = BACKEND

    def __init__(self, members: Sequence[OpenAIOracle], *, slots: int = 1):
        super().__init__(members, word="server", slots=slots)

    def served(self) -> dict[str, Any]:
        first = self.hosts[0].served()
        return {**first, "host": ",".join(h.host for h in self.hosts), "concurrent": self.slots}

    def note(self) -> str:
        n = len(self.hosts)
        return (f"{self.hosts[0].note()}{f' and {n - 1} more' if n > 1 else ''}"
                f"{f'; {self.slots} asks in flight a server' if self.slots > 1 else ''}")


class OpenAIBackend(Composed):
    """The openai backend a run asks: a server (or a pool of them) generates and embeds, and a
    model the config gives the onnxruntime runtime is the sentence embedder, in process."""

    def __init__(self, generator: OpenAIOracle | OpenAIServers, embedder: Oracle | None):
        self.generator = generator
        super().__init__(generator, embedder if embedder is not None else generator,
                         backend=BACKEND)
        self.together = generator.together
        self.in_process = embedder is not None

    def _generate_many(self, asks: list[Ask]) -> Iterable[Said]:
        return self.generator._generate_many(asks)

    @property
    def hosts(self) -> list[Oracle]:
        return list(getattr(self.generator, "hosts", [self.generator]))

    def served(self) -> dict[str, Any]:
        s = self.generator.served()
        if self.in_process:
            s = {**s, "in_process": sorted(getattr(self.embedder, "models", ()))}
        return s

    def note(self) -> str:
        extra = ""
        if self.in_process:
            extra = f"; {', '.join(sorted(self.embedder.models))} embedded in process"
        return self.generator.note() + extra

    def close(self) -> None:
        self.generator.close()
        if self.in_process:
            self.embedder.close()

    @classmethod
    def check_settings(cls, cfg: Any) -> None:
        """Refuse base URLs no client could reach, as `from_config` would, without reaching one."""
        o = _block(cfg)
        base_urls_of(o)
        _concurrent(o)

    @classmethod
    def from_config(cls, cfg: Any, *, accept_digest: bool = False, embedder: Any = None,
                    **kw: Any) -> OpenAIBackend:
        """Build from configs/models.json's `openai` block (and the sentence embedder's config
        where a model is given the onnxruntime runtime)."""
        o = _block(cfg)
        urls, where = base_urls_of(o)
        slots = _concurrent(o)
        models = {k: (v.get("name", k), v.get("digest"), v.get("weights_sha256"))
                  for k, v in o["models"].items() if v.get("runtime") != "onnxruntime"}
        onnx = sorted(k for k, v in o["models"].items() if v.get("runtime") == "onnxruntime")
        kw.setdefault("timeout", cfg["timeout_s"])
        members = [OpenAIOracle(base_url=u, models=models, dialect=o.get("dialect",
                                                                          "llama-cpp-python"),
                                accept_digest=accept_digest, where=where if len(urls) == 1
                                else f"a URL of {where}", **kw) for u in urls]
        gen: OpenAIOracle | OpenAIServers = (members[0] if len(members) == 1 and slots == 1
                                             else OpenAIServers(members, slots=slots))
        emb = None
        if onnx:
            from kernel import config
            from kernel.oracle.minilm import MiniLMOracle

            e = embedder if embedder is not None else config.load("embedder", schema="embedder")
            stray = [k for k in onnx if k not in e["minilm"]["models"]]
            if stray:
                raise OracleError(f"configs/models.json gives {', '.join(stray)} to onnxruntime, "
                                  f"and the sentence embedder answers only to "
                                  f"{', '.join(sorted(e['minilm']['models']))}")
            emb = MiniLMOracle.from_config(e, accept_digest=accept_digest)
        return cls(gen, emb)

    @classmethod
    def embedder(cls, model: str | None, *, accept_digest: bool = False) -> tuple[Oracle, str]:
        """What `village embed` asks, and the model (configs/models.json's `embed` when None)."""
        from kernel import config

        models = config.load("models")
        return cls.from_config(models, accept_digest=accept_digest), model or models["embed"]


def _block(cfg: Any) -> Mapping[str, Any]:
    o = cfg.get("openai") if hasattr(cfg, "get") else None
    if o is None:
        raise OracleError("configs/models.json has no openai block: add one naming the server's "
                          "base_url, dialect and models (see the shipped configs/models.json)")
    return o


def _concurrent(o: Mapping[str, Any]) -> int:
    n = o.get("concurrent", 1)
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise OracleError(f"Expected openai.concurrent >= 1 in configs/models.json but got "
                          f"concurrent={n!r}")
    return n


def _message(e: Any) -> str:
    body = getattr(e, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        msg = err.get("message") if isinstance(err, dict) else err
        if msg:
            return _one_line(str(msg))
    return _one_line(getattr(e, "message", "") or str(e))


def _one_line(s: str) -> str:
    s = " ".join(str(s).split())
    return s if len(s) <= 200 else s[:200] + "..."


# -- what a body must hold -----------------------------------------------------------
#
# A server's body is read by the strict reader (no NaN, no key twice, no lone surrogate) and
# then every field used is checked for its type and range before anything reads it: a field
# out of its rule is one line naming the server and the field, and nothing of the answer is
# used or recorded. Fields no call uses are not looked at.

BODY_DEPTH = 64
"""The deepest a body may nest (an answer's text is a string in it, however it nests)."""

COUNT_MAX = 2**63 - 1
"""The largest token count: the recording's own bound (configs/schema/exemplar.json, count)."""

FLOAT32_MAX = float(np.finfo(np.float32).max)
"""The largest number a vector's 32-bit float holds."""

_HEX64 = re.compile(r"[0-9a-f]{64}")


class _Dripped(Exception):
    """A call whose answer had not all come within the timeout."""


class _Bad(Exception):
    """A field of a body out of its rule; its text names the field and what it held."""


def _shown(v: Any) -> str:
    return _one_line(repr(v))[:80]


def _object(v: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(v, dict):
        raise _Bad(f"{where} {_shown(v)}, not an object")
    return v


def _list(v: Any, where: str) -> list:
    if not isinstance(v, list):
        raise _Bad(f"{where} {_shown(v)}, not a list")
    return v


def _count(usage: Any, key: str) -> int:
    if usage is None:
        return 0
    v = _object(usage, "usage").get(key)
    if v is None:
        return 0
    if isinstance(v, bool) or not isinstance(v, int):
        raise _Bad(f"usage.{key} {_shown(v)}, not a whole number of tokens")
    if not 0 <= v <= COUNT_MAX:
        raise _Bad(f"usage.{key} {v}, not a count of tokens from 0 to {COUNT_MAX}")
    return v


def _text(v: Any, where: str) -> str:
    if v is None:
        return ""
    if not isinstance(v, str):
        raise _Bad(f"{where} {_shown(v)}, not text")
    if "\x00" in v:
        raise _Bad(f"{where} holding a NUL character, which no text of a model's answer holds")
    return v


def _listed(body: Any) -> dict[str, dict[str, Any]]:
    """Served name -> {"digest": the sha256 its entry reports, if it reports one}."""
    data = _list(_object(body, "the model list").get("data"), "data")
    out: dict[str, dict[str, Any]] = {}
    for i, m in enumerate(data):
        m = _object(m, f"data[{i}]")
        mid = m.get("id")
        if not isinstance(mid, str) or not mid:
            raise _Bad(f"data[{i}].id {_shown(mid)}, not a model's name")
        entry: dict[str, Any] = {}
        for k in ("digest", "sha256"):
            v = m.get(k)
            if v is None or v == "":
                continue
            hexed = v.split(":", 1)[1] if isinstance(v, str) and v.startswith("sha256:") else v
            if not isinstance(hexed, str) or not _HEX64.fullmatch(hexed):
                raise _Bad(f"data[{i}].{k} {_shown(v)}, not a sha256 digest (64 hex digits)")
            entry.setdefault("digest", hexed)
        out[mid] = entry
    return out


def _completion(body: Any) -> tuple[str, str, int, int]:
    """The answer's text, finish reason and token counts."""
    body = _object(body, "the completion")
    choices = _list(body.get("choices"), "choices")
    if not choices:
        raise _Bad("no choice to read")
    choice = _object(choices[0], "choices[0]")
    message = _object(choice.get("message"), "choices[0].message")
    text = _text(message.get("content"), "choices[0].message.content")
    reason = _text(choice.get("finish_reason"), "choices[0].finish_reason")
    usage = body.get("usage")
    return text, reason, _count(usage, "prompt_tokens"), _count(usage, "completion_tokens")


def _embeddings(body: Any, n: int) -> tuple[np.ndarray, int]:
    """The vectors in the texts' order, and the tokens read."""
    body = _object(body, "the embeddings")
    data = _list(body.get("data"), "data")
    rows: list[tuple[int, list]] = []
    for i, e in enumerate(data):
        e = _object(e, f"data[{i}]")
        at = e.get("index", i)
        if isinstance(at, bool) or not isinstance(at, int):
            raise _Bad(f"data[{i}].index {_shown(at)}, not a whole number")
        vec = _list(e.get("embedding"), f"data[{i}].embedding")
        for x in vec:
            if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x):
                raise _Bad(f"data[{i}].embedding holding {_shown(x)}, not a finite number")
            if abs(x) > FLOAT32_MAX:
                raise _Bad("an embedding too large to hold as a 32-bit number")
        rows.append((at, vec))
    if sorted(at for at, _ in rows) != list(range(n)):
        raise _Bad(f"{len(rows)} embeddings indexed {sorted(at for at, _ in rows)[:8]}, for "
                   f"{n} texts")
    widths = {len(v) for _, v in rows}
    if len(widths) > 1 or 0 in widths:
        raise _Bad(f"embeddings of widths {sorted(widths)[:4]}, not one width above 0")
    v = np.asarray([vec for _, vec in sorted(rows, key=lambda r: r[0])], dtype=np.float32)
    return v, _count(body.get("usage"), "prompt_tokens")


def _redirects(e: BaseException) -> BaseException | None:
    """The redirect loop under a connection error, if that is what it is."""
    seen = e
    while seen is not None:
        # by name: the client's HTTP library is httpx, or a fork of it under another name
        if type(seen).__name__ == "TooManyRedirects":
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def _why(why: Any) -> str:
    match why:
        case jsonstrict.LoneSurrogate(path=path, escape=esc):
            return f"the string at {jsonstrict.where(path)} holds a lone surrogate {esc}"
        case jsonstrict.NotANumber(name=n):
            return f"{n}, which is not a number JSON has"
        case jsonstrict.Twice(key=k):
            return f"the key {_shown(k)} twice in one object"
        case jsonstrict.Syntax(msg=msg, line=line, col=col):
            return f"{msg} at line {line} column {col}"
        case jsonstrict.Empty():
            return "nothing"
    return type(why).__name__
