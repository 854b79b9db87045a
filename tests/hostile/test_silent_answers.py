"""Inputs that used to get a wrong answer printed as if right, or a traceback, through the real program.

- `village minds A.log --exemplars B.json`, B the recording of another run:
  B's costs were printed as A's. A recording's call is the log's only when its
  prompt and its answer are the log's; one holding none of them is refused.
- An empty or blank interview question (or one longer than a battery's may
  be) was asked of the model. It is refused before the log is read.
- A log that verifies, with a given row for a villager no founding names:
  `village report` was a jinja2 traceback. Perception refuses the row, so
  every command that folds the log says so in one line.
- Two different pieces of news under one name were merged by `village news`.
  A world config with them is refused at load; a log with them, by `news`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kernel import events as ev
from kernel.log import LogWriter, read_header, read_ticks
from tests.process import ROOT, env, one_error_line, village

from .conftest import row, tree

pytestmark = pytest.mark.slow   # a real process, server, model or browser each test

EIGHT = "fixtures/village-of-eight"


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    """A home with village-of-eight and its recording, and a replayed log of each scenario."""
    root = tmp_path_factory.mktemp("silent")
    r = village("init", "p", cwd=root, environ=env(drop=("VILLAGE_HOME",)))
    assert r.returncode == 0, r.stderr
    p = root / "p"
    shutil.copytree(ROOT / EIGHT, p / EIGHT)
    shutil.copyfile(ROOT / "exemplars/village-of-eight.json", p / "exemplars/village-of-eight.json")
    for name in ("day-of-three", "village-of-eight"):
        r = village("run", name, "--out", f"{name}.log", cwd=p, environ=env(drop=("VILLAGE_HOME",)))
        assert r.returncode == 0, r.stderr
    return p


def _refused(home: Path, command: list[str], *said: str, printed: str = "") -> None:
    before = tree(home)
    with row():
        r = village(*command, cwd=home, environ=env(drop=("VILLAGE_HOME",)), timeout=180)
        line = one_error_line(r, printed=printed)
        for s in said:
            assert s in line, line
        assert tree(home) == before, "nothing is written"


@pytest.mark.parametrize("log,other", [("day-of-three", "village-of-eight"),
                                       ("village-of-eight", "day-of-three")])
def test_minds_of_a_log_beside_another_runs_recording_is_refused(home, log, other):
    _refused(home, ["minds", f"{log}.log", "--exemplars", f"exemplars/{other}.json"],
             f"exemplars/{other}.json is not the recording of {log}.log",
             "none of the", "calls the log answered is in it")


def test_minds_of_a_log_beside_its_own_recording_still_measures_it(home):
    with row():
        r = village("minds", "day-of-three.log", "--exemplars", "exemplars/day-of-three.json", cwd=home,
                    environ=env(drop=("VILLAGE_HOME",)))
        assert r.returncode == 0, r.stderr
        assert "Halla" in r.stdout


@pytest.mark.parametrize("question,said", [("", "the question '' is empty"),
                                           ("   ", "is blank"),
                                           ("\t\n", "is blank"),
                                           ("why " * 60, "the question is 240 characters")])
@pytest.mark.parametrize("how", [["--oracle", "replay"], ["--oracle", "llamacpp"],
                                 ["--oracle", "llamacpp", "--record", "asked.json"]],
                         ids=["replay", "llamacpp", "record"])
def test_a_question_with_no_words_or_too_many_is_refused_before_anything_is_asked(home, question, said,
                                                                                  how):
    _refused(home, ["interview", "day-of-three.log", question, "--who", "Halla", *how], said,
             "nothing is asked")


def _with_given(src: Path, dst: Path, villager: int, tick: int) -> Path:
    h = read_header(src)
    with LogWriter.create(dst, config_digest=h.config_digest, seed=h.seed) as w:
        for t in read_ticks(src):
            events = list(t.events)
            if t.tick == tick:
                events.append(ev.Given(villager=villager, index=0, event="backstory", text="a ghost",
                                       about=(), news="", words=(), x=None, y=None, day=None))
            w.append(t.tick, events)
    return dst


@pytest.fixture(scope="module")
def ghost(home) -> Path:
    """village-of-eight's log with a given row, at its last tick, for villager 99: it verifies."""
    return _with_given(home / "village-of-eight.log", home.parent / "ghost.log", 99, 5999)


@pytest.mark.parametrize("command", [["report", "../ghost.log", "--out", "../g.html"],
                                     ["news", "../ghost.log"], ["minds", "../ghost.log"],
                                     ["index", "../ghost.log", "--out", "../g.duckdb"]],
                         ids=["report", "news", "minds", "index"])
def test_a_log_giving_a_row_to_a_villager_never_founded_is_one_line_on_every_fold(home, ghost, command):
    _refused(home, command, "a given row at tick 5999 is for villager 99, whom no founding before it names")
    assert not (home.parent / "g.html").exists() and not (home.parent / "g.duckdb").exists()


def _feast_twice(world: dict, other: dict) -> dict:
    """The world with a second villager given news named 'feast' that tells another piece."""
    w = json.loads(json.dumps(world))
    w["villagers"][3].setdefault("given", []).append(
        {"text": "they say the mill burns", "about": ["Halla"], "news": {"name": "feast", **other}})
    return w


@pytest.mark.parametrize("other,what", [({"words": ["mill"]}, "words (feast and mill)"),
                                        ({"words": ["feast"], "cell": [1, 1], "day": 2}, "cell (4,5 and 1,1)"),
                                        ({"words": ["feast"], "cell": [4, 5], "day": 1}, "day (2 and 1)")])
def test_a_world_giving_two_pieces_of_news_one_name_is_refused_at_load(tmp_path, home, other, what):
    p = Path(shutil.copytree(home, tmp_path / "p", symlinks=True))
    wpath = p / EIGHT / "world.json"
    wpath.write_text(json.dumps(_feast_twice(json.loads(wpath.read_text()), other)))
    _refused(p, ["run", "village-of-eight", "--out", "n.log"], "the news 'feast' given to Halla and to",
             f"differ in their {what}")


def test_a_log_giving_two_pieces_of_news_one_name_is_refused_by_news(home):
    src = home / "village-of-eight.log"
    h = read_header(src)
    dst = home.parent / "two-feasts.log"
    with LogWriter.create(dst, config_digest=h.config_digest, seed=h.seed) as w:
        for t in read_ticks(src):
            events = list(t.events)
            if t.tick == 5999:
                events.append(ev.Given(villager=4, index=9, event="news", text="the mill burns",
                                       about=(), news="feast", words=("mill",), x=None, y=None,
                                       day=None))
            w.append(t.tick, events)
    _refused(home, ["news", "../two-feasts.log"], "the news 'feast' given to Halla and to",
             "differ in their words (feast and mill)")
