"""`village news RUN.log`, through click's CliRunner: each piece of news's holders per day, who
told whom, and who was at its place on its day; a bad input is one line, never a traceback."""

from __future__ import annotations

import hashlib

from click.testing import CliRunner

from kernel.cli import main
from tests.news_logs import founded, importance_file, meet, news, say, walk, write_log


def _frames():
    """Ander is given the feast at 3,3 on day 1 (ticks 2000 to 3999) and tells Brita, who tells
    Knut the next day; Knut and Brita go to 3,3."""
    return [(0, [*founded((0, 0), (1, 0), (2, 0)), news(1, x=3, y=3, day=1), *meet(1, 2),
                 *meet(2, 3)]),
            (5, [say(1, 2, "a feast at 3,3 tomorrow")]),
            (2100, [say(2, 3, "there is a FEAST, come")]),
            (2200, [say(3, 1, "nothing much")]),
            (2300, [walk(2, 3, 3), walk(3, 3, 3)])]


def _run(*args):
    return CliRunner().invoke(main, ["news", *map(str, args)])


def test_news_prints_the_curve_the_tree_and_the_attendance(tmp_path):
    log = write_log(tmp_path / "talk.log", _frames())
    res = _run(log, "--importance", importance_file(tmp_path))
    assert res.exit_code == 0, res.output
    out = res.output
    assert "news 'feast': 'there is a feast' (words: feast)" in out
    assert "holders by each day's end: 2 3" in out and "3 of 3 villagers hold it" in out
    lines = out.splitlines()
    tree = lines[lines.index("  who told whom first:") + 1:][:3]
    assert tree[0].startswith("    Ander  tick 0, day 1 (given it)")
    assert tree[1].startswith("        Brita  tick 5, day 1 (told by Ander, words)")
    assert tree[2].startswith("            Knut  tick 2100, day 2 (told by Brita, words)")
    assert "at 3,3 on day 2: 2 villagers; 2 holding the news (Brita, Knut), 0 not (nobody)" in out


def test_news_reads_the_log_and_writes_nothing(tmp_path):
    log = write_log(tmp_path / "talk.log", _frames())
    table = importance_file(tmp_path)
    before = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in tmp_path.iterdir()}
    assert _run(log, "--importance", table).exit_code == 0
    after = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in tmp_path.iterdir()}
    assert after == before


def test_a_log_without_news_says_so(tmp_path):
    log = write_log(tmp_path / "quiet.log", [(0, [*founded((0, 0), (1, 0)), *meet(1, 2)]),
                                             (3, [say(1, 2, "hello there")])])
    res = _run(log, "--importance", importance_file(tmp_path))
    assert res.exit_code == 0 and res.output == "no piece of news was given in this run (1 utterance)\n"


def _one_line(res) -> str:
    assert res.exit_code != 0
    assert "Traceback" not in res.output and res.output.strip().count("\n") == 0, res.output
    return res.output


def test_a_missing_log_is_one_line(tmp_path):
    assert "no log at" in _one_line(_run(tmp_path / "nope.log"))


def test_a_file_that_is_not_a_log_is_one_line(tmp_path):
    p = tmp_path / "notes.txt"
    p.write_text("hello, not a log\n", encoding="utf-8")
    assert "not a village log" in _one_line(_run(p))


def test_a_log_its_importance_table_cannot_perceive_is_one_line_naming_the_option(tmp_path):
    log = write_log(tmp_path / "talk.log", _frames())
    out = _one_line(_run(log))
    assert "cannot be perceived under the home's importance table" in out
    assert "--importance" in out
