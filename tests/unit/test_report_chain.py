"""The chain view's sums (kernel.report.reflection): where a cap cuts a recorded chain, and
the refusals for depth counted over the rounds a replay went through whole."""

from __future__ import annotations

from types import SimpleNamespace as NS

from kernel import report
from kernel.engine import scenario as msc
from kernel.laws import Verdict
from kernel.report import reflection as rr
from kernel.report.views import Chain, Cut


def _said(index, depth, *, ok=True, check=None, text="Orla ate.", cites=(1,)):
    reason = f"a thought at depth {depth}, and the cap is 1" if check else "accepted"
    return NS(index=index, statement=text, cites=cites, verdict=Verdict(ok, check, reason, depth))


def _round(now, **by_name):
    return NS(now=now, reflections=tuple(NS(name=name, statements=said)
                                         for name, said in by_name.items()))


ROUNDS = (
    _round(100, Orla=[_said(1, 1), _said(2, 1)]),
    _round(200, Orla=[_said(1, 2, text="Orla ate twice.", cites=(5, 6))],
           Teo=[_said(1, 1), _said(2, 3, cites=(7,))]),
    _round(300, Teo=[_said(1, 4)]),
)


def test_the_cut_is_every_statement_of_the_first_round_that_stands_deeper_than_the_cap():
    assert rr.cuts(ROUNDS, 1) == (Cut(200, "Orla", 1, 2, 1, "Orla ate twice.", (5, 6)),
                                  Cut(200, "Teo", 2, 3, 1, "Orla ate.", (7,)))
    assert rr.cuts(ROUNDS, 2) == (Cut(200, "Teo", 2, 3, 2, "Orla ate.", (7,)),)
    assert rr.cuts(ROUNDS, 3) == (Cut(300, "Teo", 1, 4, 3, "Orla ate.", (1,)),)


def test_nothing_is_cut_with_the_cap_off_or_above_the_deepest_thought():
    assert rr.cuts(ROUNDS, 0) == () and rr.cuts(ROUNDS, 4) == ()


def test_a_statement_already_refused_is_no_cut():
    rounds = (_round(100, Orla=[_said(1, 2, ok=False, check="depth")]),)
    assert rr.cuts(rounds, 1) == ()


def test_refusals_for_depth_are_counted_over_the_rounds_given_and_no_other_check():
    rounds = (_round(100, Orla=[_said(1, 2, ok=False, check="depth"),
                                _said(2, 0, ok=False, check="cites")]),
              _round(200, Teo=[_said(1, 3, ok=False, check="depth"), _said(2, 1)]))
    assert rr.refused_for_depth(rounds) == 2
    assert rr.refused_for_depth(rounds[:1]) == 1 and rr.refused_for_depth(()) == 0


def _chain(stopped_at, cuts):
    return Chain(recorded_cap=0, cap=1, steps=(), rounds=0, thoughts=0, refused_depth=0,
                 stopped_at=stopped_at, stopped="why" if stopped_at is not None else None,
                 left=0, deepest=0, cuts=cuts)


def test_a_replay_stopped_at_the_cut_only_when_it_stopped_in_the_cut_round():
    cut = (Cut(200, "Orla", 1, 2, 1, "Orla ate twice.", (5, 6)),)
    assert _chain(200, cut).stopped_at_the_cut
    assert not _chain(300, cut).stopped_at_the_cut and not _chain(200, ()).stopped_at_the_cut
    assert not _chain(None, cut).stopped_at_the_cut


def test_the_week_recorded_under_cap_2_whose_thoughts_cite_no_thought_runs_every_round_under_cap_1():
    ch = report.chain(msc.load("week-of-three"), 1)
    assert ch.recorded_cap == 2 and ch.deepest == 1
    assert ch.stopped_at is None and not ch.stopped_at_the_cut and ch.cuts == ()
    assert ch.rounds == 7 and ch.thoughts == 25 and ch.refused_depth == 0


def test_halla_whose_every_thought_is_of_depth_1_runs_every_round_under_cap_1_cut_nowhere():
    # her recording since its prompts open with her day cites none of her thoughts: a cap of 1
    # cuts nothing, and the replay goes through all five rounds
    ch = report.chain(msc.load("five-days-of-halla"), 1)
    assert ch.stopped_at is None and not ch.stopped_at_the_cut and ch.cuts == ()
    assert ch.rounds == 5 and ch.refused_depth == 0 and ch.deepest == 1
