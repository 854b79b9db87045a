"""Benchmarks (`make bench`): ratios against a baseline run in the same process."""

from __future__ import annotations

import resource
import time
from collections.abc import Callable
from pathlib import Path


def verdict(met: bool, why: str) -> str:
    """A target's outcome in words: met, or not met and the measured reason why."""
    return "met" if met else f"NOT met: {why}"


def best(fn: Callable[[], object], repeats: int = 3) -> float:
    """The best wall time of `repeats` calls of `fn`, in seconds."""
    out = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - start)
    return out


def interleaved(timed: dict[str, Callable[[], object]], repeats: int, *,
                warm: bool = True) -> dict[str, float]:
    """Best time of each, measured in turn, round by round, so that a busy moment on a
    shared machine falls on every one of them rather than on one; each is run once
    untimed first where `warm`."""
    if warm:
        for fn in timed.values():
            fn()
    out = dict.fromkeys(timed, float("inf"))
    for _ in range(repeats):
        for name, fn in timed.items():
            out[name] = min(out[name], best(fn, 1))
    return out


def resident_kib() -> tuple[int, int]:
    """(resident now, peak resident) of this process in KiB; both the peak where /proc is missing.

    Read from /proc (VmRSS, VmHWM), which a process started by another begins anew; the
    rusage peak a child reports on Linux starts at the size of the process that forked it."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak, peak
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])
