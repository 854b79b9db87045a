"""A sweep spec whose folder is bad, or that has nothing to run, is refused in one line before Ray starts.

Each row writes a spec beside a copy of a project home `village init` made and runs
`village sweep SPEC.json --oracle replay` as a real process: exit 1, one
line on stderr naming the rule, nothing written outside the home and no
hidden `.part` folder left anywhere.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.process import env, one_error_line, village

from .conftest import row, tree

pytestmark = pytest.mark.slow   # a real process, server, model or browser each test


def _tree(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


@pytest.fixture
def home(project) -> Path:
    return project


def _refused(home: Path, spec: dict, rule: str) -> str:
    root = home.parent
    p = root / "spec.json"
    p.write_text(json.dumps(spec))
    before = tree(root)
    with row():
        r = village("sweep", str(p), "--oracle", "replay", cwd=home,
                    environ=env(drop=("VILLAGE_HOME",)), timeout=60)
        line = one_error_line(r)
        assert rule in line, line
        assert _tree(root) == set(before), "nothing is written, inside the home or out of it"
        assert tree(root) == before, "every file inside the home and out of it is as it was"
        assert not [q for q in root.rglob("*.part")], "no .part folder is left"
    return line


def _spec(**kw) -> dict:
    return {"name": "bad", "scenarios": ["day-of-three"], "seeds": [1], **kw}


def test_a_sweep_out_that_climbs_out_of_the_home_is_refused(home):
    line = _refused(home, _spec(out="../../elsewhere"), "stays inside the home")
    assert "../../elsewhere" in line
    assert not (home.parent.parent / "elsewhere").exists()


def test_a_sweep_out_through_a_link_pointing_outside_the_home_is_refused(home, tmp_path):
    away = tmp_path / "away"
    away.mkdir()
    (home / "link").symlink_to(away)
    _refused(home, _spec(out="link/sweep"), "stays inside the home")
    assert list(away.iterdir()) == []


def test_a_sweep_out_holding_a_nul_byte_is_refused(home):
    _refused(home, _spec(out="runs/a\u0000b"), "no NUL byte")


def test_a_sweep_out_naming_an_existing_file_is_refused(home):
    (home / "taken").write_text("mine\n")
    _refused(home, _spec(out="taken"), "names an existing file")
    assert (home / "taken").read_text() == "mine\n"


def test_a_sweep_whose_only_scenario_does_not_exist_has_nothing_to_run_and_is_refused(home):
    _refused(home, _spec(scenarios=["no-such-scenario"]), "nothing to run")
