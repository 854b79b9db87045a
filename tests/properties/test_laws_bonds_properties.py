"""The bond law in thousandths: bounds, fading, signs and ordered pairs, as rules."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kernel.laws import bonds as lb
from kernel.laws.felt import Valences
from kernel.laws.memory import Memory
from kernel.mind.bonds import BondBook

bonds = st.integers(-1000, 1000)
valences = st.integers(-1000, 1000)
nights = st.integers(0, 60)
laws = st.builds(lb.Bonds, half_life_days=st.integers(1, 30), rate=st.integers(0, 1000))


@given(bonds, st.lists(st.one_of(valences.map(lambda v: ("pass", v)),
                                 st.just(("night", 0))), max_size=40), laws)
def test_the_bond_always_lies_in_minus_1000_to_1000(b, steps, law):
    for what, v in steps:
        b = lb.passed(b, v, law) if what == "pass" else lb.night(b, law)
        assert -1000 <= b <= 1000


@given(bonds, nights, laws)
def test_with_nothing_passing_a_bond_only_fades_toward_zero_and_never_crosses_it(b, n, law):
    after = lb.faded(b, n, law)
    assert abs(after) <= abs(b)
    assert after == 0 or (after > 0) == (b > 0)


@given(st.integers(-1000, 1000).filter(bool), laws)
def test_a_bond_that_is_never_renewed_ends_at_zero(b, law):
    assert lb.faded(b, 1000 * law.half_life_days + 10, law) == 0


@given(bonds, nights, nights, laws)
def test_fading_is_monotone_in_days(b, m, n, law):
    early, late = sorted((m, n))
    assert abs(lb.faded(b, late, law)) <= abs(lb.faded(b, early, law))


@given(bonds, nights, nights, laws)
def test_fading_over_days_is_one_night_after_another(b, m, n, law):
    assert lb.faded(b, m + n, law) == lb.faded(lb.faded(b, m, law), n, law)


@given(bonds, valences, laws)
def test_a_pairs_bond_moves_with_the_sign_of_the_valence_of_what_passed(b, v, law):
    after = lb.passed(b, v, law)
    p = lb.push(v, law)
    if p > 0:
        assert after > b or b == 1000
    elif p < 0:
        assert after < b or b == -1000
    else:
        assert after == b


@given(bonds, bonds, valences, laws)
def test_passing_keeps_the_order_of_bonds(a, b, v, law):
    lo, hi = sorted((a, b))
    assert lb.passed(lo, v, law) <= lb.passed(hi, v, law)


@given(valences, laws)
def test_a_push_is_the_rate_share_of_the_valence_and_never_more(v, law):
    p = lb.push(v, law)
    assert abs(p) <= abs(v) and (p == 0 or (p > 0) == (v > 0))


@given(bonds, bonds)
def test_the_words_for_a_bond_keep_the_order_of_bonds(a, b):
    bands = ["you keep away", "you are wary", "you know", "you are on good terms",
             "you are close"]

    def band(x: int) -> int:
        said = lb.words(x, "Ander")
        return next(i for i, w in enumerate(bands) if said.startswith(w))

    lo, hi = sorted((a, b))
    assert band(lo) <= band(hi)


# --- ordered pairs, through the bond book -----------------------------------------------

KINDS = [("did", "gift"), ("saw", "gift"), ("did", "take"), ("saw", "take"), ("heard", "plea"),
         ("did", "talk"), ("heard", "talk"), ("saw", "sighting")]
TABLE = Valences.from_value({
    "did": {"gift": {"actor": 300}, "take": {"actor": 100}, "talk": {"actor": 200}},
    "saw": {"gift": {"target": 700, "witness": 200}, "take": {"target": -700, "witness": -300},
            "sighting": {"witness": 100}},
    "heard": {"plea": {"witness": -300}, "talk": {"witness": 150}},
})
TPD = 10


class _Rows:
    """A memory projection's rows, as the bond book reads them."""

    def __init__(self, rows):
        self.rows = rows


def _row(i: int, v: int, o: int, tick: int, kind: str, event: str) -> Memory:
    # a saw row of a gift or a take is about both parties, the rest about the other alone
    about = tuple(sorted({v, o})) if kind == "saw" and event != "sighting" else (o,)
    return Memory(i, v, tick, kind, event, "x", 1, about)


rows_drawn = st.lists(st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(0, 5),
                                st.sampled_from(KINDS)).filter(lambda r: r[0] != r[1]),
                      max_size=30).map(lambda rs: sorted(rs, key=lambda r: r[2]))


def _book(rows) -> BondBook:
    mem = _Rows([_row(i, v, o, t * TPD, k, e) for i, (v, o, t, (k, e)) in enumerate(rows, 1)])
    book = BondBook(TABLE, TPD).follow(mem)
    book.apply(6 * TPD, ())
    return book


@given(rows_drawn)
def test_ordered_pairs_are_independent(rows):
    whole = _book(rows)
    for a in (1, 2, 3):
        for b in (1, 2, 3):
            if a == b:
                continue
            alone = _book([r for r in rows if (r[0], r[1]) == (a, b)])
            for day in range(8):
                assert whole.bond(a, b, day) == alone.bond(a, b, day)


@given(rows_drawn)
def test_a_sighting_alone_never_makes_a_bond(rows):
    book = _book([r for r in rows if r[3] == ("saw", "sighting")])
    assert book.pairs == {}


@given(rows_drawn)
def test_the_table_of_days_is_the_bond_of_each_day_as_the_book_answers_it(rows):
    book = _book(rows)
    for r in book.days():
        assert r.start == book.bond(r.villager, r.other, r.day)
        assert lb.night(r.end) == book.bond(r.villager, r.other, r.day + 1)
