"""Properties of the reflection laws over generated streams: the cadence, the
window, depth, the seam's citations and the thought an accepted statement becomes."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from kernel import laws
from kernel.laws import LawError, Memory
from tests.strategies import examples

ME, OTHER = 1, 2
FAST = settings(max_examples=examples(100), deadline=None)


@st.composite
def streams(
    draw, villager: int = ME, first_id: int = 0, max_world: int = 20, max_thoughts: int = 6
) -> list[Memory]:
    """One villager's rows: world rows at random ticks, then thoughts drawn from earlier rows."""
    n = draw(st.integers(0, max_world))
    rows: list[Memory] = []
    for i in range(n):
        rows.append(
            Memory(
                id=first_id + i,
                villager=villager,
                tick=draw(st.integers(0, 50)),
                kind=draw(st.sampled_from(["saw", "did", "heard"])),
                event="meal",
                text=f"row {i}",
                weight=draw(st.integers(1, 10)),
                about=tuple(sorted(draw(st.sets(st.integers(0, 6), max_size=3)))),
            )
        )
    for _ in range(draw(st.integers(0, max_thoughts)) if rows else 0):
        sources = draw(
            st.lists(st.sampled_from(rows), min_size=1, max_size=4, unique_by=lambda m: m.id)
        )
        rows.append(
            Memory(
                id=first_id + len(rows),
                villager=villager,
                tick=max(m.tick for m in sources) + draw(st.integers(0, 5)),
                kind="thought",
                event="reflection",
                text="a thought",
                weight=4,
                about=tuple(sorted({a for m in sources for a in m.about})),
                drawn_from=tuple(sorted(m.id for m in sources)),
            )
        )
    return draw(st.permutations(rows))


def naive_depth(by_id: dict[int, Memory], m: Memory) -> int:
    if m.kind != "thought":
        return 0
    return 1 + max((naive_depth(by_id, by_id[i]) for i in m.drawn_from), default=0)


def model_cite(rows: list[Memory], now: int, cites: list[int], cap: int) -> laws.Verdict:
    """The seam's rule written the plainest way, to check the law against."""
    by_id = {m.id: m for m in rows}
    for n, c in enumerate(cites):
        if c not in by_id:
            return laws.Verdict(False, "cites", f"memory {c} is not one this villager has", 0)
        if by_id[c].tick > now:
            return laws.Verdict(
                False,
                "cites",
                f"memory {c} is at tick {by_id[c].tick}, which is after tick {now}",
                0,
            )
        if c in cites[:n]:
            return laws.Verdict(False, "cites", f"memory {c} is cited twice", 0)
    if not cites:
        return laws.Verdict(False, "cites", "a statement drawn from nothing", 0)
    d = 1 + max(naive_depth(by_id, by_id[c]) for c in cites)
    if cap and d > cap:
        return laws.Verdict(False, "depth", f"a thought at depth {d}, and the cap is {cap}", d)
    return laws.Verdict(True, None, f"accepted, at depth {d}", d)


@st.composite
def a_good_statement(draw):
    """A stream, a tick no earlier than any row, and citations that all check."""
    rows = draw(streams())
    assume(rows)
    now = draw(st.integers(max(m.tick for m in rows), 80))
    cites = draw(
        st.lists(st.sampled_from([m.id for m in rows]), min_size=1, max_size=6, unique=True)
    )
    return rows, now, cites


# --- due ---------------------------------------------------------------------------------


@FAST
@given(st.integers(0, 10_000), st.integers(0, 20_000), st.integers(1, 3000))
def test_a_villager_is_due_exactly_at_the_last_tick_of_each_span_of_every_ticks_lived(
    founded, now, every
):
    spans = [founded - 1 + j * every for j in range(1, (now - founded + 1) // every + 2)]
    assert laws.due(founded, now, every) == (now in spans)


@FAST
@given(st.integers(0, 10_000), st.integers(1, 3000), st.integers(1, 5))
def test_consecutive_reflections_are_every_ticks_apart(founded, every, j):
    t = founded - 1 + j * every
    assert laws.due(founded, t, every)
    assert not any(laws.due(founded, s, every) for s in range(max(0, t - every + 1), t))


@FAST
@given(st.integers(0, 10_000), st.integers(0, 20_000), st.integers(1, 300))
def test_next_due_is_the_first_tick_from_now_on_at_which_a_villager_is_due(founded, now, every):
    t = laws.next_due(founded, now, every)
    assert t >= now
    assert laws.due(founded, t, every)
    assert not any(laws.due(founded, s, every) for s in range(now, t))


# --- recent ------------------------------------------------------------------------------


@FAST
@given(streams(), st.integers(0, 60), st.integers(0, 30))
def test_recent_returns_at_most_n_rows_at_ticks_up_to_now_the_newest_ordered_by_tick_then_id(
    rows, now, n
):
    got = laws.recent(rows, now, n)
    assert len(got) <= n
    assert all(m.tick <= now for m in got)
    keys = [(m.tick, m.id) for m in got]
    assert keys == sorted(keys)
    eligible = [m for m in rows if m.tick <= now]
    assert len(got) == min(n, len(eligible))
    left_out = [m for m in eligible if m not in got]
    if got:
        assert all((m.tick, m.id) < keys[0] for m in left_out)


@FAST
@given(streams(), st.integers(0, 60), st.integers(0, 30), st.randoms(use_true_random=False))
def test_recent_does_not_depend_on_the_order_rows_come_in(rows, now, n, rnd):
    shuffled = list(rows)
    rnd.shuffle(shuffled)
    assert laws.recent(rows, now, n) == laws.recent(shuffled, now, n)


# --- depth -------------------------------------------------------------------------------


@FAST
@given(streams())
def test_depth_is_0_for_a_world_row_and_1_plus_the_deepest_source_for_a_thought(rows):
    by_id = {m.id: m for m in rows}
    for m in rows:
        assert laws.depth(by_id, m) == naive_depth(by_id, m)


# --- cite --------------------------------------------------------------------------------


@FAST
@given(streams(), st.integers(0, 60), st.lists(st.integers(-2, 40), max_size=8), st.integers(0, 4))
def test_cite_gives_the_verdict_of_the_seam_s_rule_in_its_order(rows, now, cites, cap):
    assert laws.cite(rows, now, cites, cap) == model_cite(rows, now, cites, cap)


@FAST
@given(streams(), streams(villager=OTHER, first_id=100), st.integers(0, 60), st.data())
def test_cite_never_accepts_a_duplicate_a_foreign_or_a_future_row(mine, theirs, now, data):
    pool = [m.id for m in mine + theirs] + [999]
    cites = data.draw(st.lists(st.sampled_from(pool), max_size=8))
    v = laws.cite(mine, now, cites, data.draw(st.integers(0, 3)))
    if v.ok:
        by_id = {m.id: m for m in mine}
        assert cites
        assert len(set(cites)) == len(cites)
        assert all(c in by_id and by_id[c].tick <= now for c in cites)
    else:
        assert v.check in ("cites", "depth") and v.reason


@FAST
@given(a_good_statement(), streams(villager=OTHER, first_id=100, max_world=5), st.data())
def test_a_statement_with_one_bad_citation_is_refused_even_when_every_other_checks(
    good, theirs, data
):
    rows, now, cites = good
    kind = data.draw(st.sampled_from(["foreign", "unknown", "future", "duplicate"]))
    if kind == "foreign":
        assume(theirs)
        bad = data.draw(st.sampled_from(theirs)).id
    elif kind == "unknown":
        bad = data.draw(st.integers(500, 10_000))
    elif kind == "future":
        future = Memory(
            len(rows) + 1000, ME, now + data.draw(st.integers(1, 9)), "saw", "walk", "later", 1, ()
        )
        rows = [*rows, future]
        bad = future.id
    else:
        bad = data.draw(st.sampled_from(cites))
    at = data.draw(st.integers(0, len(cites)))
    with_bad = [*cites[:at], bad, *cites[at:]]
    v = laws.cite(rows, now, with_bad, 0)
    assert not v.ok
    assert v.check == "cites"
    assert v.depth == 0
    assert laws.cite(rows, now, cites, 0).ok


@FAST
@given(a_good_statement(), st.integers(500, 10_000), st.data())
def test_the_same_statement_without_the_bad_citation_is_accepted(good, bad, data):
    rows, now, cites = good
    at = data.draw(st.integers(0, len(cites)))
    assert not laws.cite(rows, now, [*cites[:at], bad, *cites[at:]], 0).ok
    assert laws.cite(rows, now, cites, 0).ok


@FAST
@given(a_good_statement())
def test_an_accepted_thought_stands_at_1_plus_the_depth_of_its_deepest_citation(
    good,
):
    rows, now, cites = good
    by_id = {m.id: m for m in rows}
    v = laws.cite(rows, now, cites, 0)
    assert v.ok and v.check is None
    assert v.depth == 1 + max(naive_depth(by_id, by_id[c]) for c in cites)


@FAST
@given(a_good_statement(), st.integers(0, 6))
def test_the_cap_refuses_a_deeper_thought_and_cap_0_refuses_none(good, cap):
    rows, now, cites = good
    d = laws.cite(rows, now, cites, 0).depth
    v = laws.cite(rows, now, cites, cap)
    if cap == 0 or d <= cap:
        assert v.ok
    else:
        assert (v.ok, v.check, v.depth) == (False, "depth", d)
        assert v.reason == f"a thought at depth {d}, and the cap is {cap}"


@FAST
@given(a_good_statement(), st.data())
def test_a_refused_statement_is_refused_whole_whatever_order_its_citations_come_in(good, data):
    rows, now, cites = good
    with_dup = [*cites, cites[0]]
    order = data.draw(st.permutations(with_dup))
    assert not laws.cite(rows, now, order, 0).ok


# --- reflected ---------------------------------------------------------------------------


@FAST
@given(a_good_statement(), st.text(max_size=20), st.integers(1, 5), st.integers(0, 3))
def test_an_accepted_statement_becomes_a_thought_at_now_about_the_union_drawn_from_the_sorted_citations(
    good, statement, base, bonus
):
    rows, now, cites = good
    by_id = {m.id: m for m in rows}
    next_id = max(by_id) + 1
    m = laws.reflected(
        rows, now, statement, cites, laws.ThoughtWeight(base, bonus), next_id=next_id
    )
    assert (m.id, m.villager, m.tick, m.kind, m.event, m.text) == (
        next_id,
        ME,
        now,
        "thought",
        "reflection",
        statement,
    )
    assert m.drawn_from == tuple(sorted(cites))
    assert m.about == tuple(sorted({a for c in cites for a in by_id[c].about}))
    first = not any(r.kind == "thought" and r.tick <= now for r in rows)
    assert m.weight == max(1, min(10, base + (bonus if first else 0)))
    assert laws.depth({**by_id, m.id: m}, m) == laws.cite(rows, now, cites, 0).depth


@FAST
@given(a_good_statement())
def test_a_refused_statement_has_no_row_to_become(good):
    rows, now, cites = good
    with pytest.raises(LawError):
        laws.reflected(
            rows, now, "s", [*cites, cites[-1]], {"base": 4, "first_bonus": 2}, next_id=10_000
        )
