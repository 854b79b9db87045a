"""What `kernel.cli.writes_log` does with the log of a run an interrupt stops, called in process.

The moment these hold for (a log made but holding no tick yet, or not made at
all) is too short to hit with a signal from outside; tests/hostile/test_signals.py
signals the real `village` program at the moments it can wait for.
"""

from __future__ import annotations

import signal

import pytest

NOTHING = "interrupted; nothing written"


def test_a_log_an_interrupt_left_with_no_tick_is_removed_and_nothing_written_is_said(tmp_path):
    from kernel.cli import writes_log
    from kernel.errors import Interrupted
    from kernel.log import LogWriter

    log = tmp_path / "run.log"
    with pytest.raises(Interrupted) as got, writes_log(log):
        LogWriter.create(log, config_digest="00" * 32, seed=1).close()   # cut before its first tick
        raise Interrupted(signal.SIGTERM)
    assert (str(got.value), got.value.code) == (NOTHING, 143)
    assert not log.exists()


def test_an_interrupt_before_a_run_made_its_log_leaves_a_file_that_was_there_untouched(tmp_path):
    from kernel.cli import writes_log
    from kernel.errors import Interrupted

    there = tmp_path / "run.log"
    there.write_bytes(b"someone else's file")
    with pytest.raises(Interrupted) as got, writes_log(there):
        raise KeyboardInterrupt
    assert (str(got.value), got.value.code) == (NOTHING, 130)
    assert there.read_bytes() == b"someone else's file"
