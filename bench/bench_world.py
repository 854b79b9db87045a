"""Benchmarks of the world and its index: how fast a village lives, and what indexing costs.

1. Villager-ticks a second for 24 villagers over one day (2000 ticks),
   stepping the world and appending every frame to a log in a temporary
   folder, beside the same day stepped without a log (the ratio is what
   logging costs).
2. `index` of a log with about a million memory rows, against a raw load of
   the same columns, already in Arrow, into DuckDB. The log is synthetic:
   24 villagers founded in four circles of six who see each other, then
   ticks of seeded gifts, takes, pleas and gathers (ten a tick), each of
   which perception turns into one to six rows. Index time includes reading
   and checking the log, the perception fold, building Arrow columns and
   the DuckDB load; the raw load is only the last.

Run with `python -m bench bench_world` or `python bench/bench_world.py`.
Figures are measured here and are ratios as much as times: the machines
these run on are shared and noisy.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import duckdb
import numpy as np

from kernel import config as configs
from kernel import events as ev
from kernel import store, world
from kernel.log import LogWriter
from kernel.world.config import from_value

NAMES = ("Halla Ander Mose Ilse Bram Sif Oda Tove Rurik Asta Geir Hild Kari Leif Nanna Orm "
         "Ragna Sten Tyra Ulf Vigdis Yrsa Eir Frode").split()


def village(n: int = 24) -> world.WorldConfig:
    """The shipped world's policy on a grid sized for `n` villagers, spread out on it."""
    value = configs.thaw(configs.load("world").value)
    side = 24
    value["grid"] = {"width": side, "height": side}
    value["villagers"] = [
        {"id": i + 1, "name": NAMES[i], "founded": 0, "x": (i * 7) % side, "y": (i * 11) % side}
        for i in range(n)
    ]
    configs.validate("world", value)
    return from_value(value, digest=configs.digest(value))


def bench_day(ticks: int = 2000) -> list[str]:
    cfg = village()
    n = len(cfg.people)
    t0 = time.perf_counter()
    for _ in world.frames(cfg, ticks):
        pass
    stepped = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        res = world.run(cfg, ticks, Path(d) / "day.log")
        logged = time.perf_counter() - t0
    vt = n * ticks
    return [
        f"world day      {n} villagers x {ticks} ticks = {vt} villager-ticks, "
        f"{res.events} events, log {res.bytes / 1e6:.1f} MB",
        f"  stepped only           {stepped:7.2f}s  {vt / stepped:9.0f} villager-ticks/s",
        f"  stepped and logged     {logged:7.2f}s  {vt / logged:9.0f} villager-ticks/s  "
        f"(logging: x{logged / stepped:.2f})",
        f"  a day at the pace of {cfg.ticks_per_second} ticks/s is {ticks / cfg.ticks_per_second:.0f}s; "
        f"simulated {ticks / cfg.ticks_per_second / logged:.0f}x faster than that",
    ]


def synthetic_log(path: Path, ticks: int, per_tick: int = 10, seed: int = 7) -> None:
    """A log of `ticks` frames of social events among four circles of six who see each other."""
    rng = np.random.Generator(np.random.PCG64(seed))
    circles = [list(range(c * 6 + 1, c * 6 + 7)) for c in range(4)]
    first = [ev.Founded(villager=i + 1, name=NAMES[i], x=i, y=0) for i in range(24)]
    first += [ev.CameIntoSight(viewer=a, seen=b, millicells=800)
              for c in circles for a in c for b in c if a != b]
    with LogWriter.create(path, config_digest="0" * 64, seed=seed, commit_every=0,
                          ticks_per_day=0) as w:
        w.append(0, first)
        picks = rng.integers(0, 2**31, size=(ticks, per_tick, 4)).tolist()
        for t in range(1, ticks + 1):
            frame: list[ev.Event] = []
            for what, circle, a, b in picks[t - 1]:
                c = circles[circle % 4]
                x, y = c[a % 6], c[(a % 6 + 1 + b % 5) % 6]
                n = 1 + b % 50
                kind = what % 4
                if kind == 0:
                    frame.append(ev.Gave(giver=x, receiver=y, parcels=n, milligrams=500 * n))
                elif kind == 1:
                    frame.append(ev.Took(taker=x, owner=y, parcels=n, milligrams=500 * n))
                elif kind == 2:
                    frame.append(ev.Begged(villager=x, x=1, y=2))
                else:
                    frame.append(ev.Gathered(villager=x, x=1, y=2, parcels=n, milligrams=500 * n))
            w.append(t, frame)


def bench_index(rows_target: int = 1_000_000) -> list[str]:
    rules = world.load_rules()
    ticks = rows_target // 48  # about 4.8 rows an event, ten events a tick
    with tempfile.TemporaryDirectory() as d:
        log = Path(d) / "big.log"
        t0 = time.perf_counter()
        synthetic_log(log, ticks)
        wrote = time.perf_counter() - t0
        t0 = time.perf_counter()
        res = store.build(log, Path(d) / "big.duckdb", rules=rules)
        indexed = time.perf_counter() - t0

        t0 = time.perf_counter()
        mem = world.memory_of(log, rules=rules)
        folded = time.perf_counter() - t0
        t0 = time.perf_counter()
        table = store.memory_table(mem.rows)
        arrowed = time.perf_counter() - t0
        con = duckdb.connect(str(Path(d) / "raw.duckdb"))
        t0 = time.perf_counter()
        con.register("incoming", table)
        con.execute("CREATE TABLE memory AS SELECT * FROM incoming")
        con.execute("CHECKPOINT")
        raw = time.perf_counter() - t0
        con.close()
        size = log.stat().st_size
    return [
        f"index          synthetic log: {ticks + 1} ticks, {res.events} events, {size / 1e6:.0f} MB "
        f"(written in {wrote:.1f}s), {res.memory_rows} memory rows",
        f"  village index (whole)  {indexed:7.2f}s  {res.memory_rows / indexed:9.0f} rows/s",
        f"    of which: read + perceive {folded:.2f}s, Arrow columns {arrowed:.2f}s",
        f"  raw Arrow load         {raw:7.2f}s  {res.memory_rows / raw:9.0f} rows/s  "
        f"(memory table only, same columns)",
        f"  index / raw load       x{indexed / raw:.1f}",
    ]


def run() -> list[str]:
    return bench_day() + bench_index()


if __name__ == "__main__":
    for line in run():
        print(line, flush=True)
