"""A home's own config that cannot be read as a regular file is refused, never passed over.

Each row runs the installed `village` command in a real process, in a copy
of a project `village init` made (the `project` fixture), with its `configs/world.json` replaced by
something that is not a regular file it can read. The run must stop with
exit 1 and one line naming the file and the rule, and write no log; the
shipped world stands in only where the home has no entry of that name.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests import process

from .conftest import record

pytestmark = pytest.mark.slow   # a real process, server, model or browser each test

CHECKOUT = process.ROOT


def _fifo(p: Path) -> None:
    os.mkfifo(p)


def _folder(p: Path) -> None:
    p.mkdir()


def _link(target: str):
    def make(p: Path) -> None:
        p.symlink_to(target)
    return make


def _unreadable(p: Path) -> None:
    shutil.copyfile(CHECKOUT / "configs" / "world.json", p)
    p.chmod(0)


BROKEN = {
    "fifo": _fifo,
    "folder": _folder,
    "link to /dev/zero": _link("/dev/zero"),
    "link to /dev/urandom": _link("/dev/urandom"),
    "link loop": _link("world.json"),
    "dangling link": _link("nowhere.json"),
    "unreadable file": _unreadable,
}


def _village(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return process.village(*args, cwd=cwd, environ=process.env(drop=("VILLAGE_HOME",)))


def _run(project: Path) -> subprocess.CompletedProcess:
    return _village("world", "run", "--ticks", "5", "--out", "x.log", cwd=project)


def _as_root_readable(case: str) -> bool:
    return case == "unreadable file" and os.geteuid() == 0


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_home_world_json_that_is_not_a_readable_regular_file_is_refused_in_one_line(project, case):
    world = project / "configs" / "world.json"
    world.unlink()
    BROKEN[case](world)
    try:
        r = _run(project)
    finally:
        if world.is_file() and not world.is_symlink():
            world.chmod(0o644)
    if "Traceback" in r.stderr:
        record("traceback")
        pytest.fail(r.stderr)
    if _as_root_readable(case) and r.returncode == 0:
        # Root reads a file whatever its mode: then the home's file (a copy of the shipped
        # world) must be what ran, read correctly, and the run is a correct result.
        world.chmod(0o644)
        again = _village("world", "run", "--ticks", "5", "--out", "again.log", cwd=project)
        assert again.returncode == 0, again.stderr
        assert (project / "x.log").read_bytes() == (project / "again.log").read_bytes()
        record("clean")
        return
    if r.returncode == 0:
        record("silent")
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1, r.stderr
    assert len(lines) == 1, r.stderr
    assert "configs/world.json" in lines[0]
    assert "regular file" in lines[0] and "shipped one is used only where the home has none" in lines[0]
    assert not (project / "x.log").exists()
    record("clean")


def test_a_home_with_no_world_json_at_all_runs_the_shipped_world(project):
    (project / "configs" / "world.json").unlink()
    r = _run(project)
    assert r.returncode == 0, r.stderr
    assert (project / "x.log").is_file()
    record("clean")


@pytest.mark.parametrize("name", ["importance.json", "models.json", "embedder.json", "thought.json",
                                  "night-plan.tmpl", "reflect-questions.tmpl"])
def test_every_config_a_home_has_but_cannot_read_is_refused_not_replaced(project, name):
    own = project / "configs" / name
    own.unlink()
    os.mkfifo(own)
    r = _village("run", "day-of-three", "--out", "y.log", cwd=project)
    assert "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1, r.stderr
    assert len(lines) == 1 and f"configs/{name}" in lines[0] and "FIFO" in lines[0], r.stderr
    assert not (project / "y.log").exists()
    record("clean")


def test_a_scenarios_own_config_it_cannot_read_is_refused_never_replaced_by_the_homes(project):
    # day-of-three given a thought file of its own, beside the home's configs/thought.json
    sc = project / "fixtures" / "day-of-three" / "scenario.json"
    sc.write_text(json.dumps({**json.loads(sc.read_text()), "thought": "thought.json"}))
    own = project / "fixtures" / "day-of-three" / "thought.json"
    os.mkfifo(own)
    r = _village("run", "day-of-three", "--out", "y.log", cwd=project)
    assert "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1, r.stderr
    assert len(lines) == 1 and "thought.json" in lines[0] and "not a regular file" in lines[0], r.stderr
    assert not (project / "y.log").exists()
    record("clean")


def test_a_default_models_config_a_home_cannot_read_is_refused_by_the_command_that_reads_it(project):
    own = project / "configs" / "models.json"
    own.unlink()
    os.mkfifo(own)
    r = _village("model", cwd=project)
    assert "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1, r.stderr
    assert len(lines) == 1 and "configs/models.json" in lines[0] and "FIFO" in lines[0], r.stderr
    record("clean")


@pytest.mark.parametrize("how", ["a file", "a dangling link"])
def test_a_home_whose_configs_is_not_a_folder_is_refused_naming_it(project, how):
    shutil.rmtree(project / "configs")
    if how == "a file":
        (project / "configs").write_text("")
    else:
        (project / "configs").symlink_to("nowhere")
    r = _run(project)
    assert "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1, r.stderr
    assert "configs" in lines[0] and "configs/world.json" in lines[0]
    assert not (project / "x.log").exists()
    record("clean")


@pytest.mark.parametrize("folder,says", [
    ("none-such", "no template configs/none-such/"),
    ("../configs", "does not match"),
    ("schema", "no template configs/schema/"),
])
@pytest.mark.parametrize("command", [["run", "day-of-three", "--out", "y.log"],
                                     ["replay", "day-of-three"]])
def test_a_scenario_naming_templates_that_are_not_a_folder_of_templates_is_refused_in_one_line(
        project, folder, says, command):
    _set(project / "fixtures" / "day-of-three" / "scenario.json", "templates", folder)
    _refused_in_one_line(project, command, says, "y.log")


@pytest.mark.parametrize("places,says", [
    ([{"name": "the mill field", "grows": "barley", "cells": [{"from": [0, 0], "to": [5, 3]}]},
      {"name": "the well", "grows": "cress", "cells": [{"from": [4, 3], "to": [6, 5]}]}],
     "overlaps"),
    ([{"name": "the far field", "grows": "oats", "cells": [{"from": [0, 0], "to": [500, 3]}]}],
     "grid"),
    ([{"name": "the mill field", "grows": "barley", "cells": [{"from": [0, 0], "to": [1, 1]}]},
      {"name": "The Mill Field", "grows": "oats", "cells": [{"from": [3, 3], "to": [4, 4]}]}],
     "a name of its own"),
])
@pytest.mark.parametrize("command", [["world", "run", "--ticks", "5", "--out", "x.log"],
                                     ["run", "village-day", "--out", "x.log"]])
def test_a_world_whose_places_break_a_rule_is_refused_in_one_line_on_every_path(
        project, places, says, command):
    for w in (project / "configs" / "world.json", project / "fixtures" / "village-day" / "world.json"):
        _set(w, "places", places)
    _refused_in_one_line(project, command, says, "x.log")


def _set(path, key, value) -> None:
    """Set one key of a JSON config file."""
    import json
    v = json.loads(path.read_text())
    v[key] = value
    path.write_text(json.dumps(v, indent=2))


def _refused_in_one_line(project, command, says, out) -> None:
    """The village process refuses `command` in one line saying `says`, and writes no `out`."""
    r = _village(*command, cwd=project)
    assert "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1 and says in lines[0], r.stderr
    assert not (project / out).exists()
    record("clean")
