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
from pathlib import Path

import numpy as np

from bench import interleaved, verdict
from kernel import engine
from kernel import events as ev
from kernel.engine.felt import FeltProjection, valences_of
from kernel.engine.scenario import load_rules
from kernel.laws import felt as lf
from kernel.log import LogWriter

NAMES = [f"V{i:02d}" for i in range(1, 25)]
VALENCE = valences_of()   # the shipped importance file's valence table


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
            before = len(mem.rows)
            mem.apply(t, frame)
            felt.apply(t, frame)
            for m in mem.rows[before:]:
                if m.kind != "thought":
                    alive.setdefault(m.villager, []).append(m.id)

        def night(t, frame) -> int:
            # the felt events a day's end would bring, made by the laws from the felt state as
            # it stands before this frame (no thought of this frame is cited, so none is needed)
            rows = mem.preview(t, frame)
            nid = mem.next_id + len(rows)
            out: list[ev.Event] = []
            for v in range(1, 25):
                living = alive.setdefault(v, [])
                cites = tuple(sorted(living[-2:]))
                if len(cites) < 2:
                    continue
                val = lf.mean_valence(felt.rows[c].valence for c in cites)
                out.append(ev.Thought(id=nid, villager=v, text=f"day {t // tpd} for {v}",
                                      weight=4, depth=1, about=(), drawn_from=cites))
                for c in cites:
                    r = felt.rows[c]
                    if lf.agree(r.valence, val):
                        fallen = felt.felt_now(r, t)
                        out.append(ev.Refelt(villager=v, id=c, by=nid, fallen=fallen,
                                             stored=lf.reconsolidate(fallen, 400)))
                nid += 1
            frame.extend(out)
            refelt = {e.id: e.stored for e in out if isinstance(e, ev.Refelt)}
            for v in range(1, 25):
                keep = []
                for i in alive.get(v, ()):
                    r = felt.rows[i]
                    stored, last = (refelt[i], t) if i in refelt else (r.stored, r.last_felt)
                    if lf.forgets(stored, t - last, tpd):
                        frame.append(ev.Forgotten(villager=v, id=i, stored=stored,
                                                  threshold=lf.threshold_milli(t - last, tpd)))
                    else:
                        keep.append(i)
                alive[v] = keep
            return sum(1 for e in frame if e.kind in ("refelt", "forgotten"))

        alive: dict[int, list[int]] = {}
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
                n_felt += night(t, frame)
            put(t, frame)
    return n_felt


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

        got = interleaved({"plain": plain, "felt": with_felt}, 3, warm=False)
        a, b = got["plain"], got["felt"]
        size = path.stat().st_size
    return [f"felt fold, {days} days of 24 villagers: {holder['rows']:,} rows, {n_felt:,} felt "
            f"events, {size / 1e6:.1f} MB of log",
            f"  perception fold        {a:8.2f}s",
            f"  perception + felt fold {b:8.2f}s   {b / a:.2f}x the plain fold (target at most 1.5x): "
            + verdict(b <= 1.5 * a, "the felt projection costs more than half the plain fold")]


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
