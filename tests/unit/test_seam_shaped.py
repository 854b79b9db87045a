"""Shaped: exactly one value of the shape asked for, or the whole answer refused naming the model."""

from __future__ import annotations

import pytest

from kernel.errors import Refused, VillageError
from kernel.oracle import Said
from kernel.seam import DRAWN_SCHEMA, SeamError, asked_schema, shaped

MODEL = "smollm2:135m-instruct"


def said(text: str, done_reason: str = "stop") -> Said:
    return Said(text=text, done_reason=done_reason, tokens_in=1, tokens_out=1, took_ns=1,
                load_ns=0, model=MODEL, digest="d")


def test_one_value_of_the_shape_asked_for_is_accepted():
    assert shaped(said('{"answer": "a day of giving", "numbers": [8, 11]}'), DRAWN_SCHEMA) \
        == {"answer": "a day of giving", "numbers": [8, 11]}
    assert shaped(said(' \n{"questions": ["a?", "b?"]}\n\t '), asked_schema(2)) \
        == {"questions": ["a?", "b?"]}


REFUSED = {
    "prose": ("Sure! Halla gave parcels to Ander.", "that is not JSON"),
    "a field the schema lacks": ('{"answer": "s", "numbers": [1], "confidence": 0.9}',
                                 "not the shape asked for"),
    "a wrong type": ('{"answer": "s", "numbers": ["8"]}', "not the shape asked for"),
    "a float where an integer is asked": ('{"answer": "s", "numbers": [8.0]}',
                                          "not the shape asked for"),
    "a missing field": ('{"answer": "s"}', "not the shape asked for"),
    "two values": ('{"answer": "s", "numbers": []} {"answer": "t", "numbers": []}',
                   "more than one value"),
    "something after the value": ('{"answer": "s", "numbers": [1]} and that is all',
                                  "something after the value"),
    "NaN": ('{"answer": "s", "numbers": [NaN]}', "NaN, which is not JSON"),
    "Infinity": ('{"answer": "s", "numbers": [-Infinity]}', "Infinity, which is not JSON"),
    "a number too large to be finite": ('{"answer": "s", "numbers": [1e999]}',
                                        "too large to be a finite number"),
    "a duplicate key": ('{"answer": "s", "answer": "t", "numbers": []}',
                        "the key 'answer' twice"),
    "a raw newline inside a string": ('{"answer": "s\nt", "numbers": []}', "not JSON"),
    "an unpaired surrogate": ('{"answer": "\\ud800", "numbers": []}', "lone surrogate \\ud800"),
    "nothing": ("  \n", "answered with nothing"),
    "a cut-off value": ('{"answer": "a day of', "not JSON"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_an_answer_that_is_not_the_shape_asked_for_is_refused_whole_naming_the_model(case):
    text, why = REFUSED[case]
    with pytest.raises(Refused) as e:
        shaped(said(text), DRAWN_SCHEMA)
    msg = str(e.value)
    assert msg.startswith(f"{MODEL} ") and why in msg
    assert "\n" not in msg, "a refusal is one line"


def test_an_answer_stopped_at_the_token_limit_is_refused_even_if_it_parses():
    with pytest.raises(Refused, match=rf"^{MODEL} stopped at the token limit \(done_reason length\)"):
        shaped(said('{"answer": "s", "numbers": [1]}', "length"), DRAWN_SCHEMA)


@pytest.mark.parametrize("reason", ["load", "", None, "unload"])
def test_an_answer_that_did_not_stop_because_it_was_done_is_refused(reason):
    with pytest.raises(Refused, match=f"^{MODEL} stopped for "):
        shaped(said('{"answer": "s", "numbers": [1]}', reason), DRAWN_SCHEMA)


def test_the_wrong_number_of_questions_is_refused():
    with pytest.raises(Refused, match=r"at \$.questions: .*(too short|should be non-empty|fewer)"):
        shaped(said('{"questions": ["only one?"]}'), asked_schema(2))


def test_a_refusal_is_the_kernels_own_error():
    assert issubclass(Refused, VillageError)


def test_a_schema_that_is_not_a_schema_is_the_callers_mistake_not_a_refusal():
    with pytest.raises(SeamError):
        shaped(said("{}"), b"not json")
    with pytest.raises(SeamError):
        shaped(said("{}"), '{"type":"object"}')  # text, not the bytes the call sent


@pytest.mark.parametrize("deep", [33, 333, 996, 5_000, 100_000])
def test_an_answer_nested_past_the_bound_is_refused_before_anything_walks_it(deep):
    text = '{"answer": "s", "numbers": ' + "[" * deep + "]" * deep + "}"
    with pytest.raises(Refused, match=f"^{MODEL} answered with objects and arrays nested more "
                                      f"than 32 deep, deeper than any shape a call asks for$"):
        shaped(said(text), DRAWN_SCHEMA)


def test_an_answer_nested_within_the_bound_is_judged_by_the_schema_as_before():
    text = '{"answer": "s", "numbers": [' + "[" * 30 + "]" * 30 + "]}"
    with pytest.raises(Refused, match="not the shape asked for"):
        shaped(said(text), DRAWN_SCHEMA)


def test_brackets_inside_the_answers_text_are_not_nesting():
    text = '{"answer": "' + "[" * 100 + '", "numbers": [1]}'
    assert shaped(said(text), DRAWN_SCHEMA)["numbers"] == [1]


def test_the_refusal_for_an_answer_cut_at_the_token_limit_is_the_committed_text():
    # Committed logs hold this reason: it must never change by a byte.
    with pytest.raises(Refused) as e:
        shaped(said('{"answer": "a', done_reason="length"), DRAWN_SCHEMA)
    assert str(e.value) == (f"{MODEL} stopped at the token limit (done_reason length): "
                            f"the answer is cut off and is not an answer")


def test_an_answer_over_64_kib_is_an_oracle_error_where_it_arrives():
    from kernel.errors import OracleError
    from kernel.oracle import Ask
    from kernel.testing import ScriptedOracle

    big = '{"answer": "' + "a" * 70_000 + '", "numbers": [1]}'
    o = ScriptedOracle([big, '{"answer": "ok", "numbers": [1]}'])
    ask = Ask("statement", MODEL, b"why?", DRAWN_SCHEMA, 1, 0.0, 128, 2048)
    with pytest.raises(OracleError, match=rf"^{MODEL} answered the statement call with 70,030 bytes, "
                                          rf"more than the 65,536 an answer may hold"):
        o.generate(ask)
    assert o.calls == 0, "a refused answer is not counted as answered"
    assert o.generate(ask).text.startswith('{"answer": "ok"')


def test_an_answer_of_exactly_64_kib_arrives():
    from kernel.oracle import Ask
    from kernel.testing import ScriptedOracle

    text = "é" * (65_536 // 2)
    said_ = ScriptedOracle([text]).generate(Ask("statement", MODEL, b"q", None, 1, 0.0, 1, 2048))
    assert len(said_.text.encode()) == 65_536
