"""The log at its edges: bad paths, full disks and forged frames are one LogError, never a traceback.

Every case here is a refusal that names the rule and the value, and leaves
every log that was whole still whole.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import msgpack
import pytest

from kernel import events as ev
from kernel import log as vlog
from kernel.errors import LogCorrupt, LogError
from kernel.log import log as log_module
from kernel.log.frame import frame_bytes


def small_log(path: Path, ticks: int = 4) -> Path:
    with vlog.LogWriter.create(path, config_digest="ab" * 32, seed=7) as w:
        for t in range(ticks):
            w.append(t, [ev.Walked(villager=1, from_x=t, from_y=0, to_x=t + 1, to_y=0)])
    return path


def forge(path: Path, events: list) -> None:
    """Append one tick frame holding `events` (plain maps), chained correctly, as a forger would."""
    with vlog.LogWriter.open(path) as w:
        # msgpack itself, not ev.pack: a forger need not keep the codec's rules.
        payload = msgpack.packb([w.last_tick + 1, events], use_bin_type=True)
        data, chain = frame_bytes(w.head, payload)
        os.write(w._fd, data)
        w.head = chain


# -- creating -------------------------------------------------------------------


def test_a_log_whose_name_ends_in_duckdb_is_refused_at_creation(tmp_path):
    p = tmp_path / "day1.duckdb"
    with pytest.raises(LogError, match=r"day1\.duckdb ends in \.duckdb, the name of a run's index"):
        vlog.LogWriter.create(p, config_digest="00", seed=1)
    assert not p.exists()


def test_a_log_in_a_missing_folder_is_one_line_naming_the_folder(tmp_path):
    p = tmp_path / "no" / "such" / "run.log"
    with pytest.raises(LogError, match=f"^cannot create {p}: the folder {p.parent} does not exist$"):
        vlog.LogWriter.create(p, config_digest="00", seed=1)


def test_a_log_in_an_unwritable_folder_is_one_line_saying_so(tmp_path):
    if os.geteuid() == 0:
        folder = Path("/sys")   # not writable even by root
    else:
        folder = tmp_path / "ro"
        folder.mkdir()
        folder.chmod(0o555)
    p = folder / "village-run.log"
    with pytest.raises(LogError, match=f"^cannot create {p}: the folder {folder} is not writable"):
        vlog.LogWriter.create(p, config_digest="00", seed=1)


def test_a_log_path_that_is_a_folder_is_refused_as_a_folder(tmp_path):
    with pytest.raises(LogError, match="is a folder: a run writes a new log file"):
        vlog.LogWriter.create(tmp_path, config_digest="00", seed=1)


def test_a_disk_full_while_creating_leaves_no_file(tmp_path, monkeypatch):
    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(log_module, "_write_all", full)
    p = tmp_path / "run.log"
    with pytest.raises(LogError, match="^the disk is full: .* no file was left behind"):
        vlog.LogWriter.create(p, config_digest="00", seed=1)
    assert not p.exists()


# -- appending ------------------------------------------------------------------


def test_a_disk_full_during_appends_is_one_line_and_the_log_keeps_every_whole_tick(tmp_path, monkeypatch):
    p = tmp_path / "run.log"
    real = log_module._write_all

    def half_then_full(fd, data):
        # The kernel took half the frame, then the disk filled: a torn write.
        os.write(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    w = vlog.LogWriter.create(p, config_digest="ab" * 32, seed=7)
    for t in range(3):
        w.append(t, [ev.Begged(villager=1, x=0, y=t)])
    monkeypatch.setattr(log_module, "_write_all", half_then_full)
    with pytest.raises(LogError) as e:
        w.append(3, [ev.Begged(villager=1, x=0, y=3)])
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith(f"the disk is full: tick 3 could not be written to {p}")
    assert "its last whole one (tick 2)" in msg
    with pytest.raises(LogError, match="takes no more ticks: the disk is full"):
        w.append(4, [])
    monkeypatch.setattr(log_module, "_write_all", real)
    w.close()
    s = vlog.verify(p)
    assert (s.ticks, s.last_tick, s.tail.torn) == (3, 2, False), "cut back at once, nothing torn"


def test_another_write_failure_during_appends_is_one_line_naming_the_os_error(tmp_path, monkeypatch):
    p = small_log(tmp_path / "run.log", 2)

    def too_large(fd, data):
        raise OSError(errno.EFBIG, "File too large")

    with vlog.LogWriter.open(p) as w:
        monkeypatch.setattr(log_module, "_write_all", too_large)
        with pytest.raises(LogError, match="^tick 2 could not be written to .*: File too large; "
                                           "the log keeps every tick up to its last whole one"):
            w.append(2, [])
    assert vlog.verify(p).ticks == 2


# -- opening and reading ----------------------------------------------------------


def test_repairing_a_read_only_log_is_refused_and_changes_nothing(tmp_path):
    p = small_log(tmp_path / "run.log")
    with open(p, "ab") as f:
        f.write(b"\x07\x00")  # a torn tail a repair would cut
    before = p.read_bytes()
    p.chmod(0o444)
    try:
        with pytest.raises(LogError, match=r"is read-only \(mode 0444\)"):
            vlog.LogWriter.open(p)
    finally:
        p.chmod(0o644)
    assert p.read_bytes() == before


@pytest.mark.parametrize("how", ["verify", "read", "header", "open"])
def test_a_fifo_is_refused_at_once_and_never_waited_on(tmp_path, how):
    fifo = tmp_path / "run.log"
    os.mkfifo(fifo)
    call = {"verify": lambda: vlog.verify(fifo), "read": lambda: list(vlog.read_ticks(fifo)),
            "header": lambda: vlog.read_header(fifo), "open": lambda: vlog.LogWriter.open(fifo)}[how]
    with pytest.raises(LogError, match=r"is a FIFO, not a log: a log is a regular file"):
        call()


def test_a_folder_is_refused_as_a_folder_when_read(tmp_path):
    with pytest.raises(LogError, match="is a folder"):
        vlog.verify(tmp_path)
    with pytest.raises(LogError, match="is a folder"):
        vlog.LogWriter.open(tmp_path)


def test_a_file_that_cannot_be_read_is_one_line_not_an_os_error():
    # /proc/self/mem is a regular file whose first page is unmapped: reading it fails with EIO.
    if not os.path.exists("/proc/self/mem"):
        pytest.skip("no /proc here")
    with pytest.raises(LogError, match="^cannot read /proc/self/mem: "):
        vlog.verify("/proc/self/mem")
    with pytest.raises(LogError, match="/proc/self/mem"):
        list(vlog.read_ticks("/proc/self/mem"))


# -- forged frames ----------------------------------------------------------------


def test_an_event_whose_kind_is_a_list_is_refused_as_damage_not_a_type_error(tmp_path):
    p = small_log(tmp_path / "run.log")
    forge(p, [{"kind": ["ate"], "villager": 1}])
    with pytest.raises(LogCorrupt, match=r"^frame 5 at byte \d+ \(tick 4\): unknown event kind \['ate'\]"):
        vlog.verify(p)
    with pytest.raises(LogCorrupt, match="unknown event kind"):
        list(vlog.read_ticks(p))
    assert vlog.verify(p, deep=False).ticks == 5, "the fast check reads no events"


def test_deep_verify_refuses_every_field_of_the_wrong_type_as_the_reader_does(tmp_path):
    p = small_log(tmp_path / "run.log")
    forge(p, [{"kind": "ate", "villager": "Halla", "x": 1, "y": 1, "mouthfuls": 1, "milligrams": 500}])
    with pytest.raises(LogCorrupt, match="ate.villager must be an integer, not str 'Halla'"):
        vlog.verify(p)
    with pytest.raises(LogCorrupt, match="ate.villager must be an integer, not str 'Halla'"):
        list(vlog.read_ticks(p))


@pytest.mark.parametrize("event", [
    {"kind": "walked", "villager": 1, "from_x": 0, "from_y": 0, "to_x": 1},               # missing
    {"kind": "begged", "villager": 1, "x": 0, "y": 0, "extra": 1},                        # extra
    {"kind": "thought", "id": 1, "villager": 1, "text": "t", "weight": 1, "depth": 0,
     "about": [1, "two"], "drawn_from": []},                                              # list item
    {"kind": "begged", "villager": True, "x": 0, "y": 0},                                  # a bool
    {"kind": {"a": 1}, "villager": 1},                                                    # a map kind
    {b"kind": "begged", "kind": "begged", "villager": 1, "x": 0, "y": 0},                  # bytes key
    ["begged"],                                                                           # not a map
])
def test_deep_verify_and_reading_refuse_the_same_forged_events(tmp_path, event):
    p = small_log(tmp_path / "run.log")
    forge(p, [event])
    with pytest.raises(LogCorrupt) as deep:
        vlog.verify(p)
    with pytest.raises(LogCorrupt) as read:
        list(vlog.read_ticks(p))
    assert str(deep.value) == str(read.value)


def test_a_forged_header_with_a_seed_that_is_text_is_not_a_header(tmp_path):
    p = tmp_path / "run.log"
    from kernel.log.frame import MAGIC, ZERO
    data, _ = frame_bytes(ZERO, ev.pack({"config_digest": "00", "format": 1, "seed": "seven"}))
    p.write_bytes(MAGIC + data)
    with pytest.raises(LogCorrupt, match="not a log header"):
        vlog.verify(p)


def test_the_read_only_mode_is_left_as_it_was(tmp_path):
    p = small_log(tmp_path / "run.log")
    p.chmod(0o444)
    try:
        assert vlog.verify(p).ticks == 4, "a read-only log still verifies and reads"
        assert stat.S_IMODE(p.stat().st_mode) == 0o444
    finally:
        p.chmod(0o644)


def test_a_tick_too_large_for_one_frame_is_one_line_and_nothing_is_written(tmp_path, monkeypatch):
    from kernel.log import frame

    p = small_log(tmp_path / "run.log", 2)
    size = p.stat().st_size
    with vlog.LogWriter.open(p) as w:
        monkeypatch.setattr(frame, "MAX_PAYLOAD", 16)
        with pytest.raises(LogError, match="^a tick's frame holds at most 16 bytes of payload, and "
                                           "this one would hold"):
            w.append(2, [ev.Begged(villager=1, x=0, y=0)] * 4)
        monkeypatch.undo()
        w.append(2, [])
    assert vlog.verify(p).ticks == 3 and p.stat().st_size > size
