"""The log's benchmark: framing and chain against raw pack+write, verify against raw sha256.

Targets (issue: the foundation): framing + chain overhead at most 2x raw
`msgpack.packb` + `write` over the same events; verify at least 50% of raw
`hashlib.sha256` speed over the same bytes; peak memory of verifying a log
of at least 200 MB under 100 MB. Everything is measured in this process
(the memory figure in a child, so that its peak is its own), best of a few
repeats, and printed as ratios.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import msgpack

from bench import best, verdict
from kernel import config as configs
from kernel import events as ev
from kernel import log as vlog


def _ticks(n: int, villagers: int = 24):
    """A busy village: every villager does something every tick."""
    out = []
    for t in range(n):
        evs = []
        for v in range(1, villagers + 1):
            r = (t * 31 + v * 17) % 5
            if r == 0:
                evs.append(ev.Walked(villager=v, from_x=t % 20, from_y=v % 20, to_x=(t + 1) % 20, to_y=v % 20))
            elif r == 1:
                evs.append(ev.Gave(giver=v, receiver=1 + v % villagers, parcels=t % 50, milligrams=500 * (t % 50)))
            else:
                evs.append(ev.Ate(villager=v, x=t % 20, y=v % 20, mouthfuls=1 + t % 50, milligrams=500 * (1 + t % 50)))
        out.append((t, evs))
    return out


def _append(ticks, d: Path):
    p = d / "a.log"
    if p.exists():
        p.unlink()
    with vlog.LogWriter.create(p, config_digest="00" * 32, seed=1, ticks_per_day=2000) as w:
        for t, evs in ticks:
            w.append(t, evs)
    return p


def _raw_append(ticks, d: Path):
    # The floor: the same maps packed by msgpack and written, one write a tick,
    # with the same fsync at each day boundary and no framing or chain.
    p = d / "raw.bin"
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
    try:
        for t, evs in ticks:
            os.write(fd, msgpack.packb([t, [ev.to_map(e) for e in evs]]))
            if (t + 1) % 2000 == 0:
                os.fsync(fd)
        os.fsync(fd)
    finally:
        os.close(fd)


def _raw_sha(p: Path):
    h = hashlib.sha256()
    with open(p, "rb") as f:
        while b := f.read(1 << 20):
            h.update(b)
    return h.digest()


def _peak_verify_mb(p: Path) -> float:
    code = ("import sys; from bench import resident_kib; from kernel import log; "
            "log.verify(sys.argv[1]); print(resident_kib()[1])")
    base = "from bench import resident_kib; import kernel.log; print(resident_kib()[1])"
    kb = int(subprocess.run([sys.executable, "-c", code, str(p)], capture_output=True, text=True,
                            check=True, cwd=configs.home()).stdout)
    kb0 = int(subprocess.run([sys.executable, "-c", base], capture_output=True, text=True,
                             check=True, cwd=configs.home()).stdout)
    return kb / 1024, kb0 / 1024


def run(target_mb: int = 200) -> list[str]:
    lines = []
    ticks = _ticks(4000)
    with tempfile.TemporaryDirectory(prefix="bench-log-") as d:
        d = Path(d)
        t_log = best(lambda: _append(ticks, d))
        t_raw = best(lambda: _raw_append(ticks, d))
        p = _append(ticks, d)
        size = p.stat().st_size
        n_events = sum(len(e) for _, e in ticks)
        lines.append(f"append   {len(ticks)} ticks, {n_events:,} events, {size / 1e6:.1f} MB")
        lines.append(f"  log append      {t_log * 1e3:8.1f} ms  {n_events / t_log:12,.0f} events/s")
        lines.append(f"  raw pack+write  {t_raw * 1e3:8.1f} ms  {n_events / t_raw:12,.0f} events/s")
        lines.append(f"  overhead        {t_log / t_raw:8.2f}x   (target at most 2x): " + verdict(
            t_log <= 2 * t_raw, "the log's framing and hashing cost more than twice a raw write"))

        # A big log for verify speed and memory: the same ticks, repeated.
        big = d / "big.log"
        reps = 0
        with vlog.LogWriter.create(big, config_digest="00" * 32, seed=1, ticks_per_day=2000) as w:
            t0 = 0
            while big.stat().st_size < target_mb * 1_000_000:
                for t, evs in ticks:
                    w.append(t0 + t, evs)
                t0 += len(ticks)
                reps += 1
        bsize = big.stat().st_size
        _raw_sha(big)  # warm the page cache for both
        t_ver = best(lambda: vlog.verify(big, deep=False), 2)
        t_sha = best(lambda: _raw_sha(big), 2)
        t_deep = best(lambda: vlog.verify(big, deep=True), 1)
        how = "compiled chain check (kernel/log/_chain.c)" if vlog.native() else "Python chain check"
        lines.append(f"verify   {bsize / 1e6:.0f} MB, {reps * len(ticks):,} ticks, {how}")
        lines.append(f"  log verify      {t_ver * 1e3:8.1f} ms  {bsize / t_ver / 1e6:8.1f} MB/s")
        lines.append(f"  raw sha256      {t_sha * 1e3:8.1f} ms  {bsize / t_sha / 1e6:8.1f} MB/s")
        lines.append(f"  speed           {t_sha / t_ver * 100:8.1f}%   of raw sha256 (target at least 50%): "
                     + verdict(t_sha >= 0.5 * t_ver, "verify reads more than it hashes"))
        lines.append(f"  deep verify     {t_deep * 1e3:8.1f} ms  {bsize / t_deep / 1e6:8.1f} MB/s "
                     f"(also decodes every event: {t_sha / t_deep * 100:.1f}% of raw sha256)")
        peak, floor = _peak_verify_mb(big)
        lines.append(f"  peak memory     {peak:8.1f} MB  verifying {bsize / 1e6:.0f} MB "
                     f"(an interpreter that only imports the log: {floor:.1f} MB; target under 100 MB): "
                     + verdict(peak < 100, "verify holds more of the log than a block at a time"))
    return lines


if __name__ == "__main__":
    for line in run():
        print(line)
