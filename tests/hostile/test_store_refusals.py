"""The index and SQL over it, refused at the library: no statement reaches outside the index,
and no index path ever lands on a log; and `village sql`, run as a user runs it, runs only reads."""

from __future__ import annotations

import os
import shutil

import pytest

from kernel.store.paths import IndexPathError, check_index_path
from kernel.store.query import QueryError, connect, query
from tests.process import sha256_of, village


@pytest.fixture
def log(small_world_log, tmp_path):
    p = tmp_path / "run.log"
    shutil.copyfile(small_world_log, p)
    return p


@pytest.fixture
def db(tmp_path):
    import duckdb

    p = tmp_path / "x.duckdb"
    con = duckdb.connect(str(p))
    con.execute("CREATE TABLE t (a INTEGER)")
    con.execute("INSERT INTO t VALUES (1), (2)")
    con.close()
    return p


def test_an_index_path_that_is_a_link_to_the_log_is_the_log_itself(log, tmp_path):
    (tmp_path / "link.duckdb").symlink_to(log)
    os.link(log, tmp_path / "hard.duckdb")
    for name in ("link.duckdb", "hard.duckdb"):
        with pytest.raises(IndexPathError, match="is the log itself"):
            check_index_path(log, tmp_path / name)


def test_an_index_path_spelled_another_way_is_still_the_log(log, monkeypatch):
    monkeypatch.chdir(log.parent)
    with pytest.raises(IndexPathError, match="is the log itself"):
        check_index_path("run.log", log)


def test_a_log_named_duckdb_has_itself_as_its_default_index(log):
    p = log.with_name("day1.duckdb")
    log.rename(p)
    with pytest.raises(IndexPathError, match="is the log itself"):
        check_index_path(p)


def test_an_index_replaces_only_an_index_or_an_empty_file_and_no_other_file(log, db, tmp_path):
    (tmp_path / "old.duckdb").write_bytes(b"an old index")
    with pytest.raises(IndexPathError, match="holds something else .*an index replaces only an index"):
        check_index_path(log, tmp_path / "old.duckdb")
    (tmp_path / "empty.duckdb").write_bytes(b"")
    for p in (db, tmp_path / "empty.duckdb"):
        assert check_index_path(log, p) == p


def test_the_sandbox_holds_for_every_way_out(db, tmp_path):
    target = tmp_path / "out.csv"
    for sql in (f"COPY (SELECT 1) TO '{target}'", "SELECT * FROM read_text('/etc/hostname')",
                "SELECT * FROM read_csv('/etc/passwd')", f"ATTACH '{tmp_path / 'y.db'}'",
                f"EXPORT DATABASE '{tmp_path / 'exp'}'", "INSTALL httpfs", "LOAD httpfs"):
        with pytest.raises(QueryError, match="^the query was refused: SQL over a run reads its index"):
            query(db, sql)
    for sql in ("SET enable_external_access = true", "RESET lock_configuration",
                "SET lock_configuration = false"):
        with pytest.raises(QueryError, match="configuration has been locked"):
            query(db, sql)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.duckdb"], "nothing was written"


def test_the_sandbox_still_answers_what_the_index_holds(db):
    assert query(db, "SELECT sum(a) FROM t").rows == ((3,),)
    con = connect(db)
    try:
        assert con.execute("SELECT current_setting('enable_external_access')").fetchone() == (False,)
    finally:
        con.close()


@pytest.mark.parametrize("sql", ["", "   ", ";", " ; ;; ", "\n"])
def test_an_empty_query_is_refused_before_the_index_is_opened(tmp_path, sql):
    with pytest.raises(QueryError, match="^the query is empty"):
        query(tmp_path / "never-opened.duckdb", sql)


def test_an_index_that_is_a_folder_or_missing_is_one_line(tmp_path):
    with pytest.raises(QueryError, match="is a folder, not an index file"):
        query(tmp_path, "SELECT 1")
    with pytest.raises(QueryError, match="^no index at"):
        query(tmp_path / "none.duckdb", "SELECT 1")


# -- `village sql` through the real command: only reads run --------------------------

NOT_READS = [
    ("CHECKPOINT", "CALL"), ("FORCE CHECKPOINT", "CALL"), ("CALL pragma_version()", "CALL"),
    ("PRAGMA version", "PRAGMA"), ("SET threads = 1", "SET"), ("RESET threads", "SET"),
    ("ATTACH 'other.db'", "ATTACH"), ("COPY memory TO 'out.csv'", "COPY"), ("INSTALL httpfs", "LOAD"),
    ("EXPORT DATABASE 'exp'", "EXPORT"), ("BEGIN", "TRANSACTION"), ("VACUUM", "VACUUM"),
    ("DELETE FROM memory", "DELETE"), ("SELECT 1; CHECKPOINT", "CALL"),
    ("EXPLAIN COPY memory TO 'out.csv'", "EXPLAIN"), ("UPDATE EXTENSIONS", "a kind this duckdb has no name for"),
]


@pytest.mark.parametrize(("sql", "kind"), NOT_READS, ids=[s for s, _ in NOT_READS])
def test_sql_runs_only_reads_and_refuses_any_other_statement_in_one_line_naming_its_type(log, sql, kind):
    before, names = sha256_of(log), sorted(p.name for p in log.parent.iterdir())
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
    r = village("sql", str(log), "SELECT count(*) AS n FROM memory")
    assert r.returncode == 0 and "(1 row)" in r.stdout, r.stderr
    r = village("sql", str(log), "EXPLAIN SELECT count(*) FROM memory")
    assert r.returncode == 0 and "physical_plan" in r.stdout, r.stderr
    assert sha256_of(log) == before
