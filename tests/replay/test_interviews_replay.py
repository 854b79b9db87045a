"""`village replay` replays a scenario's committed interviews after the scenario itself, and
fails, naming them, where they do not replay byte for byte."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kernel import config
from kernel.cli import main

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _home_as_it_was():
    yield
    config.set_home(None)


def test_the_replay_command_replays_the_committed_interviews_byte_for_byte():
    res = CliRunner().invoke(main, ["replay", "week-of-three"])
    assert res.exit_code == 0, res.output
    assert "interviews: 36 questions put to 3 villagers at tick 13999 under 1 variant(s)" in res.output
    assert "the recorded one, byte for byte" in res.output


def test_the_replay_command_fails_where_the_interviews_do_not_replay(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(REPO / "configs", home / "configs")
    shutil.copytree(REPO / "fixtures" / "week-of-three", home / "fixtures" / "week-of-three")
    (home / "exemplars" / "interviews").mkdir(parents=True)
    shutil.copyfile(REPO / "exemplars" / "week-of-three.json", home / "exemplars" / "week-of-three.json")
    shutil.copyfile(REPO / "exemplars" / "interviews" / "week-of-three.json",
                    home / "exemplars" / "interviews" / "week-of-three.json")
    t = home / "configs" / "interview.tmpl"   # the template week-of-three's interviews render
    t.write_bytes(t.read_bytes().replace(b"one short sentence", b"one short  sentence"))
    res = CliRunner().invoke(main, ["--home", str(home), "replay", "week-of-three"])
    assert res.exit_code == 1
    assert "head 221566c298c3a9ac" in res.output      # the scenario itself still replays
    assert "DIFFERS: the interviews of exemplars/interviews/week-of-three.json do not replay" in res.output
