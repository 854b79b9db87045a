"""The spread of news (kernel.laws.news), on small logs of villagers who talk, drawn by hypothesis.

Each property is a rule of the law, said as its name: news is held only by a chain of tellers
from a given row; holders per day never decrease; words from a speaker who does not hold the
news carry nothing; a citation of a carrying row carries it; and the spread is the least fixed
point of the rule, worked out here the slow way over the whole log at once.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kernel import events as ev
from kernel.errors import LawError
from kernel.laws import news as ln
from tests.news_logs import talk_logs
from tests.strategies import examples

TPD = 4
"""Days of four ticks, so a drawn log of a few frames spans several days."""


def _spread(log):
    frames, rows = log
    return ln.spread(frames, rows, ticks_per_day=TPD), frames, rows


def _held_at(s: ln.Spread, v: int) -> int | None:
    h = s.holding(v)
    return None if h is None else h.tick


def _gives(frames, name):
    return {(t, e.villager) for t, es in frames for e in es
            if type(e) is ev.Given and e.event == "news" and e.news == name}


@settings(max_examples=examples(150))
@given(talk_logs())
def test_news_is_held_only_by_a_chain_of_tellers_from_a_given_row(log):
    d, frames, rows = _spread(log)
    heard_by_id = {u.heard: u for u in d.utterances if u.heard is not None}
    for s in d.news:
        carried = {i for i, _ in s.carried}
        for h in s.holders:
            if h.teller is None:
                assert h.by == "given" and (h.tick, h.villager) in _gives(frames, s.news)
                continue
            # the teller held it no later than the telling, and said it to this holder, who heard it
            assert _held_at(s, h.teller) is not None and _held_at(s, h.teller) <= h.tick
            u = heard_by_id[h.row]
            assert (u.tick, u.speaker, u.listener) == (h.tick, h.teller, h.villager)
            assert d.utterances.index(u) in carried
        # following tellers always ends at a villager given the news, never going round
        for h in s.holders:
            seen, v = set(), h.villager
            while s.holding(v).teller is not None:
                assert v not in seen
                seen.add(v)
                v = s.holding(v).teller
            assert s.holding(v).by == "given"


@settings(max_examples=examples(150))
@given(talk_logs())
def test_holders_per_day_never_decrease_and_end_at_every_holder(log):
    d, frames, _ = _spread(log)
    for s in d.news:
        assert list(s.per_day) == sorted(s.per_day)
        assert len(s.per_day) == frames[-1][0] // TPD + 1
        assert s.per_day[-1] == len(s.holders)
        for day, n in enumerate(s.per_day):
            assert n == sum(1 for h in s.holders if h.tick // TPD <= day)


@settings(max_examples=examples(150))
@given(talk_logs())
def test_words_from_a_speaker_who_does_not_hold_the_news_carry_nothing(log):
    d, _, _ = _spread(log)
    for s in d.news:
        carried = {i for i, _ in s.carried}
        for i, u in enumerate(d.utterances):
            held = _held_at(s, u.speaker)
            if held is None or held > u.tick:
                assert i not in carried
                assert (i in s.unheld) == ln.mentions(u.text, s.words)
            else:
                assert i not in s.unheld


@settings(max_examples=examples(150))
@given(talk_logs())
def test_a_citation_of_a_carrying_row_carries_it(log):
    d, _, rows = _spread(log)
    by_id = {m.id: m for m in rows}
    for s in d.news:
        carried = dict(s.carried)
        carrying = {h.row for h in s.holders if h.by == "given"}
        carrying |= {m.id for m in rows if m.kind == "given" and m.event == "news"
                     and s.holding(m.villager) is not None and m.text == s.text}
        carrying |= {d.utterances[i].heard for i in carried if d.utterances[i].heard is not None}
        for i, u in enumerate(d.utterances):
            held = _held_at(s, u.speaker)
            if held is not None and held <= u.tick and any(r in carrying for r in u.drawn_from):
                assert carried.get(i) == "cited", (u, carrying)
            if carried.get(i) == "cited":
                assert any(r in carrying for r in u.drawn_from)
        # a row that carries the news is a given row or a heard row of talk, nothing else
        assert all(by_id[r].kind in ("given", "heard") for r in carrying)


def _slow(frames, rows, name, words):
    """The least fixed point of the rule over the whole log at once: who holds the news from
    which tick, iterated until nothing changes."""
    said = ln.utterances(frames, rows)
    given = [m for m in rows if m.kind == "given" and m.event == "news"]
    gives = _gives(frames, name)
    held = {}
    carrying = set()
    for m in given:
        if (m.tick, m.villager) in gives:
            held[m.villager] = min(held.get(m.villager, m.tick), m.tick)
            carrying.add(m.id)
    changed = True
    while changed:
        changed = False
        for u in said:
            if held.get(u.speaker, u.tick + 1) > u.tick:
                continue
            if not (any(r in carrying for r in u.drawn_from) or ln.mentions(u.text, words)):
                continue
            if u.heard is not None and u.heard not in carrying:
                carrying.add(u.heard)
                changed = True
            if u.heard is not None and held.get(u.listener, u.tick + 1) > u.tick:
                held[u.listener] = u.tick
                changed = True
    return held


@settings(max_examples=examples(150))
@given(talk_logs())
def test_the_spread_is_the_least_fixed_point_of_the_rule(log):
    d, frames, rows = _spread(log)
    for s in d.news:
        assert {h.villager: h.tick for h in s.holders} == _slow(frames, rows, s.news, s.words)


@settings(max_examples=examples(100))
@given(talk_logs())
def test_an_utterance_is_heard_exactly_when_perception_gave_its_listener_a_heard_row(log):
    d, frames, rows = _spread(log)
    heard = [m for m in rows if m.kind == "heard" and m.event == "talk"]
    got = [u.heard for u in d.utterances if u.heard is not None]
    assert got == [m.id for m in heard]
    by_id = {m.id: m for m in heard}
    for u in d.utterances:
        if u.heard is not None:
            m = by_id[u.heard]
            assert (m.villager, m.tick, m.about) == (u.listener, u.tick, (u.speaker,))


@given(st.sampled_from(("feast", "Feast", "FEAST", "the feast!", "a feast.", "(feast)")))
def test_a_word_of_the_news_tells_it_whole_and_in_any_case(text):
    assert ln.mentions(text, ("feast",))


@given(st.sampled_from(("feasting", "unfeast", "feasts", "fea st", "", "beast")))
def test_a_word_inside_a_longer_one_tells_nothing(text):
    assert not ln.mentions(text, ("feast",))


@settings(max_examples=examples(100))
@given(st.integers(2, 5), st.data(), st.sampled_from(["words", "cell", "day"]), st.booleans())
def test_two_rows_given_under_one_name_that_tell_it_otherwise_are_refused_as_two_pieces(n, data, what,
                                                                                         same):
    from tests.news_logs import founded, news, perceived

    a, b = data.draw(st.lists(st.integers(1, n), min_size=2, max_size=2, unique=True))
    x, y, day = data.draw(st.integers(0, 3)), data.draw(st.integers(0, 3)), data.draw(st.integers(0, 2))
    other = {} if same else {"words": {"words": ("harvest",)}, "cell": {"x": x + 1},
                             "day": {"day": day + 1}}[what]
    frames = [(0, [*founded(*[(0, 0)] * n), news(a, x=x, y=y, day=day, text="a feast"),
                   news(b, **{"x": x, "y": y, "day": day, "text": "a feast, they say", **other})])]
    try:
        got = ln.spread(frames, perceived(frames), ticks_per_day=TPD)
    except LawError as e:
        assert not same, e
        assert "the news 'feast'" in str(e) and f"differ in their {what}" in str(e)
    else:
        assert same, "two pieces of news under one name were spread as one"
        assert [s.news for s in got.news] == ["feast"]     # one piece, told in two texts
