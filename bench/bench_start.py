"""The command line's start: `village -h` against the bare imports it cannot do without.

Target (issue: tests a developer can wait for): `village -h` at most 3x the time of
`python -c "import click, msgpack"`, medians of runs interleaved round by round, each a
process of its own, so a busy moment on a shared machine falls on both alike. Also shown:
a refused flag of `village run`, which imports that one command's module and no other.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench import verdict

RUNS = 7


def _village() -> list[str]:
    script = Path(sys.executable).with_name("village")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from kernel.cli import main; sys.exit(main())"]


def _timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def run():
    cmds = {"bare imports": [sys.executable, "-c", "import click, msgpack"],
            "village -h": [*_village(), "-h"],
            "village run --nope": [*_village(), "run", "--nope"]}
    got: dict[str, list[float]] = {k: [] for k in cmds}
    for c in cmds.values():     # warm the page cache once
        _timed(c)
    for _ in range(RUNS):
        for k, c in cmds.items():
            got[k].append(_timed(c))
    med = {k: statistics.median(v) for k, v in got.items()}
    base = med["bare imports"]
    for k, v in med.items():
        yield f"{k:<20} median {v * 1000:7.1f} ms of {RUNS}  x{v / base:.2f} the bare imports"
    ratio = med["village -h"] / base
    yield (f"village -h at x{ratio:.2f} the bare imports (target at most x3): "
           f"{verdict(ratio <= 3.0, f'x{ratio:.2f}')}")
