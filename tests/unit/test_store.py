"""The DuckDB projection: built from the log alone, rebuilt whole, stale when the log moves on."""

from __future__ import annotations

import duckdb
import pytest

from kernel import engine, store
from kernel import events as ev
from kernel import log as vlog
from kernel.laws.memory import Memory
from kernel.store.query import QueryError

RULES = engine.load_rules()
DIGEST = engine.rules_digest()


def test_the_index_holds_the_memory_the_log_folds_to(log):
    res = store.build(log, rules=RULES, rules_digest=DIGEST)
    mem = engine.memory_of(log, rules=RULES)
    assert res.db_path == log.with_suffix(".duckdb") and res.memory_rows == len(mem.rows)
    got = store.query(res.db_path, "SELECT id, villager, tick, kind, event, text, weight, about, "
                                   "drawn_from FROM memory ORDER BY id")
    want = [(m.id, m.villager, m.tick, m.kind, m.event, m.text, m.weight, list(m.about),
             list(m.drawn_from)) for m in mem.rows]
    assert [tuple(r) for r in got.rows] == want


def test_the_events_table_has_every_event_with_its_fields(log):
    res = store.build(log, rules=RULES, rules_digest=DIGEST)
    summary = vlog.verify(log)
    got = store.query(res.db_path, "SELECT count(*), count(DISTINCT tick) FROM events")
    assert got.rows[0][0] == summary.events
    names = store.query(res.db_path, "SELECT fields->>'name' FROM events WHERE kind = 'founded' "
                                    "ORDER BY villager")
    assert [r[0] for r in names.rows] == ["Halla", "Ander", "Mose"]
    people = store.query(res.db_path, "SELECT id, name, founded FROM villagers ORDER BY id")
    assert people.rows == ((1, "Halla", 0), (2, "Ander", 0), (3, "Mose", 0))


def test_meta_records_the_logs_head_hash(log):
    res = store.build(log, rules=RULES, rules_digest=DIGEST)
    meta = dict(store.query(res.db_path, "SELECT key, value FROM meta").rows)
    assert meta["log_head"] == vlog.verify(log).head_hex == res.head_hex
    assert meta["rules_digest"] == DIGEST


def test_an_index_goes_stale_when_the_log_grows_and_ensure_rebuilds_it(log):
    store.build(log, rules=RULES, rules_digest=DIGEST)
    assert store.state_of(log, rules_digest=DIGEST).status == "fresh"
    with vlog.LogWriter.open(log) as w:
        w.append(600, [ev.Begged(villager=1, x=0, y=0)])
    st = store.state_of(log, rules_digest=DIGEST)
    assert st.status == "stale" and "head" in st.reason
    db, st, built = store.ensure(log, rules=RULES, rules_digest=DIGEST)
    assert built is not None and store.state_of(log, rules_digest=DIGEST).status == "fresh"
    last = store.query(db, "SELECT max(tick) FROM events").rows[0][0]
    assert last == 600


def test_a_missing_index_is_built_by_ensure_and_a_fresh_one_is_left_alone(log):
    db, st, built = store.ensure(log, rules=RULES, rules_digest=DIGEST)
    assert st.status == "missing" and built is not None
    stamp = db.stat().st_mtime_ns
    db2, st2, built2 = store.ensure(log, rules=RULES, rules_digest=DIGEST)
    assert st2.status == "fresh" and built2 is None and db2.stat().st_mtime_ns == stamp


def test_a_rebuild_replaces_the_file_whole_and_leaves_no_temporary_behind(log):
    db = log.with_suffix(".duckdb")
    con = duckdb.connect(str(db))     # a database that is no index of this log: stale
    con.execute("CREATE TABLE t (a INTEGER)")
    con.close()
    assert store.state_of(log).status == "stale"
    store.build(log, rules=RULES)
    assert sorted(p.name for p in log.parent.iterdir()) == ["run.duckdb", "run.log"]
    assert store.query(db, "SELECT count(*) FROM memory").rows[0][0] > 0


def test_sql_over_the_index_is_read_only(log):
    res = store.build(log, rules=RULES)
    with pytest.raises(QueryError, match="read-only"):
        store.query(res.db_path, "DELETE FROM memory")


def test_a_bad_query_is_one_line_naming_the_problem(log):
    res = store.build(log, rules=RULES)
    with pytest.raises(QueryError) as e:
        store.query(res.db_path, "SELECT nope FROM memory")
    assert "\n" not in str(e.value) and "nope" in str(e.value)


def test_a_result_prints_as_aligned_columns():
    out = store.table(store.Result(("id", "text", "about"),
                                   ((1, "ate 50 mouthfuls", [2]), (12, "went", []))))
    assert out.splitlines() == [
        "id  text              about",
        "--  ----------------  -----",
        " 1  ate 50 mouthfuls  [2]",
        "12  went              []",
        "(2 rows)",
    ]


def test_memory_columns_load_as_duckdb_lists():
    con = duckdb.connect()
    t = store.memory_table([Memory(1, 1, 0, "did", "meal", "ate", 1, (), ()),
                            Memory(2, 1, 0, "thought", "reflection", "x", 6, (1, 2), (1,))])
    con.register("t", t)
    assert con.execute("SELECT about, drawn_from FROM t ORDER BY id").fetchall() == [
        ([], []), ([1, 2], [1])]


def test_an_index_under_other_importance_rules_folds_its_own_rows_rather_than_the_runs():
    import dataclasses

    from kernel.store.index import RunIndex

    rules = engine.load_rules()
    runs = engine.MemoryProjection(rules)
    same = RunIndex(rules)
    same.follow_engine(runs, None)
    assert same.memory is runs and runs not in same.parts
    other = RunIndex(dataclasses.replace(rules, first_bonus=rules.first_bonus + 1))
    other.follow_engine(runs, None)
    assert other.memory is not runs and other.memory in other.parts


def test_the_index_a_run_folds_is_the_stores_with_its_scenarios_rules_valences_and_day(tmp_path):
    from kernel.engine.felt import felt_of

    week = engine.load_scenario("week-of-three")
    idx = store.run_index(week, tmp_path / "week.log")
    assert idx.memory.rules == week.rules and idx.rules_digest == week.rules_digest
    assert idx.felt.valences == felt_of(week).valences
    assert idx.felt.ticks_per_day == week.world.ticks_per_day
    from kernel.testing import variant
    bare = engine.load_scenario(variant("village-day", tmp_path / "bare",
                                        importance=lambda doc: doc.pop("valence")))
    assert store.run_index(bare, tmp_path / "day.log").felt is None
