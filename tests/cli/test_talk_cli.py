"""The talking village through the command line: a replayed run says each day's talk, and the
index, `village sql` and `village news` read its log under the scenario's own importance
table, which the log's header names, with no flag."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from kernel.cli import main


@pytest.fixture(scope="module")
def eight(tmp_path_factory):
    log = tmp_path_factory.mktemp("eight") / "eight.log"
    r = CliRunner().invoke(main, ["run", "village-of-eight", "--oracle", "replay",
                                  "--out", str(log)])
    assert r.exit_code == 0, r.output
    return log, r.output


def test_a_run_that_talks_says_each_days_starts_answers_and_refusals(eight):
    _, out = eight
    lines = [x for x in out.splitlines() if "talk on day" in x]
    assert len(lines) == 3
    assert all("starts and" in x and "answers asked at" in x and "said" in x for x in lines)


def test_the_index_of_a_scenarios_log_is_built_under_the_scenarios_own_table(eight):
    log, _ = eight
    r = CliRunner().invoke(main, ["sql", str(log), "SELECT count(*) AS n FROM bonds WHERE said > 0"])
    assert r.exit_code == 0, r.output
    assert int(r.output.split()[-3]) > 0


def test_village_news_prints_the_curve_and_the_tree_of_who_told_whom(eight):
    log, _ = eight
    r = CliRunner().invoke(main, ["news", str(log)])
    assert r.exit_code == 0, r.output
    assert "news 'feast'" in r.output and "who told whom first" in r.output
    assert "Halla  tick 0, day 1 (given it)" in r.output
