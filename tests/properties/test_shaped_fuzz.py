"""Shaped under fuzzing: only Refused escapes, and nothing accepted breaks the schema."""

from __future__ import annotations

import json

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernel.errors import Refused
from kernel.oracle import Said
from kernel.seam import DRAWN_SCHEMA, asked_schema, shaped
from kernel.seam.schemas import SAID
from tests import strategies

SCHEMAS = [DRAWN_SCHEMA, asked_schema(1), asked_schema(2), asked_schema(3)]
VALIDATORS = {s: jsonschema.Draft202012Validator(json.loads(s)) for s in SCHEMAS}

json_values = strategies.json_values()

valid_answers = st.one_of(
    st.builds(lambda s, d: {"answer": s, "numbers": d},
              st.text(min_size=5, max_size=40), st.lists(st.integers(), max_size=6)),
    st.builds(lambda qs: {"questions": qs},
              st.lists(st.text(min_size=1, max_size=30), min_size=1, max_size=3, unique=True)),
)

spaces = st.text(alphabet=" \t\r\n", max_size=3)


@st.composite
def mutated(draw):
    """A valid-looking answer, serialised, then cut, spliced, doubled or given an extra field."""
    v = draw(valid_answers)
    if draw(st.booleans()):
        v = dict(v, **{draw(st.text(min_size=1, max_size=8)): draw(json_values)})
    text = json.dumps(v, ensure_ascii=draw(st.booleans()))
    op = draw(st.sampled_from(["keep", "cut", "insert", "delete", "double", "trail"]))
    if op == "cut" and text:
        text = text[: draw(st.integers(0, len(text) - 1))]
    elif op == "insert":
        i = draw(st.integers(0, len(text)))
        text = text[:i] + draw(st.text(max_size=4)) + text[i:]
    elif op == "delete" and text:
        i = draw(st.integers(0, len(text) - 1))
        text = text[:i] + text[i + 1:]
    elif op == "double":
        text = text + draw(spaces) + text
    elif op == "trail":
        text = text + draw(st.text(max_size=6))
    return draw(spaces) + text + draw(spaces)


@st.composite
def nested(draw):
    """A valid-looking answer with one value nested from 1 to 100,000 deep (the recursion's edge)."""
    depth = draw(st.sampled_from([1, 2, 31, 32, 33, 64, 333, 500, 996, 2_000, 100_000]))
    inner = draw(st.sampled_from(["[]", "1", '"x"', "{}"]))
    open_, close = draw(st.sampled_from([("[", "]"), ('{"k": ', "}")]))
    value = open_ * depth + inner + close * depth
    key = draw(st.sampled_from(["numbers", "questions", "answer"]))
    return '{"' + key + '": ' + value + "}"


answers = st.one_of(st.text(max_size=200), mutated(), json_values.map(json.dumps), nested())


@settings(max_examples=strategies.examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=answers, schema=st.sampled_from(SCHEMAS),
       reason=st.sampled_from(["stop", "stop", "stop", "length", "load"]))
def test_only_refused_escapes_and_nothing_accepted_breaks_the_schema(text, schema, reason):
    said = Said(text=text, done_reason=reason, tokens_in=0, tokens_out=0, took_ns=0, load_ns=0,
                model="m", digest="d")
    try:
        value = shaped(said, schema)
    except Refused as e:
        assert str(e).startswith("m ") and "\n" not in str(e)
        return
    assert reason == "stop"
    assert VALIDATORS[schema].is_valid(value)
    assert json.loads(text) == value, "what was accepted is the one value the text holds"


@settings(max_examples=strategies.examples(200), deadline=None)
@given(v=valid_answers, before=spaces, after=spaces)
def test_every_valid_answer_is_accepted_as_itself(v, before, after):
    schema = DRAWN_SCHEMA if SAID in v else asked_schema(len(v["questions"]))
    said = Said(text=before + json.dumps(v) + after, done_reason="stop", tokens_in=0,
                tokens_out=0, took_ns=0, load_ns=0, model="m", digest="d")
    assert shaped(said, schema) == v
