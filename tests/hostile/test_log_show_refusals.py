"""`village log show`, run as a user runs it, on files that are not a whole log.

A reading command reads: a file with no whole header (empty, only the magic,
cut inside the magic or inside frame 0) is the one line `village log verify`
gives for it, never an empty listing and exit 0; a folder, a FIFO, a file
that is not a log and a damaged log are one line each. No case changes the file.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kernel import events as ev
from kernel import log as vlog
from kernel.log.frame import MAGIC
from tests.process import one_error_line, sha256_of, village

from .conftest import row

pytestmark = pytest.mark.slow   # a real process, server, model or browser each test


def _whole_log(path: Path) -> bytes:
    with vlog.LogWriter.create(path, config_digest="ab" * 32, seed=5) as w:
        for t in range(3):
            w.append(t, [ev.Walked(villager=1, from_x=t, from_y=0, to_x=t + 1, to_y=0)])
    return path.read_bytes()


HEADERLESS = {
    "empty": lambda whole: b"",
    "only-the-magic": lambda whole: MAGIC,
    "cut-inside-the-magic": lambda whole: MAGIC[:3],
    "cut-inside-the-header": lambda whole: whole[:len(MAGIC) + 6],
}


@pytest.mark.parametrize("cut", list(HEADERLESS))
def test_show_of_a_file_with_no_whole_header_is_the_one_line_verify_gives(tmp_path, cut):
    p = tmp_path / "run.log"
    p.write_bytes(HEADERLESS[cut](_whole_log(tmp_path / "whole.log")))
    before = sha256_of(p)
    with row():
        shown = one_error_line(village("log", "show", str(p)))
        verified = one_error_line(village("log", "verify", str(p)))
        assert shown == verified, (shown, verified)
        assert "has no header frame: it is empty or was cut off while being created" in shown
        assert sha256_of(p) == before, "show changes nothing"


def test_show_of_a_folder_is_one_line_naming_it(tmp_path):
    with row():
        line = one_error_line(village("log", "show", str(tmp_path)))
        assert line == f"Error: {tmp_path} is a folder, not a log"


def test_show_of_a_fifo_is_one_line_and_never_blocks(tmp_path):
    p = tmp_path / "f.log"
    os.mkfifo(p)
    with row():
        line = one_error_line(village("log", "show", str(p)))
        assert line == f"Error: {p} is a FIFO, not a log: a log is a regular file"
        assert sorted(x.name for x in tmp_path.iterdir()) == ["f.log"]


def test_show_of_a_file_that_is_not_a_log_is_one_line_naming_the_file(tmp_path):
    p = tmp_path / "notes.txt"
    p.write_text("hello, not a log\n")
    before = sha256_of(p)
    with row():
        line = one_error_line(village("log", "show", str(p)))
        assert line.startswith(f"village: {p}: not a village log"), line
        assert sha256_of(p) == before


def test_show_of_a_damaged_log_is_the_first_line_verify_gives_after_the_whole_ticks_before_it(tmp_path):
    p = tmp_path / "run.log"
    b = bytearray(_whole_log(p))
    b[-5] ^= 0x10
    p.write_bytes(bytes(b))
    before = sha256_of(p)
    with row():
        r = village("log", "show", str(p))
        line = one_error_line(r, printed=r.stdout)
        assert [x.split()[:2] for x in r.stdout.splitlines()] == [["0", "walked"], ["1", "walked"]], \
            "a show streams: the ticks before the damage print, then the one line"
        verified = village("log", "verify", str(p))
        assert verified.returncode == 1 and line == verified.stderr.splitlines()[0], (line, verified.stderr)
        assert line.startswith(f"village: {p}: frame 3 at byte "), line
        assert sha256_of(p) == before


def test_show_of_a_whole_log_still_prints_its_events(tmp_path):
    p = tmp_path / "run.log"
    _whole_log(p)
    with row():
        r = village("log", "show", str(p))
        assert r.returncode == 0 and r.stderr == "", r.stderr
        assert [line.split()[:2] for line in r.stdout.splitlines()] == [["0", "walked"], ["1", "walked"],
                                                                       ["2", "walked"]]
