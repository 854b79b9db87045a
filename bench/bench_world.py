"""Benchmarks of the world: how fast a village lives, at what size, and in how much memory.

1. Villager-ticks a second for 24 villagers over one day (2000 ticks),
   stepping the world and appending every frame to a log in a temporary
   folder, beside the same day stepped without a log (the ratio is what
   logging costs).
2. Villager-ticks a second at 24, 96, 384, 1,536 and 6,144 villagers on a
   grid of about 40 cells a villager (`town`), each tick stepped and
   appended to a log, as absolute rates beside their ratio to the rate at
   96; the target is a flat line (1,536 at least 0.5x 96). Beside them the
   step against the pairwise rule it replaced (every villager checked
   against every other for sight and reach), kept in
   tests/unit/test_world_spatial.py as the tests' reference: the same ticks
   of the same 384-villager town, target at least 10x.
3. Memory of a long world run of 384 villagers, measured in a child
   process (so nothing else this process did counts): its resident size
   before tick 0 and at each day's end, and its peak, for the world alone
   (step and log) and for the engine's world run (`village world run`:
   perception folded, every memory row held), over 30 days (about two
   minutes); BENCH_WORLD_DAYS sets fewer, and then the line says what 30
   days come to if each day adds what the last one did.

Run with `python -m bench bench_world` or `python bench/bench_world.py`.
Figures are measured here and are ratios as much as times: the machines
these run on are shared and noisy.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench import resident_kib, verdict
from kernel import config as configs
from kernel import engine, world
from kernel import events as ev
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
    for _ in engine.world_frames(cfg, ticks):
        pass
    stepped = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        res = engine.run_world(cfg, ticks, Path(d) / "day.log")
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
    """A log of `ticks` frames of social events among four circles of six who see each other.

    The index workload of bench_fold: 24 villagers founded in four circles
    of six, then ticks of seeded gifts, takes, pleas and gathers
    (`per_tick` a tick), each of which perception turns into one to six rows.
    """
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


# -- a town of any size ----------------------------------------------------------------

ONSETS = "b d f g h k l m n r s t v".split()
VOWELS = "a e i o u y".split()
CODAS = ("", "n", "r", "l", "s", "k", "th", "m")
SYLLABLES = tuple(o + v + c for o in ONSETS for v in VOWELS for c in CODAS)  # 624


def town_names(n: int) -> list[str]:
    """`n` names of two syllables, all different, in a fixed order."""
    if n > len(SYLLABLES) ** 2:
        raise ValueError(f"town_names has {len(SYLLABLES) ** 2} names, not n={n}")
    return [(SYLLABLES[i // len(SYLLABLES)] + SYLLABLES[i % len(SYLLABLES)]).capitalize()
            for i in range(n)]


def town_value(n: int, *, seed: int = 20240611, cells_each: int = 40) -> dict:
    """The shipped world with `n` villagers, all founded at tick 0, on a grid of about
    `cells_each` cells a villager (as square as whole cells allow), placed from `seed`."""
    value = configs.thaw(configs.load("world").value)
    width = math.isqrt(n * cells_each)
    height = -(-n * cells_each // width)
    rng = np.random.Generator(np.random.PCG64(seed))
    xs = rng.integers(0, width, n).tolist()
    ys = rng.integers(0, height, n).tolist()
    value["description"] = (f"{n} villagers, all founded at tick 0, on a {width} by {height} grid "
                            f"({cells_each} cells a villager), placed by a seeded draw; a day is "
                            f"{value['ticks_per_day']} ticks.")
    value["grid"] = {"width": width, "height": height}
    value["villagers"] = [{"id": i + 1, "name": name, "founded": 0, "x": x, "y": y}
                          for i, (name, x, y) in enumerate(zip(town_names(n), xs, ys, strict=True))]
    return value


def town(n: int) -> world.WorldConfig:
    value = town_value(n)
    configs.validate("world", value)
    return from_value(value, digest=configs.digest(value))


def pairwise_reference():
    """The pairwise rule, from the tests that keep it as their reference."""
    path = configs.home() / "tests" / "unit" / "test_world_spatial.py"
    spec = importlib.util.spec_from_file_location("_pairwise_reference", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod.PairwiseWorld


def _stepped_and_logged(cfg: world.WorldConfig, ticks: int, path: Path) -> tuple[float, int]:
    """Seconds to step `ticks` ticks and append each to a new log at `path`, and the events."""
    events = 0
    t0 = time.perf_counter()
    with LogWriter.create(path, config_digest=cfg.digest, seed=cfg.seed, commit_every=0,
                          ticks_per_day=cfg.ticks_per_day) as log:
        w = world.initial(cfg)
        for t in range(ticks):
            w, got = world.step(w, t)
            log.append(t, got)
            events += len(got)
    return time.perf_counter() - t0, events


SIZES = (24, 96, 384, 1536, 6144)
WINDOW = 400
"""Ticks each town is timed over: founding, the calm while bellies last (about 200
ticks), and the first wave of hunger, when most of the work is meals."""


def bench_scale(sizes: tuple[int, ...] = SIZES, ticks: int = WINDOW,
                pairwise_at: int = 200, pairwise_ticks: int = 60) -> list[str]:
    lines = [f"world scale    towns of about 40 cells a villager, ticks 0-{ticks - 1} stepped and "
             f"logged (small towns: the best of enough runs to fill about a second)"]
    rates: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as d:
        for n in sizes:
            cfg = town(n)
            runs = max(1, 400_000 // (n * ticks))
            best = math.inf
            for k in range(runs):
                took, events = _stepped_and_logged(cfg, ticks, Path(d) / f"town-{n}-{k}.log")
                (Path(d) / f"town-{n}-{k}.log").unlink()
                best = min(best, took)
            rates[n] = n * ticks / best
            lines.append(f"  {n:5d} villagers x {ticks} ticks  {best:6.2f}s  "
                         f"{rates[n]:9.0f} villager-ticks/s  {events / ticks:6.1f} events/tick"
                         + (f"  (best of {runs})" if runs > 1 else ""))
    base = rates.get(96)
    if base:
        lines.append("  rate / rate at 96:  " + "  ".join(f"{n} x{r / base:.2f}" for n, r in rates.items()))
        if 1536 in rates:
            flat = rates[1536] / base
            lines.append(f"  1536 / 96 = x{flat:.2f} (target at least x0.50): " + verdict(
                flat >= 0.5, "a villager-tick at 1,536 costs more than twice one at 96"))
    # The pairwise rule is timed on the same ticks of the same town, from the
    # same state: both step on from where the new step stands at `pairwise_at`.
    pairwise = pairwise_reference()
    n = 384
    w = world.initial(town(n))
    for t in range(pairwise_at):
        w, _ = world.step(w, t)
    ref = pairwise.at(w)
    # The step is a pure function of its world, so its window can be run
    # again from the same one: the best of five, as a short run on a shared
    # machine is mostly what the scheduler did to it.
    new = math.inf
    for _ in range(5):
        v, got = w, []
        t0 = time.perf_counter()
        for t in range(pairwise_at, pairwise_at + pairwise_ticks):
            v, events = world.step(v, t)
            got.append(events)
        new = min(new, time.perf_counter() - t0)
    t0 = time.perf_counter()
    want = [ref.step() for _ in range(pairwise_ticks)]
    old = time.perf_counter() - t0
    vt = n * pairwise_ticks
    lines += [
        f"world step vs the pairwise rule, {n} villagers, ticks {pairwise_at}-"
        f"{pairwise_at + pairwise_ticks - 1} (stepped only, hunger begun)",
        f"  spatial index          {new:7.2f}s  {vt / new:9.0f} villager-ticks/s  (best of 5)",
        f"  pairwise reference     {old:7.2f}s  {vt / old:9.0f} villager-ticks/s  (one run)",
        f"  step / pairwise        x{old / new:.1f} (target at least x10): "
        + verdict(old / new >= 10, "the step is less than ten times the pairwise rule here")
        + f"; the same events: {'yes' if got == want else 'NO'}",
    ]
    return lines


# -- peak memory, in a child process ------------------------------------------------------

def _memory_child(n: int, days: int, how: str, out: str) -> None:
    """Run `days` days of a town of `n`; print the resident size before tick 0 and at each day's end."""
    cfg = town(n)
    per_day = cfg.ticks_per_day
    sizes = [resident_kib()]
    t0 = time.perf_counter()
    if how == "engine":
        from kernel import engine

        done = [0]

        def tick_done(k: int) -> None:
            done[0] += k
            if done[0] % per_day == 0:
                sizes.append(resident_kib())

        engine.run_world(cfg, days * per_day, out, progress=tick_done)
    else:
        with LogWriter.create(out, config_digest=cfg.digest, seed=cfg.seed, commit_every=0,
                              ticks_per_day=per_day) as log:
            w = world.initial(cfg)
            for t in range(days * per_day):
                w, got = world.step(w, t)
                log.append(t, got)
                if (t + 1) % per_day == 0:
                    sizes.append(resident_kib())
    print(json.dumps({"kib": sizes, "seconds": time.perf_counter() - t0,
                      "bytes": Path(out).stat().st_size}))


def bench_memory(n: int = 384, days: int | None = None) -> list[str]:
    days = days or int(os.environ.get("BENCH_WORLD_DAYS", "30"))
    lines = [f"world memory   resident size of {n} villagers before tick 0 and at each day's end, "
             f"{days} days, a child process each"
             + (" (30 days extrapolated from the last day's growth)" if days < 30 else "")]
    for how, what in (("world", "world alone (step and log)"),
                      ("engine", "village world run (perception folded, rows held)")):
        with tempfile.TemporaryDirectory() as d:
            code = ("import sys; from bench.bench_world import _memory_child; "
                    "_memory_child(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4])")
            proc = subprocess.run([sys.executable, "-c", code, str(n), str(days), how,
                                   str(Path(d) / "run.log")],
                                  capture_output=True, text=True, cwd=configs.home())
        if proc.returncode != 0:
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            lines.append(f"  {what}: did not run: {tail}")
            continue
        got = json.loads(proc.stdout.strip().splitlines()[-1])
        now = [k / 1024 for k, _ in got["kib"]]
        peak = got["kib"][-1][1] / 1024
        step = now[-1] - now[-2] if len(now) > 2 else 0.0
        shown = [i for i in range(1, len(now)) if len(now) <= 7 or i in (1, 2) or i % 5 == 0
                 or i == len(now) - 1]
        lines.append(f"  {what}: before tick 0 {now[0]:.0f} MiB, "
                     + ", ".join(f"day {i} {now[i]:.0f}" for i in shown)
                     + f" MiB, peak {peak:.0f} MiB; {got['seconds']:.0f}s, "
                     f"log {got['bytes'] / 1e6:.0f} MB")
        if days < 30:
            lines.append(f"    30 days at {step:+.1f} MiB a day: about "
                         f"{max(peak, now[-1] + step * (30 - days)):.0f} MiB at the peak")
    return lines


def run() -> list[str]:
    return bench_day() + bench_scale() + bench_memory()


if __name__ == "__main__":
    for line in run():
        print(line, flush=True)
