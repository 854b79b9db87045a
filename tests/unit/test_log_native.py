"""The compiled chain check and the Python one give the same verdict on every log."""

from __future__ import annotations

import pytest

from kernel import events as ev
from kernel import log as vlog
from kernel.errors import LogCorrupt, LogError

PATHS = [pytest.param(False, id="python"),
         pytest.param(True, id="native", marks=pytest.mark.skipif(
             not vlog.native(), reason="the compiled chain check is not built on this machine"))]


def verdict(path, use_native):
    try:
        s = vlog.verify(path, deep=False, use_native=use_native)
    except (LogCorrupt, LogError) as e:
        return (type(e).__name__, str(e))
    return (s.frames, s.ticks, s.events, s.bytes, s.head, s.first_tick, s.last_tick,
            s.tail.size, s.header)


def busy_log(path, ticks=40):
    """Ticks past 127 and 65535 and frames of more than 15 events: every prefix form."""
    with vlog.LogWriter.create(path, config_digest="ab" * 32, seed=9) as w:
        for i in range(ticks):
            t = i * 3000 + 70_000 * (i > 20)  # fixint, u16 and u32 ticks
            evs = [ev.Ate(villager=v, x=i, y=v, mouthfuls=i, milligrams=500 * i)
                   for v in range(1 + (i * 7) % 20)]
            w.append(t, evs)


@pytest.mark.parametrize("use_native", PATHS)
def test_the_fast_check_agrees_with_the_deep_one_on_an_intact_log(tmp_path, use_native):
    p = tmp_path / "run.log"
    busy_log(p)
    deep = vlog.verify(p, deep=True)
    fast = vlog.verify(p, deep=False, use_native=use_native)
    assert (fast.frames, fast.ticks, fast.events, fast.head, fast.first_tick, fast.last_tick) == \
        (deep.frames, deep.ticks, deep.events, deep.head, deep.first_tick, deep.last_tick)


@pytest.mark.skipif(not vlog.native(), reason="the compiled chain check is not built on this machine")
def test_every_truncation_and_every_flipped_byte_gets_the_same_verdict_from_both_paths(tmp_path):
    p = tmp_path / "run.log"
    busy_log(p, ticks=6)
    whole = p.read_bytes()
    q = tmp_path / "q.log"
    for cut in range(len(whole) + 1):
        q.write_bytes(whole[:cut])
        assert verdict(q, True) == verdict(q, False), f"cut at {cut}"
    for i in range(len(whole)):
        b = bytearray(whole)
        b[i] ^= 0x5A
        q.write_bytes(bytes(b))
        got = verdict(q, True)
        assert got == verdict(q, False), f"byte {i}"
        assert got[0] in ("LogCorrupt", "LogError") or got[4] != vlog.verify(p).head or got[7], i


@pytest.mark.skipif(not vlog.native(), reason="the compiled chain check is not built on this machine")
def test_a_log_larger_than_one_block_is_checked_across_block_edges(tmp_path):
    p = tmp_path / "big.log"
    with vlog.LogWriter.create(p, config_digest="cd" * 32, seed=1) as w:
        for t in range(9000):
            w.append(t, [ev.Gave(giver=1, receiver=2, parcels=t % 50, milligrams=t)] * (1 + t % 9))
    assert p.stat().st_size > 2 * (1 << 20)
    assert verdict(p, True) == verdict(p, False)
