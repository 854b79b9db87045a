"""The laws of an interview, over drawn ticks, villagers, questions and citations: an interview
at tick T sees no row after T; a question brings to mind exactly what a reflection's brings at
the same tick; a citation of a row the villager does not have is refused; whatever the model
says."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))

from interview_scenario import battery, oracle, refusing_statement, run  # noqa: E402

from kernel.engine.projection import memory_of  # noqa: E402
from kernel.interview import session as isn  # noqa: E402
from kernel.interview.battery import FULL, Question  # noqa: E402
from kernel.mind import interview as mi  # noqa: E402
from kernel.oracle.base import Said  # noqa: E402

FIXTURE = settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def lived(tmp_path_factory):
    return run(tmp_path_factory.mktemp("ivp") / "lived", days=3)


@pytest.fixture(scope="module")
def refusing(tmp_path_factory):
    # every statement refused and no night: each round's tick ends with the memory it began with
    return run(tmp_path_factory.mktemp("ivr") / "refusing", days=3, night=None,
               statement=refusing_statement)


@FIXTURE
@given(data=st.data())
def test_an_interview_at_tick_t_never_sees_a_row_after_t(lived, data):
    sc, report, path = lived
    t = data.draw(st.integers(min_value=0, max_value=sc.ticks - 1), label="tick")
    a = isn.at(path, sc, t)
    assert all(m.tick <= t for m in a.rows)
    assert a.rows == memory_of(path, rules=sc.rules, until=t).rows
    s = isn.ask(a, battery(), oracle())
    for x in s.asked:
        assert all(m.tick <= t for m in x.interview.shown)
        assert x.interview.now == t
    for v in a.names:
        md = isn.mind_of(a, v, FULL)
        assert all(m.tick <= t for m in md.mine)


@FIXTURE
@given(data=st.data())
def test_an_interview_brings_to_mind_what_a_reflection_brings_for_the_same_question_and_tick(
        refusing, data):
    sc, report, path = refusing
    stated = [(rnd.now, r.name, s) for rnd in report.rounds for r in rnd.reflections
              for s in r.statements]
    assert stated and not report.thoughts
    now, name, s = data.draw(st.sampled_from(stated), label="statement")
    a = isn.at(path, sc, now)
    q = Question(id="asked", category="asked", text=s.question)
    got = isn.ask(a, battery(), oracle(), who=(name,), questions=(q,))
    iv = got.asked[0].interview
    assert [x.memory.id for x in iv.ranked] == [x.memory.id for x in s.ranked]
    assert [round(x.score, 12) for x in iv.ranked] == [round(x.score, 12) for x in s.ranked]


@FIXTURE
@given(data=st.data())
def test_a_citation_of_a_row_the_villager_does_not_have_is_refused(lived, data):
    sc, report, path = lived
    every = memory_of(path, rules=sc.rules).rows
    t = data.draw(st.integers(min_value=1, max_value=sc.ticks - 1), label="tick")
    a = isn.at(path, sc, t)
    v = data.draw(st.sampled_from(sorted(a.names)), label="villager")
    md = isn.mind_of(a, v, FULL)
    if not md.live:
        return
    own = {m.id for m in md.mine}
    not_its = ([m.id for m in every if m.villager != v and m.tick <= t]
               + [m.id for m in every if m.villager == v and m.tick > t]
               + [len(every) + 5, 10**9])
    bad = data.draw(st.sampled_from(not_its), label="cited")
    assert bad not in own
    good = data.draw(st.sampled_from(sorted(m.id for m in md.live)), label="own")
    iv = mi.Interview(villager=v, name=md.name, now=t, question="Who?", seed=1,
                      ranked=tuple(_ranked(md)))
    for cites, ok in (([bad], False), ([good, bad], False), ([good], True)):
        iv.said = Said(text=json.dumps({"numbers": cites, "answer": "Halla gave me bread"}),
                       done_reason="stop", tokens_in=1, tokens_out=1, took_ns=1, load_ns=0,
                       model="m", digest="d")
        refused = mi.judge(iv, md, 120)
        assert (refused is None) == ok, (cites, refused)


def _ranked(md):
    from kernel import laws
    return [laws.Ranked(m, 0.0, 0.0, 0.0, 0.0) for m in md.live[:8]]
