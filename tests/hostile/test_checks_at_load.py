"""What a config makes impossible is refused at load, before tick 0: for run, fork and sweep alike.

A scenario that talks needs its importance table to weigh and feel words
(`base.did.talk`, `base.heard.talk`, `valence.did.talk.actor`,
`valence.heard.talk.witness`, docs/talk.md); a villager's given row needs its
kind weighed and felt too. A table without one used to be found only when the
first such row was born, 52 ticks into a log left half made; and a fork's
`--thought` could bring a talk block into a scenario whose table has no words.
Each row runs the real `village` program and wants exit 1, one line naming
the scenario and the missing entry, and no log.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.process import ROOT, env, one_error_line, village

from .conftest import row, tree

pytestmark = pytest.mark.slow   # a real process, server, model or browser each test

EIGHT = "fixtures/village-of-eight"


@pytest.fixture
def eight(project) -> Path:
    """The home, with village-of-eight (the scenario that talks) and its recording in it."""
    shutil.copytree(ROOT / EIGHT, project / EIGHT)
    shutil.copyfile(ROOT / "exemplars/village-of-eight.json", project / "exemplars/village-of-eight.json")
    return project


def _drop(path: Path, *keys: str) -> None:
    value = json.loads(path.read_text(encoding="utf-8"))
    at = value
    for k in keys[:-1]:
        at = at[k]
    del at[keys[-1]]
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")


def _refused(home: Path, command: list[str], *said: str) -> None:
    before = tree(home.parent)
    with row():
        r = village(*command, cwd=home, environ=env(drop=("VILLAGE_HOME",)), timeout=120)
        line = one_error_line(r)
        for s in said:
            assert s in line, line
        assert tree(home.parent) == before, "no log is written and no file changes"


MISSING = [(("base", "did", "talk"), "(base.did.talk)"),
           (("base", "heard", "talk"), "(base.heard.talk)"),
           (("valence", "did", "talk"), "(valence.did.talk.actor)"),
           (("valence", "heard", "talk"), "(valence.heard.talk.witness)"),
           (("valence", "given", "news"), "(valence.given.news.witness)")]


@pytest.mark.parametrize("keys,named", MISSING, ids=[n.strip("()") for _, n in MISSING])
@pytest.mark.parametrize("how", [["--oracle", "replay"], ["--oracle", "llamacpp"],
                                 ["--oracle", "llamacpp", "--record"]],
                         ids=["replay", "llamacpp", "record"])
def test_an_importance_table_that_cannot_weigh_a_row_the_run_gives_is_refused_before_tick_0(
        eight, keys, named, how):
    _drop(eight / EIGHT / "importance.json", *keys)
    _refused(eight, ["run", "village-of-eight", "--out", "r.log", *how], "scenario village-of-eight", named)


def test_a_fork_whose_thought_brings_talk_its_importance_table_cannot_weigh_is_refused(project):
    r = village("run", "day-of-three", "--out", "base.log", cwd=project, environ=env(drop=("VILLAGE_HOME",)))
    assert r.returncode == 0, r.stderr
    shutil.copyfile(ROOT / EIGHT / "thought.json", project / "talky-thought.json")
    for how in (["--oracle", "replay"], ["--oracle", "llamacpp"]):
        _refused(project, ["fork", "base.log", "--at", "1000", "--thought", "talky-thought.json",
                           "--out", "f.log", *how],
                 "scenario day-of-three has a talk block", "(base.did.talk)")


def test_a_sweep_override_that_brings_talk_its_importance_table_cannot_weigh_is_refused_before_ray(project):
    talk = json.loads((ROOT / EIGHT / "thought.json").read_text())["talk"]
    (project / "spec.json").write_text(json.dumps({
        "name": "talky", "scenarios": ["day-of-three"], "seeds": [1], "ticks": 300,
        "overrides": [{"name": "talk", "thought": {"talk": talk}}]}))
    _refused(project, ["sweep", "spec.json", "--workers", "1"],
             "none of its 1 runs can start", "scenario day-of-three has a talk block", "(base.did.talk)")
