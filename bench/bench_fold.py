"""Benchmarks of the fold: perception against the fold it replaced, the index, replay, memory.

1. The perception fold of a log (read, check and decode every frame,
   perceive, hold every row) against the fold it replaced, kept in
   tests/unit/perception_reference.py as the tests' reference, read the
   way the log was read then (the codec's general reader) and making the
   rows it made then (`RowAsItWas`). Two logs:
   the index workload (bench_world's synthetic social log, every event
   seen by a circle of six) and one day of a 384-villager town. Target: at
   least 5x. Both are timed in turn, best of three, as wall and CPU time.
2. `village index` of a log of about a million memory rows against a raw
   load of the memory table, already in Arrow, into DuckDB; and the part a
   run with `--index` pays at its end (the rows are folded as it runs):
   Arrow columns and the load of every table. Target: index at most 5x.
3. Peak resident memory of a fold that holds its rows, in a child process
   each, at three log sizes: it must grow linearly with the rows.

BENCH_FOLD_ROWS sets the index workload's rows (default 1,000,000);
BENCH_FOLD_PROFILE=1 adds cProfile's top lines for both folds. Run with
`python -m bench bench_fold`. Figures are measured here, on machines
that are shared and noisy: read the ratios as much as the times.
"""

from __future__ import annotations

import cProfile
import importlib.util
import io
import json
import os
import pstats
import subprocess
import sys
import tempfile
import time
from dataclasses import field, make_dataclass
from pathlib import Path

import duckdb

from bench import resident_kib, verdict
from bench.bench_world import synthetic_log, town
from kernel import config as configs
from kernel import engine, store
from kernel import events as ev
from kernel.laws._errors import LawError, integer
from kernel.laws._errors import tick as check_tick
from kernel.laws.memory import KINDS, Memory, _ascending
from kernel.log import read_ticks
from kernel.log.frame import scan
from kernel.log.log import _open_read, _tick_map
from kernel.store.index import RunIndex


def _checked_as_it_was(self) -> None:
    integer("id", self.id, at_least=0)
    integer("villager", self.villager)
    check_tick("tick", self.tick)
    if self.kind not in KINDS:
        raise LawError(f"kind={self.kind!r}")
    if not isinstance(self.event, str) or not self.event:
        raise LawError(f"event={self.event!r}")
    if not isinstance(self.text, str):
        raise LawError(f"text={self.text!r}")
    integer("weight", self.weight)
    if not 1 <= self.weight <= 10:
        raise LawError(f"weight={self.weight!r}")
    object.__setattr__(self, "about", _ascending("about", self.about))
    object.__setattr__(self, "drawn_from", _ascending("drawn_from", self.drawn_from))
    if self.drawn_from and self.kind != "thought":
        raise LawError(f"drawn_from={self.drawn_from!r}")


RowAsItWas = make_dataclass(
    "RowAsItWas",
    [(name, object, field(default=Memory._field_defaults[name]))
     if name in Memory._field_defaults else (name, object) for name in Memory._fields],
    frozen=True, slots=True, namespace={"__post_init__": _checked_as_it_was})
RowAsItWas.__doc__ = """A memory row as the fold it replaced made one: a frozen object of
Memory's columns in slots, checked as it is made, its two id tuples stored again after the check.

The reference perception makes `Memory` rows, and `Memory` is now a typed
tuple, made in one step; the baseline keeps the row it had, so that what
the row type saves is counted as the fold's, not given to the baseline too.
Its checks are the old row's, in its order, with the same helpers."""


def reference():
    """The perception fold as it was, from the tests that keep it as their reference,
    making the rows it made (`RowAsItWas`)."""
    path = configs.home() / "tests" / "unit" / "perception_reference.py"
    spec = importlib.util.spec_from_file_location("_perception_reference", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    mod.Memory = RowAsItWas
    return mod


def fold_before(ref, log: Path, rules) -> int:
    """The fold as it was: frames decoded by the codec's general reader, the reference
    perception, and the memory projection's rows and streams; the rows it made."""
    state, rows, streams = ref.start(rules), [], {}
    with _open_read(log) as fh:
        for fr in scan(fh):
            if fr.index == 0:
                continue
            tick, maps = _tick_map(fr)
            events = tuple(ev.from_map(m) for m in maps)
            state, got = ref.perceive(state, tick, events)
            rows.extend(got)
            for m in got:
                streams.setdefault(m.villager, []).append(m)
    return len(rows)


def fold_after(log: Path, rules) -> int:
    return len(engine.memory_of(log, rules=rules).rows)


def decode_only(log: Path) -> int:
    """What the kernel's fold does before perception: read, check and decode every frame;
    the events it read."""
    n = 0
    for t in read_ticks(log):
        n += len(t.events)
    return n


def _timed(fn) -> tuple[float, float]:
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


def _profile(fn, n: int = 8) -> list[str]:
    pr = cProfile.Profile()
    pr.enable()
    fn()
    pr.disable()
    out = io.StringIO()
    pstats.Stats(pr, stream=out).sort_stats("tottime").print_stats(n)
    lines = [x for x in out.getvalue().splitlines() if x.strip()]
    start = next(i for i, x in enumerate(lines) if x.lstrip().startswith("ncalls"))
    return ["      " + x.replace(str(configs.home()) + "/", "") for x in lines[start:start + n + 1]]


def bench_folds(index_ticks: int = 4000) -> list[str]:
    rules = engine.load_rules()
    ref = reference()
    lines = ["fold           perception of a whole log, rows held: the fold it replaced "
             "(tests/unit/perception_reference.py, the codec's reader) and the kernel's, best of 3"]
    with tempfile.TemporaryDirectory() as d:
        logs = {}
        logs["index workload"] = Path(d) / "social.log"
        synthetic_log(logs["index workload"], index_ticks)
        logs["384-villager day"] = Path(d) / "town.log"
        engine.run_world(town(384), 2000, logs["384-villager day"])
        for what, log in logs.items():
            before = after = (float("inf"), float("inf"))
            decoded = float("inf")
            rows = 0
            for _ in range(3):
                b = _timed(lambda log=log: fold_before(ref, log, rules))
                a = _timed(lambda log=log: fold_after(log, rules))
                before = (min(before[0], b[0]), min(before[1], b[1]))
                after = (min(after[0], a[0]), min(after[1], a[1]))
                decoded = min(decoded, _timed(lambda log=log: decode_only(log))[1])
            budget = before[1] / 5
            rows = fold_after(log, rules)
            events = decode_only(log)
            assert rows == fold_before(ref, log, rules)
            lines += [
                f"  {what}: {log.stat().st_size / 1e6:.1f} MB, {rows} rows",
                f"    before  {before[0]:6.2f}s wall  {before[1]:6.2f}s cpu",
                f"    after   {after[0]:6.2f}s wall  {after[1]:6.2f}s cpu  "
                f"{rows / after[0]:9.0f} rows/s",
                f"    before / after  x{before[0] / after[0]:.1f} wall, x{before[1] / after[1]:.1f} cpu "
                f"(target at least x5)",
                f"    of which reading and decoding the frames {decoded:.2f}s cpu, perceiving and "
                f"holding the rows {max(after[1] - decoded, 0):.2f}s cpu "
                f"({(after[1] - decoded) / events * 1e6:.2f} us an event, "
                f"{(after[1] - decoded) / rows * 1e6:.2f} us a row)",
                "    target: " + verdict(
                    before[1] / after[1] >= 5,
                    f"x5 leaves {budget:.2f}s cpu for the whole fold; reading and decoding alone "
                    f"take {decoded / budget:.0%} of that, and perception, Python code run once "
                    f"an event and once a row, the other {(after[1] - decoded) / budget:.0%}"),
            ]
            if os.environ.get("BENCH_FOLD_PROFILE"):
                lines.append("    profile before (top by own time):")
                lines += _profile(lambda log=log: fold_before(ref, log, rules))
                lines.append("    profile after:")
                lines += _profile(lambda log=log: fold_after(log, rules))
    return lines


def bench_index(rows_target: int | None = None) -> list[str]:
    rows_target = rows_target or int(os.environ.get("BENCH_FOLD_ROWS", "1000000"))
    rules = engine.load_rules()
    ticks = rows_target // 48  # about 4.8 rows an event, ten events a tick
    with tempfile.TemporaryDirectory() as d:
        log = Path(d) / "big.log"
        synthetic_log(log, ticks)
        t0 = time.perf_counter()
        res = store.build(log, Path(d) / "big.duckdb", rules=rules)
        indexed = time.perf_counter() - t0

        run = RunIndex(rules)
        t0 = time.perf_counter()
        done = engine.fold(log, [run])
        folded = time.perf_counter() - t0
        t0 = time.perf_counter()
        table = store.memory_table(run.memory.rows, run.memory.columns())
        arrowed = time.perf_counter() - t0
        t0 = time.perf_counter()
        run.write(log, Path(d) / "run.duckdb", head_hex=done.head_hex, ticks=done.ticks)
        written = time.perf_counter() - t0

        raw = float("inf")
        for k in range(2):
            con = duckdb.connect(str(Path(d) / f"raw{k}.duckdb"))
            t0 = time.perf_counter()
            con.register("incoming", table)
            con.execute("CREATE TABLE memory AS SELECT * FROM incoming")
            con.execute("CHECKPOINT")
            raw = min(raw, time.perf_counter() - t0)
            con.close()
        size = log.stat().st_size
    return [
        f"index          synthetic log: {ticks + 1} ticks, {res.events} events, {size / 1e6:.0f} MB, "
        f"{res.memory_rows} memory rows",
        f"  village index (whole)  {indexed:7.2f}s  {res.memory_rows / indexed:9.0f} rows/s",
        f"    of which: read + fold (memory, events, villagers) {folded:.2f}s, "
        f"memory as Arrow {arrowed:.2f}s",
        f"  run --index, at the end {written:6.2f}s  (Arrow columns and the load of every table; "
        f"the fold ran with the run)",
        f"  raw Arrow load         {raw:7.2f}s  {res.memory_rows / raw:9.0f} rows/s  "
        f"(memory table only, same columns, best of 2)",
        f"  index / raw load       x{indexed / raw:.1f} (target at most x5)",
        f"  run --index end / raw  x{written / raw:.1f}",
        "  target: " + verdict(
            indexed <= 5 * raw,
            f"x5 is {5 * raw:.2f}s; the fold alone (read, decode and perceive in Python, "
            f"{folded / res.memory_rows * 1e6:.2f} us a row) takes {folded / raw:.1f}x the raw "
            f"load, and the rows as Arrow columns and the load of every table another "
            f"{written / raw:.1f}x"),
    ]


def _memory_child(rows_target: int, d: str) -> None:
    """Fold a synthetic log of about `rows_target` rows, holding every row and its columns;
    print the resident size before the fold and the peak, in KiB."""
    rules = engine.load_rules()
    log = Path(d) / f"m{rows_target}.log"
    synthetic_log(log, rows_target // 48)
    base = resident_kib()[0]
    mem = engine.MemoryProjection(rules)
    engine.fold(log, [mem])
    mem.columns()
    now, peak = resident_kib()
    print(json.dumps({"rows": len(mem.rows), "base": base, "now": now, "peak": peak}))


def bench_memory(sizes: tuple[int, ...] = (125_000, 250_000, 500_000)) -> list[str]:
    lines = ["fold memory    resident size of a fold holding every row, a child process each "
             "(above the size after imports and after writing the log)"]
    got = []
    for n in sizes:
        with tempfile.TemporaryDirectory() as d:
            code = ("import sys; from bench.bench_fold import _memory_child; "
                    "_memory_child(int(sys.argv[1]), sys.argv[2])")
            proc = subprocess.run([sys.executable, "-c", code, str(n), d], capture_output=True,
                                  text=True, cwd=configs.home())
        if proc.returncode != 0:
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            lines.append(f"  {n} rows: did not run: {tail}")
            continue
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        grown = (r["peak"] - r["base"]) / 1024
        got.append((r["rows"], grown))
        lines.append(f"  {r['rows']:8d} rows  peak {r['peak'] / 1024:6.0f} MiB, "
                     f"{grown:6.0f} MiB above the start, {grown * 1024 * 1024 / r['rows']:5.0f} bytes a row")
    if len(got) >= 2:
        (r0, m0), (r1, m1) = got[0], got[-1]
        lines.append(f"  {r1 / r0:.0f}x the rows took {m1 / m0:.2f}x the memory (linear: {r1 / r0:.0f}x)")
    return lines


def run() -> list[str]:
    return bench_folds() + bench_index() + bench_memory()


if __name__ == "__main__":
    for line in run():
        print(line, flush=True)
