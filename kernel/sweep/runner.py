"""The sweep driver: every planned run as a Ray task, each result put in the sweep folder whole.

This module owns submitting a sweep's runs to Ray, gathering them as they
finish, and writing each one under `SWEEP/runs/RUN/` (its log, its
recording, its input files and `row.json`) by writing a hidden temporary
folder and renaming it, so a half-written run never looks like a result;
then rebuilding `sweep.duckdb` from the rows. A replay of a finished sweep
sends every run's recording back out and checks each head. A run that
fails for a reason of its own is a row saying why; a worker that dies is
retried by Ray from the start (`max_retries`), and only a run whose every
attempt died is a row saying so. It must not run a model itself or know
what a run does inside (`kernel.sweep.task` does).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernel import files
from kernel.cluster.session import ClusterError, one_line, ray
from kernel.sweep import spec as sspec
from kernel.sweep import table
from kernel.sweep.task import execute, scratch_root

MAX_RETRIES = 3
"""How many times Ray runs a run again whose worker died (a kill, a lost machine)."""


class SweepTally:
    """A Ray actor the runs tell when they start: who is running where, for the bar and for tests."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, int]] = []

    def started(self, run: str, host: str, pid: int) -> None:
        self.seen.append((run, host, pid))

    def since(self, n: int) -> list[tuple[str, str, int]]:
        return self.seen[n:]


@dataclass
class SweepOutcome:
    """What a sweep (or its replay) came to: every row, in plan order, and where the table is."""

    folder: Path
    rows: list[dict[str, Any]] = field(default_factory=list)
    kept: int = 0                # runs already in the folder, not run again
    seconds: float = 0.0

    @property
    def failed(self) -> list[dict[str, Any]]:
        return [r for r in self.rows if r["status"] != "ok"]


def _json_bytes(v: Any) -> bytes:
    return (json.dumps(v, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def _write_json(p: Path, v: Any) -> None:
    p.write_bytes(_json_bytes(v))


def place(folder: Path, plan: sspec.RunPlan, got: dict[str, Any]) -> None:
    """Put one run's result in `folder/runs/RUN/`: a hidden folder written whole, then renamed.

    A write that fails (a full disk) removes the hidden folder and stops the sweep with one
    line; the runs already placed stay, and a run that was there before is put back.
    """
    runs = folder / "runs"
    part = runs / f".{plan.id}.part"
    try:
        runs.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(part, ignore_errors=True)
        part.mkdir()
        _fill(part, plan, got)
        _put(runs, part, plan.id)
    except BaseException as e:
        shutil.rmtree(part, ignore_errors=True)
        if isinstance(e, OSError):
            raise ClusterError(f"cannot write the run {plan.id} into {runs}: "
                               f"{e.strerror or e}; the sweep stops here, and no part of "
                               f"that run is left") from None
        raise


def _fill(part: Path, plan: sspec.RunPlan, got: dict[str, Any]) -> None:
    for rel, data in plan.files:
        p = part / "input" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    if got.get("log") is not None:
        (part / "run.log").write_bytes(got["log"])
    if got.get("recording") is not None:
        (part / "recording.json").write_bytes(got["recording"])
    _write_json(part / "row.json", got["row"])
    for f in part.rglob("*"):
        files.fsync(f)


def _put(runs: Path, part: Path, run: str) -> None:
    final = runs / run
    if not final.exists():
        files.commit(part, final)
        return
    # A folder cannot be renamed over a full one: the old run steps aside first.
    old = runs / f".{run}.old"
    shutil.rmtree(old, ignore_errors=True)
    os.replace(final, old)
    try:
        files.commit(part, final)
    except BaseException:
        files.commit(old, final)      # the old run goes back where it was
        raise
    shutil.rmtree(old, ignore_errors=True)


def _failed_row(plan: sspec.RunPlan, reason: str) -> dict[str, Any]:
    return {**plan.key, "status": "failed", "reason": reason}


def _bar(total: int, desc: str, show: bool | None):
    from tqdm import tqdm

    show = sys.stderr.isatty() if show is None else show
    return tqdm(total=total, desc=desc, unit="run", file=sys.stderr, disable=not show,
                dynamic_ncols=True)


def _own_spec(folder: Path, spec: sspec.Spec) -> None:
    """The sweep folder belongs to one spec: refuse a folder another spec's runs are in."""
    mark = folder / "spec.json"
    if mark.is_file():
        had = json.loads(mark.read_text(encoding="utf-8"))
        if had.get("digest") != spec.digest:
            raise ClusterError(f"{folder} holds the runs of another spec (digest "
                               f"{str(had.get('digest'))[:16]}, this one's is {spec.digest[:16]}): "
                               f"give this sweep another name or out folder")
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        files.write_atomic(mark, _json_bytes({"digest": spec.digest, "spec": spec.value}))
    except OSError as e:
        raise ClusterError(f"cannot write the sweep folder {folder}: {e.strerror or e}") from None


_THIS_SWEEP = secrets.token_hex(4)
"""This process's mark on its sweeps' names: two sweeps of one spec at once, from two projects
or two terminals, each make and take away their own scratch folders, never the other's."""


def key_of(spec: sspec.Spec, *, replaying: bool = False) -> str:
    """The sweep's name for Ray and for its runs' scratch folders (`task.scratch_root`): the
    spec's name and digest, and this process's mark."""
    return f"{spec.name}-{spec.digest[:12]}-{_THIS_SWEEP}" + ("-replay" if replaying else "")


def run(spec: sspec.Spec, *, backend: str = "llamacpp", threads: int | None = 1,
        accept_digest: bool = False, fresh: bool = False, show: bool | None = None,
        on_start: Callable[[str, str, int], None] | None = None) -> SweepOutcome:
    """Make every run of `spec` that the sweep folder does not hold yet (all of them with `fresh`).

    Connect to Ray first. `threads` is each run's llama.cpp thread count (a
    run holds one CPU); `on_start(run, host, pid)` is called as each run
    (each attempt) starts.
    """
    folder = spec.out
    _own_spec(folder, spec)
    plans = sspec.plans(spec)
    out = SweepOutcome(folder)
    todo: list[sspec.RunPlan] = []
    for p in plans:
        row = folder / "runs" / p.id / "row.json"
        if not fresh and row.is_file() and json.loads(row.read_text())["status"] == "ok":
            out.kept += 1
            continue
        todo.append(p)
    key = key_of(spec)
    t0 = time.perf_counter()
    results = _dispatch(todo, lambda p: {"mode": f"live:{backend}", "recording": None,
                                         "threads": threads, "accept_digest": accept_digest},
                        key=key, show=show, desc=f"sweep {spec.name}", on_start=on_start,
                        place=lambda p, got: place(folder, p, got))
    out.seconds = time.perf_counter() - t0
    del results
    out.rows = [json.loads((folder / "runs" / p.id / "row.json").read_text()) for p in plans]
    table.build(folder, out.rows)
    return out


def replay(spec: sspec.Spec, *, show: bool | None = None,
           on_start: Callable[[str, str, int], None] | None = None) -> SweepOutcome:
    """Replay every finished run of the sweep from its recording, in parallel; check each head.

    Each row of the outcome is the replay's: status "ok" only when the replay
    reached the head its run recorded. The replays go to `sweep.duckdb` as
    the `replays` table.
    """
    folder = spec.out
    if not (folder / "spec.json").is_file():
        raise ClusterError(f"no finished sweep in {folder}: run `village sweep {spec.source}` first")
    _own_spec(folder, spec)
    plans, made = [], {}
    for p in sspec.plans(spec):
        d = folder / "runs" / p.id
        row = d / "row.json"
        if not row.is_file():
            raise ClusterError(f"the sweep in {folder} has no run {p.id}: finish it first")
        made[p.id] = json.loads(row.read_text())
        if made[p.id]["status"] == "ok":
            plans.append(_inputs(d, p))
    key = key_of(spec, replaying=True)
    out = SweepOutcome(folder)
    t0 = time.perf_counter()
    rows: dict[str, dict[str, Any]] = {}

    def keep(p: sspec.RunPlan, got: dict[str, Any]) -> None:
        r = got["row"]
        want = made[p.id]["head"]
        if r["status"] == "ok" and r["head"] != want:
            r.update(status="differs", reason=f"head {r['head']}, and the run recorded {want}")
        r["recorded_head"] = want
        rows[p.id] = r

    _dispatch(plans, lambda p: {"mode": "replay",
                                "recording": (folder / "runs" / p.id / "recording.json").read_bytes()
                                if (folder / "runs" / p.id / "recording.json").is_file() else None,
                                "threads": None, "accept_digest": False},
              key=key, show=show, desc=f"replay {spec.name}", on_start=on_start, place=keep)
    out.seconds = time.perf_counter() - t0
    out.rows = [rows[p.id] for p in plans]
    table.build_replays(folder, out.rows)
    return out


def _inputs(d: Path, p: sspec.RunPlan) -> sspec.RunPlan:
    """A finished run's plan as it was run: its input files read back from its folder."""
    base = d / "input"
    files = tuple(sorted((f.relative_to(base).as_posix(), f.read_bytes())
                         for f in base.rglob("*") if f.is_file()))
    return sspec.RunPlan(p.id, p.scenario, p.seed, p.override, p.overrides_digest, p.ticks,
                      files=files)


def _dispatch(plans: list[sspec.RunPlan], how: Callable[[sspec.RunPlan], dict[str, Any]], *,
              key: str, show: bool | None, desc: str,
              on_start: Callable[[str, str, int], None] | None,
              place: Callable[[sspec.RunPlan, dict[str, Any]], None]) -> int:
    """Submit every plan as a Ray task, place each result as it arrives; the count placed.

    `how(plan)` is how the task makes that run: `execute`'s keywords `mode`, `recording`,
    `threads` and `accept_digest`."""
    r = ray()
    if not r.is_initialized():
        raise ClusterError("a sweep needs a connection to Ray first: kernel.cluster.connect()")
    tally = r.remote(SweepTally).options(num_cpus=0).remote()
    task = r.remote(execute).options(num_cpus=1, max_retries=MAX_RETRIES, retry_exceptions=False)
    pending: dict[Any, sspec.RunPlan] = {}
    done = 0
    running: set[str] = set()
    seen = 0
    with _bar(len(plans), desc, show) as bar, _scratch_cleared(key):
        for p in plans:
            if p.error is not None:
                place(p, {"row": _failed_row(p, p.error)})
                done += 1
                bar.update(1)
                continue
            ref = task.remote({**p.key, "files": p.files, "ticks": p.ticks}, sweep_key=key,
                              started=tally, **how(p))
            pending[ref] = p
        while pending:
            ready, _ = r.wait(list(pending), num_returns=1, timeout=0.5)
            for run_id, host, pid in r.get(tally.since.remote(seen)):
                seen += 1
                running.add(run_id)
                if on_start is not None:
                    on_start(run_id, host, pid)
            for ref in ready:
                p = pending.pop(ref)
                running.discard(p.id)
                try:
                    got = r.get(ref)
                except r.exceptions.RayError as e:
                    got = {"row": _failed_row(p, f"every attempt's worker died ({MAX_RETRIES + 1} "
                                                 f"attempts): {one_line(e).splitlines()[0][:200]}")}
                place(p, got)
                done += 1
                bar.update(1)
            bar.set_postfix_str(f"{len(running)} running", refresh=True)
    r.kill(tally)
    return done


@contextmanager
def _scratch_cleared(key: str) -> Iterator[None]:
    """The sweep's scratch folders on this machine go when it ends.

    A sweep that stops (a full disk, an interrupt) leaves its runs still `pending` to Ray's
    shutdown, which ends every worker of the sweep, and `stopped.scratch` clears their
    folders once Ray is gone. It never cancels them: Ray's core, cancelling a task whose
    answer is already on its way (asked or by force), can fail its own check ("Tried to
    complete task that was not pending") and take the program down with it."""
    try:
        yield
    finally:
        shutil.rmtree(scratch_root(key), ignore_errors=True)


def load_rows(folder: Path) -> list[dict[str, Any]]:
    """The rows of every run a sweep folder holds, by run id."""
    return [json.loads(p.read_text()) for p in sorted((folder / "runs").glob("*/row.json"))]


__all__ = ["MAX_RETRIES", "SweepOutcome", "SweepTally", "key_of", "load_rows", "place", "replay", "run"]
