"""Scripted runs to interview: the felt test scenario, answered by a script, with a battery.

`refusing` is a run whose every statement cites a row that does not exist, so the seam refuses
each and no reflection writes or re-feels anything: the memory a round began with is the memory
its tick ended with, and an interview at that tick can be held to the round's own ranking.
"""

from __future__ import annotations

import json

from felt_scenario import answer, make, shown_ids

from kernel import engine
from kernel.engine import scenario as msc
from kernel.interview import battery as ib
from kernel.testing import ScriptedOracle

BATTERY = {"questions": [
    {"id": "given", "category": "memory", "text": "Who gave you food?",
     "answer": {"kind": "saw", "event": "gift", "gives": "who", "target": True}},
    {"id": "ate", "category": "memory", "text": "Where did you eat most?",
     "answer": {"kind": "did", "event": "meal", "gives": "where", "most": True}},
    {"id": "other", "category": "reflection", "text": "What do you think of {other}?"},
    {"id": "self", "category": "self", "text": "Who are you, {name}?"}],
    "variants": [{"name": "full"}, {"name": "no-reflection", "hide": ["thought"]},
                 {"name": "no-relevance", "retrieval": {"weights": {"relevance": 0}}},
                 {"name": "no-talk", "hide": ["*/talk"], "needs": "talk"}]}


def interview_answer(ask) -> str:
    """A scripted interview answer: the first line shown, cited, in other words."""
    if ask.purpose != "interview":
        return answer(ask)
    ids = shown_ids(ask.prompt[ask.opening:])
    return json.dumps({"numbers": ids[:1], "answer": f"It was so on tick {ask.seed % 1000}"})


def refusing_statement(ask, ids):
    return json.dumps({"answer": "The day felt long to me", "numbers": [10_000_000]})


def run(folder, *, statement=None, **kw):
    sc = msc.load(make(folder, **kw))
    oracle = ScriptedOracle([lambda a: answer(a, statement=statement)] * 100_000, dim=32)
    path = folder.parent / f"{folder.name}.log"
    report = engine.run(sc, oracle, path, projections=[])
    return sc, report, path


def battery() -> ib.Battery:
    return ib.of(BATTERY)


def oracle(script=interview_answer) -> ScriptedOracle:
    return ScriptedOracle([script] * 100_000, dim=32)
