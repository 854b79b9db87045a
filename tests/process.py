"""The installed `village` program run as a user runs it: a process of its own, not CliRunner.

Hostile and CLI tests that must see what a user sees (the exit code, stderr
as printed, what is left on disk) start the `village` script beside this
Python, with this checkout's kernel first on the path, and read its answer
through these helpers, so each test file does not carry its own copy. Every
process started here is counted (`started()`), so the hostile suite's tally
can count only inputs that went through a real `village` process.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VILLAGE = Path(sys.executable).with_name("village")
_started = 0


def started() -> int:
    """How many `village` processes this test process has started through this module."""
    return _started


def env(*, drop: tuple[str, ...] = (), **extra: str) -> dict[str, str]:
    """The environment a `village` process runs in: this checkout's kernel first on the path,
    without the variables named in `drop` (VILLAGE_HOME, say, for a test that picks its home)."""
    got = {k: v for k, v in os.environ.items() if k not in drop} | extra
    got["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    return got


def command() -> list[str]:
    """The `village` program: the installed script, or the same entry through this Python."""
    if VILLAGE.exists():
        return [str(VILLAGE)]
    return [sys.executable, "-c",
            "import sys; from kernel.cli import main; sys.exit(main(prog_name='village'))"]


def village(*args: str, cwd: str | os.PathLike | None = None, timeout: float = 120,
            environ: dict[str, str] | None = None,
            preexec_fn: Callable[[], None] | None = None,
            input: str | None = None) -> subprocess.CompletedProcess:
    """`village ARGS` as a process of its own; its exit code, stdout and stderr as text.

    `preexec_fn` runs in the child before the program starts (a resource limit, say); bytes
    that are not UTF-8 come back backslash-escaped rather than failing the test's decode;
    `input` is its standard input (else it reads nothing)."""
    global _started
    _started += 1
    stdin = {"input": input} if input is not None else {"stdin": subprocess.DEVNULL}
    return subprocess.run(command() + list(args), capture_output=True, text=True, cwd=cwd,
                          env=environ if environ is not None else env(), timeout=timeout,
                          preexec_fn=preexec_fn, errors="backslashreplace", **stdin)


def start(*args: str, cwd: str | os.PathLike | None = None, environ: dict[str, str] | None = None,
          preexec_fn: Callable[[], None] | None = None, stdout=subprocess.DEVNULL,
          stderr=subprocess.PIPE) -> subprocess.Popen:
    """`village ARGS` started and left running, for a test that signals it or waits on it."""
    global _started
    _started += 1
    return subprocess.Popen(command() + list(args), cwd=cwd,
                            env=environ if environ is not None else env(),
                            stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, text=True,
                            preexec_fn=preexec_fn)


def one_error_line(r: subprocess.CompletedProcess, *, printed: str = "") -> str:
    """The one line a refusal prints: exit code 1, no traceback, `printed` on stdout."""
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and r.stdout == printed, (r.stdout, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1, f"one line, not {len(lines)}: {r.stderr!r}"
    return lines[0]


def sha256_of(p: str | os.PathLike) -> str:
    return hashlib.sha256(Path(p).read_bytes()).hexdigest()


def wait_for(proc: subprocess.Popen, ready: Callable[[], bool], *, limit: float,
             every: float = 0.005) -> bool:
    """Poll `ready()` while `proc` runs; False if the program ended first or `limit` s passed."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if proc.poll() is not None:
            return False
        if ready():
            return True
        time.sleep(every)
    return False


def handles_sigterm(proc: subprocess.Popen) -> bool:
    """Whether the process catches SIGTERM yet (Python does not by default: once it does, the
    village handler is in)."""
    try:
        text = Path(f"/proc/{proc.pid}/status").read_text()
    except OSError:
        return False
    caught = next(int(x.split()[1], 16) for x in text.splitlines() if x.startswith("SigCgt:"))
    return bool(caught >> (signal.SIGTERM - 1) & 1)


def signalled(proc: subprocess.Popen, *signals: int, limit: float) -> tuple[int, str]:
    """Send `signals` in turn; the exit code and the standard error once the process ended,
    within `limit` seconds (else it is killed, and the test fails saying so)."""
    for s in signals:
        proc.send_signal(s)
    try:
        _, err = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError(f"the program did not stop within {limit}s of the signal") from None
    return proc.returncode, err
