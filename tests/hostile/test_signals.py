"""SIGINT and SIGTERM stop a command with one line, through the real `village` process.

Each test starts the installed `village` program (the script beside this
Python) as a user would, sends it a signal at a point it waits for (the
program's own handler in place, or the log holding ticks), and checks the
exit code (130 for SIGINT, 143 for SIGTERM), that stderr is one line naming
what is on disk, and that the disk says the same: a log whole to its last
tick (`village log verify`), or no file and no temporary file. Nothing here
asserts how long anything takes; every wait polls, under one generous limit.
"""

from __future__ import annotations

import hashlib
import re
import signal
import subprocess
import time
from functools import partial
from pathlib import Path

import pytest

from tests import process

from .conftest import record

ROOT = process.ROOT
VILLAGE = process.VILLAGE
LIMIT = 60.0          # seconds: the most any wait below polls for
AT_TICK = re.compile(r"interrupted at tick (\d+); the log holds ticks 0 to (\d+)")
NOTHING = "interrupted; nothing written"
CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}
SIGNALS = pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])

pytestmark = [pytest.mark.skipif(not VILLAGE.exists(), reason="no installed village program"), pytest.mark.slow]


def _as_a_terminal_starts_it() -> None:
    # A program started from a terminal has SIGINT and SIGTERM at their defaults. This test's own
    # process may not (a background job of a shell without job control ignores SIGINT, and a
    # child inherits that across exec), and the program rightly keeps a SIGINT it was started
    # ignoring (the nohup test below), so each child is started the way a user's shell starts it.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _start(*args: str, cwd: Path, preexec_fn=_as_a_terminal_starts_it) -> subprocess.Popen:
    return process.start("--home", str(ROOT), *args, cwd=cwd, preexec_fn=preexec_fn)




def _grown(path: Path, size: int = 16_384):
    return lambda: path.exists() and path.stat().st_size >= size


def _stop(proc: subprocess.Popen, sig: int, *more: int) -> tuple[int, str]:
    return process.signalled(proc, sig, *more, limit=LIMIT)


def _one_line(code: int, err: str, sig: int) -> str:
    if "Traceback" in err:
        record("traceback")
    assert "Traceback" not in err, err
    assert code == CODES[sig], (code, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("interrupted"), err
    return lines[0]


def _verified_ticks(log: Path) -> int:
    got = subprocess.run([str(VILLAGE), "log", "verify", str(log)], env=process.env(), capture_output=True,
                         text=True, timeout=LIMIT)
    assert got.returncode == 0 and "intact" in got.stdout, got.stdout + got.stderr
    return int(re.search(r"\((?:1 header \+ )?([\d,]+) ticks\)", got.stdout)[1].replace(",", ""))


def _interrupted_mid_run(args: tuple[str, ...], sig: int, tmp_path: Path, *more: int) -> None:
    """Run `village ARGS --out LOG` until the log holds ticks, send `sig` (and `more` at once
    after it), check the line and the log."""
    for attempt in range(3):     # a run that ended before the signal is tried again
        log = tmp_path / f"run-{attempt}.log"
        proc = _start(*args, "--out", str(log), cwd=tmp_path)
        if not process.wait_for(proc, limit=LIMIT, ready=_grown(log)):
            proc.kill()
            proc.communicate()
            continue
        code, err = _stop(proc, sig, *more)
        if code == 0:
            continue
        line = _one_line(code, err, sig)
        m = AT_TICK.fullmatch(line)
        assert m, line
        ticks = int(m[1])
        assert int(m[2]) == ticks - 1
        assert _verified_ticks(log) == ticks, line
        assert [p.name for p in tmp_path.iterdir() if p.suffix != ".log"] == []   # no temporary file
        record("clean")
        return
    pytest.fail("the run ended each time before it could be interrupted")


@SIGNALS
def test_a_signal_during_a_world_run_stops_it_in_one_line_with_the_log_whole_to_its_last_tick(
        sig, tmp_path):
    _interrupted_mid_run(("world", "run", "--ticks", "200000"), sig, tmp_path)


def test_more_signals_while_a_run_stops_change_nothing_and_the_first_names_the_exit_code(tmp_path):
    _interrupted_mid_run(("world", "run", "--ticks", "200000"), signal.SIGINT, tmp_path,
                         signal.SIGTERM, signal.SIGINT, signal.SIGTERM)


@SIGNALS
def test_a_signal_during_a_scenario_run_stops_it_in_one_line_with_the_log_whole_to_its_last_tick(
        sig, tmp_path):
    _interrupted_mid_run(("run", "week-of-three", "--oracle", "replay"), sig, tmp_path)


def test_a_program_started_ignoring_sigint_goes_on_ignoring_it_and_sigterm_still_stops_it(tmp_path):
    log = tmp_path / "run.log"
    proc = _start("world", "run", "--ticks", "200000", "--out", str(log), cwd=tmp_path,
                  preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))   # as `nohup` does
    assert process.wait_for(proc, limit=LIMIT, ready=_grown(log)), proc.communicate()
    proc.send_signal(signal.SIGINT)
    time.sleep(0.5)
    assert proc.poll() is None, proc.communicate()
    code, err = _stop(proc, signal.SIGTERM)
    line = _one_line(code, err, signal.SIGTERM)
    assert _verified_ticks(log) == int(AT_TICK.fullmatch(line)[1])
    record("clean")


STARTS = {
    "world run": ("world", "run", "--ticks", "200000", "--out", "run.log"),
    "run": ("run", "week-of-three", "--oracle", "replay", "--out", "run.log"),
    "report": ("report", "week-of-three", "--out", "run.html"),
}


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc to see the handler")
@pytest.mark.parametrize("command", sorted(STARTS))
@SIGNALS
def test_a_signal_as_a_command_starts_says_nothing_was_written_and_leaves_no_file(
        command, sig, tmp_path):
    proc = _start(*STARTS[command], cwd=tmp_path)
    assert process.wait_for(proc, limit=LIMIT, ready=lambda: process.handles_sigterm(proc)), proc.communicate()
    code, err = _stop(proc, sig)
    assert _one_line(code, err, sig) == NOTHING
    assert list(tmp_path.iterdir()) == []
    record("clean")


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def long_log(tmp_path_factory) -> Path:
    """A world log long enough that its report takes a while to write."""
    p = tmp_path_factory.mktemp("signals") / "long.log"
    got = subprocess.run([str(VILLAGE), "--home", str(ROOT), "world", "run", "--ticks", "20000",
                          "--out", str(p)], env=process.env(), capture_output=True, text=True, timeout=LIMIT)
    assert got.returncode == 0, got.stderr
    return p


@SIGNALS
def test_an_interrupted_report_leaves_the_page_that_was_there_and_no_temporary_file(
        sig, tmp_path, long_log):
    page = tmp_path / "run.html"
    there = "<!doctype html>\n<p>the page that was there</p>\n"   # a page it may replace
    page.write_text(there)
    before = (_sha(long_log), _sha(page))
    for _ in range(3):      # a report that was written before the signal is tried again
        proc = _start("report", str(long_log), "--out", str(page), cwd=tmp_path)
        assert process.wait_for(proc, limit=LIMIT, ready=partial(process.handles_sigterm, proc)) \
            or proc.poll() is not None
        time.sleep(0.3)     # into the reading of the log, most times; any moment must do
        code, err = _stop(proc, sig)
        if code == 0:
            page.write_text(there)
            continue
        assert _one_line(code, err, sig) == NOTHING
        assert (_sha(long_log), _sha(page)) == before
        assert [p.name for p in tmp_path.iterdir()] == ["run.html"]
        record("clean")
        return
    pytest.fail("the report was written each time before it could be interrupted")


TRIALS = 200
"""Signals sent at points drawn across a command's whole life, from its own first line to its
exit (the interpreter's start before that, site and the install's path finder, is Python's)."""


PF_EXITING = 0x4
"""The kernel's flag on a task inside exit(): a signal sent to it then is never acted on."""


def _state(pid: int) -> str:
    """The process's state letter, "X" once it is inside exit() (where the kernel drops a
    signal, a zombie or gone not yet shown), "gone" once reaped."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()
    except OSError:
        return "gone"
    return "X" if int(fields[6]) & PF_EXITING else fields[0]


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc to see the handler")
def test_a_signal_at_any_point_of_a_commands_start_run_or_end_is_never_lost(tmp_path):
    import random

    rng = random.Random(41)        # the points are drawn, and the same each run of the suite
    too_late = 0
    for i in range(TRIALS):
        folder = tmp_path / str(i)
        folder.mkdir()
        sig = rng.choice([signal.SIGINT, signal.SIGTERM])
        proc = _start("run", "day-of-three", "--oracle", "replay", "--out", "run.log", cwd=folder)
        assert process.wait_for(proc, limit=LIMIT, ready=partial(process.handles_sigterm, proc),
                                every=0.001), proc.communicate()
        time.sleep(rng.uniform(0.0, 0.8))
        was = _state(proc.pid)
        proc.send_signal(sig)
        now = _state(proc.pid)     # read at once: exiting now, it was in exit() as the signal came
        code, err = _stop(proc, sig)
        if code == 0 and {was, now} & {"X", "Z", "gone"}:
            too_late += 1          # it had exited before the signal: there was nothing to stop
            record("clean")
            continue
        if code == -sig:           # its default action, past the program's last step: not lost
            assert not err.strip(), err
            record("clean")
            continue
        line = _one_line(code, err, sig)
        assert line == NOTHING or AT_TICK.fullmatch(line) or line.startswith(
            "interrupted as the command ended"), line     # what is on disk, as it is
        log = folder / "run.log"
        if AT_TICK.fullmatch(line):
            assert _verified_ticks(log) == int(AT_TICK.fullmatch(line)[1]), line
        elif line == NOTHING:
            assert not log.exists(), line
        else:
            assert _verified_ticks(log) == 2000, line     # it had run the whole day
        record("clean")
    assert too_late < TRIALS // 2, f"{too_late} of {TRIALS} signals came after the program exited"
