"""The index's `bonds` table: one row per ordered pair of villagers per day, the bond book's."""

from __future__ import annotations

import duckdb
import pytest

from kernel import store
from kernel.engine.projection import MemoryProjection, fold
from kernel.laws import bonds as lb
from kernel.mind.bonds import BondBook
from tests import bonds_log as bl
from tests.bonds_log import ANDER, KNUT, MOSE, TPD


def _rows(db, sql):
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


@pytest.fixture
def db(tmp_path):
    log = bl.write(tmp_path / "bonds.log")
    return store.build(log, rules=bl.importance(), valences=bl.valences(),
                       ticks_per_day=TPD).db_path


def test_the_bonds_table_holds_a_row_per_ordered_pair_per_day_with_what_passed(db):
    got = _rows(db, "SELECT villager, name, other, other_name, day, bond, bond_at_start, gave, "
                    "got, took, lost, pleas, said, heard FROM bonds WHERE day = 0 "
                    "ORDER BY villager, other")
    assert got == [
        (ANDER, "Ander", KNUT, "Knut", 0, 0.227, 0.0, 1, 0, 0, 0, 0, 1, 1),
        (ANDER, "Ander", MOSE, "Mose", 0, -0.105, 0.0, 0, 0, 0, 0, 1, 0, 0),
        (KNUT, "Knut", ANDER, "Ander", 0, 0.348, 0.0, 0, 1, 0, 0, 0, 1, 1),
        (KNUT, "Knut", MOSE, "Mose", 0, -0.325, 0.0, 0, 0, 0, 1, 1, 0, 0),
        (MOSE, "Mose", KNUT, "Knut", 0, 0.035, 0.0, 0, 0, 1, 0, 0, 0, 0),
    ]


def test_a_day_with_nothing_passing_holds_the_bond_faded_by_its_night(db):
    got = _rows(db, f"SELECT day, bond, bond_at_start, gave + got + took + lost + pleas + said "
                    f"+ heard FROM bonds WHERE villager = {ANDER} AND other = {KNUT} ORDER BY day")
    faded1 = lb.faded(227, 1)
    talked = lb.passed(lb.faded(227, 2), bl.TALK_VALENCE)
    assert got == [(0, 0.227, 0.0, 3), (1, faded1 / 1000, faded1 / 1000, 0),
                   (2, talked / 1000, lb.faded(227, 2) / 1000, 1)]


def test_the_table_is_the_bond_books_days(db, tmp_path):
    mem = MemoryProjection(bl.importance())
    book = BondBook(bl.valences(), TPD).follow(mem)
    fold(tmp_path / "bonds.log", [mem, book])
    want = sorted((r.villager, r.other, r.day, r.end / 1000, r.start / 1000) for r in book.days())
    assert _rows(db, "SELECT villager, other, day, bond, bond_at_start FROM bonds "
                     "ORDER BY ALL") == want


def test_a_log_where_nothing_passes_and_one_without_valences_have_the_table_empty(tmp_path):
    quiet = bl.write(tmp_path / "quiet.log", bl.quiet_frames())
    db = store.build(quiet, rules=bl.importance(), valences=bl.valences(),
                     ticks_per_day=TPD).db_path
    assert _rows(db, "SELECT count(*) FROM bonds") == [(0,)]
    log = bl.write(tmp_path / "bonds.log")
    db = store.build(log, tmp_path / "plain.duckdb", rules=bl.importance(),
                     ticks_per_day=TPD).db_path
    assert _rows(db, "SELECT count(*) FROM bonds") == [(0,)]
