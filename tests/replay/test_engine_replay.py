"""The one replay a view asks for: a scenario run once from its recording, its projections
folded as it runs, its log where it was told to go or nowhere."""

from __future__ import annotations

import tempfile

import pytest

from kernel import engine
from kernel import log as vlog
from kernel.engine.replay import follow, recorded_oracle, replay
from kernel.errors import ReplayMismatch, VillageError


class _Ticks:
    """Counts the frames and events folded into it, and keeps the memory it follows."""

    def __init__(self) -> None:
        self.memory = None
        self.start()

    def follow_engine(self, memory, felt) -> None:
        self.memory = memory

    def start(self) -> None:
        self.ticks = self.events = 0

    def apply(self, tick, events) -> None:
        self.ticks += 1
        self.events += len(events)


def test_a_replay_folds_the_projections_it_is_given_over_every_tick_of_the_run(monkeypatch,
                                                                              tmp_path):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    sc = engine.load_scenario("day-of-three")
    seen = _Ticks()
    rp = replay(sc, projections=[seen])
    assert rp.report.head_hex == sc.head_sha256 and rp.stopped is None
    assert (seen.ticks, seen.events) == (rp.report.ticks, rp.report.events)
    assert seen.memory is rp.memory and rp.felt is not None
    assert rp.report.rounds and rp.oracle.unread == 0
    assert rp.header.config_digest == sc.header_digest
    assert list(tmp_path.iterdir()) == [], "the replay's temporary log is left behind"


def test_a_replay_writes_its_log_to_the_path_given(tmp_path):
    sc = engine.load_scenario("village-day")
    out = tmp_path / "day.log"
    rp = replay(sc, out=out)
    assert rp.oracle is None
    assert vlog.verify(out).head_hex == rp.report.head_hex == sc.head_sha256


def test_a_replay_under_other_settings_runs_under_them():
    from dataclasses import replace
    sc = engine.load_scenario("day-of-three")
    later = replace(sc.settings, every=sc.settings.every + 1)
    rp = replay(sc, settings=later)
    # nobody is due at the recorded round's tick, so the night there is the first call asked,
    # where the recording holds the round's; the replay stops, and keeps what came before
    assert rp.report.rounds == [] and isinstance(rp.stopped, ReplayMismatch)
    assert rp.report.ticks == sc.settings.every - 1


def test_a_logs_followers_take_the_one_memory_its_fold_hands_them(tmp_path):
    sc = engine.load_scenario("day-of-three")
    out = tmp_path / "three.log"
    rp = replay(sc, out=out)
    seen = _Ticks()
    mem, done = follow(out, [seen], rules=sc.rules)
    assert seen.memory is mem and done.head_hex == sc.head_sha256
    assert mem.rows == rp.memory.rows and seen.ticks == rp.report.ticks


def test_a_scenario_that_reflects_with_no_recording_has_no_replay(tmp_path):
    from dataclasses import replace
    sc0 = engine.load_scenario("day-of-three")
    sc = replace(sc0, recording=replace(sc0.recording, exemplars=None))
    with pytest.raises(VillageError, match="has no recording to replay"):
        recorded_oracle(sc)
