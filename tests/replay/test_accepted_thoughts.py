"""Every accepted thought in every committed recording is a thought: in words, its own, and
the answer to a question asked once.

Each recorded scenario is replayed once (no model), and its rounds are kept: a
statement's prompt showed exactly its ranked memories, so those are what it
must not say back. The thoughts are read off the log the replay wrote, which
the replay tests hold to the committed head hash, and must be the rounds' own.
"""

from __future__ import annotations

import json

import pytest

from kernel import engine, laws
from kernel import events as ev
from kernel import log as vlog
from kernel.engine import scenario as msc
from kernel.oracle import make

RECORDED = [n for n in msc.committed() if not msc.load(n).world_only]


@pytest.fixture(scope="module", params=RECORDED)
def replayed(request, tmp_path_factory):
    sc = msc.load(request.param)
    path = tmp_path_factory.mktemp(sc.name) / "run.log"
    rounds = []
    report = engine.run(sc, make("replay", replay_from=sc.exemplars), path, on_round=rounds.append)
    assert report.head_hex == sc.head_sha256, f"{sc.name} does not replay to its committed head"
    return sc, path, rounds


def _accepted(rounds):
    for rnd in rounds:
        for r in rnd.reflections:
            for s in r.statements:
                if s.row is not None:
                    yield rnd, r, s


def test_there_are_recordings_to_check():
    assert {"day-of-three", "five-days-of-halla", "day-of-twenty-four"} <= set(RECORDED)


def test_the_thoughts_in_the_log_are_the_statements_the_rounds_accepted(replayed):
    _, path, rounds = replayed
    in_log = [(e.id, e.villager, e.text) for _, e in vlog.read_events(path) if isinstance(e, ev.Thought)]
    assert in_log == [(s.row.id, r.villager, s.statement) for _, r, s in _accepted(rounds)]


def test_no_thought_in_the_log_is_wordless(replayed):
    sc, path, _ = replayed
    for tick, e in vlog.read_events(path):
        if isinstance(e, ev.Thought):
            assert not laws.wordless(e.text), f"{sc.name}, tick {tick}: thought {e.id} {e.text!r}"


def test_no_accepted_thought_restates_a_memory_its_prompt_showed(replayed):
    sc, _, rounds = replayed
    for rnd, r, s in _accepted(rounds):
        shown = [x.memory for x in s.ranked]
        assert shown, f"{sc.name}: {r.name}'s statement {s.index} at {rnd.now} was shown nothing"
        assert laws.restates(s.statement, shown) is None, (
            f"{sc.name}, tick {rnd.now}: {r.name}'s thought {s.row.id} {s.statement!r} says back "
            f"memory {laws.restates(s.statement, shown)}")
        assert laws.judge_statement(s.statement, shown) is None


def test_no_accepted_thought_answers_a_repeated_question(replayed):
    sc, path, rounds = replayed
    # the questions as the log holds them, by (tick, villager)
    asked = {(tick, e.villager): json.loads(e.text)["questions"]
             for tick, e in vlog.read_events(path)
             if isinstance(e, ev.Answered) and e.purpose == "questions"}
    for rnd, r, s in _accepted(rounds):
        questions = asked[(rnd.now, r.villager)]
        assert list(r.questions) == questions
        assert laws.repeated(questions) is None, (
            f"{sc.name}, tick {rnd.now}: {r.name} asked {questions!r}, and thought {s.row.id} "
            f"answers one of them")
