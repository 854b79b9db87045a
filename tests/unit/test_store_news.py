"""The index's `news` table: one row a holder of a piece of news, the spread the law works out."""

from __future__ import annotations

import duckdb

from kernel import store
from kernel.laws import news as ln
from tests.news_logs import TABLE, founded, meet, news, perceived, say, write_log

TPD = 10


def _frames():
    return [(0, [*founded((0, 0), (1, 0), (2, 0)), news(1), *meet(1, 2), *meet(2, 3)]),
            (4, [say(1, 2, "a feast at the mill")]),
            (13, [say(2, 3, "they say there is a FEAST")]),
            (15, [say(3, 1, "nothing much")])]


def _rows(db, sql):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_the_news_table_holds_each_holder_with_its_tick_day_teller_and_how(tmp_path):
    log = write_log(tmp_path / "talk.log", _frames())
    db = store.build(log, rules=TABLE, ticks_per_day=TPD).db_path
    assert _rows(db, "SELECT * FROM news ORDER BY tick") == [
        ("feast", 1, "Ander", 0, 0, None, None, "given"),
        ("feast", 2, "Brita", 4, 0, 1, "Ander", "words"),
        ("feast", 3, "Knut", 13, 1, 2, "Brita", "words"),
    ]


def test_the_news_table_is_the_laws_spread_of_the_same_log(tmp_path):
    frames = _frames()
    log = write_log(tmp_path / "talk.log", frames)
    db = store.build(log, rules=TABLE, ticks_per_day=TPD).db_path
    d = ln.spread(frames, perceived(frames), ticks_per_day=TPD)
    want = sorted((s.news, h.villager, h.tick, h.teller, h.by) for s in d.news for h in s.holders)
    assert _rows(db, "SELECT news, villager, tick, teller, \"by\" FROM news ORDER BY ALL") == want


def test_a_run_without_news_has_the_news_table_and_it_is_empty(tmp_path):
    frames = [(0, [*founded((0, 0), (1, 0)), *meet(1, 2)]), (2, [say(1, 2, "hello there")])]
    log = write_log(tmp_path / "quiet.log", frames)
    db = store.build(log, rules=TABLE, ticks_per_day=TPD).db_path
    assert _rows(db, "SELECT count(*) FROM news") == [(0,)]


def test_sql_reads_the_news_table(tmp_path):
    log = write_log(tmp_path / "talk.log", _frames())
    db = store.build(log, rules=TABLE, ticks_per_day=TPD).db_path
    got = store.query(db, 'SELECT name, teller_name FROM news WHERE "by" = \'words\' ORDER BY tick')
    assert got.rows == (("Brita", "Ander"), ("Knut", "Brita"))
