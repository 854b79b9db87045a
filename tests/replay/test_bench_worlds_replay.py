"""The bench worlds a benchmark or a table of held-out figures reads replay to their heads:
`bench_live` asks opening-of-six's recorded round again, and the minds tables judge the
committed recordings beside day-of-six's, so a recording of either that no longer replays
would measure a day the kernel no longer makes."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel import engine
from kernel import log as vlog
from kernel.engine import scenario as msc
from kernel.oracle import make

WORLDS = Path(__file__).resolve().parents[2] / "bench" / "worlds"
READ = ("opening-of-six", "day-of-six")
"""The bench worlds read by `python -m bench bench_live` and tests/replay's minds tables; the
others are the worlds of past trials (bench/minds-trials.md), recorded under the prompts of
their day."""


@pytest.mark.parametrize("name", READ)
def test_a_bench_world_the_benches_read_replays_to_its_head_with_no_model(name, tmp_path):
    sc = msc.load(str(WORLDS / name))
    oracle = make("replay", replay_from=sc.exemplars)
    report = engine.run(sc, oracle, tmp_path / "run.log")
    assert report.head_hex == sc.head_sha256, report.stopped
    assert oracle.unread == 0 and oracle.matched == oracle.read == oracle.total
    assert vlog.verify(tmp_path / "run.log").head_hex == sc.head_sha256
