"""`village init`: a new project whose first replay, report and table show minds, not only a world."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from kernel import config
from kernel.cli import main

CHECKOUT = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.delenv("VILLAGE_HOME", raising=False)
    config.set_home(None)
    res = CliRunner().invoke(main, ["init", str(tmp_path / "p")])
    assert res.exit_code == 0, res.output
    monkeypatch.chdir(tmp_path / "p")
    yield tmp_path / "p"
    config.set_home(None)


def test_init_writes_day_of_three_with_its_recording_beside_the_world_only_day(project):
    for rel in ("fixtures/village-day/scenario.json", "fixtures/day-of-three/scenario.json",
                "fixtures/day-of-three/world.json", "exemplars/day-of-three.json"):
        assert (project / rel).is_file(), rel
    assert (project / "exemplars/day-of-three.json").read_bytes() == \
        (CHECKOUT / "exemplars/day-of-three.json").read_bytes()


def test_a_new_projects_replay_reaches_day_of_threes_committed_head_with_its_thought(project):
    head = json.loads((CHECKOUT / "fixtures/day-of-three/scenario.json").read_text())["head_sha256"]
    res = CliRunner().invoke(main, ["replay"])
    assert res.exit_code == 0, res.output
    assert f"head {head}: the committed digest, byte for byte" in res.output
    assert "2 scenarios replayed, every one to its committed head hash" in res.output
    assert "5 thoughts written" in res.output and "night at tick   1999" in res.output


def test_a_new_projects_report_of_day_of_three_has_thoughts(project):
    res = CliRunner().invoke(main, ["report", "day-of-three", "--out", "day.html"])
    assert res.exit_code == 0, res.output
    thoughts = int(re.search(r"(\d+) thoughts", res.output).group(1))
    assert thoughts >= 1 and (project / "day.html").is_file()
