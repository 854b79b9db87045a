"""The spread of news on logs written by hand: who stood on the news's place on its day, and the
cases the rule names one by one (a telling within one tick, words unheard, a citation)."""

from __future__ import annotations

import pytest

from kernel.errors import LawError
from kernel.laws import news as ln
from tests.news_logs import founded, meet, news, perceived, say, walk

TPD = 10


def spread(frames, last_tick=None):
    return ln.spread(frames, perceived(frames), ticks_per_day=TPD, last_tick=last_tick)


# -- attendance -------------------------------------------------------------------------


def feast_frames(*later):
    """Ander (given the feast at 5,5 on day 1), Brita and Knut, all founded off the cell."""
    return [(0, [*founded((0, 0), (1, 0), (2, 0)), news(1, x=5, y=5, day=1), *meet(1, 2)]),
            *later]


def test_a_villager_founded_on_the_place_and_staying_there_attends():
    frames = [(0, [*founded((5, 5), (0, 0)), news(2, x=5, y=5, day=1)]), (14, [walk(2, 1, 1)])]
    a = spread(frames).news[0].attendance
    assert a.reached and a.others == (1,) and a.holders == ()


def test_a_villager_who_walked_onto_the_place_at_some_tick_of_the_day_attends():
    a = spread(feast_frames((12, [walk(3, 5, 5)]), (13, [walk(3, 6, 5)]),
                            (19, [walk(1, 0, 1)]))).news[0].attendance
    assert a.count == 1 and a.others == (3,)


def test_a_villager_who_left_the_place_before_the_day_does_not_attend():
    a = spread(feast_frames((3, [walk(3, 5, 5)]), (9, [walk(3, 4, 5)]),
                            (19, [walk(1, 0, 1)]))).news[0].attendance
    assert a.count == 0


def test_a_villager_who_leaves_at_the_days_first_tick_stood_there_only_before_it():
    a = spread(feast_frames((3, [walk(3, 5, 5)]), (10, [walk(3, 4, 5)]),
                            (19, [walk(1, 0, 1)]))).news[0].attendance
    assert a.count == 0
    a = spread(feast_frames((3, [walk(3, 5, 5)]), (11, [walk(3, 4, 5)]),
                            (19, [walk(1, 0, 1)]))).news[0].attendance
    assert a.others == (3,)


def test_an_attendant_holds_the_news_only_if_it_held_it_by_its_last_tick_there():
    # Brita hears it at tick 2 and stands there on day 1: a holder. Knut stands there at tick
    # 11 only, and hears it at tick 15: not one.
    frames = feast_frames((2, [say(1, 2, "the feast is tomorrow")]),
                          (11, [walk(2, 5, 5), walk(3, 5, 5)]), (12, [walk(3, 4, 4)]),
                          (15, [*meet(2, 3), say(2, 3, "a feast!")]), (19, [walk(1, 0, 1)]))
    s = spread(frames).news[0]
    assert [h.villager for h in s.holders] == [1, 2, 3]
    assert s.attendance.holders == (2,) and s.attendance.others == (3,)


def test_a_log_that_ends_before_the_named_day_has_not_reached_it():
    a = spread(feast_frames((4, [walk(3, 5, 5)]))).news[0].attendance
    assert not a.reached and a.count == 0


def test_attendance_counts_up_to_the_logs_last_tick_not_past_it():
    frames = feast_frames((12, [walk(2, 5, 5)]))
    assert spread(frames, last_tick=11).news[0].attendance.count == 0
    assert spread(frames, last_tick=12).news[0].attendance.others == (2,)


def test_a_news_naming_no_place_and_day_has_no_attendance():
    frames = [(0, [*founded((0, 0), (1, 0)), news(1)])]
    assert spread(frames).news[0].attendance is None


# -- the rule, case by case --------------------------------------------------------------


def test_a_villager_who_hears_the_news_at_a_tick_may_pass_it_on_at_that_tick():
    # Brita speaks to Knut before she hears Ander in the frame, and still holds it at that tick.
    frames = [(0, [*founded((0, 0), (1, 0), (2, 0)), news(1), *meet(1, 2), *meet(2, 3)]),
              (5, [say(2, 3, "the feast, they say"), say(1, 2, "a feast!")])]
    s = spread(frames).news[0]
    assert [(h.villager, h.tick, h.teller) for h in s.holders] == [(1, 0, None), (2, 5, 1),
                                                                  (3, 5, 2)]
    assert [b.holding.villager for b in s.tree()] == [1]
    assert [b.holding.villager for b in s.tree()[0].told[0].told] == [3]


def test_words_said_to_one_out_of_sight_are_not_heard_and_give_nothing():
    frames = [(0, [*founded((0, 0), (9, 9)), news(1)]), (3, [say(1, 2, "a feast!")])]
    d = spread(frames)
    assert d.utterances[0].heard is None
    assert [h.villager for h in d.news[0].holders] == [1]
    assert d.news[0].carried == ((0, "words"),)


def test_a_citation_of_the_given_row_tells_the_news_without_its_words():
    frames = [(0, [*founded((0, 0), (1, 0)), news(1), *meet(1, 2)])]
    given_row = next(m.id for m in perceived(frames) if m.kind == "given")
    frames.append((4, [say(1, 2, "come by the mill tomorrow", (given_row,))]))
    s = spread(frames).news[0]
    assert [(h.villager, h.by) for h in s.holders] == [(1, "given"), (2, "cited")]


def test_the_news_words_from_one_who_does_not_hold_it_are_counted_apart():
    frames = [(0, [*founded((0, 0), (1, 0), (2, 0)), news(1), *meet(2, 3)]),
              (2, [say(2, 3, "is there a feast?")])]
    s = spread(frames).news[0]
    assert s.unheld == (0,) and s.carried == () and [h.villager for h in s.holders] == [1]


def test_holders_per_day_count_every_holder_by_the_end_of_each_day():
    frames = [(0, [*founded((0, 0), (1, 0), (2, 0)), news(1), *meet(1, 2), *meet(2, 3)]),
              (12, [say(1, 2, "feast")]), (25, [say(2, 3, "FEAST")]), (31, [])]
    assert spread(frames).news[0].per_day == (1, 2, 3, 3)


def test_rows_that_are_not_the_frames_own_are_refused_in_one_line():
    frames = [(0, [*founded((0, 0), (1, 0)), news(1), *meet(1, 2)]), (1, [say(1, 2, "feast")])]
    rows = perceived(frames)
    with pytest.raises(LawError, match=r"heard row \d+ at tick 1 answers no utterance"):
        ln.spread(frames[:1] + [(1, [])], rows, ticks_per_day=TPD)
    with pytest.raises(LawError, match="has no given row"):
        ln.spread(frames, [m for m in rows if m.kind != "given"], ticks_per_day=TPD)


def test_a_row_given_to_a_villager_no_founding_named_is_refused_by_perception():
    with pytest.raises(LawError, match="for villager 9, whom no founding before it names"):
        perceived([(0, [*founded((0, 0), (1, 0)), news(9)])])
    with pytest.raises(LawError, match="for villager 2, whom no founding before it names"):
        perceived([(0, [news(2), *founded((0, 0), (1, 0))])])   # given before its founding
    assert perceived([(0, [*founded((0, 0), (1, 0)), news(2)])])[-1].kind == "given"
