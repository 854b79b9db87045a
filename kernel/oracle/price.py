"""The price of a run's minds: each round's model seconds, in ticks at the world's pace.

This module owns the figures the design's price section prints: the calls
of a run (an oracle's `costs`, live or read off a recording) cut into its
rounds and nights, each round's seconds inside the models and those seconds
as ticks at the world's pace, set against the reflection cadence, and which
model and machine answered (`machine`, stored beside a recording's calls so
a replay can say it too). It must not call a model, time anything itself or
write a file; a figure it prints is a measurement of the machine that made
it, and says so.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kernel.events import Purpose
from kernel.oracle.base import Cost

ROUND = ("questions", "statement")
"""The generation purposes of a reflection round; a night's is `night`."""


@dataclass(frozen=True, slots=True)
class Part:
    """One round (or one night) of a run: its calls' seconds and tokens."""

    what: str            # "round" or "night"
    calls: int
    embeds: int
    took_ns: int
    tokens_in: int
    tokens_out: int


def parts(costs: Sequence[Cost]) -> list[Part]:
    """The costs, in order, cut where a round begins (a questions call after anything else) and
    where a night begins (a night call after anything else)."""
    out: list[list[Cost]] = []
    kinds: list[str] = []
    for c in costs:
        kind = "night" if c.purpose == Purpose.NIGHT else "round"
        starts = (c.kind == "generate" and (not kinds or kind != kinds[-1] or (
            c.purpose == Purpose.QUESTIONS and out[-1][-1].purpose != Purpose.QUESTIONS)))
        if starts or not out:
            out.append([])
            kinds.append(kind)
        out[-1].append(c)
    return [Part(what=k, calls=sum(1 for c in cs if c.kind == "generate"),
                 embeds=sum(1 for c in cs if c.kind == "embed"),
                 took_ns=sum(c.took_ns for c in cs), tokens_in=sum(c.tokens_in for c in cs),
                 tokens_out=sum(c.tokens_out for c in cs)) for k, cs in zip(kinds, out, strict=True)]


def machine(threads: int | None = None) -> dict[str, Any]:
    """What answered: the processor's name, its cores, and the threads the model was given."""
    name = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            name = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")),
                        "")
    except OSError:
        pass
    out: dict[str, Any] = {"processor": name or platform.processor() or platform.machine(),
                           "cores": os.cpu_count() or 0, "system": platform.system()}
    if threads is not None:
        out["threads"] = threads
    return out


def lines(costs: Sequence[Cost], pace: int, every: int | None, models: Mapping[str, Any],
          on: Mapping[str, Any] | None, measured: str) -> list[str]:
    """The price section: a line for each round and night, then who answered."""
    out = ["", f"  the price, at {pace} ticks a second ({measured}; yours will differ)"]
    for n, p in enumerate(parts(costs), start=1):
        ticks = p.took_ns / 1e9 * pace
        against = f", {ticks / every:.1%} of the {every}-tick cadence" if every else ""
        out.append(f"  {n:>4} {p.what:<6} {p.calls:>3} calls {p.embeds:>2} embeddings "
                   f"{p.took_ns / 1e9:>8.1f}s in the models = {ticks:>7.0f} ticks{against}; "
                   f"tokens {p.tokens_in}/{p.tokens_out} in/out")
    for name, m in sorted(models.items()):
        out.append(f"  answered by {name} at {str(m.get('digest', ''))[:16]} "
                   f"({m.get('backend', '')})")
    if on:
        threads = f", {on['threads']} threads" if "threads" in on else ""
        out.append(f"  on {on.get('processor') or 'an unnamed processor'}, {on.get('cores', '?')} "
                   f"cores{threads}, {on.get('system', '')}")
    else:
        out.append("  on a machine the recording does not name")
    return out
