"""`village index` and `village sql`, through click's CliRunner."""

from __future__ import annotations

from click.testing import CliRunner

from kernel import log as vlog
from kernel.cli import main


def test_every_store_command_answers_dash_h():
    for args in (["index", "-h"], ["sql", "-h"], ["sql", "--help"]):
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 0 and "Usage:" in res.output, args


def test_index_builds_the_duckdb_file_beside_the_log(log):
    res = CliRunner().invoke(main, ["index", str(log)])
    assert res.exit_code == 0, res.output
    assert log.with_suffix(".duckdb").exists()
    assert vlog.verify(log).head_hex[:16] in res.output and "memory rows" in res.output


def test_sql_builds_a_missing_index_and_prints_an_aligned_table(log):
    res = CliRunner().invoke(main, ["sql", str(log),
                                    "SELECT id, name FROM villagers ORDER BY id"])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines == ["id  name", "--  -----", " 1  Halla", " 2  Ander", " 3  Mose", "(3 rows)"]
    assert "rebuilt" in res.stderr


def test_sql_on_a_fresh_index_does_not_rebuild(log):
    CliRunner().invoke(main, ["index", str(log)])
    res = CliRunner().invoke(main, ["sql", str(log), "SELECT count(*) AS n FROM memory"])
    assert res.exit_code == 0 and "rebuilt" not in res.stderr


def test_a_bad_query_is_one_line_of_error(log):
    CliRunner().invoke(main, ["index", str(log)])
    res = CliRunner().invoke(main, ["sql", str(log), "SELEC nothing"])
    assert res.exit_code == 1 and res.stderr.startswith("Error: the query did not run")
    assert len(res.stderr.strip().splitlines()) == 1 and res.stdout == ""


def test_a_log_that_does_not_exist_is_a_usage_error(tmp_path):
    res = CliRunner().invoke(main, ["index", str(tmp_path / "nope.log")])
    assert res.exit_code == 2 and "does not exist" in res.output
