"""A fork's log claims the settings it ran under, through the real `village` process.

The header's config digest of a fork under `--thought F` or `--world W` is
the one a run from tick 0 under the same files claims, and a fork that
changes nothing claims its parent's. A thought file is all of it: its
night block too, which a fork once left at the parent's while its header
named the new file.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from kernel.log import read_header
from tests import process


def village(home: Path, *args: str) -> subprocess.CompletedProcess:
    return process.village(*args, cwd=home, timeout=300, environ=process.env(drop=("VILLAGE_HOME",)))


def ok(r: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    return r


def digest(p: Path) -> str:
    return read_header(p).config_digest


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    """A new home with day-of-three's run (d3.log) and a world run of its own configs (w.log)."""
    h = tmp_path_factory.mktemp("forkdigest") / "home"
    ok(village(h.parent, "init", str(h)))
    ok(village(h, "run", "day-of-three", "--out", "d3.log"))
    ok(village(h, "world", "run", "--ticks", "600", "--out", "w.log"))
    return h


def _json(home: Path, name: str, source: Path, change=lambda v: None, indent=None) -> Path:
    v = json.loads(source.read_text())
    change(v)
    (home / name).write_text(json.dumps(v, indent=indent))
    return home / name


def _depth(n: int):
    return lambda v: v["reflection"].update(depth=n)


def test_a_fork_under_another_thought_file_claims_what_a_run_of_that_file_from_tick_0_claims(home):
    thought = _json(home, "cap1.json", home / "configs" / "thought.json", _depth(1))
    ok(village(home, "fork", "d3.log", "--at", "1000", "--thought", str(thought),
               "--out", "f-cap1.log"))
    # the same scenario naming that thought file, run from tick 0
    sc = home / "fixtures" / "d3-cap1"
    shutil.copytree(home / "fixtures" / "day-of-three", sc)
    shutil.copyfile(thought, sc / "thought.json")
    _json(sc, "scenario.json", sc / "scenario.json",
          lambda v: v.update(name="d3-cap1", thought="thought.json"), indent=2)
    ok(village(home, "run", "d3-cap1", "--out", "r-cap1.log"))
    assert digest(home / "f-cap1.log") == digest(home / "r-cap1.log") != digest(home / "d3.log")
    shutil.rmtree(sc)


def test_a_fork_under_another_world_claims_what_a_world_run_of_that_file_claims(home):
    world = _json(home, "food.json", home / "configs" / "world.json",
                  lambda v: v["food"].update(regrow_milligrams_per_tick=25))
    ok(village(home, "fork", "w.log", "--at", "300", "--world", str(world), "--out", "f-food.log"))
    ok(village(home, "world", "run", "--config", str(world), "--ticks", "600",
               "--out", "r-food.log"))
    assert digest(home / "f-food.log") == digest(home / "r-food.log") != digest(home / "w.log")


def test_a_fork_whose_files_change_nothing_claims_its_parents_config(home):
    thought = _json(home, "same-thought.json", home / "configs" / "thought.json", indent=4)
    world = _json(home, "same-world.json", home / "fixtures" / "day-of-three" / "world.json",
                  indent=3)
    ok(village(home, "fork", "d3.log", "--at", "1000", "--thought", str(thought),
               "--world", str(world), "--out", "f-same.log"))
    ok(village(home, "fork", "d3.log", "--at", "1000", "--out", "f-none.log"))
    assert digest(home / "f-same.log") == digest(home / "f-none.log") == digest(home / "d3.log")
    assert read_header(home / "f-same.log").overrides == ()


def test_two_forks_under_thought_files_that_differ_only_in_their_night_claim_two_configs(home):
    a = _json(home, "night-a.json", home / "configs" / "thought.json",
              lambda v: v["night"].update(groups=2))
    b = _json(home, "night-b.json", home / "configs" / "thought.json",
              lambda v: v["night"].update(groups=3))
    for name, t in (("f-na.log", a), ("f-nb.log", b)):   # both end before the day's night
        ok(village(home, "fork", "d3.log", "--at", "1000", "--ticks", "1500", "--thought", str(t),
                   "--out", name))
    assert digest(home / "f-na.log") != digest(home / "f-nb.log")


# -- the night block: the fork runs the night its header names --------------------------------

@pytest.fixture(scope="module")
def week(tmp_path_factory) -> Path:
    """week-of-three's recorded run, made in the shipped home (its thought file has nights)."""
    d = tmp_path_factory.mktemp("week")
    r = process.village("--home", str(process.ROOT), "run", "week-of-three",
                        "--out", str(d / "week.log"), timeout=300)
    ok(r)
    return d


def _fork_week(week: Path, name: str, change) -> subprocess.CompletedProcess:
    # the week's own thought file (with its attractor and plan blocks), changed
    own = process.ROOT / "fixtures" / "week-of-three" / "thought.json"
    thought = _json(week, f"{name}.json", own, change)
    return process.village("--home", str(process.ROOT), "fork", str(week / "week.log"),
                           "--at", "2000", "--ticks", "4000", "--thought", str(thought),
                           "--out", str(week / f"{name}.log"), timeout=300)


def _night_calls_from(log: Path, tick: int) -> int:
    shown = ok(process.village("log", "show", str(log), timeout=120)).stdout
    return sum(1 for line in shown.splitlines()
               if "purpose='night'" in line and line.split()[0].isdigit()
               and int(line.split()[0]) >= tick)


def test_a_fork_whose_thought_file_has_no_night_block_has_no_night_after_its_tick(week):
    ok(_fork_week(week, "nonight", lambda v: v.pop("night")))
    ok(_fork_week(week, "asis", lambda v: None))
    assert _night_calls_from(week / "nonight.log", 2000) == 0
    assert _night_calls_from(week / "asis.log", 2000) > 0        # 3999 is a night as it stands
    assert _night_calls_from(week / "nonight.log", 0) == _night_calls_from(week / "asis.log", 0) - \
        _night_calls_from(week / "asis.log", 2000)


def test_a_fork_whose_night_block_differs_asks_its_nights_under_that_block(week):
    # The recording was made under six groups a plan; the fork asks for one, so the replay of the
    # parent's recording past T meets a night call that is not the recorded one, and says so.
    r = _fork_week(week, "onegroup", lambda v: v["night"].update(groups=1))
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert re.search(r"replay stopped at call \d+ \(night\): the schema here is .*\"maxItems\":1,",
                     lines[0]), lines[0]
    assert not (week / "onegroup.log").exists()
