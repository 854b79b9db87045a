"""A run recorded with the real embedded model replays to the same head hash, with no model."""

from __future__ import annotations

import json
import shutil

import pytest

from kernel import config, engine
from kernel.engine import scenario as msc
from kernel.oracle import make

pytestmark = pytest.mark.embedded


def _small_scenario(tmp_path):
    d = tmp_path / "small"
    d.mkdir()
    shutil.copy(config.configs_dir() / "world.json", d / "world.json")
    t = json.loads((config.configs_dir() / "thought.json").read_text())
    t["reflection"]["every"] = 300
    (d / "thought.json").write_text(json.dumps(t))
    (d / "scenario.json").write_text(json.dumps({
        "name": "small", "description": "three villagers reflecting once at tick 299",
        "ticks": 300, "head_sha256": "0" * 64, "thought": "thought.json",
        "exemplars": str(tmp_path / "small.json")}))
    return d


@pytest.mark.slow
def test_a_recorded_run_replays_to_the_same_head_hash(tmp_path):
    sc = msc.load(_small_scenario(tmp_path))
    live = make("llamacpp", record_to=sc.exemplars)
    recorded = engine.run(sc, live, tmp_path / "live.log")
    live.save()
    assert recorded.statements + sum(1 for r in recorded.rounds for x in r.reflections if x.refused) > 0
    replay = make("replay", replay_from=sc.exemplars)
    again = engine.run(sc, replay, tmp_path / "replay.log")
    assert again.head_hex == recorded.head_hex
    assert (tmp_path / "live.log").read_bytes() == (tmp_path / "replay.log").read_bytes()
    assert replay.unread == 0 and replay.matched == live.calls + sum(
        1 for c in live.costs if c.kind == "embed")
