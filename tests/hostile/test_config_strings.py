"""A string no UTF-8 text can hold, in any config, is refused as the file is read, in one line.

JSON may write half of a UTF-16 pair as an escape (`"\\ud800"`); Python
decodes it to a string that cannot be encoded, so a config holding one used
to pass its schema and then fail as a traceback where its digest was taken.
Each row writes such an escape into one config a command reads (a key or a
value, at the top or deep in a villager's given row), runs the real `village`
program, and wants exit 1, one line naming the file, the string's path and
the rule, no log, and every file of the home as it was.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.process import env, one_error_line, village

from .conftest import row, tree

pytestmark = pytest.mark.slow   # a real process, server, model or browser each test

LONE = "\\ud800"


def _with_lone(path: Path, edit) -> None:
    """Rewrite the JSON file at `path` with `edit` applied, then put a lone surrogate escape where
    `edit` left the marker (json.dumps would write the escape itself; the marker keeps it exact)."""
    value = json.loads(path.read_text(encoding="utf-8"))
    edit(value)
    text = json.dumps(value, indent=2).replace("@LONE@", LONE)
    path.write_text(text, encoding="utf-8")


def _description(v):
    v["description"] = "a day @LONE@ of three"


def _key(v):
    v["@LONE@"] = 1


def _given(v):
    v["villagers"][0]["given"] = [{"text": "Mose owes you @LONE@ food", "about": ["Mose"]}]


def _importance_key(v):
    v["words"] = {**v.get("words", {}), "feast@LONE@": 3}


def _refused(home: Path, command: list[str], file: str, at: str) -> None:
    before = tree(home.parent)
    with row():
        r = village(*command, cwd=home, environ=env(drop=("VILLAGE_HOME",)), timeout=120)
        line = one_error_line(r)
        assert r.returncode == 1, (r.returncode, line)
        assert file in line and f"the string at {at} holds a lone surrogate" in line, line
        assert "encodable as UTF-8" in line, line
        assert tree(home.parent) == before, "no log is written and no file changes"


RUN = ["run", "day-of-three", "--out", "r.log"]
SCENARIO = "fixtures/day-of-three/scenario.json"
WORLD = "fixtures/day-of-three/world.json"


@pytest.mark.parametrize("command", [RUN, ["replay", "day-of-three"], ["scenarios"],
                                     ["run", "day-of-three", "--oracle", "llamacpp", "--out", "r.log"]],
                         ids=["run", "replay", "scenarios", "run-llamacpp"])
def test_a_lone_surrogate_in_a_scenario_is_refused_by_every_command_that_reads_it(project, command):
    _with_lone(project / SCENARIO, _description)
    _refused(project, command, SCENARIO, "$.description")


@pytest.mark.parametrize("edit,at", [(_description, "$.description"), (_key, "$.\\ud800"),
                                     (_given, "$.villagers[0].given[0].text")],
                         ids=["value", "key", "given-row"])
@pytest.mark.parametrize("record", [False, True], ids=["plain", "record"])
def test_a_lone_surrogate_in_a_scenario_world_is_refused_before_tick_0(project, edit, at, record):
    _with_lone(project / WORLD, edit)
    extra = ["--oracle", "llamacpp", "--record"] if record else []
    _refused(project, RUN + extra, WORLD, at)


def test_a_lone_surrogate_in_the_homes_world_is_refused_by_world_run(project):
    _with_lone(project / "configs/world.json", _description)
    _refused(project, ["world", "run", "--config", "world", "--ticks", "3", "--out", "r.log"],
             "configs/world.json", "$.description")


def test_a_lone_surrogate_in_an_importance_table_is_refused_by_run_and_by_news(project):
    shutil.copyfile(project / "configs/importance.json", project / "configs/bad-importance.json")
    _with_lone(project / "configs/bad-importance.json", _importance_key)
    r = village(*RUN, cwd=project, environ=env(drop=("VILLAGE_HOME",)))
    assert r.returncode == 0, r.stderr
    _refused(project, ["news", "r.log", "--importance", "configs/bad-importance.json"],
             "configs/bad-importance.json", "$.words.feast\\ud800")
    _with_lone(project / "configs/importance.json", _importance_key)
    (project / "r.log").unlink()
    _refused(project, RUN, "configs/importance.json", "$.words.feast\\ud800")


def test_a_lone_surrogate_in_a_forks_world_is_refused_before_its_first_tick(project):
    r = village(*RUN, cwd=project, environ=env(drop=("VILLAGE_HOME",)))
    assert r.returncode == 0, r.stderr
    shutil.copyfile(project / WORLD, project / "fork-world.json")
    _with_lone(project / "fork-world.json", _given)
    _refused(project, ["fork", "r.log", "--at", "1000", "--world", "fork-world.json", "--out", "f.log"],
             "fork-world.json", "$.villagers[0].given[0].text")


@pytest.mark.parametrize("where", ["spec", "scenario"])
def test_a_lone_surrogate_in_a_sweep_spec_or_its_scenario_is_refused_before_ray_starts(project, where):
    spec = project / "spec.json"
    spec.write_text(json.dumps({"name": "s", "scenarios": ["day-of-three"], "seeds": [1]}))
    if where == "spec":
        _with_lone(spec, lambda v: v.__setitem__("name", "s@LONE@"))
        _refused(project, ["sweep", "spec.json", "--oracle", "replay"], "spec.json", "$.name")
    else:
        _with_lone(project / SCENARIO, _description)
        _refused(project, ["sweep", "spec.json", "--oracle", "replay"], SCENARIO, "$.description")
