"""Benchmarks of felt memory: what the felt fold costs, and what a night costs in model calls.

1. The felt fold over a 100-day, 24-villager log against the plain
   perception fold of the same log (target: at most 1.5x). The log is
   synthetic (ticks of seeded gifts, takes, pleas and gathers among four
   circles of six who see each other, one event every other tick), and
   carries felt events as a run with nights would: at each day's end every
   villager writes a thought citing two of its living rows (which re-feels
   them), and every row under the forgetting curve is forgotten. Both folds
   read and decode the same log; the felt fold adds the felt projection.
2. The night pass's model calls per villager-night, from the week-of-three
   recording replayed (no model), and the bound: one call at most.

Run with `python -m bench bench_felt`. Figures are ratios measured in one
process; the machines these run on are shared and noisy.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np

from kernel import engine
from kernel import events as ev
from kernel.engine.felt import FeltProjection
from kernel.engine.scenario import load_rules
from kernel.laws import felt as lf
from kernel.laws.memory import Memory
from kernel.log import LogWriter
from kernel.mind import refeel

NAMES = [f"V{i:02d}" for i in range(1, 25)]
VALENCE = lf.Valences.from_value({
    "did": {"founding": {"actor": 300}, "walk": {"actor": 0}, "meal": {"actor": 400},
            "gather": {"actor": 300}, "gift": {"actor": 300}, "take": {"actor": 100},
            "plea": {"actor": -500}},
    "saw": {"sighting": {"witness": 100}, "parting": {"witness": -100},
            "gift": {"target": 700, "witness": 200}, "take": {"target": -700, "witness": -300}},
    "heard": {"plea": {"witness": -300}},
})


def felt_log(path: Path, days: int = 100, tpd: int = 2000, every: int = 2, seed: int = 11) -> int:
    """Write the synthetic felt log; the number of felt events in it."""
    rng = np.random.Generator(np.random.PCG64(seed))
    circles = [list(range(c * 6 + 1, c * 6 + 7)) for c in range(4)]
    mem = engine.MemoryProjection(load_rules())
    felt = FeltProjection(VALENCE, tpd).follow(mem)
    first = [ev.Founded(villager=i + 1, name=NAMES[i], x=i, y=0) for i in range(24)]
    first += [ev.CameIntoSight(viewer=a, seen=b, millicells=800)
              for c in circles for a in c for b in c if a != b]
    n_felt = 0
    with LogWriter.create(path, config_digest="0" * 64, seed=seed, commit_every=0,
                          ticks_per_day=0) as w:
        def put(t, frame):
            w.append(t, frame)
            mem.apply(t, frame)
            felt.apply(t, frame)

        put(0, first)
        ticks = days * tpd
        picks = rng.integers(0, 2**31, size=(ticks, 4)).tolist()
        for t in range(1, ticks):
            frame: list[ev.Event] = []
            if t % every == 0:
                what, circle, a, b = picks[t]
                c = circles[circle % 4]
                x, y = c[a % 6], c[(a % 6 + 1 + b % 5) % 6]
                n = 1 + b % 50
                kind = what % 4
                frame.append(
                    ev.Gave(giver=x, receiver=y, parcels=n, milligrams=500 * n) if kind == 0 else
                    ev.Took(taker=x, owner=y, parcels=n, milligrams=500 * n) if kind == 1 else
                    ev.Begged(villager=x, x=1, y=2) if kind == 2 else
                    ev.Gathered(villager=x, x=1, y=2, parcels=n, milligrams=500 * n))
            if (t + 1) % tpd == 0:
                rows = mem.preview(t, frame)
                book = felt.scratch(range(1, 25), t, rows, ())
                nid = mem.next_id + len(rows)
                for v in range(1, 25):
                    living = [r.id for r in book.of(v) if r.living and not r.is_thought]
                    if len(living) < 2:
                        continue
                    cites = tuple(sorted(living[-2:]))
                    th = Memory(id=nid, villager=v, tick=t, kind="thought", event="reflection",
                                text=f"day {t // tpd} for {NAMES[v - 1]}", weight=4, about=(),
                                drawn_from=cites)
                    frame.append(ev.Thought(id=nid, villager=v, text=th.text, weight=4, depth=1,
                                            about=(), drawn_from=cites))
                    frame.extend(refeel.refeel(book, th, t))
                    nid += 1
                for v in range(1, 25):
                    for r in book.of(v):
                        if r.living and not r.is_thought and lf.forgets(r.stored, t - r.last_felt,
                                                                         tpd):
                            frame.append(ev.Forgotten(villager=v, id=r.id, stored=r.stored,
                                                      threshold=lf.threshold_milli(
                                                          t - r.last_felt, tpd)))
                            r.forgotten_at = t
                n_felt += sum(1 for e in frame if e.kind in ("refelt", "forgotten"))
            put(t, frame)
    return n_felt


def _best(f, repeat: int = 2) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best


def bench_fold(days: int = 100) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="bench-felt-") as d:
        path = Path(d) / "felt.log"
        n_felt = felt_log(path, days=days)
        rules = load_rules()
        holder: dict = {}

        def plain():
            mem = engine.MemoryProjection(rules)
            engine.fold(path, [mem])
            holder["rows"] = len(mem.rows)

        def with_felt():
            mem = engine.MemoryProjection(rules)
            engine.fold(path, [mem, FeltProjection(VALENCE, 2000).follow(mem)])

        a = _best(plain)
        b = _best(with_felt)
        size = path.stat().st_size
    return [f"felt fold, {days} days of 24 villagers: {holder['rows']:,} rows, {n_felt:,} felt "
            f"events, {size / 1e6:.1f} MB of log",
            f"  perception fold        {a:8.2f}s",
            f"  perception + felt fold {b:8.2f}s   {b / a:.2f}x the plain fold (target at most 1.5x)"]


def bench_night_calls() -> list[str]:
    from kernel.engine import scenario as msc
    from kernel.oracle import make

    try:
        sc = msc.load("week-of-three")
    except Exception as e:  # the recording is optional here: say so, and go on
        return [f"night calls: no week-of-three to replay ({e})"]
    with tempfile.TemporaryDirectory(prefix="bench-night-") as d:
        rep = engine.run(sc, make("replay", replay_from=sc.exemplars), Path(d) / "w.log")
    villager_nights = sum(len(n.villagers) for n in rep.nights)
    calls = sum(n.calls for n in rep.nights)
    per = calls / villager_nights if villager_nights else 0.0
    return [f"night calls, week-of-three replayed: {calls} plan calls over {villager_nights} "
            f"villager-nights, {per:.2f} a villager-night (at most 1 by construction)"]


def run() -> list[str]:
    return bench_fold() + bench_night_calls()


if __name__ == "__main__":
    for line in run():
        print(line)
