"""The oracle interface: what a call asks (`Ask`), what a model said (`Said`), and the counting.

An oracle answers two questions: `generate(ask) -> Said` and
`embed(model, texts) -> float32 array`. This module owns those values and the
`Oracle` base class, which checks arguments, counts calls, embeddings and
model changes, and keeps a cost list, so that every backend (replay, Ollama,
llama.cpp, recording, the scripted double) counts the same way. It must not
parse an answer (that is `kernel.seam.shaped`) or know about villagers.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

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
class Ask:
    """One generation request, whole: nothing a backend sends is decided anywhere else."""

    purpose: str
    model: str
    prompt: bytes
    schema: bytes | None
    seed: int
    temperature: float
    limit: int
    context: int

    def __post_init__(self) -> None:
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


@runtime_checkable
class OracleLike(Protocol):
    def generate(self, ask: Ask) -> Said: ...

    def embed(self, model: str, texts: Sequence[str], *, purpose: str = "embed") -> np.ndarray: ...


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
    """Base of every oracle: argument checks, counters and costs around a backend's two methods.

    Subclasses implement `_generate(ask) -> Said`, `_embed(model, texts,
    purpose) -> (vectors, took_ns, tokens_in)` and `digest(model)`, and call
    `super().__init__()`. The counters count answered calls only: a call that
    raised did not happen, as far as the accounting goes.
    """

    backend: str = ""

    def __init__(self) -> None:
        self.calls = 0
        self.embeddings = 0
        self.model_changes = 0
        self.costs: list[Cost] = []
        self._resident: str | None = None

    # -- what a backend implements ------------------------------------------

    def _generate(self, ask: Ask) -> Said:
        raise NotImplementedError

    def _embed(self, model: str, texts: list[str], purpose: str) -> tuple[np.ndarray, int, int]:
        raise NotImplementedError

    def digest(self, model: str) -> str:
        """The pinned digest of `model` on this backend (what a recording labels it with)."""
        raise NotImplementedError

    # -- the interface -------------------------------------------------------

    def generate(self, ask: Ask) -> Said:
        if not isinstance(ask, Ask):
            raise OracleUsageError(f"Expected an Ask but got {ask!r:.80}")
        said = self._generate(ask)
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


# --- many asks at once ----------------------------------------------------------------------
# A pool (Ray workers, Ollama hosts) answers a group's asks together. What every pool shares
# lives here: how an embedding call is cut across workers, and how answers gathered in the
# asks' order are handed out one by one, so each is counted, costed and recorded as if it
# had been asked alone.

# An embedding call of at least MIN_CHUNK texts is cut into CHUNKS_PER_WORKER runs a worker,
# so a worker that finishes early takes another; a smaller one goes to one worker whole,
# since shipping it costs more than it saves.
MIN_CHUNK = 8
CHUNKS_PER_WORKER = 4


def chunks(n: int, parts: int) -> list[tuple[int, int]]:
    """`n` items cut into at most `parts` contiguous runs of near-equal size, as (start, stop)."""
    parts = max(1, min(parts, n))
    size, extra = divmod(n, parts)
    out, at = [], 0
    for i in range(parts):
        step = size + (1 if i < extra else 0)
        out.append((at, at + step))
        at += step
    return out


def embed_in_runs(texts: list[str], workers: int, fan, *, what: str
                  ) -> tuple[np.ndarray, int, int]:
    """One embedding call answered in runs of `texts` by `fan(runs)` -> [(vectors, ns, tokens)]
    in the runs' order; the vectors joined in the texts' order, the time and tokens summed as
    one worker's call would report them. `what` names the call in the error of mixed widths."""
    parts = workers * CHUNKS_PER_WORKER if len(texts) >= MIN_CHUNK else 1
    got = fan([texts[a:b] for a, b in chunks(len(texts), parts)])
    widths = {np.shape(v)[1] for v, _, _ in got}
    if len(widths) != 1:
        raise OracleError(f"the workers answered {what} with vectors of {len(widths)} widths "
                          f"({sorted(widths)})")
    vectors = np.concatenate([np.asarray(v, dtype=np.float32) for v, _, _ in got], axis=0)
    return vectors, sum(t for _, t, _ in got), sum(n for _, _, n in got)


def fan(calls: Sequence[tuple], workers: int, submit: Callable[[int, tuple], Any],
        wait_some: Callable[[list], Iterable], result: Callable[[Any], Any]) -> list:
    """Each call's answer, in the calls' order, from whichever of `workers` was free to make it.

    `submit(worker, args)` starts a call and gives a handle, `wait_some(handles)` the handles
    done, at least one, and `result(handle)` the answer or its error. Every call started is let
    finish; then the first error, in the calls' order, is raised. What a pool of Ray workers
    and a pool of Ollama hosts share: only the handles differ.
    """
    answers: list[Any] = [None] * len(calls)
    errors: dict[int, BaseException] = {}
    todo = deque(enumerate(calls))
    free = deque(range(workers))
    running: dict[Any, tuple[int, int]] = {}
    while todo or running:
        while todo and free and not errors:
            w = free.popleft()
            i, args = todo.popleft()
            running[submit(w, args)] = (i, w)
        if not running:
            break
        for h in wait_some(list(running)):
            i, w = running.pop(h)
            try:
                answers[i] = result(h)
            except BaseException as e:  # kept, so the others finish before it is raised
                errors[i] = e
            free.append(w)
    if errors:
        raise errors[min(errors)]
    return answers


class Gathered:
    """Answers gathered for many asks at once, handed out one by one in the asks' order.

    A pool's `generate_many` gets every answer first (from whichever worker
    was free), then calls `hand_out`, which runs each through `generate`, so
    the counting, the cost and any recording are those of asking one by one;
    the `_generate` under it calls `take` first, which gives the gathered
    answer of exactly that ask, or None when nothing was gathered.
    """

    def __init__(self) -> None:
        self._ready: deque[tuple[Ask, Said]] = deque()

    @staticmethod
    def check(asks: Sequence[object]) -> list[Ask]:
        """The asks of a `generate_many`, each refused in one line unless an Ask."""
        asks = list(asks)
        for i, a in enumerate(asks):
            if not isinstance(a, Ask):
                raise OracleUsageError(f"Expected asks[{i}] to be an Ask but got {a!r:.80}")
        return asks

    def hand_out(self, generate, asks: Sequence[Ask], saids: Sequence[Said]) -> list[Said]:
        self._ready = deque(zip(asks, saids, strict=True))
        try:
            return [generate(a) for a in asks]
        finally:
            self._ready.clear()

    def take(self, ask: Ask) -> Said | None:
        if not self._ready:
            return None
        asked, said = self._ready.popleft()
        if asked is not ask:
            raise OracleUsageError("the pool's gathered answers were taken out of order")
        return said
