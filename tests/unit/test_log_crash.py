"""A writer killed with SIGKILL at any moment loses nothing it had fsynced."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from kernel import log as vlog

WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from kernel import events as ev, log as vlog
    path = Path(sys.argv[1])
    if path.exists():
        w = vlog.LogWriter.open(path, commit_every=int(sys.argv[2]), ticks_per_day=50)
        t = w.last_tick + 1
    else:
        w = vlog.LogWriter.create(path, config_digest="ee" * 32, seed=3,
                                  commit_every=int(sys.argv[2]), ticks_per_day=50)
        t = 0
    print("ready", flush=True)
    durable = None
    while True:
        w.append(t, [ev.Ate(villager=1 + t % 3, x=t % 7, y=t % 5, mouthfuls=t % 50, milligrams=500 * (t % 50))] * (1 + t % 4))
        if w.durable_tick != durable:
            durable = w.durable_tick
            print(f"durable {durable}", flush=True)
        t += 1
""")


@pytest.mark.slow
def test_every_fsynced_frame_survives_a_sigkill_and_the_log_verifies(tmp_path):
    rng = random.Random(20261129)
    path = tmp_path / "crash.log"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.getcwd(), env.get("PYTHONPATH", "")])
    kills = 0
    for round_ in range(20):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(rng.choice([1, 2, 7]))],
                                stdout=subprocess.PIPE, text=True, env=env)
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.0, 0.15))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        kills += 1
        acked = [int(line.split()[1]) for line in out.splitlines() if line.startswith("durable")]
        w = vlog.LogWriter.open(path)  # cuts a torn tail if the kill left one
        w.close()
        s = vlog.verify(path)
        if acked:
            assert s.last_tick is not None and s.last_tick >= acked[-1], (round_, acked[-1], s.last_tick)
        ticks = [t.tick for t in vlog.read_ticks(path)]
        assert ticks == list(range(len(ticks))), "no tick is lost or duplicated across crashes"
    assert kills == 20
