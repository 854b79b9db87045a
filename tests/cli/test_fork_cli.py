"""`village fork` as a user runs it: a `village` process in a new home, on the files it writes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from kernel import config
from kernel.cli import main
from kernel.engine.fork import WORLD_MAY_CHANGE
from kernel.log import read_header
from tests import process


def village(home: Path, *args: str) -> subprocess.CompletedProcess:
    """`village ARGS` run in `home`, as a process of its own, with no home named by the
    environment."""
    return process.village(*args, cwd=home, timeout=600, environ=process.env(drop=("VILLAGE_HOME",)))


def one_line(r: subprocess.CompletedProcess) -> str:
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    return lines[0]


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    """A new home, with a world run of its own configs (a.log) and day-of-three's run (D3.log)."""
    h = tmp_path_factory.mktemp("fork") / "home"
    assert village(h.parent, "init", str(h)).returncode == 0
    for args in (("world", "run", "--out", "a.log"), ("run", "day-of-three", "--out", "D3.log"),
                 ("run", "village-day", "--out", "vd.log")):
        r = village(h, *args)
        assert r.returncode == 0, r.stderr
    return h


def world_with(home: Path, name: str, change) -> Path:
    w = json.loads((home / "configs" / "world.json").read_text())
    change(w)
    (home / name).write_text(json.dumps(w, indent=2))
    return home / name


def test_a_fork_of_the_homes_own_world_run_with_more_food_and_a_new_description_verifies(home):
    def more_food(w):
        w["food"].update(max_grams=200, regrow_milligrams_per_tick=200)
        w["description"] = "the same village, with more food"
    w = world_with(home, "food.json", more_food)
    r = village(home, "fork", "a.log", "--at", "1000", "--world", str(w), "--out", "food.log")
    assert r.returncode == 0, r.stderr
    assert village(home, "log", "verify", "food.log").returncode == 0
    h = read_header(home / "food.log")
    assert h.fork_at == 1000 and [k for k, _ in h.overrides] == ["world"]
    d = village(home, "diff", "a.log", "food.log")
    assert d.returncode == 1 and "first difference at tick" in d.stdout


def _fork_in(home: Path, monkeypatch, world: Path, out: Path):
    """`village fork a.log --at 700 --world WORLD --out OUT` in `home`, through CliRunner."""
    monkeypatch.delenv("VILLAGE_HOME", raising=False)
    monkeypatch.chdir(home)
    config.set_home(None)
    try:
        return CliRunner().invoke(main, ["fork", "a.log", "--at", "700", "--world", str(world),
                                         "--out", str(out)])
    finally:
        config.set_home(None)


def test_a_fork_of_the_homes_own_world_run_may_change_its_policy(home, tmp_path, monkeypatch):
    def policy(w):
        w["policy"]["chances_in_10000"]["give"] = 5000
    w = world_with(home, "policy.json", policy)
    r = _fork_in(home, monkeypatch, w, tmp_path / "p.log")
    assert r.exit_code == 0, r.output
    assert read_header(tmp_path / "p.log").fork_at == 700


KEPT = ("seed", "ticks_per_day", "ticks_per_second", "grid", "sight_cells", "reach_cells",
        "villagers", "places")


def test_every_key_of_a_world_config_is_one_a_fork_may_change_or_one_it_keeps(home):
    keys = set(json.loads((home / "configs" / "world.json").read_text()))
    assert keys == {*WORLD_MAY_CHANGE, "description", *KEPT}


def _changed(w: dict, key: str) -> None:
    v = w[key]
    if key in ("villagers", "places"):
        w[key] = v[:-1]
    elif key == "grid":
        w[key] = {**v, "width": v["width"] + 1}
    else:
        w[key] = v + 1


@pytest.mark.parametrize("key", KEPT)
def test_a_fork_of_the_homes_world_run_changing_a_key_it_keeps_is_one_line_naming_it(
        home, tmp_path, monkeypatch, key):
    w = world_with(home, f"bad-{key}.json", lambda w: _changed(w, key))
    r = _fork_in(home, monkeypatch, w, tmp_path / "bad.log")
    assert r.exit_code == 1
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and "may change only policy and food" in lines[0], r.output
    assert f"changes {key}" in lines[0]
    assert not (tmp_path / "bad.log").exists()


def test_a_fork_that_fails_leaves_no_log(home):
    t = json.loads((home / "configs" / "thought.json").read_text())
    t["reflection"]["recent"] = 12       # other prompts, which the parent's recording does not hold
    (home / "t.json").write_text(json.dumps(t))
    r = village(home, "fork", "D3.log", "--at", "1000", "--thought", "t.json", "--out", "F.log")
    assert "replay stopped" in one_line(r)
    assert not (home / "F.log").exists()


def test_save_as_without_record_is_refused_in_one_line_and_the_homes_replay_stays_green(home):
    r = village(home, "fork", "D3.log", "--at", "1000", "--save-as", "nn", "--out", "nn.log")
    assert "--save-as nn without --record" in one_line(r)
    assert not (home / "nn.log").exists() and not (home / "fixtures" / "nn").exists()
    assert village(home, "replay").returncode == 0


def test_save_as_of_the_homes_own_world_run_is_refused_in_one_line(home):
    w = world_with(home, "food2.json", lambda w: w["food"].update(max_grams=90))
    for extra in ((), ("--world", str(w))):
        r = village(home, "fork", "a.log", "--at", "1000", *extra, "--save-as", "ww",
                    "--out", "ww.log")
        assert "is no scenario" in one_line(r)
        assert not (home / "ww.log").exists() and not (home / "fixtures" / "ww").exists()


def test_a_fork_of_a_world_scenario_saved_with_more_food_replays(home):
    w = json.loads((home / "fixtures" / "village-day" / "world.json").read_text())
    w["food"]["regrow_milligrams_per_tick"] += 5
    (home / "vdw.json").write_text(json.dumps(w))
    r = village(home, "fork", "vd.log", "--at", "1000", "--world", "vdw.json",
                "--save-as", "vd-food", "--out", "vdf.log")
    assert r.returncode == 0, r.stderr
    assert village(home, "replay", "vd-food").returncode == 0


def test_save_as_with_exemplars_names_that_recording_and_replays(home):
    r = village(home, "fork", "D3.log", "--at", "1000", "--exemplars",
                "exemplars/day-of-three.json", "--save-as", "d3-on", "--out", "d3on.log")
    assert r.returncode == 0, r.stderr
    saved = json.loads((home / "fixtures" / "d3-on" / "scenario.json").read_text())
    assert saved["exemplars"] == "exemplars/day-of-three.json"
    assert village(home, "replay", "d3-on").returncode == 0
