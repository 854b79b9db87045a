"""Benchmarks of minds that act: what intentions do to the world, and what they cost in calls.

1. The ablation table of the committed week with basins and plans (week-of-three, replayed
   from its recording, no model): for every intention from day 2 on, the measure in the run
   against the same day in the world told to ignore intentions from day 2
   (kernel.report.plans), totalled by act. The target is the issue's: villagers seeking
   someone spend at least 1.5 times as many ticks in sight of them as without the intention.
2. The night's model calls per villager-night by purpose (the consolidation plan, the basins
   update, keyword consolidations and the plan for tomorrow), from the same replay.

Run with `python -m bench bench_intentions`. Figures are counts and ratios of counts, never
timings.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from bench import verdict
from kernel import engine

SEEK_TARGET = 1.5


def _replayed(name: str, folder: Path):
    from kernel.engine import scenario as msc
    from kernel.oracle import make

    sc = msc.load(name)
    path = folder / "w.log"
    report = engine.run(sc, make("replay", replay_from=sc.exemplars), path)
    return sc, report, path


def effect_lines(sc, path) -> tuple[list[str], float | None]:
    from kernel.report.plans import effect

    got = effect(sc, path, from_day=1)
    lines = [f"  {'act':<7} {'measure':<28} {'intentions':>10} {'kept':>7} {'ignored':>8} "
             f"{'ratio':>6}"]
    seek = None
    for act, measure, n, kept, ignored in got.totals():
        ratio = kept / ignored if ignored else float("inf") if kept else 1.0
        if act == "seek":
            seek = ratio
        lines.append(f"  {act:<7} {measure:<28} {n:>10} {kept:>7} {ignored:>8} {ratio:>6.2f}")
    return lines, seek


def call_lines(report) -> list[str]:
    nights = sum(len(n.villagers) for n in report.nights)
    if not nights:
        return ["  no nights"]
    counts = {
        "night (consolidation)": sum(n.calls for n in report.nights),
        "basins update": sum(len(b.updates) for b in report.basins),
        "keyword consolidation": sum(b.consolidations for b in report.basins),
        "plan for tomorrow": sum(p.calls for p in report.plans),
    }
    out = [f"  {what:<24} {n:>4} calls, {n / nights:.2f} a villager-night"
           for what, n in counts.items()]
    total = sum(counts.values())
    out.append(f"  {'all night calls':<24} {total:>4} calls, {total / nights:.2f} a villager-night "
               f"over {nights} villager-nights")
    return out


def run() -> list[str]:
    with tempfile.TemporaryDirectory(prefix="bench-intentions-") as d:
        try:
            sc, report, path = _replayed("week-of-three", Path(d))
        except Exception as e:  # the recording is optional here: say so, and go on
            return [f"intentions: no week-of-three to replay ({e})"]
        lines, seek = effect_lines(sc, path)
    out = ["week-of-three replayed: each intention from day 2 on, in the run against the world "
           "told to ignore intentions from day 2", *lines]
    if seek is None:
        out.append("  no seek intentions from day 2 on")
    else:
        out.append(f"  seeking: {seek:.2f}x the ticks in sight of the one sought "
                   + verdict(seek >= SEEK_TARGET, f"below the target of {SEEK_TARGET}x"))
    out += ["night calls, week-of-three replayed, by purpose:", *call_lines(report)]
    return out
