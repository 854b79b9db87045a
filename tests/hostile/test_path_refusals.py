"""A path a scenario names that holds a NUL byte is one refusal through the real `village` program.

The command line cannot carry a NUL byte, but a config can: each row writes
one into a path of day-of-three's scenario.json, in a copy of a project
`village init` made, and runs `village run` and `village replay` there as a
user would. Each stops with exit 1 and one line naming what the scenario
names, writes no log, and changes no file of the project. (The library's
own calls with such a path are tests/unit/test_nul_paths.py.)
"""

from __future__ import annotations

import json

import pytest

from tests.process import env, one_error_line, village

from .conftest import row, tree

pytestmark = pytest.mark.slow   # a real process, server, model or browser each test

BAD = "configs/a\u0000b.json"
NAMED = {
    "thought": "names its own thought file",
    "models": "names its own models file",
    "importance": "names its own importance file",
    "exemplars": "is not a path: it holds a NUL byte",
    "parent": "no scenario 'a\\x00b'",
}
COMMANDS = {"run": ["run", "day-of-three", "--out", "r.log"], "replay": ["replay", "day-of-three"]}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("key", sorted(NAMED))
def test_a_scenario_naming_a_path_that_holds_a_nul_byte_is_refused_in_one_line(project, key, command):
    p = project / "fixtures" / "day-of-three" / "scenario.json"
    sc = json.loads(p.read_text(encoding="utf-8"))
    sc |= {"parent": "a\u0000b", "fork_at": 5} if key == "parent" else {key: BAD}
    p.write_text(json.dumps(sc), encoding="utf-8")
    before = tree(project)
    with row():
        r = village(*COMMANDS[command], cwd=project, environ=env(drop=("VILLAGE_HOME",)))
        line = one_error_line(r, printed=r.stdout)
        assert NAMED[key] in line, line
        assert tree(project) == before, "no log is left and no file of the project changes"
