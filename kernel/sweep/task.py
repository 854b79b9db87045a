"""One run of a sweep, as a Ray task runs it: its files in, its log, recording and row out.

This module owns what happens on the machine that makes a run: the plan's
files written to a scratch folder of their own (a small project home), the
scenario loaded from it, the run made with a live oracle that records, or
replayed from a recording, and the row of figures the sweep table keeps, with
its villagers' basin nights (entropy and trajectory per villager per night,
kernel.store.basins' rows).
The log and the recording go back to the driver as bytes, so no machine
needs to see the sweep folder; the driver writes them there. A run that
fails for a reason of its own (a config error, a refused digest, a model
that did not answer) is a row with that one line, never an exception: only
a worker that dies is Ray's to retry. A retried run starts from nothing:
its scratch folder is emptied first, so a killed attempt leaves no part of
a log behind. It must not write anywhere but its scratch folder.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from kernel import events as ev
from kernel.report import figures
from kernel.report import minds as rm

SCRATCH = "village-sweep"


def scratch_root(sweep_key: str) -> Path:
    """Where a sweep's runs are made on a machine: one folder a sweep, one folder in it a run."""
    return Path(tempfile.gettempdir()) / SCRATCH / sweep_key


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


def execute(plan: dict[str, Any], *, mode: str, sweep_key: str, recording: bytes | None = None,
            threads: int | None = None, accept_digest: bool = False,
            started: Any = None) -> dict[str, Any]:
    """Make (mode "live:BACKEND") or replay (mode "replay") one planned run; its row, log and recording.

    `plan` is `RunPlan.key` with its `files` and `ticks`; `recording` the
    exemplar bytes a replay reads; `threads` the llama.cpp threads of a live
    run (a run is given one CPU by default); `started` a Ray actor told
    (run, host, pid) when the run starts, for the progress bar and for tests.
    """
    import socket

    from kernel import config
    from kernel.errors import VillageError

    pid, host = os.getpid(), socket.gethostname()
    if started is not None:
        started.started.remote(plan["run"], host, pid)
    here = scratch_root(sweep_key) / plan["run"]
    # A retried attempt starts from nothing: whatever a killed one left goes first.
    shutil.rmtree(here, ignore_errors=True)
    (here / "home").mkdir(parents=True)
    row: dict[str, Any] = {**{k: plan[k] for k in ("run", "scenario", "seed", "override",
                                                     "overrides_digest")},
                           "status": "failed", "reason": "", "host": host, "pid": pid}
    made: dict[str, bytes | None] = {"log": None, "recording": None}
    t0 = time.perf_counter()
    try:
        sc = _home(here, plan["files"])
        oracle = _oracle(sc, plan, mode, here / "recording.json", recording, threads,
                         accept_digest)
        _made(sc, oracle, here, plan["run"], mode, row, made)
    except VillageError as e:
        row["reason"] = _one_line(e)
    except Exception as e:  # a bug is still one run's row: the sweep goes on and says so
        row["reason"] = f"{type(e).__name__}: {_one_line(e)}"
    finally:
        config.set_home(None)
        shutil.rmtree(here, ignore_errors=True)
    row["wall_seconds"] = time.perf_counter() - t0
    return {"row": row, "log": made["log"] if row["status"] == "ok" else None,
            "recording": made["recording"] if row["status"] == "ok" else None}


def _home(here: Path, files: Any) -> Any:
    """The plan's files written as the run's project home (made this process's home), and the
    scenario loaded from it."""
    from kernel import config
    from kernel.engine import scenario as msc

    for rel, data in files:
        p = here / "home" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    config.set_home(here / "home")
    return msc.load(here / "home" / "fixtures" / "run")


def _made(sc: Any, oracle: Any, here: Path, run: str, mode: str, row: dict[str, Any],
          made: dict[str, bytes | None]) -> None:
    """Run `sc` in `here` with `oracle` (asking the home's interviews after it), its figures
    into `row` and its log's and recording's bytes into `made` as each is done, so a run that
    fails part way keeps what it had made."""
    from kernel.engine import run as engine_run
    from kernel.store.basins import MindTables
    from kernel.sweep.spec import INTERVIEW

    rec_path = here / "recording.json"
    minds = rm.MindsGather()
    nights = MindTables(sc.world.ticks_per_day)
    try:
        report = engine_run(sc, oracle, here / "run.log", projections=[minds, nights])
        asked = here / "home" / INTERVIEW
        if asked.is_file() and oracle is not None and report.stopped is None:
            if mode != "replay":
                oracle.save()      # the run's own calls, whose vectors the interview reads
            row["interviews"] = _interviewed(sc, here / "run.log", oracle, asked, rec_path)
    finally:
        if oracle is not None:
            oracle.close()
    row.update(_figures(report, oracle))
    row["basin_nights"] = nights.night_rows({p.id: p.name for p in sc.world.people})
    if mode == "replay" and oracle is not None and oracle.unread:
        row.update(status="failed", reason=f"{oracle.unread} recorded calls were never asked for")
    made["log"] = (here / "run.log").read_bytes()
    if oracle is not None and mode != "replay":
        oracle.save()
        made["recording"] = rec_path.read_bytes()
    inputs = rm.inputs_of(sc, report.rounds, (rec_path,) if rec_path.is_file() else (),
                          talks=report.talks)
    row.update(rm.figures(rm.measure(minds, inputs, run=run)))


def _interviewed(sc: Any, log: Path, oracle: Any, asked: Path,
                 recording: Path) -> list[dict[str, Any]]:
    """The battery of the run's home asked of every villager at the run's last tick, through
    the run's own oracle (so a live run records the calls after its own, and a replay reads
    them back): one row a variant, villager and category, as sweep.duckdb's interviews."""
    import json

    from kernel import config
    from kernel.interview import battery as ib
    from kernel.interview import session as isn

    variants = json.loads(asked.read_text(encoding="utf-8"))["variants"]
    b = ib.load(config.home() / "configs" / "interview.json")
    s = isn.ask(isn.at(log, sc, None, recording=recording), b, oracle, variants=variants)
    out = []
    for (variant, villager, category), x in sorted(isn.table(s, ("variant", "villager",
                                                                   "category")).items()):
        out.append({"variant": variant, "villager": villager, "category": category,
                    "asked": x.asked, "said": x.said, "answered": x.answered, "known": x.known,
                    "correct": x.correct, "cosine": x.cosine, "chance": x.chance,
                    "tick": s.tick})
    return out


def _oracle(sc: Any, plan: dict[str, Any], mode: str, rec_path: Path, recording: bytes | None,
            threads: int | None, accept_digest: bool) -> Any:
    """The run's oracle: none for a world-only run, a replay of `recording`, or a live backend
    (mode "live:BACKEND") that records to `rec_path`, given `threads` where it is llama.cpp."""
    from kernel import config
    from kernel.errors import VillageError
    from kernel.oracle import make

    if sc.world_only:
        return None
    if mode == "replay":
        if recording is None:
            raise VillageError(f"run {plan['run']} has no recording to replay")
        rec_path.write_bytes(recording)
        return make("replay", sc.models, replay_from=rec_path)
    backend = mode.split(":", 1)[1]
    models = config.thaw(sc.models.value)
    if threads is not None and isinstance(models.get("llamacpp"), dict):
        models["llamacpp"]["threads"] = threads
    return make(backend, models, record_to=rec_path, accept_digest=accept_digest)


def _figures(report: Any, oracle: Any) -> dict[str, Any]:
    """The row's figures of a run that finished: its head, counts, refusals by check and costs."""
    refusals = Counter(e.check for r in report.rounds for e in r.events
                       if isinstance(e, ev.Refusal))
    costs = oracle.costs if oracle is not None else []
    return dict(status="ok", head=report.head_hex, ticks=report.ticks, events=report.events,
                thoughts=report.thoughts, refusals=dict(sorted(refusals.items())),
                calls=oracle.calls if oracle else 0,
                embeddings=oracle.embeddings if oracle else 0,
                model_seconds=sum(c.took_ns for c in costs) / 1e9,
                rows=sum(report.rows.values()), log_bytes=report.bytes,
                **figures.of_report(report))
