"""What a sweep stopped by a signal leaves: its finished runs, and nothing half-made.

This module owns the tidying after SIGINT or SIGTERM stopped `village sweep`
(once Ray, and so every worker this machine started, is gone): the hidden
folders of runs being put in place (`.RUN.part`; `.RUN.old`, put back where
its run had stepped aside for a new one), the table's temporary file, the
runs' scratch folders, and what the sweep made of its folder where no run
finished. It says in a few words what is left, for `Interrupted`'s line. It
must not make, replay or remove a finished run. A sweep stopped by an error
of its own leaves only its scratch folders to take away (`scratch`).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from kernel import files
from kernel.sweep import spec as sspec
from kernel.sweep.runner import key_of
from kernel.sweep.table import TABLE
from kernel.sweep.task import scratch_root


@dataclass(frozen=True)
class Before:
    """The sweep folder as it was before the sweep started."""

    made: Path | None          # the outermost of the folder and its parents that did not exist
    marked: bool               # it held the spec's spec.json already
    table: tuple[int, int, int] | None


def before(spec: sspec.Spec) -> Before:
    made = None
    for p in (spec.out, *spec.out.parents):
        if p.exists():
            break
        made = p
    return Before(made, (spec.out / "spec.json").is_file(), _id(spec.out / TABLE))


def left(spec: sspec.Spec, was: Before, *, replaying: bool) -> str | None:
    """Tidy what the stopped sweep left half-made; what is on disk, in a few words (None:
    nothing written)."""
    done, total = _tidy(spec), len(sspec.plans(spec))
    if replaying:
        # a replay writes nothing but its table, whole, at the end
        return None if _id(spec.out / TABLE) == was.table else \
            f"the replays are written, in {spec.out / TABLE}"
    if done == 0:
        if was.made is not None:
            shutil.rmtree(was.made, ignore_errors=True)
        elif not was.marked:
            (spec.out / "spec.json").unlink(missing_ok=True)
            _rmdir(spec.out / "runs")
        return None
    rest = "" if done == total else f"; village sweep {spec.source} makes the other {total - done}"
    return f"{done} of {total} runs done, in {spec.out}{rest}"


def scratch(spec: sspec.Spec) -> None:
    """Take away the runs' scratch folders on this machine (once Ray, and so every worker of
    the sweep, is gone)."""
    for key in (key_of(spec), key_of(spec, replaying=True)):
        shutil.rmtree(scratch_root(key), ignore_errors=True)


def _tidy(spec: sspec.Spec) -> int:
    """Take away every half-made thing of the sweep; how many of its runs are finished."""
    scratch(spec)
    runs = spec.out / "runs"
    for p in sorted(runs.iterdir()) if runs.is_dir() else ():
        name = p.name[1:].rsplit(".", 1)[0]
        if p.name.startswith(".") and p.name.endswith(".old") and not (runs / name).exists():
            files.commit(p, runs / name)     # stopped between stepping aside and the new one
        elif p.name.startswith(".") and p.name.endswith((".part", ".old")):
            shutil.rmtree(p, ignore_errors=True)
    for p in spec.out.glob(f".{TABLE}.tmp*") if spec.out.is_dir() else ():
        p.unlink(missing_ok=True)
    return sum((runs / p.id / "row.json").is_file() for p in sspec.plans(spec))


def _rmdir(p: Path) -> None:
    try:
        p.rmdir()
    except OSError:
        pass        # not there, or not empty: not this sweep's to take away


def _id(p: Path) -> tuple[int, int, int] | None:
    try:
        st = p.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_mtime_ns
