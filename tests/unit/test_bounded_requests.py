"""A bounded request (a thought file's `requests: bounded`) holds an answer's structure and
never its words: keys, the ids shown as an enum, lengths in characters and counts (an answer
asked for in one sentence is one: any characters but a sentence's end, then its end); no other
pattern, no tie of the words to a first cited line, no prescribed opening."""

from __future__ import annotations

import json

import jsonschema
import pytest

from kernel.mind import settings as msettings
from kernel.seam import asked_schema, drawn_schema
from kernel.seam.interview import interview_schema
from kernel.seam.schemas import BOUNDED_STATED_CHARS, CITES, SAID, one_sentence
from kernel.seam.talk import talk_schema

LINES = {3: "Ander handed Mose a parcel", 7: "ate barley in the mill field", 9: "Halla came into sight"}


def _walk(value):
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from _walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v)


def _bounded():
    return {
        "questions": asked_schema(2, request=True, bounded=True, words=["Ander", "Mose"]),
        "statement": drawn_schema(list(LINES), lines=LINES, bounded=True),
        "talk": talk_schema(list(LINES), 120, lines=LINES, bounded=True),
        "interview": interview_schema(list(LINES), lines=LINES, bounded=True),
    }


@pytest.mark.parametrize("purpose", ["questions", "statement", "talk", "interview"])
def test_a_bounded_request_holds_no_pattern_but_one_sentence_no_branch_and_no_constant_on_the_words(
        purpose):
    schema = json.loads(_bounded()[purpose])
    for node in _walk(schema):
        assert "anyOf" not in node and "prefixItems" not in node
        if "pattern" in node:
            assert purpose != "questions" and node["pattern"] == one_sentence(node["maxLength"])


@pytest.mark.parametrize("purpose", ["statement", "talk", "interview"])
def test_a_bounded_request_still_offers_only_the_ids_shown_in_the_order_shown(purpose):
    schema = json.loads(_bounded()[purpose])
    assert schema["properties"][CITES]["items"] == {"type": "integer", "enum": [3, 7, 9]}
    assert list(schema["properties"]) == [CITES, SAID]
    assert schema["properties"][CITES]["minItems"] == 1


@pytest.mark.parametrize("said", ["Ander gave Mose 3 parcels on Thursday, and I saw it.",
                                  "what a day: 39 mouthfuls!", "onThursday fourtimes 12,6?"])
def test_a_bounded_request_accepts_any_words_of_the_bounded_length(said):
    schema = json.loads(_bounded()["statement"])
    jsonschema.validate({CITES: [7], SAID: said}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({CITES: [7], SAID: "x" * (BOUNDED_STATED_CHARS + 1)}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({CITES: [8], SAID: said}, schema)


@pytest.mark.parametrize("purpose", ["statement", "talk", "interview"])
@pytest.mark.parametrize("said", ["I ate. Then I slept.", "I ate barley in the mill field",
                                  "I said \"hello\" to Ander."])
def test_a_bounded_request_asks_one_sentence_and_the_seam_reads_any_number(purpose, said):
    request = json.loads(_bounded()[purpose])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({CITES: [7], SAID: said}, request)
    check = {"statement": drawn_schema(list(LINES), request=False, bounded=True),
             "talk": talk_schema(list(LINES), 120, request=False, bounded=True),
             "interview": interview_schema(list(LINES), request=False, bounded=True)}[purpose]
    jsonschema.validate({CITES: [7], SAID: said}, json.loads(check))


def test_a_bounded_request_is_the_shape_the_seam_checks_with_the_same_bounds():
    assert asked_schema(2, request=True, bounded=True, words=["Ander"]) == asked_schema(2, bounded=True)
    request = json.loads(drawn_schema(list(LINES), lines=LINES, bounded=True))
    check = json.loads(drawn_schema(list(LINES), request=False, bounded=True))
    del request["properties"][SAID]["pattern"]      # one sentence: a request, never a rule
    assert request["properties"][SAID] == check["properties"][SAID]


def test_a_patterned_request_is_what_it_was_so_every_recording_made_under_it_replays():
    assert drawn_schema(list(LINES), lines=LINES) == drawn_schema(list(LINES), lines=LINES,
                                                                  bounded=False)
    assert b'"pattern"' in drawn_schema(list(LINES), lines=LINES)
    assert b'"pattern"' in talk_schema(list(LINES), 120, lines=LINES)


def test_a_thought_file_that_says_nothing_of_its_requests_is_patterned_and_the_shipped_one_bounded():
    from kernel import config
    shipped = msettings.load("thought")
    assert shipped.bounded and shipped.grounded
    old = msettings.of(thought=config.load("bench/worlds/day-of-six/thought.json", schema="thought"),
                       models=config.load("models", schema="models"),
                       importance=config.load("importance", schema="importance"),
                       embedder=config.load("embedder", schema="embedder"))
    assert old.requests == msettings.PATTERNED and not old.bounded and not old.grounded
