"""The replay oracle: answers read off a recording, for prompts that are the recorded bytes.

This module owns answering from an exemplar file and refusing to answer a
call the recording is not a recording of. Each call must be the next recorded
one in kind, purpose, model and prompt sha256 (an embedding: the sha256 of its
texts joined canonically), with the same schema and options; at the first
difference it stops with `ReplayMismatch`, naming both digests (all 64 hex
digits, so either can be searched for) and both lengths, and answers nothing after that. It never calls a model and never
writes a file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from kernel.errors import ReplayMismatch, ReplayStopped
from kernel.oracle import exemplar
from kernel.oracle.base import Ask, Oracle, Said, texts_sha256

_NOT_THIS = "the recording is not a recording of this code"


class ReplayOracle(Oracle):
    """Answers from one exemplar document, in order, while every call is the recorded one."""

    backend = "replay"

    def __init__(self, source: str | os.PathLike | Mapping[str, Any]):
        super().__init__()
        self.path: Path | None = None if isinstance(source, Mapping) else Path(source)
        self.doc = exemplar.load(source)
        self.recorded_backend: str = self.doc["backend"]
        self._calls: list[dict[str, Any]] = self.doc["calls"]
        self.read = 0          # calls read off the recording, matched or not
        self.matched = 0       # of those, the ones whose request was the recorded bytes
        self.stopped: ReplayMismatch | None = None

    @property
    def total(self) -> int:
        return len(self._calls)

    @property
    def unread(self) -> int:
        return len(self._calls) - self.read

    def _digest(self, model: str) -> str:
        m = self.doc["models"].get(model)
        return m["digest"] if m else ""

    # -- matching -------------------------------------------------------------

    def _next(self, kind: str, purpose: str) -> tuple[int, dict[str, Any]]:
        if self.stopped is not None:
            # Nothing is answered after a mismatch: the caller sees the same
            # refusal again rather than answers to questions it did not ask.
            raise self.stopped
        i = self.read
        if i >= len(self._calls):
            self._stop(i, purpose, f"replay stopped at call {i + 1} ({purpose}): the recording "
                                   f"holds {len(self._calls)} calls and this code asks for "
                                   f"another: {_NOT_THIS}")
        rec = self._calls[i]
        self.read += 1
        if rec["kind"] != kind:
            self._stop(i, purpose, f"replay stopped at call {i + 1} ({purpose}): this code asks to "
                                   f"{kind}, and the recording's call {i + 1} is to {rec['kind']} "
                                   f"({rec['purpose']}): {_NOT_THIS}")
        if rec["purpose"] != purpose:
            self._stop(i, purpose, f"replay stopped at call {i + 1} ({purpose}): this code asks for "
                                   f"{purpose!r}, and the recording's call {i + 1} is for "
                                   f"{rec['purpose']!r}: {_NOT_THIS}")
        return i, rec

    def _stop(self, i: int, purpose: str, message: str, here: str = "",
              recorded: str = "") -> NoReturn:
        self.stopped = ReplayStopped(message, call=i + 1, purpose=purpose, here=here,
                                     recorded=recorded)
        raise self.stopped

    def _differs(self, i: int, purpose: str, what: str, here: Any, recorded: Any) -> NoReturn:
        self._stop(i, purpose, f"replay stopped at call {i + 1} ({purpose}): the {what} here is "
                               f"{here!r}, and the recording's is {recorded!r}: {_NOT_THIS}")

    # -- the two calls ----------------------------------------------------------

    def _generate(self, ask: Ask) -> Said:
        i, rec = self._next("generate", ask.purpose)
        here, there = ask.prompt_sha256, rec["prompt_sha256"]
        if here != there:
            self._stop(i, ask.purpose,
                       f"replay stopped at call {i + 1} ({ask.purpose}): the prompt rendered here "
                       f"is {len(ask.prompt)} bytes, sha256 {here}, and the recording's is "
                       f"{rec['prompt_bytes']} bytes, sha256 {there}: {_NOT_THIS}",
                       here=here, recorded=there)
        if ask.model != rec["model"]:
            self._differs(i, ask.purpose, "model", ask.model, rec["model"])
        if ask.schema != exemplar.schema_bytes(rec):
            self._differs(i, ask.purpose, "schema", _text(ask.schema), rec["schema"])
        # A recording from before the decoding options holds none of them: it was decoded
        # by each backend's own defaults, which is not this ask, and it says so.
        # A key either side holds is compared: `fill` is written only where it is on.
        here = exemplar.options(ask)
        for k in [*here, *(k for k in rec["options"] if k not in here)]:
            if rec["options"].get(k) != here.get(k):
                self._differs(i, ask.purpose, k, here.get(k), rec["options"].get(k))
        self.matched += 1
        return exemplar.said(rec)

    def _embed(self, model: str, texts: list[str], purpose: str) -> tuple[np.ndarray, int, int]:
        i, rec = self._next("embed", purpose)
        here, size = texts_sha256(texts)
        if model != rec["model"]:
            self._differs(i, purpose, "embedding model", model, rec["model"])
        if here != rec["texts_sha256"]:
            self._stop(i, purpose,
                       f"replay stopped at call {i + 1} ({purpose}): the {len(texts)} texts "
                       f"embedded here are {size} bytes, sha256 {here}, and the recording's "
                       f"{len(rec['texts'])} are {rec['texts_bytes']} bytes, sha256 "
                       f"{rec['texts_sha256']}: {_NOT_THIS}",
                       here=here, recorded=rec["texts_sha256"])
        self.matched += 1
        return exemplar.vectors(rec), rec["took_ns"], rec["tokens_in"]


def _text(b: bytes | None) -> str | None:
    return None if b is None else b.decode("utf-8")
