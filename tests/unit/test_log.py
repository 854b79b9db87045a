"""The log: torn tails are cut back, damage is refused, one writer at a time."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kernel import events as ev
from kernel import log as vlog
from kernel.errors import LogCorrupt, LogError, LogLocked
from kernel.log.frame import MAGIC


def small_log(path: Path, ticks: int = 4) -> list[int]:
    """A log of a few ticks; returns the byte offset where each frame starts."""
    offsets = [len(MAGIC)]
    with vlog.LogWriter.create(path, config_digest="ab" * 32, seed=7) as w:
        for t in range(ticks):
            offsets.append(path.stat().st_size)
            w.append(t, [ev.Walked(villager=1, from_x=t, from_y=0, to_x=t + 1, to_y=0),
                         ev.Ate(villager=2, x=1, y=1, mouthfuls=t + 1, milligrams=500 * (t + 1))])
    return offsets


def test_a_log_reads_back_every_event_it_was_given_in_order(tmp_path):
    p = tmp_path / "run.log"
    small_log(p)
    got = list(vlog.read_events(p))
    assert [t for t, _ in got] == [0, 0, 1, 1, 2, 2, 3, 3]
    assert got[3][1] == ev.Ate(villager=2, x=1, y=1, mouthfuls=2, milligrams=1000)
    assert vlog.read_header(p) == vlog.Header(format=1, config_digest="ab" * 32, seed=7)


def test_reading_from_a_tick_starts_at_that_tick(tmp_path):
    p = tmp_path / "run.log"
    small_log(p)
    assert [t.tick for t in vlog.read_ticks(p, from_tick=2)] == [2, 3]


def test_the_head_hash_names_the_run_and_changes_with_any_event(tmp_path):
    a, b, c = tmp_path / "a.log", tmp_path / "b.log", tmp_path / "c.log"
    small_log(a)
    small_log(b)
    with vlog.LogWriter.create(c, config_digest="ab" * 32, seed=7) as w:
        for t in range(4):
            w.append(t, [ev.Walked(villager=1, from_x=t, from_y=0, to_x=t + 1, to_y=0)])
    assert a.read_bytes() == b.read_bytes()
    assert vlog.verify(a).head == vlog.verify(b).head != vlog.verify(c).head


def test_verify_counts_frames_ticks_events_and_bytes(tmp_path):
    p = tmp_path / "run.log"
    small_log(p, ticks=5)
    s = vlog.verify(p)
    assert (s.frames, s.ticks, s.events, s.bytes) == (6, 5, 10, p.stat().st_size)
    assert (s.first_tick, s.last_tick) == (0, 4)
    assert not s.tail.torn


def test_every_truncation_inside_the_last_frame_recovers_to_the_frame_before(tmp_path):
    p = tmp_path / "run.log"
    offsets = small_log(p)
    whole = p.read_bytes()
    last = offsets[-1]
    before = vlog.verify(p)
    for cut in range(last, len(whole)):
        q = tmp_path / f"cut{cut}.log"
        q.write_bytes(whole[:cut])
        s = vlog.verify(q)
        assert s.ticks == before.ticks - 1 and s.tail.size == cut - last, cut
        w = vlog.LogWriter.open(q)
        assert w.recovery.cut_bytes == cut - last and w.last_tick == 2
        w.append(3, [ev.Walked(villager=1, from_x=3, from_y=0, to_x=4, to_y=0)])
        w.close()
        assert q.stat().st_size > last and vlog.verify(q).ticks == before.ticks
        q.unlink()


def test_every_single_flipped_byte_is_detected_and_never_silently_accepted(tmp_path):
    p = tmp_path / "run.log"
    small_log(p)
    whole = p.read_bytes()
    good = vlog.verify(p)
    q = tmp_path / "flip.log"
    for i in range(len(whole)):
        damaged = bytearray(whole)
        damaged[i] ^= 0xFF
        q.write_bytes(bytes(damaged))
        try:
            s = vlog.verify(q)
        except (LogCorrupt, LogError):
            continue
        # A flip may only ever show as a shorter log if it is reported, never as the same run.
        assert s.head != good.head or s.tail.torn, f"byte {i} flipped and the log verified unchanged"
        pytest.fail(f"flipping byte {i} was accepted as a log of {s.ticks} ticks")


def test_damage_is_refused_with_the_frame_index_and_byte_offset(tmp_path):
    p = tmp_path / "run.log"
    offsets = small_log(p)
    whole = bytearray(p.read_bytes())
    whole[offsets[2] + 12] ^= 0x01  # inside frame 2's payload
    p.write_bytes(bytes(whole))
    with pytest.raises(LogCorrupt) as e:
        vlog.verify(p)
    assert (e.value.frame, e.value.offset) == (2, offsets[2])
    assert f"frame 2 at byte {offsets[2]}" in str(e.value)
    with pytest.raises(LogCorrupt):
        vlog.LogWriter.open(p)
    assert p.read_bytes() == bytes(whole), "a corrupt log is refused, not rewritten"


def test_a_zero_filled_tail_is_a_torn_write_and_is_cut(tmp_path):
    p = tmp_path / "run.log"
    small_log(p)
    n = p.stat().st_size
    with open(p, "ab") as f:
        f.write(b"\0" * 100)
    w = vlog.LogWriter.open(p)
    w.close()
    assert w.recovery.cut_bytes == 100 and p.stat().st_size == n


def test_a_second_writer_is_refused_in_one_line(tmp_path):
    p = tmp_path / "run.log"
    small_log(p)
    with vlog.LogWriter.open(p):
        with pytest.raises(LogLocked) as e:
            vlog.LogWriter.open(p)
        assert "one writer at a time" in str(e.value) and "\n" not in str(e.value)
    vlog.LogWriter.open(p).close()


def test_a_run_never_overwrites_an_existing_log(tmp_path):
    p = tmp_path / "run.log"
    small_log(p)
    with pytest.raises(LogError, match="already exists"):
        vlog.LogWriter.create(p, config_digest="00", seed=1)


def test_ticks_only_go_forward(tmp_path):
    p = tmp_path / "run.log"
    small_log(p)
    with vlog.LogWriter.open(p) as w, pytest.raises(LogError, match="does not come after"):
        w.append(3, [])


def test_a_file_that_is_not_a_log_is_refused(tmp_path):
    p = tmp_path / "notes.txt"
    p.write_bytes(b"hello, this is not a log at all\n")
    with pytest.raises(LogCorrupt, match="not a village log"):
        vlog.verify(p)


def test_an_unknown_event_kind_is_refused_when_read(tmp_path):
    p = tmp_path / "run.log"
    with vlog.LogWriter.create(p, config_digest="00", seed=1) as w:
        # Write a frame by hand with a kind the kernel does not know.
        from kernel.log.frame import frame_bytes
        data, chain = frame_bytes(w.head, ev.pack([0, [{"kind": "teleported", "villager": 1}]]))
        os.write(w._fd, data)
        w.head = chain
    with pytest.raises(LogCorrupt, match="unknown event kind 'teleported'"):
        vlog.verify(p)
    with pytest.raises(LogCorrupt, match="unknown event kind 'teleported'"):
        list(vlog.read_events(p))


def test_an_event_holds_no_floats(tmp_path):
    with pytest.raises(Exception, match="integers, text"):
        ev.encode(ev.Ate(villager=1, x=0, y=0, mouthfuls=1, milligrams=0.5))  # type: ignore[arg-type]


def _sample(cls, n: int):
    """An instance of an event kind with every field filled from its annotation."""
    import dataclasses
    import typing

    hints = typing.get_type_hints(cls)
    vals = {}
    for k, f in enumerate(dataclasses.fields(cls)):
        t = hints[f.name]
        if t is int:
            vals[f.name] = n * 100 + k
        elif t is str:
            vals[f.name] = f"{f.name} {n}: é"
        elif t is bool:
            vals[f.name] = bool(k % 2)
        elif typing.get_origin(t) is tuple and typing.get_args(t)[0] is str:
            vals[f.name] = (f"{f.name} {n}", "é")
        elif typing.get_origin(t) is tuple and typing.get_origin(typing.get_args(t)[0]) is tuple:
            vals[f.name] = ((f"{f.name} {n}", "b"), ())
        elif typing.get_origin(t) is tuple:
            vals[f.name] = (k, n, 2 ** 40)
        else:   # an integer or None
            vals[f.name] = n * 100 + k if n % 2 else None
    return cls(**vals)


def test_the_codec_is_canonical_and_round_trips_every_kind():
    for n, cls in enumerate(ev.KINDS.values()):
        s = _sample(cls, n)
        b = ev.encode(s)
        assert ev.decode(b) == s
        assert ev.encode(ev.decode(b)) == b
        m = ev.unpack(b)
        assert list(m) == sorted(m), "map keys are sorted"
