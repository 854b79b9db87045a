"""What a re-recording moved: a new recording's calls read against the one it replaces.

This module owns the comparison the design's record mode prints before a
recording is replaced: of the calls both hold, in order, how many asked the
same prompt bytes and how many were answered with the same words, and the
first few that were not, named by their number and purpose. It is a pure
function of two exemplar documents: it must not read or write a file (the
command does), call a model, or judge whether a difference is wanted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

NAMED = 5
"""How many differing calls a comparison names."""


@dataclass(frozen=True, slots=True)
class MovedCall:
    """One generation call that moved: its number (from 1), purpose, and what moved."""

    call: int
    purpose: str
    prompt: bool     # the prompt bytes moved
    answer: bool     # the answer's words moved


@dataclass(frozen=True, slots=True)
class Moved:
    committed: int                 # generation calls in the recording replaced
    made: int                      # generation calls in the new one
    compared: int                  # calls both hold, in order
    same_prompts: int
    same_answers: int
    changes: tuple[MovedCall, ...]    # every compared call that moved, in order

    def lines(self, named: int = NAMED) -> list[str]:
        out = [f"  against the recording it replaces: {self.committed} calls committed, "
               f"{self.made} made here; of the first {self.compared}, {self.same_prompts} "
               f"prompts are the same bytes and {self.same_answers} answers the same words"]
        for c in self.changes[:named]:
            what = " and ".join(w for w, moved in (("prompt", c.prompt), ("answer", c.answer))
                                if moved)
            out.append(f"    call {c.call} ({c.purpose}): its {what} moved")
        if len(self.changes) > named:
            out.append(f"    and {len(self.changes) - named} more")
        return out


def _generations(doc: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [c for c in doc.get("calls", ()) if c.get("kind") == "generate"]


def moved(old: Mapping[str, Any], new: Mapping[str, Any]) -> Moved:
    """The generation calls of `new` read against those of `old`, pair by pair in order."""
    a, b = _generations(old), _generations(new)
    changes: list[MovedCall] = []
    prompts = answers = 0
    for i, (x, y) in enumerate(zip(a, b, strict=False), start=1):
        p = x.get("prompt_sha256") == y.get("prompt_sha256") and x.get("purpose") == y.get("purpose")
        w = _words(x.get("answer", "")) == _words(y.get("answer", ""))
        prompts += p
        answers += w
        if not (p and w):
            changes.append(MovedCall(call=i, purpose=str(y.get("purpose")), prompt=not p,
                                  answer=not w))
    return Moved(committed=len(a), made=len(b), compared=min(len(a), len(b)),
                 same_prompts=prompts, same_answers=answers, changes=tuple(changes))


def _words(text: Sequence[str] | str) -> tuple[str, ...]:
    # Words, not bytes: an answer that moved only in its spacing said the same thing.
    return tuple(str(text).split())
