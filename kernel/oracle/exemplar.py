"""Exemplar files: recorded model calls, one JSON document per scenario.

This module owns the file format (version 2; version 1 is still read) and
nothing else: turning a call into a record and back, the vectors' exact
encoding, and writing a file atomically, through the output guard of
kernel.files (a recording replaces only a recording). A document is
`{"format": 2, "backend", "models", "calls"}`,
written with sorted keys and an indent, prompts split into lines, so a diff
of two recordings reads like a diff of two prompts. It must not decide
whether a call matches (that is `replay`) or call a model.

Vectors are float32 little-endian, row-major, base64: exact to the bit and a
third of the size of decimal text. A prompt is stored as its lines and is
checked against its sha256 on load, so a hand edit that forgets the digest
is found at once rather than at the first mismatch. Format 2 adds
`vectors_sha256` to every embedding call, the sha256 of the vectors' raw
bytes, checked on load the same way: in format 1 one changed base64
character changed a villager's memory and nothing noticed. A format 1 file
is still read, unchecked, with a one-line notice, until it is re-recorded.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kernel import config, files
from kernel.errors import ConfigError, OracleError
from kernel.oracle.base import Ask, Decoding, Said, texts_sha256

FORMAT = 2


class FormatNotice(UserWarning):
    """A recording in an older format was read: it still replays, with fewer checks."""


_SAID: set[str] = set()


def _once_on_stderr(message: str) -> None:
    # One line, once per process for each recording: a notice, not a warning with a
    # source line under it, and not repeated for every scenario that reads the file.
    if message in _SAID:
        return
    _SAID.add(message)
    sys.stderr.write(f"village: note: {message}\n")


def as_warning(message: str) -> None:
    """A notice as a `FormatNotice` warning, for code that filters or records warnings."""
    warnings.warn(FormatNotice(message), stacklevel=4)


notice: Callable[[str], None] = _once_on_stderr
"""Where the one-line notice about a format 1 recording goes: stderr, once per recording, by
default; set it to `as_warning`, or to any function of one line, to send it elsewhere."""


def options(ask: Ask) -> dict[str, Any]:
    """Everything but the prompt and the schema that decides an answer: what a replay compares."""
    return {"seed": ask.seed, "temperature": float(ask.temperature), "limit": ask.limit,
            "context": ask.context, **ask.decoding.options(),
            **({"opening": ask.opening} if ask.opening else {})}


def generate_record(ask: Ask, said: Said, backend: str) -> dict[str, Any]:
    """One generation call as it goes into a file."""
    return {
        "kind": "generate",
        "purpose": ask.purpose,
        "model": ask.model,
        "digest": said.digest,
        "backend": backend,
        "options": options(ask),
        "schema": None if ask.schema is None else ask.schema.decode("utf-8"),
        "prompt": ask.prompt_text.split("\n"),
        "prompt_sha256": ask.prompt_sha256,
        "prompt_bytes": len(ask.prompt),
        "answer": said.text,
        "done_reason": said.done_reason,
        "tokens_in": said.tokens_in,
        "tokens_out": said.tokens_out,
        "took_ns": said.took_ns,
        "load_ns": said.load_ns,
    }


def embed_record(*, purpose: str, model: str, digest: str, backend: str, texts: Sequence[str],
                 vectors: np.ndarray, took_ns: int, tokens_in: int) -> dict[str, Any]:
    """One embedding call as it goes into a file."""
    sha, size = texts_sha256(texts)
    v = np.ascontiguousarray(vectors, dtype="<f4")
    return {
        "kind": "embed",
        "purpose": purpose,
        "model": model,
        "digest": digest,
        "backend": backend,
        "texts": list(texts),
        "texts_sha256": sha,
        "texts_bytes": size,
        "dim": int(v.shape[1]),
        "vectors": base64.b64encode(v.tobytes()).decode("ascii"),
        "vectors_sha256": hashlib.sha256(v.tobytes()).hexdigest(),
        "took_ns": took_ns,
        "tokens_in": tokens_in,
    }


def prompt_bytes(rec: Mapping[str, Any]) -> bytes:
    return "\n".join(rec["prompt"]).encode("utf-8")


def schema_bytes(rec: Mapping[str, Any]) -> bytes | None:
    s = rec["schema"]
    return None if s is None else s.encode("utf-8")


def vectors(rec: Mapping[str, Any]) -> np.ndarray:
    """The recorded vectors, bit for bit, shape (len(texts), dim)."""
    try:
        raw = base64.b64decode(rec["vectors"], validate=True)
    except ValueError:
        raise OracleError(f"an embed record's vectors are not base64 "
                          f"({str(rec['vectors'])[:40]!r}...)") from None
    n, dim = len(rec["texts"]), rec["dim"]
    if len(raw) != n * dim * 4:
        raise OracleError(f"an embed record holds {len(raw)} bytes of vectors, "
                          f"and {n} texts of {dim} floats need {n * dim * 4}")
    label = rec.get("vectors_sha256")
    if label is not None:
        sha = hashlib.sha256(raw).hexdigest()
        if sha != label:
            raise OracleError(f"an embed record's vectors have sha256 {sha}, but are labelled "
                              f"{label}: the vectors were changed after they were recorded")
    return np.frombuffer(raw, dtype="<f4").reshape(n, dim).astype(np.float32)


def ask(rec: Mapping[str, Any]) -> Ask:
    """The ask a generation record was made from, whole: asked again of any backend, it is the
    same request (a prompt is recorded by its lines, which join back to its bytes)."""
    o = rec["options"]
    return Ask(purpose=rec["purpose"], model=rec["model"], prompt=prompt_bytes(rec),
               schema=schema_bytes(rec), seed=o["seed"], temperature=o["temperature"],
               limit=o["limit"], context=o["context"], decoding=Decoding.of(o),
               opening=o.get("opening", 0))


def said(rec: Mapping[str, Any]) -> Said:
    return Said(text=rec["answer"], done_reason=rec["done_reason"], tokens_in=rec["tokens_in"],
                tokens_out=rec["tokens_out"], took_ns=rec["took_ns"], load_ns=rec["load_ns"],
                model=rec["model"], digest=rec["digest"])


def document(backend: str, calls: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A whole file: its calls, labelled with the backend and every model's digest."""
    models: dict[str, dict[str, str]] = {}
    for c in calls:
        models.setdefault(c["model"], {"digest": c["digest"], "backend": c["backend"]})
    return {"format": FORMAT, "backend": backend, "models": models, "calls": list(calls)}


def dumps(doc: Mapping[str, Any]) -> bytes:
    return (json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)
            + "\n").encode("utf-8")


WORDS = files.Words("recording", OracleError)


def output(path: str | os.PathLike) -> files.Output:
    """A recording's path as the output guard sees it: it replaces only a recording (a JSON
    object holding the `format` key), never a log, an index or any other file."""
    return files.Output(Path(path), WORDS, kind=files.RECORDING)


def check_target(path: str | os.PathLike) -> Path:
    """Refuse at once a path a recording may not be written to (its folder, if missing, is
    made when it is written)."""
    out = output(path)
    files.check_name(out.path, WORDS)
    return out.check() if out.path.parent.is_dir() else out.path


def hold(path: str | os.PathLike) -> files.Held | None:
    """Be the one writer of the recording at `path` from now until it is written (`save`
    releases it) or this process ends; refused in one line while another process is."""
    return files.sole_writer(output(path).path, WORDS)


def save(path: str | os.PathLike, doc: Mapping[str, Any]) -> Path:
    """Write the recording `doc` at `path`, atomically, once it is known to read back: a
    document `load` would refuse (a field out of its schema's range, say) is refused here and
    the file at `path` stays as it was, so a recording is never replaced by one no replay reads."""
    try:
        data = dumps(doc)
        load(config.loads(data, source="the recording", error=OracleError))
    except (ValueError, TypeError, RecursionError) as e:   # not JSON at all: NaN, a set, ...
        raise OracleError(f"the recording made is not JSON ({e}), so it is not written and "
                          f"{files.a_path(path, WORDS)} is as it was") from None
    except OracleError as e:
        raise OracleError(f"the recording made is not one that reads back, so it is not "
                          f"written and {files.a_path(path, WORDS)} is as it was: {e}") from None
    return write_atomic(path, data)


def write_atomic(path: str | os.PathLike, data: bytes) -> Path:
    """Write a recording so a reader sees the old file or the new one, making its folder if
    need be; refused first where the output guard refuses it."""
    out = output(path)
    check_target(out.path)
    if not out.path.parent.is_dir():
        try:
            out.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise WORDS.refuse("unwritable", out.path, why=e.strerror or e) from None
    return out.write(data)


def load(source: str | os.PathLike | Mapping[str, Any]) -> dict[str, Any]:
    """Read and check an exemplar document (a path, or an already parsed mapping)."""
    where = "the recording"
    if isinstance(source, Mapping):
        try:
            text = json.dumps(source, allow_nan=False)
        except (ValueError, TypeError, RecursionError) as e:
            raise OracleError(f"the recording is not a JSON document: {e}") from None
        doc = config.loads(text, source=where, error=OracleError)
    else:
        where = files.a_path(source, files.Words("recording", OracleError))
        if not os.path.lexists(source):
            raise OracleError(f"no recording at {where}: record one first")
        doc = config.read_json(source, what="recording", error=OracleError)
    try:
        config.validate("exemplar", doc, source=where)
    except ConfigError as e:
        raise OracleError(str(e)) from None
    if doc["format"] == 1:
        notice(f"{where} is a format 1 recording: its vectors carry no sha256 and are read "
               f"unchecked; a re-recording writes format {FORMAT}")
    for i, rec in enumerate(doc["calls"]):
        if rec["kind"] == "generate":
            b = prompt_bytes(rec)
            sha = hashlib.sha256(b).hexdigest()
            if sha != rec["prompt_sha256"] or len(b) != rec["prompt_bytes"]:
                raise OracleError(
                    f"{where} call {i + 1} ({rec['purpose']}): its prompt text is {len(b)} bytes, "
                    f"sha256 {sha}, but it is labelled {rec['prompt_bytes']} bytes, "
                    f"sha256 {rec['prompt_sha256']}: the file was edited by hand")
        else:
            sha, size = texts_sha256(rec["texts"])
            if sha != rec["texts_sha256"]:
                raise OracleError(f"{where} call {i + 1} ({rec['purpose']}): its texts have "
                                  f"sha256 {sha}, but are labelled {rec['texts_sha256']}")
            try:
                vectors(rec)
            except OracleError as e:
                raise OracleError(f"{where} call {i + 1} ({rec['purpose']}): {e}") from None
    return doc
