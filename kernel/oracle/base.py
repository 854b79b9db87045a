"""The oracle interface: what a call asks (`Ask`), what a model said (`Said`), and the counting.

An oracle answers `generate(ask) -> Said`, `generate_many(asks) -> [Said]`
(independent asks, answered in their order) and `embed(model, texts) ->
float32 array`, and says `digest(model)`. This module owns those values and
the `Oracle` base class, which checks arguments, counts calls, embeddings and
model changes, keeps a cost list and each model's proven digest, so that every
backend (replay, Ollama, llama.cpp, a pool, recording, the scripted double)
counts the same way, and many asks are counted once, as one by one. It must
not parse an answer (that is `kernel.seam.shaped`), schedule a pool's workers
(that is `kernel.oracle.fanout`) or know about villagers.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kernel.errors import OracleError, OracleUsageError

MAX_ANSWER_BYTES = 65_536
"""The most bytes (UTF-8) one answer may hold. Past it the answer is an oracle error, as a
server error is: the run stops before the tick is written. An answer is stored whole in the
log, and a round of many villagers' runaway answers would pass the log's frame limit."""


def _int(name: str, v: object, at_least: int) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or v < at_least:
        raise OracleUsageError(f"Expected {name} to be an integer >= {at_least} but got {name}={v!r}")
    return v


@dataclass(frozen=True, slots=True)
class Decoding:
    """How a next token is chosen beside temperature and seed, sent alike to every backend.

    `repeat_penalty` divides the logit of every token among the last `repeat_last_n`
    (1.0 is none), so a greedy answer that starts to loop is pushed off the loop. `top_k`,
    `top_p` and `min_p` do nothing at temperature 0 (both backends then take the likeliest
    token), and are sent anyway: the two backends' own defaults differ (llama-cpp-python
    0.95 and 0.05, Ollama 0.9 and 0.0), so a run at a temperature above 0 would otherwise
    sample two ways. The defaults are llama-cpp-python's own, which was today's embedded run.

    `fill` has the embedded backend write the text an answer's grammar forces (braces, keys,
    the quote that opens a string) and the model choose only the rest
    (`kernel.oracle.fill`). Ollama samples every token itself and is never sent it. A
    recording names it only where it is on, so every recording made without it keeps its
    options' bytes.
    """

    repeat_penalty: float = 1.0
    repeat_last_n: int = 64
    top_k: int = 40
    top_p: float = 0.95
    min_p: float = 0.05
    fill: bool = False

    def __post_init__(self) -> None:
        for name, low, high in (("repeat_penalty", 1.0, 10.0), ("top_p", 0.0, 1.0),
                                ("min_p", 0.0, 1.0)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) \
                    or not low <= v <= high:
                raise OracleUsageError(f"Expected {name} between {low} and {high} but got "
                                       f"{name}={v!r}")
        _int("repeat_last_n", self.repeat_last_n, 0)
        _int("top_k", self.top_k, 0)
        if not isinstance(self.fill, bool):
            raise OracleUsageError(f"Expected fill to be true or false but got fill={self.fill!r}")

    def sampling(self) -> dict[str, float | int]:
        """The five sampler values by the names a recording and Ollama's options give them."""
        return {"repeat_penalty": float(self.repeat_penalty), "repeat_last_n": self.repeat_last_n,
                "top_k": self.top_k, "top_p": float(self.top_p), "min_p": float(self.min_p)}

    def options(self) -> dict[str, float | int | bool]:
        """What a recording holds and a replay compares: the sampler's values, and `fill` where it is on."""
        return {**self.sampling(), **({"fill": True} if self.fill else {})}

    @classmethod
    def of(cls, options: Mapping[str, object]) -> Decoding:
        """The decoding a recording's options name (a value they leave out at its default)."""
        return cls(**{k: options[k] for k in cls.__dataclass_fields__ if k in options})


def opening_fault(prompt: bytes, n: int) -> str | None:
    """The rule of an opening, the one place it is stated: the prompt's first `n` bytes (n > 0)
    end a line, and a word follows them. What breaks it, in words; None where it holds."""
    if n >= len(prompt):
        return (f"an opening must end a line and a word must follow it, within the prompt's "
                f"{len(prompt)} bytes")
    if prompt[n - 1:n] != b"\n" or prompt[n:n + 1].isspace():
        return "an opening must end a line and a word must follow it"
    return None


def _opening(n: object, prompt: bytes) -> None:
    _int("opening", n, 0)
    assert isinstance(n, int)
    fault = opening_fault(prompt, n) if n else None
    if fault is not None:
        raise OracleUsageError(f"Expected opening={n} to keep its rule, but {fault} "
                               f"(at {prompt[max(n - 8, 0):n + 8]!r})")


@dataclass(frozen=True, slots=True)
class Ask:
    """One generation request, whole: nothing a backend sends is decided anywhere else.

    `opening` is how many of the prompt's first bytes are its opening: text other asks begin
    with too (who a villager is, its day), which a backend that keeps what it has read
    evaluates once (`kernel.oracle.serving`). It ends a line, and the next byte starts a
    word, so the tokens of the whole prompt split there as the opening's own do; 0 is none.
    It never changes what is sent, only how a backend may read it; a recording names it
    only where it is not 0, so every recording made without it keeps its options' bytes."""

    purpose: str
    model: str
    prompt: bytes
    schema: bytes | None
    seed: int
    temperature: float
    limit: int
    context: int
    decoding: Decoding = Decoding()
    opening: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.decoding, Decoding):
            raise OracleUsageError(f"Expected a Decoding but got decoding={self.decoding!r:.80}")
        for name in ("purpose", "model"):
            v = getattr(self, name)
            if not isinstance(v, str) or not v:
                raise OracleUsageError(f"Expected {name} to be non-empty text but got {name}={v!r}")
        if not isinstance(self.prompt, bytes):
            raise OracleUsageError(f"Expected the prompt as bytes but got prompt={self.prompt!r:.80}")
        try:
            self.prompt.decode("utf-8")
        except UnicodeDecodeError as e:
            raise OracleUsageError(f"the prompt is not UTF-8 (byte {e.start})") from None
        if self.schema is not None:
            if not isinstance(self.schema, bytes):
                raise OracleUsageError(f"Expected the schema as bytes or None but got schema={self.schema!r}")
            try:
                doc = json.loads(self.schema)
            except ValueError:
                raise OracleUsageError(f"the schema is not JSON: {self.schema[:80]!r}") from None
            if not isinstance(doc, dict):
                raise OracleUsageError(f"the schema must be a JSON object but is {self.schema[:80]!r}")
        _int("seed", self.seed, 0)
        t = self.temperature
        if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t) or t < 0:
            raise OracleUsageError(f"Expected a temperature >= 0 but got temperature={t!r}")
        _int("limit", self.limit, 1)
        _int("context", self.context, 1)
        _opening(self.opening, self.prompt)

    @property
    def prompt_sha256(self) -> str:
        return hashlib.sha256(self.prompt).hexdigest()

    @property
    def prompt_text(self) -> str:
        return self.prompt.decode("utf-8")


@dataclass(frozen=True, slots=True)
class Said:
    """One model answer and what it cost.

    `took_ns` is the whole call, a model load included (as Ollama's
    total_duration is); `load_ns` is the part of it spent loading. Both are
    wall-clock measurements: they go into exemplars, never into the log.
    """

    text: str
    done_reason: str
    tokens_in: int
    tokens_out: int
    took_ns: int
    load_ns: int
    model: str
    digest: str


@dataclass(frozen=True, slots=True)
class Cost:
    """One call's price, for a driver to print: what it was for, which model, how long, how many tokens."""

    kind: str          # "generate" or "embed"
    purpose: str
    model: str
    took_ns: int
    tokens_in: int
    tokens_out: int


@dataclass(frozen=True, slots=True)
class Counters:
    """A snapshot of an oracle's counts."""

    calls: int
    embeddings: int
    model_changes: int


def texts_sha256(texts: Sequence[str]) -> tuple[str, int]:
    """The sha256 and byte length of texts joined canonically (a compact JSON array, UTF-8)."""
    b = json.dumps(list(texts), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(b).hexdigest(), len(b)


def check_texts(texts: Sequence[str]) -> list[str]:
    # A str is itself a Sequence[str]: embedding "abc" as three texts is a
    # bug worth a clear error rather than three vectors.
    if isinstance(texts, str | bytes) or not isinstance(texts, Sequence):
        raise OracleUsageError(f"Expected a list of texts but got texts={texts!r:.80}")
    out = list(texts)
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise OracleUsageError(f"Expected texts[{i}] to be text but got {t!r:.80}")
        try:
            t.encode("utf-8")
        except UnicodeEncodeError:
            raise OracleUsageError(f"texts[{i}] is not valid Unicode") from None
    return out


def _check_answer(ask: Ask, said: Said) -> None:
    text = getattr(said, "text", None)
    if not isinstance(text, str):
        raise OracleError(f"{ask.model} answered the {ask.purpose} call with "
                          f"{type(text).__name__}, not text")
    # Four bytes a character at most: only a long answer is encoded to be measured.
    if len(text) * 4 > MAX_ANSWER_BYTES:
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > MAX_ANSWER_BYTES:
            raise OracleError(f"{ask.model} answered the {ask.purpose} call with {size:,} bytes, "
                              f"more than the {MAX_ANSWER_BYTES:,} an answer may hold; the run "
                              f"stops here and this tick is not written")


class Oracle:
    """Base of every oracle: argument checks, counters, costs and digests around a backend.

    Subclasses implement `_generate(ask) -> Said`, `_embed(model, texts,
    purpose) -> (vectors, took_ns, tokens_in)` and `_digest(model)`, and call
    `super().__init__()`; a pool also implements `_generate_many(asks)` and
    sets `together`. The counters count answered calls only: a call that
    raised did not happen, as far as the accounting goes.
    """

    backend: str = ""
    together: bool = False
    """True where `generate_many` asks its asks together (a pool), not one after another."""

    def __init__(self) -> None:
        self.calls = 0
        self.embeddings = 0
        self.model_changes = 0
        self.costs: list[Cost] = []
        self._resident: str | None = None
        self._proven: dict[str, str] = {}

    # -- what a backend implements ------------------------------------------

    def _generate(self, ask: Ask) -> Said:
        raise NotImplementedError

    def _generate_many(self, asks: list[Ask]) -> Iterable[Said]:
        """The answers to `asks`, in their order. By default each ask is put only once the one
        before it is answered and counted, which is `generate` in a loop; a pool answers them
        together and gives them all at once."""
        return map(self._generate, asks)

    def _embed(self, model: str, texts: list[str], purpose: str) -> tuple[np.ndarray, int, int]:
        raise NotImplementedError

    def _digest(self, model: str) -> str:
        raise NotImplementedError

    # -- the interface -------------------------------------------------------

    def generate(self, ask: Ask) -> Said:
        if not isinstance(ask, Ask):
            raise OracleUsageError(f"Expected an Ask but got {ask!r:.80}")
        return self._answered(ask, self._generate(ask))

    def generate_many(self, asks: Sequence[Ask]) -> list[Said]:
        """Every ask answered, the answers in the asks' order, each checked, counted, costed
        (and recorded) as if asked alone: together where the backend can, else one by one."""
        if isinstance(asks, Ask | str | bytes) or not isinstance(asks, Iterable):
            raise OracleUsageError(f"Expected a list of Asks but got asks={asks!r:.80}")
        asks = list(asks)
        for i, a in enumerate(asks):
            if not isinstance(a, Ask):
                raise OracleUsageError(f"Expected asks[{i}] to be an Ask but got {a!r:.80}")
        return [self._answered(a, said)
                for a, said in zip(asks, self._generate_many(asks), strict=True)]

    def _answered(self, ask: Ask, said: Said) -> Said:
        _check_answer(ask, said)
        self._count(ask.model)
        self.calls += 1
        self.costs.append(Cost("generate", ask.purpose, ask.model, said.took_ns,
                               said.tokens_in, said.tokens_out))
        return said

    def embed(self, model: str, texts: Sequence[str], *, purpose: str = "embed") -> np.ndarray:
        """One float32 row per text, shape (len(texts), dim). No texts, no call: shape (0, 0)."""
        if not isinstance(model, str) or not model:
            raise OracleUsageError(f"Expected a model name but got model={model!r}")
        texts = check_texts(texts)
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        vectors, took_ns, tokens = self._embed(model, texts, purpose)
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise OracleUsageError(f"{model} gave vectors of shape {vectors.shape} "
                                   f"for {len(texts)} texts")
        self._count(model)
        self.embeddings += len(texts)
        self.costs.append(Cost("embed", purpose, model, took_ns, tokens, 0))
        return vectors

    def digest(self, model: str) -> str:
        """The pinned digest of `model` on this backend (what a recording labels it with).

        Proven once: the backend is asked the first time (a server's model list, a
        file's sha256, every worker of a pool), and a refusal is raised then; every later
        ask is answered from here, so a run's pre-flight is the one time it is asked.
        """
        if model not in self._proven:
            self._proven[model] = self._digest(model)
        return self._proven[model]

    def counters(self) -> Counters:
        return Counters(self.calls, self.embeddings, self.model_changes)

    def _count(self, model: str) -> None:
        # One model is resident at a time on a server; every change is a load,
        # and the first load counts.
        if model != self._resident:
            self.model_changes += 1
            self._resident = model

    def close(self) -> None:
        """Let go of anything held (a connection, a loaded model). Safe to call twice."""


_SHA: dict[tuple[str, int, int], str] = {}


def needed(module: str, error: type[Exception], how: str) -> Any:
    """The library `module`, imported when a backend first needs it; where it is not installed,
    `error(how)`, one line saying how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise error(how) from None


def file_sha256(path: Path) -> str:
    """The sha256 of a model file, read once per (path, size, mtime): weights are checked before use."""
    st = path.stat()
    key = (str(path), st.st_size, st.st_mtime_ns)
    if key not in _SHA:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        _SHA[key] = h.hexdigest()
    return _SHA[key]
