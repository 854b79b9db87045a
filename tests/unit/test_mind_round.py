"""One reflection round against a scripted oracle: the order of calls and what is written."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kernel import laws
from kernel.errors import OracleError
from kernel.mind.reflect import Due, reflect_round
from kernel.mind.settings import load
from kernel.oracle.base import Ask, Oracle, Said


class Script(Oracle):
    """Answers generate calls from a function of the ask; embeds by a fixed rule."""

    backend = "script"

    def __init__(self, answer):
        super().__init__()
        self.answer = answer
        self.log: list[tuple[str, str]] = []

    def digest(self, model):
        return "d"

    def _generate(self, ask: Ask) -> Said:
        self.log.append(("generate", ask.purpose))
        text = self.answer(ask)
        return Said(text=text, done_reason="stop", tokens_in=1, tokens_out=1, took_ns=1,
                    load_ns=0, model=ask.model, digest="d")

    def _embed(self, model, texts, purpose):
        self.log.append(("embed", purpose))
        return np.array([[1.0, float(len(t) % 7), float(i % 3)] for i, t in enumerate(texts)],
                        dtype=np.float32), 1, 1


def rows_of(villager: int, start: int, n: int, tick0: int = 0):
    return tuple(laws.Memory(id=start + i, villager=villager, tick=tick0 + i * 10, kind="did",
                             event="meal", text=f"ate {i} mouthfuls", weight=1, about=())
                 for i in range(n))


@pytest.fixture
def st():
    return load()


def test_calls_are_grouped_by_model_across_villagers(st):
    streams = {1: rows_of(1, 1, 5), 2: rows_of(2, 6, 5)}

    def answer(ask):
        if ask.purpose == "questions":
            return json.dumps({"questions": ["why?", "what?"]})
        return json.dumps({"statement": "it mattered", "drawn_from": [1] if b"[1]" in ask.prompt else [6]})

    o = Script(answer)
    rnd = reflect_round(100, [Due(1, "A"), Due(2, "B")], streams, {}, o, st, next_id=11)
    assert o.log == [("generate", "questions")] * 2 + [("embed", "memories and questions")] + \
        [("generate", "statement")] * 4 + [("embed", "thoughts")]
    assert o.model_changes == 4
    assert [t.id for t in rnd.thoughts] == [11, 12, 13, 14]
    assert [t.weight for t in rnd.thoughts] == [6, 4, 6, 4], "the first thought of a life weighs 6"


def test_a_refused_statement_writes_a_refusal_and_no_thought(st):
    streams = {1: rows_of(1, 1, 5)}

    def answer(ask):
        if ask.purpose == "questions":
            return json.dumps({"questions": ["why?", "what?"]})
        return json.dumps({"statement": "s", "drawn_from": [1, 1]})

    rnd = reflect_round(100, [Due(1, "A")], streams, {}, Script(answer), st, next_id=6)
    kinds = [e.kind for e in rnd.events]
    assert kinds == ["answered", "answered", "refusal", "answered", "refusal"]
    assert rnd.thoughts == () and "cited twice" in rnd.events[2].reason


def test_an_answer_shaped_refuses_is_a_refusal_by_shaped_and_the_villager_asks_nothing_more(st):
    streams = {1: rows_of(1, 1, 5)}
    o = Script(lambda ask: "I think the day was fine.")
    rnd = reflect_round(100, [Due(1, "A")], streams, {}, o, st, next_id=6)
    assert [e.kind for e in rnd.events] == ["answered", "refusal"]
    assert rnd.events[1].check == "shaped" and "answered with something" in rnd.events[1].reason
    assert o.log == [("generate", "questions")]


def test_the_round_reads_the_stream_as_it_stood_when_it_began(st):
    streams = {1: rows_of(1, 1, 5)}

    def answer(ask):
        if ask.purpose == "questions":
            return json.dumps({"questions": ["why?", "what?"]})
        # The second statement cites the first one's thought, which the round began without.
        return json.dumps({"statement": "s", "drawn_from": [6] if b"what?" in ask.prompt else [1]})

    rnd = reflect_round(100, [Due(1, "A")], streams, {}, Script(answer), st, next_id=6)
    assert [t.id for t in rnd.thoughts] == [6]
    assert rnd.events[-1].kind == "refusal" and "memory 6 is not one this villager has" in rnd.events[-1].reason


def test_an_oracle_error_mid_round_leaves_nothing_to_write(st):
    streams = {1: rows_of(1, 1, 5)}

    def answer(ask):
        if ask.purpose == "questions":
            return json.dumps({"questions": ["why?", "what?"]})
        raise OracleError("no Ollama server at http://x: start it with `ollama serve`")

    with pytest.raises(OracleError):
        reflect_round(100, [Due(1, "A")], streams, {}, Script(answer), st, next_id=6)


def test_a_villager_with_nothing_remembered_asks_nothing(st):
    o = Script(lambda ask: "")
    rnd = reflect_round(100, [Due(1, "A")], {1: ()}, {}, o, st, next_id=1)
    assert o.log == [] and rnd.events == () and rnd.reflections[0].refusals == 0
