"""The bond book: what passes between two villagers, folded from the log into a bond per
ordered pair, and the words a talk prompt names it by."""

from __future__ import annotations

import pytest

from kernel.engine.projection import MemoryProjection, fold
from kernel.errors import LawError, VillageError
from kernel.laws import bonds as lb
from kernel.laws.felt import Valences
from kernel.mind.bonds import BondBook
from tests import bonds_log as bl
from tests.bonds_log import ANDER, KNUT, MOSE, TPD

GIFT_GIVEN, GIFT_GOT, TALK, TAKE_DONE, TAKE_SUFFERED, PLEA_HEARD = 300, 700, 200, 100, -700, -300


def folded(tmp_path, frames=None, valences: Valences | None = None) -> BondBook:
    log = bl.write(tmp_path / "bonds.log", frames)
    mem = MemoryProjection(bl.importance())
    book = BondBook(valences or bl.valences(), TPD).follow(mem)
    fold(log, [mem, book])
    return book


@pytest.fixture
def book(tmp_path) -> BondBook:
    return folded(tmp_path)


def test_a_gift_and_words_warm_the_giver_and_the_receiver_each_by_what_it_felt(book):
    # Ander handed the gift, said words and heard Knut's answer; Knut got the gift, heard and
    # answered: each pushes the holder's bond by its own row's valence, in id order
    ander = lb.carried(0, [GIFT_GIVEN, TALK, TALK])
    knut = lb.carried(0, [GIFT_GOT, TALK, TALK])
    assert (ander, knut) == (227, 348)
    assert book.bond(ANDER, KNUT, 1) == lb.faded(ander, 1)
    assert book.bond(KNUT, ANDER, 1) == lb.faded(knut, 1)


def test_a_take_suffered_and_a_plea_heard_cool_the_one_robbed_and_the_taker_gains_a_little(book):
    assert book.bond(KNUT, MOSE, 1) == lb.faded(lb.carried(0, [TAKE_SUFFERED, PLEA_HEARD]), 1) < 0
    assert book.bond(MOSE, KNUT, 1) == lb.faded(lb.carried(0, [TAKE_DONE]), 1) > 0


def test_what_a_villager_only_witnessed_between_others_moves_none_of_its_bonds(book):
    # Ander saw Mose's take from Knut and counts only Mose's plea it heard; Mose saw the gift
    # between Ander and Knut and holds no bond to Ander at all
    assert book.bond(ANDER, MOSE, 1) == lb.faded(lb.carried(0, [PLEA_HEARD]), 1)
    assert book.now(MOSE, ANDER, TPD) is None
    assert book.bond(MOSE, ANDER, 1) == 0


def test_a_bond_at_the_start_of_its_first_day_is_zero_and_after_it_what_passed_faded(book):
    assert book.bond(ANDER, KNUT, 0) == 0
    assert [book.bond(ANDER, KNUT, d) for d in (1, 2)] == [lb.faded(227, 1), lb.faded(227, 2)]
    # day 2's words come after the day's start, and are in the next day's
    assert book.bond(ANDER, KNUT, 3) == lb.night(lb.passed(lb.faded(227, 2), TALK))


def test_now_is_the_bond_after_every_row_folded_faded_to_the_ticks_day(book):
    assert book.now(ANDER, KNUT, 3 * TPD - 1) == lb.passed(lb.faded(227, 2), TALK) == 203
    assert book.now(ANDER, KNUT, 5 * TPD) == lb.faded(203, 3)


def test_now_refuses_a_tick_before_a_row_it_has_folded_and_names_the_bond_of_a_day(book):
    with pytest.raises(VillageError, match="ask bond"):
        book.now(ANDER, KNUT, TPD)


def test_of_gives_a_villagers_standing_bonds_at_a_days_start(book):
    assert book.of(KNUT, 1) == {ANDER: lb.faded(348, 1), MOSE: lb.faded(-325, 1)}
    assert book.of(MOSE, 0) == {}


def test_days_hold_a_row_per_pair_per_day_while_the_bond_stands_with_the_days_counts(book):
    rows = {(r.villager, r.other, r.day): r for r in book.days()}
    first = rows[(KNUT, ANDER, 0)]
    assert (first.start, first.end) == (0, 348)
    assert dict(zip(lb.NAMES, first.counts, strict=True)) == {
        "gave": 0, "got": 1, "took": 0, "lost": 0, "pleas": 0, "said": 1, "heard": 1}
    quiet = rows[(KNUT, ANDER, 1)]
    assert quiet.start == quiet.end == lb.faded(348, 1) and quiet.passed == 0
    assert {d for (v, o, d) in rows if (v, o) == (MOSE, KNUT)} == {0, 1, 2}
    assert (MOSE, ANDER, 0) not in rows
    assert [(r.day, r.villager, r.other) for r in book.days()] == sorted((d, v, o) for v, o, d in rows)


def test_a_log_where_nothing_passes_between_villagers_has_no_bond(tmp_path):
    book = folded(tmp_path, bl.quiet_frames())
    assert book.pairs == {} and book.days() == ()
    assert book.now(ANDER, KNUT, TPD - 1) is None


def test_a_passing_the_valence_table_has_no_value_for_moves_no_bond_and_is_counted(tmp_path):
    value = bl.importance_value()["valence"]
    del value["did"]["talk"], value["heard"]["talk"]
    book = folded(tmp_path, valences=Valences.from_value(value))
    assert book.unvalued == 6
    assert book.bond(ANDER, KNUT, 1) == lb.faded(lb.carried(0, [GIFT_GIVEN]), 1)


def test_a_book_that_follows_no_memory_says_so():
    with pytest.raises(VillageError, match="follow one"):
        BondBook(bl.valences(), TPD).apply(0, [])


# --- words ----------------------------------------------------------------------------


def test_words_name_a_bond_by_its_band_and_say_where_nothing_has_passed():
    assert lb.words(None, "Ander") == "nothing has passed between you and Ander yet"
    assert lb.words(400, "Ander") == "you are close to Ander"
    assert lb.words(1000, "Ander") == "you are close to Ander"
    assert lb.words(150, "Ander") == "you are on good terms with Ander"
    assert lb.words(0, "Ander") == "you know Ander, neither close nor distant"
    assert lb.words(149, "Ander") == lb.words(-149, "Ander") == lb.words(0, "Ander")
    assert lb.words(-150, "Knut") == "you are wary of Knut"
    assert lb.words(-400, "Knut") == "you keep away from Knut"
    assert lb.words(-1000, "Knut") == "you keep away from Knut"


def test_words_refuse_a_bond_out_of_bounds_and_a_missing_name_in_one_line():
    with pytest.raises(LawError, match="bond in -1000..1000"):
        lb.words(1001, "Ander")
    with pytest.raises(LawError, match="name"):
        lb.words(0, "")


def test_bands_out_of_order_are_refused_naming_them():
    with pytest.raises(LawError, match="away < wary < 0 < good < close"):
        lb.Bonds(good=500, close=400)
