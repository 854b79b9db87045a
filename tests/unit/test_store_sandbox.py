"""The index and SQL over it, refused at the library: no statement reaches outside the index,
and no index path ever lands on a log.

These are the library's calls, as a script makes them; tests/hostile/test_store_refusals.py
holds the same rules through the real `village index` and `village sql`.
"""

from __future__ import annotations

import os

import pytest

from kernel import events as ev
from kernel import log as vlog
from kernel.store.paths import IndexPathError, check_index_path
from kernel.store.query import QueryError, connect, query


@pytest.fixture
def log(tmp_path):
    p = tmp_path / "run.log"
    with vlog.LogWriter.create(p, config_digest="ab" * 32, seed=5) as w:
        for t in range(3):
            w.append(t, [ev.Walked(villager=1, from_x=t, from_y=0, to_x=t + 1, to_y=0)])
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
