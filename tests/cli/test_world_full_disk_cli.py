"""`village world run` on a disk that fills mid-run, through click's CliRunner.

A full disk (ENOSPC) cannot be made for one process as a file size limit can,
so the log's 21st write is patched to get half its bytes down and then fail;
the hostile suite holds the same rule through the real program with a real
write refused past RLIMIT_FSIZE.
"""

from __future__ import annotations

import errno
import os

from click.testing import CliRunner

from kernel import log as vlog
from kernel.cli import main
from kernel.log import log as log_module


def test_a_disk_that_fills_during_a_run_is_one_line_and_the_log_keeps_every_whole_tick(tmp_path,
                                                                                        monkeypatch):
    real, count = log_module._write_all, {"n": 0}

    def write(fd, data):
        count["n"] += 1
        if count["n"] >= 21:
            os.write(fd, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")
        real(fd, data)

    monkeypatch.setattr(log_module, "_write_all", write)
    out = tmp_path / "r.log"
    r = CliRunner().invoke(main, ["world", "run", "--ticks", "40", "--out", str(out)])
    monkeypatch.undo()
    assert r.exit_code == 1 and "Traceback" not in r.output, r.output
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1, r.stderr
    assert lines[0].endswith(f"the disk is full: tick 19 could not be written to {out}; the log keeps "
                             f"every tick up to its last whole one (tick 18)"), lines[0]
    assert vlog.verify(out).last_tick == 18
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.log"]
