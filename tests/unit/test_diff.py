"""kernel.compare.diff: where two runs' logs part, and whom it concerns."""

from __future__ import annotations

import dataclasses
import importlib
import json
import os

import pytest

from kernel import config as configs
from kernel import engine
from kernel import events as ev
from kernel import log as vlog
from kernel.compare import diff
from kernel.engine import scenario as msc
from kernel.errors import LogCorrupt, LogError
from kernel.log.frame import FORMAT, MAGIC, frame_bytes
from kernel.oracle import make
from tests.common import scripted_day_of_three

DIGEST = "ab" * 32
# The module, which the package's `diff` (the function) hides as an attribute.
diff_module = importlib.import_module("kernel.compare.diff")


def _write(path, ticks, *, seed=5, digest=DIGEST):
    """A log of `ticks`: (tick, [event, ...]) pairs, under a header of `seed` and `digest`."""
    with vlog.LogWriter.create(path, config_digest=digest, seed=seed) as w:
        for t, events in ticks:
            w.append(t, events)
    return path


def _walks(n, start=0):
    return [(t, [ev.Walked(villager=1 + t % 3, from_x=t, from_y=0, to_x=t + 1, to_y=0)])
            for t in range(start, n)]


def _copy_prefix(src, dst, n):
    """A copy of the first `n` tick frames of `src`, under its header."""
    h = vlog.read_header(src)
    with vlog.LogWriter.create(dst, config_digest=h.config_digest, seed=h.seed) as w:
        for t in vlog.read_ticks(src):
            if t.index > n:
                break
            w.append(t.tick, t.events)
    return dst


def _first_differing_tick(a, b):
    """The reference: the first tick whose events differ, read the slow way."""
    for ta, tb in zip(vlog.read_ticks(a), vlog.read_ticks(b), strict=False):
        if ta.tick != tb.tick or ta.events != tb.events:
            return min(ta.tick, tb.tick)
    return None


def _weights(settings, weights):
    return dataclasses.replace(settings, retrieval=dataclasses.replace(settings.retrieval,
                                                                       weights=weights))


@pytest.fixture(scope="module")
def day_of_three(tmp_path_factory):
    """The day of three, and the same day with relevance out of retrieval (weights 1, 1, 0).

    Both answered by one script, so the two runs differ in the weights alone.
    """
    d = tmp_path_factory.mktemp("day")
    a = scripted_day_of_three(d / "a.log")
    sc = msc.load("day-of-three")
    b = scripted_day_of_three(d / "b.log", _weights(sc.settings, (1.0, 1.0, 0.0)))
    assert a.ticks == b.ticks == 2000 and a.stopped is None and b.stopped is None
    return d / "a.log", d / "b.log"


def test_identical_logs_are_identical_with_every_tick_frame_in_the_common_prefix(world_run):
    d = diff(world_run, world_run)
    assert d.identical and d.first is None and not d.headers
    assert d.same_prefix == d.a.ticks == 600 and d.differing == 0 and d.by_villager == ()
    assert d.a.head == d.b.head and d.shorter is None


def test_villagers_are_named_from_their_founding_events(world_run):
    assert diff(world_run, world_run).names == {1: "Halla", 2: "Ander", 3: "Mose"}


def test_two_world_seeds_name_the_first_tick_at_which_their_events_differ(tmp_path):
    world = json.loads((configs.home() / "configs" / "world.json").read_text(encoding="utf-8"))
    other = tmp_path / "world.json"
    other.write_text(json.dumps({**world, "seed": world["seed"] + 1}), encoding="utf-8")
    a, b = tmp_path / "a.log", tmp_path / "b.log"
    engine.run(engine.of_world("world", ticks=300), None, a)
    engine.run(engine.of_world(str(other), ticks=300), None, b)
    d = diff(a, b)
    assert not d.identical
    assert d.first.tick == _first_differing_tick(a, b)
    assert {c.key for c in d.headers} >= {"seed"}
    seed = next(c for c in d.headers if c.key == "seed")
    assert (seed.a, seed.b) == (world["seed"], world["seed"] + 1)
    assert any(not r.same for r in d.first.rows)


def test_the_day_of_three_and_a_run_under_other_retrieval_weights_part_at_the_reflection_tick(
        day_of_three):
    a, b = day_of_three
    d = diff(a, b)
    assert not d.headers
    assert d.first.tick == 1999 and d.same_prefix == 1999
    assert d.first.in_a and d.first.in_b
    changed = [r for r in d.first.rows if not r.same]
    assert any(r.a is not None and r.b is not None and r.a.kind == r.b.kind == "answered"
               and r.a.purpose == "statement" and r.a.prompt_sha256 != r.b.prompt_sha256
               for r in changed)
    assert d.differing == 1 and set(dict(d.by_villager)) <= {1, 2, 3} and d.by_villager


def test_a_replay_under_other_weights_stops_before_the_reflection_tick_and_is_a_prefix_of_the_day(
        day_of_three, tmp_path):
    a, _ = day_of_three
    sc = msc.load("day-of-three")
    stopped = engine.run(sc, make("replay", replay_from=sc.exemplars), tmp_path / "s.log",
                         settings=_weights(sc.settings, (1.0, 1.0, 0.5)), keep_going=True)
    assert stopped.stopped is not None and stopped.ticks == 1999
    d = diff(a, tmp_path / "s.log")
    assert d.shorter == "b" and d.b.last_tick == 1998 and d.same_prefix == 1999
    assert d.first.tick == 1999 and d.first.in_a and not d.first.in_b
    assert d.differing == d.only_a == 1


def test_a_log_against_its_own_prefix_differs_at_the_tick_after_the_shorter_ends(world_run, tmp_path):
    short = _copy_prefix(world_run, tmp_path / "short.log", 250)
    d = diff(world_run, short)
    assert not d.identical and not d.headers
    assert d.shorter == "b" and d.b.last_tick == 249 and d.a.last_tick == 599
    assert d.same_prefix == 250
    assert d.first.tick == 250 and d.first.in_a and not d.first.in_b
    assert d.differing == d.only_a == 350 and d.only_b == 0
    back = diff(short, world_run)
    assert back.shorter == "a" and back.first.tick == 250 and back.only_b == 350


def test_headers_that_differ_over_equal_ticks_leave_the_logs_identical(tmp_path):
    a = _write(tmp_path / "a.log", _walks(20), seed=5, digest=DIGEST)
    b = _write(tmp_path / "b.log", _walks(20), seed=6, digest="cd" * 32)
    d = diff(a, b)
    assert d.identical and d.same_prefix == 20
    assert [(c.key, c.a, c.b) for c in d.headers] == [("config_digest", DIGEST, "cd" * 32),
                                                      ("seed", 5, 6)]


def test_an_extra_header_key_is_a_header_difference_and_nothing_more(tmp_path):
    a = _write(tmp_path / "a.log", _walks(5))
    b = tmp_path / "b.log"
    header = {"config_digest": DIGEST, "format": FORMAT, "fork_at": 3, "seed": 5}
    data, prev = frame_bytes(b"\0" * 32, ev.pack(header))
    out = [MAGIC, data]
    for t, events in _walks(5):
        data, prev = frame_bytes(prev, ev.pack([t, [ev.to_map(e) for e in events]]))
        out.append(data)
    b.write_bytes(b"".join(out))
    d = diff(a, b)
    assert d.identical
    assert [(c.key, c.a, c.b) for c in d.headers] == [("fork_at", None, 3)]


def test_the_common_prefix_under_one_header_is_found_without_decoding_an_event(
        tmp_path, monkeypatch):
    a = _write(tmp_path / "a.log", _walks(50))
    b = _write(tmp_path / "b.log", _walks(40) + [(40, [])] + _walks(50, 41))
    decoded = []
    real = diff_module._LogReader.events
    monkeypatch.setattr(diff_module._LogReader, "events", lambda self, f: decoded.append(f.tick) or
                        real(self, f))
    d = diff(a, b)
    assert d.first.tick == 40 and d.same_prefix == 40 and d.differing == 1
    assert decoded == [40, 40]


def test_a_tick_differs_for_every_villager_an_event_concerns_the_other_party_included(tmp_path):
    base = [ev.Walked(villager=1, from_x=0, from_y=0, to_x=1, to_y=0)]
    a = _write(tmp_path / "a.log", [(0, base), (1, base)])
    b = _write(tmp_path / "b.log", [(0, base),
                                    (1, base + [ev.Gave(giver=2, receiver=3, parcels=1,
                                                        milligrams=500)])])
    d = diff(a, b)
    assert d.first.tick == 1 and dict(d.by_villager) == {2: 1, 3: 1}
    assert [(r.a, r.b) for r in d.first.rows if not r.same] == [(None, d.first.rows[-1].b)]


def test_events_in_another_order_differ_for_no_villager_in_particular(tmp_path):
    x = ev.Walked(villager=1, from_x=0, from_y=0, to_x=1, to_y=0)
    y = ev.Walked(villager=2, from_x=0, from_y=0, to_x=1, to_y=0)
    d = diff(_write(tmp_path / "a.log", [(0, [x, y])]), _write(tmp_path / "b.log", [(0, [y, x])]))
    assert d.differing == 1 and d.by_villager == () and d.unattributed == 1


def test_a_tick_one_log_skips_is_a_difference_at_that_tick(tmp_path):
    a = _write(tmp_path / "a.log", _walks(10))
    b = _write(tmp_path / "b.log", [t for t in _walks(10) if t[0] != 4])
    d = diff(a, b)
    assert d.first.tick == 4 and not d.first.in_b and d.differing == d.only_a == 1
    assert d.shorter is None


def test_a_torn_tail_is_left_out_and_said(world_run, tmp_path):
    torn = tmp_path / "torn.log"
    torn.write_bytes(world_run.read_bytes() + b"\x05\x00")
    d = diff(world_run, torn)
    assert d.identical and d.b.torn == 2 and d.a.torn == 0


def test_a_missing_file_a_folder_and_a_file_that_is_not_a_log_are_refused_naming_the_path(
        world_run, tmp_path):
    (tmp_path / "text.txt").write_text("hello, this is not a log\n")
    (tmp_path / "empty.log").write_bytes(b"")
    for other, says in ((tmp_path / "nope.log", "no log at"), (tmp_path, "is a folder"),
                        (tmp_path / "text.txt", "not a village log"),
                        (tmp_path / "empty.log", "has no header frame")):
        with pytest.raises(LogError, match=says) as e:
            diff(world_run, other)
        assert str(other) in str(e.value)


def test_a_damaged_log_is_refused_naming_the_file_the_frame_and_its_byte_offset(world_run, tmp_path):
    bad = tmp_path / "bad.log"
    b = bytearray(world_run.read_bytes())
    b[-10] ^= 0x01
    bad.write_bytes(bytes(b))
    for pair in ((bad, world_run), (world_run, bad)):
        with pytest.raises(LogCorrupt) as e:
            diff(*pair)
        assert e.value.frame == 600 and str(bad) in str(e.value)
        assert "frame 600 at byte" in str(e.value)


def test_a_copy_cut_inside_its_last_frame_ends_one_tick_early_with_a_torn_tail(world_run, tmp_path):
    cut = tmp_path / "cut.log"
    cut.write_bytes(world_run.read_bytes()[:-10])     # into the last frame's chain value
    d = diff(world_run, cut)
    assert d.shorter == "b" and d.b.last_tick == 598 and d.b.torn > 0
    assert d.first.tick == 599 and d.same_prefix == 599


def test_ticks_out_of_order_are_refused(tmp_path):
    out = tmp_path / "order.log"
    data, prev = frame_bytes(b"\0" * 32, ev.pack({"config_digest": DIGEST, "format": FORMAT,
                                                    "seed": 5}))
    frames = [MAGIC, data]
    for t in (3, 2):
        data, prev = frame_bytes(prev, ev.pack([t, []]))
        frames.append(data)
    out.write_bytes(b"".join(frames))
    with pytest.raises(LogCorrupt, match="tick 2 does not come after tick 3"):
        diff(out, out)


def test_a_fifo_and_a_path_holding_a_nul_byte_are_refused_without_waiting(world_run, tmp_path):
    fifo = tmp_path / "pipe.log"
    os.mkfifo(fifo)
    with pytest.raises(LogError, match="is not a regular file"):
        diff(world_run, fifo)
    with pytest.raises(LogError, match="holds a NUL byte"):
        diff(world_run, str(tmp_path / "a\0b.log"))
