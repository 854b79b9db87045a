"""Benchmarks of interviews: what an interview costs, and what the battery scores.

1. Interview calls per second of the replay path (the committed interviews of each scenario
   that has them, asked again from their recording, no model), as a ratio against the same
   scenario's own recorded calls replayed in the same process: an interview replays at the
   pace of a run's calls, or it does not. Then the recording's own model seconds per
   interview call (what the embedded model took when it was recorded), beside the run's.
2. The battery's scores, per variant and category: accuracy of the answers the log knows,
   beside answering at random (chance), citation validity, and the mean cosine of an answer to
   what it cites.

Run with `python -m bench bench_interview`. The ratio is of two rates measured here in turn;
the seconds are the recording's; nothing is a timed assertion.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from bench import verdict

SCENARIOS = ("week-of-three", "day-of-twenty-four")


def _generate_seconds(path: Path, purpose: str | None) -> tuple[int, float]:
    calls = json.loads(path.read_text())["calls"]
    got = [c for c in calls if c["kind"] == "generate" and (purpose is None
                                                            or c["purpose"] == purpose)]
    return len(got), sum(int(c["took_ns"]) for c in got) / 1e9


def _one(name: str, folder: Path) -> list[str]:
    from kernel.engine import scenario as msc
    from kernel.engine.replay import replay
    from kernel.interview import recording as ir
    from kernel.interview import session as isn

    sc = msc.load(name)
    path = ir.committed_path(sc)
    if not path.is_file():
        return [f"  {name}: no committed interviews at {path.name}: make record-interviews"]
    log = folder / f"{name}.log"
    t0 = time.perf_counter()
    rp = replay(sc, out=log)
    run_s = time.perf_counter() - t0
    run_calls = rp.oracle.read
    t0 = time.perf_counter()
    got = ir.replay(sc, log, path)
    iv_s = time.perf_counter() - t0
    if got.problem is not None:
        return [f"  {name}: the interviews do not replay: {got.problem}"]
    s = got.session
    iv_calls = got.oracle.read
    run_rate, iv_rate = run_calls / run_s, iv_calls / iv_s
    n, secs = _generate_seconds(path, "interview")
    rn, rsecs = _generate_seconds(Path(sc.exemplars), None)
    out = [f"  {name}: {len(s.asked)} interviews of {len(s.who)} villagers at tick {s.tick}, "
           f"variants {', '.join(s.variants)}",
           f"    replayed: {iv_rate:,.0f} interview calls a second against {run_rate:,.0f} of "
           f"the run's own calls ({iv_rate / run_rate:.2f}x); "
           + verdict(iv_rate >= 0.1 * run_rate, "an interview call replays at under a tenth "
                                                 "of a run's call"),
           f"    recorded: {secs / max(n, 1):.2f} model seconds an interview call ({n} calls), "
           f"{rsecs / max(rn, 1):.2f} a call of the run ({rn} calls)",
           f"    {'variant':<14} {'category':<11} {'correct':>8} {'accuracy':>9} {'chance':>7} "
           f"{'valid':>6} {'cosine':>7}"]
    t = isn.table(s, ("variant", "category"))
    for v in s.variants:
        for c in ("self", "memory", "plan", "reaction", "reflection"):
            x = t.get((v, c))
            if x is None:
                continue
            acc = "-" if x.accuracy is None else f"{100 * x.accuracy:.0f}%"
            ch = "-" if x.chance is None else f"{100 * x.chance:.0f}%"
            va = "-" if x.valid is None else f"{100 * x.valid:.0f}%"
            co = "-" if x.cosine is None else f"{x.cosine:.2f}"
            out.append(f"    {v:<14} {c:<11} {x.correct:>3}/{x.known:<4} {acc:>9} {ch:>7} "
                       f"{va:>6} {co:>7}")
    return out


def run() -> list[str]:
    out = ["interviews: the committed batteries replayed from their recordings, no model"]
    with tempfile.TemporaryDirectory(prefix="bench-interview-") as d:
        for name in SCENARIOS:
            out += _one(name, Path(d))
    return out
