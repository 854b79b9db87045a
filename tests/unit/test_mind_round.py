"""One reflection round against a scripted oracle: the order of calls and what is written."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from kernel import laws
from kernel.errors import OracleError
from kernel.mind.calls import Rejection
from kernel.mind.reflect import Due, reflect_round
from kernel.mind.settings import load
from kernel.oracle.base import Ask, Oracle, Said
from kernel.testing import ScriptedOracle


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
    # The round's seam rules under the weight ranking, which needs no felt book; the shipped
    # configs rank by felt strength, whose round is tested with the felt projection
    # (test_felt_night.py).
    s = load()
    return dataclasses.replace(s, retrieval=dataclasses.replace(s.retrieval, importance="weight"))


def test_calls_are_grouped_by_model_across_villagers(st):
    streams = {1: rows_of(1, 1, 5), 2: rows_of(2, 6, 5)}

    def answer(ask):
        if ask.purpose == "questions":
            return json.dumps({"questions": ["why?", "what?"]})
        return json.dumps({"answer": "it mattered", "numbers": [1] if b"[1]" in ask.prompt else [6]})

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
        return json.dumps({"answer": "the day was long", "numbers": [1, 1]})

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
        return json.dumps({"answer": "the day was long",
                           "numbers": [6] if b"what?" in ask.prompt else [1]})

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


# -- distinct questions, and a statement in words of its own -------------------------


def _questions(*qs):
    return json.dumps({"questions": list(qs)})


def test_a_questions_answer_repeating_a_question_byte_for_byte_is_refused_by_shaped(st):
    streams = {1: rows_of(1, 1, 5)}
    o = ScriptedOracle([_questions("What did A eat?", "What did A eat?")])
    rnd = reflect_round(100, [Due(1, "A")], streams, {}, o, st, next_id=6)
    assert [e.kind for e in rnd.events] == ["answered", "refusal"]
    assert rnd.events[1].check == "shaped" and rnd.events[1].purpose == "questions"
    assert [a.purpose for a in o.asked] == ["questions"] and o.embedded == []
    assert rnd.thoughts == () and rnd.reflections[0].statements == []


def test_a_question_repeated_in_other_case_and_punctuation_refuses_the_list_whole(st):
    streams = {1: rows_of(1, 1, 5), 2: rows_of(2, 6, 5)}

    def answer(ask):
        if ask.purpose == "questions":
            if ask.seed == 101:  # villager 1 at tick 100
                return _questions("What did A eat today?", "what did a eat today")
            return _questions("why?", "what?")
        return json.dumps({"answer": "the day was long", "numbers": [6]})

    o = ScriptedOracle([answer] * 4)
    rnd = reflect_round(100, [Due(1, "A"), Due(2, "B")], streams, {}, o, st, next_id=11)
    a, b = rnd.reflections
    assert a.refused == Rejection("repeated", "question 2 repeats question 1") and a.questions == ()
    assert str(a.refused) == "repeated: question 2 repeats question 1"
    assert a.statements == [] and a.thoughts == 0 and a.refusals == 1
    refusal = next(e for e in rnd.events if e.kind == "refusal")
    assert (refusal.villager, refusal.purpose, refusal.index, refusal.check, refusal.reason) == \
        (1, "questions", 0, "repeated", "question 2 repeats question 1")
    # the other villager's round goes on: two statements, two thoughts, none of them A's
    assert [x.purpose for x in o.asked] == ["questions", "questions", "statement", "statement"]
    assert b.thoughts == 2 and {t.villager for t in rnd.thoughts} == {2}
    assert all("what did a eat" not in q.lower() for _, texts in o.embedded for q in texts)


def test_a_statement_that_says_a_shown_memory_back_is_a_restatement_and_no_thought(st):
    streams = {1: rows_of(1, 1, 5)}

    def answer(ask):
        if ask.purpose == "questions":
            return _questions("why?", "what?")
        # memory 4 is "ate 3 mouthfuls"; it is shown, and cited it or not, said back it is refused
        return json.dumps({"answer": "  Ate 3 MOUTHFULS!  ", "numbers": [1]})

    rnd = reflect_round(100, [Due(1, "A")], streams, {}, ScriptedOracle([answer] * 3), st,
                        next_id=6)
    refusals = [e for e in rnd.events if e.kind == "refusal"]
    assert [(e.purpose, e.index, e.check, e.reason) for e in refusals] == [
        ("statement", 1, "restates", "a restatement of memory 4, not a thought"),
        ("statement", 2, "restates", "a restatement of memory 4, not a thought")]
    assert rnd.thoughts == () and rnd.reflections[0].refusals == 2
    s = rnd.reflections[0].statements[0]
    assert s.verdict is not None and not s.verdict.ok and s.verdict.check == "restates"


def test_a_memory_the_prompt_did_not_show_may_be_put_in_words_again(st):
    # 12 rows and k = 8: four of them are not shown to a statement call
    streams = {1: rows_of(1, 1, 12)}

    def answer(ask):
        if ask.purpose == "questions":
            return _questions("why?", "what?")
        hidden = [m for m in streams[1] if f"[{m.id}] ".encode() not in ask.prompt[ask.opening:]]
        assert hidden, "the test needs a memory the prompt did not show"
        return json.dumps({"answer": hidden[0].text, "numbers": [hidden[0].id]})

    rnd = reflect_round(200, [Due(1, "A")], streams, {}, ScriptedOracle([answer] * 3), st,
                        next_id=13)
    assert [e.kind for e in rnd.events].count("refusal") == 0
    assert len(rnd.thoughts) == 2


def test_a_wordless_statement_is_not_a_statement_and_is_refused_before_its_citations(st):
    streams = {1: rows_of(1, 1, 5)}

    def answer(ask):
        if ask.purpose == "questions":
            return _questions("why?", "what?")
        # cited twice as well, yet "not a statement" is the reason: the words are judged first
        return json.dumps({"answer": "1268 } 127", "numbers": [1, 1]})

    rnd = reflect_round(100, [Due(1, "A")], streams, {}, ScriptedOracle([answer] * 3), st,
                        next_id=6)
    refusals = [e for e in rnd.events if e.kind == "refusal"]
    assert [(e.check, e.reason) for e in refusals] == [("wordless", "not a statement")] * 2
    assert rnd.thoughts == ()


def test_the_questions_schema_asks_for_distinct_items_and_a_statement_long_enough_for_two_words():
    from kernel.seam import DRAWN_SCHEMA, asked_schema
    q = json.loads(asked_schema(2))["properties"]["questions"]
    assert q["uniqueItems"] is True and q["minItems"] == q["maxItems"] == 2
    assert json.loads(DRAWN_SCHEMA)["properties"]["answer"]["minLength"] == len("ab cd")


# -- a refusal is a value; the round's pieces live where the mind is ------------------


def test_a_refusal_is_a_check_and_a_reason_never_a_string_split_apart(st):
    streams = {1: rows_of(1, 1, 5)}

    def answer(ask):
        if ask.purpose == "questions":
            return _questions("why?", "what?")
        if b"why?" in ask.prompt:
            return "not json: at all"            # shaped's reason holds ": " of its own
        return json.dumps({"answer": "the day was long", "numbers": [1, 1]})

    rnd = reflect_round(100, [Due(1, "A")], streams, {}, ScriptedOracle([answer] * 3), st,
                        next_id=6)
    refusals = [e for e in rnd.events if e.kind == "refusal"]
    stated = rnd.reflections[0].statements
    assert [s.refused for s in stated] == [Rejection(e.check, e.reason) for e in refusals]
    first, second = stated
    assert first.refused.check == "shaped" and ": " in first.refused.reason
    assert str(first.refused) == f"shaped: {refusals[0].reason}"
    assert (second.refused.check, second.refused.reason) == ("cites", "memory 1 is cited twice")
    assert str(second.refused) == "cites: memory 1 is cited twice"


def test_no_module_of_the_mind_imports_the_engine_not_even_for_its_annotations():
    import ast
    from pathlib import Path

    import kernel.mind
    for path in sorted(Path(kernel.mind.__path__[0]).glob("*.py")):
        tree = ast.parse(path.read_text())
        names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        assert not [m for m in names if m == "kernel.engine" or m.startswith("kernel.engine.")], \
            path.name


def test_a_villager_due_twice_in_one_round_is_refused_naming_it_before_any_call(st):
    from kernel.errors import VillageError
    o = Script(lambda ask: "")
    with pytest.raises(VillageError, match="villager 1 is due twice at tick 100"):
        reflect_round(100, [Due(1, "A"), Due(2, "B"), Due(1, "A")],
                      {1: rows_of(1, 1, 5), 2: rows_of(2, 6, 5)}, {}, o, st, next_id=11)
    assert o.log == []


# -- a grounded seam: whom a statement names, and who it says gave to whom -------------


def _gifts(villager: int = 1):
    """A's rows: a meal, B handing A 2 parcels, and A taking 1 parcel out of B's hands."""
    texts = ("ate 3 mouthfuls", "B handed A 2 parcels, 1.0 grams",
             "took 1 parcel out of B's hands, 0.5 grams")
    return tuple(laws.Memory(id=i + 1, villager=villager, tick=10 * i, kind="did", event="meal",
                             text=t, weight=1, about=(2,) if "B" in t else ())
                 for i, t in enumerate(texts))


def _grounded_round(st, statement, cites, *, grounded=True):
    def answer(ask):
        if ask.purpose == "questions":
            return _questions("why?", "what?")
        return json.dumps({"answer": statement, "numbers": cites})

    st = dataclasses.replace(st, grounded=grounded)
    due = [Due(1, "A", frozenset({"A", "B", "Corin"}))]
    return reflect_round(100, due, {1: _gifts()}, {}, ScriptedOracle([answer] * 3), st,
                         next_id=4)


def test_under_grounded_settings_a_statement_naming_a_villager_no_cited_row_names_is_refused(st):
    rnd = _grounded_round(st, "Corin and B were kind today", [2])
    refusals = [(e.purpose, e.check, e.reason) for e in rnd.events if e.kind == "refusal"]
    assert refusals == [("statement", "ungrounded", "Corin is named, and is not the speaker "
                                                    "nor named in a cited line")] * 2
    assert rnd.thoughts == ()
    s = rnd.reflections[0].statements[0]
    assert s.verdict is not None and not s.verdict.ok and s.verdict.check == "ungrounded"


def test_under_grounded_settings_a_statement_against_the_direction_of_its_cited_rows_is_refused(st):
    rnd = _grounded_round(st, "I gave B two parcels", [2, 3])
    assert [(e.check, e.reason) for e in rnd.events if e.kind == "refusal"] == [
        ("ungrounded", "says A gave to B, and no cited line has A giving to B")] * 2
    # said the way the rows have it, it is a thought
    rnd = _grounded_round(st, "B gave me two parcels, and I took one back from B", [2, 3])
    assert [e.kind for e in rnd.events].count("refusal") == 0 and len(rnd.thoughts) == 2


def test_without_grounded_settings_the_seam_does_not_judge_names_or_claims(st):
    rnd = _grounded_round(st, "Corin gave B two parcels", [1], grounded=False)
    assert [e.kind for e in rnd.events].count("refusal") == 0 and len(rnd.thoughts) == 2
