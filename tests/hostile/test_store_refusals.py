"""`village index` and `village sql`, run as a user runs them: no index path ever lands on a log,
no statement reaches outside the index, and only reads run.

Each test runs the installed program as a process of its own and counts in
the suite's tally; the library's own refusals are tests/unit/test_store_sandbox.py.
"""

from __future__ import annotations

import os
import shutil

import pytest

from tests.process import one_error_line, sha256_of, village

from .conftest import row

pytestmark = pytest.mark.slow   # a real process, server, model or browser each test


@pytest.fixture
def log(small_world_log, tmp_path):
    p = tmp_path / "run.log"
    shutil.copyfile(small_world_log, p)
    return p


def _names(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("how", ["a symbolic link", "a hard link", "the log spelled another way"])
def test_an_index_onto_the_log_by_any_name_is_the_log_itself_and_the_log_is_unchanged(log, tmp_path, how):
    out = {"a symbolic link": "link.duckdb", "a hard link": "hard.duckdb",
           "the log spelled another way": f"../{tmp_path.name}/./run.log"}[how]
    if how == "a symbolic link":
        (tmp_path / out).symlink_to(log)
    elif how == "a hard link":
        os.link(log, tmp_path / out)
    before, names = sha256_of(log), _names(tmp_path)
    with row():
        line = one_error_line(village("index", "run.log", "--out", out, cwd=tmp_path))
        assert "is the log itself" in line, line
        assert sha256_of(log) == before and _names(tmp_path) == names


WAYS_OUT = ["SELECT * FROM read_text('/etc/hostname')", "SELECT * FROM read_csv('/etc/passwd')",
            "SELECT * FROM read_blob('/etc/hostname')"]


@pytest.mark.parametrize("sql", WAYS_OUT)
def test_a_select_that_reads_a_file_outside_the_index_is_refused_by_the_sandbox(log, sql):
    before = sha256_of(log)
    with row():
        r = village("sql", str(log), sql)
        assert r.returncode == 1 and "Traceback" not in r.stderr and r.stdout == "", r.stderr
        # the index is built first (its one note line), then the statement is refused
        built, line = r.stderr.splitlines()
        assert built.startswith("index missing (no index at ") and line.startswith("Error: "), r.stderr
        assert "the query was refused: SQL over a run reads its index and nothing else" in line, line
        assert sha256_of(log) == before
        assert _names(log.parent) == ["run.duckdb", "run.log"], "the index, and nothing read outside it"


@pytest.mark.parametrize("sql", ["   ", " ; ;; ", "\n"])
def test_a_query_of_nothing_but_blanks_and_semicolons_is_refused_as_empty(log, sql):
    names = _names(log.parent)
    with row():
        line = one_error_line(village("sql", str(log), sql))
        assert "the query is empty" in line, line
        assert _names(log.parent) == names, "refused before the index is built"


NOT_READS = [
    ("CHECKPOINT", "CALL"), ("FORCE CHECKPOINT", "CALL"), ("CALL pragma_version()", "CALL"),
    ("PRAGMA version", "PRAGMA"), ("SET threads = 1", "SET"), ("RESET threads", "SET"),
    ("ATTACH 'other.db'", "ATTACH"), ("COPY memory TO 'out.csv'", "COPY"), ("INSTALL httpfs", "LOAD"),
    ("EXPORT DATABASE 'exp'", "EXPORT"), ("BEGIN", "TRANSACTION"), ("VACUUM", "VACUUM"),
    ("DELETE FROM memory", "DELETE"), ("SELECT 1; CHECKPOINT", "CALL"),
    ("EXPLAIN COPY memory TO 'out.csv'", "EXPLAIN"), ("UPDATE EXTENSIONS", "a kind this duckdb has no name for"),
    ("LOAD httpfs", "LOAD"), ("RESET lock_configuration", "SET"), ("SET lock_configuration = false", "SET"),
]


@pytest.mark.parametrize(("sql", "kind"), NOT_READS, ids=[s for s, _ in NOT_READS])
def test_sql_runs_only_reads_and_refuses_any_other_statement_in_one_line_naming_its_type(log, sql, kind):
    before, names = sha256_of(log), sorted(p.name for p in log.parent.iterdir())
    with row():
        r = village("sql", str(log), sql)
        assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
        lines = r.stderr.splitlines()
        assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
        assert "only SELECT, or EXPLAIN of a SELECT, runs on its read-only connection" in lines[0]
        said = (f"this is a{'n' if kind[0] in 'AEIOU' else ''} {kind} statement" if kind.isupper()
                else f"this is a statement of {kind}")
        assert lines[0].startswith("Error: the query ") and said in lines[0], lines[0]
        assert r.stdout == ""
        assert sha256_of(log) == before, "the log is unchanged"
        assert sorted(p.name for p in log.parent.iterdir()) == names, "refused before the index is built"


def test_sql_still_answers_a_select_and_the_explain_of_one(log):
    before = sha256_of(log)
    with row():
        r = village("sql", str(log), "SELECT count(*) AS n FROM memory")
        assert r.returncode == 0 and "(1 row)" in r.stdout, r.stderr
    with row():
        r = village("sql", str(log), "EXPLAIN SELECT count(*) FROM memory")
        assert r.returncode == 0 and "physical_plan" in r.stdout, r.stderr
        assert sha256_of(log) == before
