"""What the minds are asked: per-ask schemas, what a prompt shows, what a re-recording moved, the price."""

from __future__ import annotations

import json

import jsonschema
import pytest

from kernel import laws
from kernel.errors import Refused
from kernel.laws import Memory
from kernel.oracle.base import Cost, Said
from kernel.oracle.moved import moved
from kernel.oracle.price import lines, parts
from kernel.seam import QUESTIONS, STATEMENT, SeamError, drawn_schema, render, shaped
from kernel.seam.plan import NIGHT, plan_schema


def said(text: str) -> Said:
    return Said(text=text, done_reason="stop", tokens_in=1, tokens_out=1, took_ns=1, load_ns=0,
                model="m", digest="d")


def test_a_statement_asks_for_one_to_three_of_the_ids_shown_and_a_sentence():
    s = json.loads(drawn_schema([41, 7, 19, 3]))
    cites = s["properties"]["drawn_from"]
    assert cites["items"] == {"type": "integer", "enum": [41, 7, 19, 3]}
    assert (cites["minItems"], cites["maxItems"]) == (1, 3)
    assert s["properties"]["statement"]["maxLength"] == 120
    v = jsonschema.Draft202012Validator(s)
    assert v.is_valid({"statement": "A day of giving", "drawn_from": [7, 3]})
    assert not v.is_valid({"statement": "A day of giving", "drawn_from": [8]})
    assert not v.is_valid({"statement": "A day of giving", "drawn_from": []})
    assert not v.is_valid({"statement": "A day of giving", "drawn_from": [41, 7, 19, 3]})
    assert not v.is_valid({"statement": "A " + "x" * 119, "drawn_from": [7]})
    # asked for in words, from its first character
    assert not v.is_valid({"statement": "206, 206, 206, 206", "drawn_from": [7]})
    assert not v.is_valid({"statement": "I ate 50 mouthfuls", "drawn_from": [7]})


def test_a_question_is_asked_for_in_words_ending_in_a_question_mark_and_checked_for_its_shape():
    from kernel.seam import asked_schema
    v = jsonschema.Draft202012Validator(json.loads(asked_schema(2, request=True)))
    assert v.is_valid({"questions": ["Why did Ander take my parcels?", "Who came by the well?"]})
    assert not v.is_valid({"questions": ["Why did Ander take 40 parcels?", "Who came?"]})
    assert not v.is_valid({"questions": ["what did I do", "Who came by the well?"]})
    check = jsonschema.Draft202012Validator(json.loads(asked_schema(2)))
    assert check.is_valid({"questions": ["Why did Ander take 40 parcels?", "who came"]})


def test_the_seams_check_is_the_requests_shape_without_the_ids_which_the_laws_judge():
    ask, check = drawn_schema([41, 7]), drawn_schema([41, 7], request=False)
    a, c = json.loads(ask), json.loads(check)
    del a["properties"]["drawn_from"]["items"]["enum"]
    del a["properties"]["statement"]["pattern"]
    assert a == c
    # an id not shown passes the shape and is left to laws.cite, which names its own check
    assert shaped(said('{"statement": "a day of giving", "drawn_from": [99]}'), check)
    with pytest.raises(Refused, match="not the shape asked for"):
        shaped(said('{"statement": "' + "x" * 121 + '", "drawn_from": [7]}'), check)


def test_a_few_shown_ids_bound_the_count_of_citations_and_none_is_refused():
    assert json.loads(drawn_schema([5]))["properties"]["drawn_from"]["maxItems"] == 1
    assert json.loads(drawn_schema([5, 5, 6]))["properties"]["drawn_from"]["items"]["enum"] == [5, 6]
    with pytest.raises(SeamError, match="needs at least one id shown"):
        drawn_schema([])
    with pytest.raises(SeamError, match="integers but got '5'"):
        drawn_schema(["5"])


def test_a_night_asks_for_anchors_and_members_among_the_ids_shown_and_checks_the_shape():
    ask = json.loads(plan_schema(3, 4, [10, 12, 15]))
    group = ask["properties"]["groups"]["items"]["properties"]
    assert group["anchor"] == {"type": "integer", "enum": [10, 12, 15]}
    assert group["absorbed"]["items"] == {"type": "integer", "enum": [10, 12, 15]}
    assert group["absorbed"]["uniqueItems"] is True and group["absorbed"]["maxItems"] == 4
    check = json.loads(plan_schema(3, 4))
    assert check["properties"]["groups"]["items"]["properties"]["anchor"] == {"type": "integer"}


def test_a_repeated_line_is_shown_once_with_its_count_and_every_id_it_stands_for():
    rows = [Memory(3, 1, 5, "did", "meal", "ate 50 mouthfuls, 25.0 grams", 1, ()),
            Memory(4, 1, 6, "saw", "sighting", "Ander came into sight", 1, ()),
            Memory(9, 1, 7, "did", "meal", "ate 50 mouthfuls, 25.0 grams", 1, ())]
    text = render(QUESTIONS, name="Halla", memories=laws.collapse(rows), count=2).text
    assert "[3, 9] ate 50 mouthfuls, 25.0 grams (2 times)\n" in text
    assert "[4] Ander came into sight\n" in text


def test_a_thought_is_told_apart_from_what_was_lived_in_the_window_and_the_ranking():
    rows = [Memory(3, 1, 5, "saw", "sighting", "Ander came into sight", 1, ()),
            Memory(8, 1, 6, "thought", "reflection", "Ander is kind to me", 4, (2,), (3,))]
    for name, extra in ((QUESTIONS, {"count": 2}), (STATEMENT, {"question": "Why?"})):
        text = render(name, name="Halla", memories=laws.collapse(rows), **extra).text
        assert "[8] you thought: Ander is kind to me\n" in text
        assert "[3] Ander came into sight\n" in text


@pytest.mark.parametrize("name", [QUESTIONS, STATEMENT, NIGHT])
def test_every_template_names_who_is_speaking_on_its_first_line(name):
    extra = {"count": 2, "question": "Why?"}
    text = render(name, name="Zorune", memories=[{"id": 1, "text": "x"}], **extra).text
    assert "Zorune" in text.splitlines()[0]


def _call(purpose: str, sha: str, answer: str) -> dict:
    return {"kind": "generate", "purpose": purpose, "prompt_sha256": sha, "answer": answer}


def test_a_rerecording_counts_the_same_prompts_and_answers_and_names_what_moved():
    old = {"calls": [_call("questions", "a", "x y"), {"kind": "embed"},
                     _call("statement", "b", "one"), _call("statement", "c", "two")]}
    new = {"calls": [_call("questions", "a", "x  y"), _call("statement", "b", "uno"),
                     _call("statement", "z", "two"), _call("night", "n", "{}")]}
    m = moved(old, new)
    assert (m.committed, m.made, m.compared, m.same_prompts, m.same_answers) == (3, 4, 3, 2, 2)
    assert [(c.call, c.purpose, c.prompt, c.answer) for c in m.changes] == [
        (2, "statement", False, True), (3, "statement", True, False)]
    text = "\n".join(m.lines())
    assert "3 calls committed, 4 made here; of the first 3, 2 prompts are the same bytes" in text
    assert "call 2 (statement): its answer moved" in text
    assert "call 3 (statement): its prompt moved" in text


def test_the_price_cuts_the_calls_into_rounds_and_nights_and_counts_ticks_at_the_pace():
    def c(kind, purpose, s):
        return Cost(kind, purpose, "m", int(s * 1e9), 10, 2)

    costs = [c("generate", "questions", 1), c("generate", "questions", 1),
             c("embed", "memories and questions", 0.5), c("generate", "statement", 2),
             c("embed", "statements", 0.5), c("generate", "night", 3), c("generate", "night", 1),
             c("generate", "questions", 1)]
    got = parts(costs)
    assert [(p.what, p.calls, p.embeds, p.took_ns) for p in got] == [
        ("round", 3, 2, 5_000_000_000), ("night", 2, 0, 4_000_000_000),
        ("round", 1, 0, 1_000_000_000)]
    text = "\n".join(lines(costs, 10, 2000, {"m": {"digest": "ab" * 32, "backend": "llamacpp"}},
                           {"processor": "a test processor", "cores": 2, "system": "Linux"},
                           "measured here"))
    assert "5.0s in the models =      50 ticks, 2.5% of the 2000-tick cadence" in text
    assert "answered by m at abababababababab (llamacpp)" in text
    assert "on a test processor, 2 cores, Linux" in text


def test_a_night_offers_as_anchors_only_the_shown_rows_that_can_hold_a_group():
    ask = json.loads(plan_schema(3, 4, [10, 12, 15], [12]))
    group = ask["properties"]["groups"]["items"]["properties"]
    assert group["anchor"] == {"type": "integer", "enum": [12]}
    assert group["absorbed"]["items"] == {"type": "integer", "enum": [10, 12, 15]}


def test_the_words_a_request_may_name_are_the_lines_names_then_their_longer_words():
    from kernel.seam.schemas import line_words
    got = line_words(["Brannoc took 29 parcels out of Suvi's hands, 14.5 grams",
                      "ate 50 mouthfuls on 9,9, 25.0 grams", "Suvi came into sight"])
    assert got == ["Brannoc", "Suvi", "parcels", "mouthfuls"]
    assert line_words(["ate 50 on 9,9"]) == []


def test_a_request_given_words_asks_that_a_question_and_a_statement_name_one_of_them():
    from kernel.seam import asked_schema
    q = jsonschema.Draft202012Validator(json.loads(asked_schema(2, request=True,
                                                                words=["Suvi", "parcels"])))
    assert q.is_valid({"questions": ["Why did Suvi leave?", "Who took my parcels?"]})
    assert not q.is_valid({"questions": ["Why did Suvi leave?", "What do you wonder about?"]})
    s = jsonschema.Draft202012Validator(json.loads(drawn_schema([4], words=["Suvi"])))
    assert s.is_valid({"statement": "I was glad Suvi came.", "drawn_from": [4]})
    assert not s.is_valid({"statement": "The day was long.", "drawn_from": [4]})
    # with no words to name, a request still asks for words
    assert json.loads(drawn_schema([4]))["properties"]["statement"]["pattern"].startswith("^[A-Z]")
