"""Strict JSON: one reader and one validator, which configs and model answers both go through."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernel import config, jsonstrict
from kernel.errors import ConfigError, Refused
from kernel.seam import shaped
from tests.strategies import examples

ANY = b"{}"
ATOMS = ('{', '}', '[', ']', ',', ':', '"a"', '"b"', '"\\ud800"', '"\\ud83d\\ude00"', '1', '-0', '1e999', '1.5', 'NaN', 'Infinity',
         'true', 'null', ' ', '\n', '\x0b', '"x\\"y"', '"[["', 'x')


def answer(text: str):
    return SimpleNamespace(text=text, done_reason="stop", model="m")


def test_a_config_and_a_model_answer_are_read_by_one_strict_json_reader(monkeypatch):
    seen = []
    real = jsonstrict.decode

    def spy(text, **kw):
        seen.append(text)
        return real(text, **kw)

    monkeypatch.setattr(jsonstrict, "decode", spy)
    config.loads('{"a": 1}', source="c")
    shaped(answer('{"a": 2}'), ANY)
    assert seen == ['{"a": 1}', '{"a": 2}']


@pytest.mark.parametrize("text, why", [
    ("", jsonstrict.Empty()),
    (" \n", jsonstrict.Empty()),
    ('{"a": 1, "a": 2}', jsonstrict.Twice("a")),
    ("[NaN]", jsonstrict.NotANumber("NaN")),
    ("-Infinity", jsonstrict.NotANumber("-Infinity")),
    ("1e999", jsonstrict.Infinite("1e999")),
    ("[[[1]]]", jsonstrict.TooDeep(3, 2)),
    ("{} {}", jsonstrict.After(1, 4, "{}", True)),
    ("1 x", jsonstrict.After(1, 3, "x", False)),
    ('{"a": ["x", "y\\ud800"]}', jsonstrict.LoneSurrogate(("a", 1), "\\ud800")),
    ('[{"\\udfff": 1}]', jsonstrict.LoneSurrogate((0, "\udfff"), "\\udfff")),
])
def test_each_refusal_is_a_value_naming_its_rule_and_what_broke_it(text, why):
    with pytest.raises(jsonstrict.Unstrict) as e:
        jsonstrict.decode(text, max_depth=2)
    assert e.value.why == why


def test_an_integer_past_the_digit_bound_is_refused_only_where_a_bound_is_given():
    lit = "1" * 41
    with pytest.raises(jsonstrict.Unstrict) as e:
        jsonstrict.decode(lit, max_depth=2, max_digits=40)
    assert e.value.why == jsonstrict.TooManyDigits(lit, 41, 40)
    assert jsonstrict.decode(lit, max_depth=2) == int(lit)


def test_whitespace_is_json_whitespace_only():
    with pytest.raises(jsonstrict.Unstrict) as e:
        jsonstrict.decode("\x0b1", max_depth=2)
    assert isinstance(e.value.why, jsonstrict.Syntax)


def test_a_whole_number_written_with_a_point_is_not_an_integer_to_the_strict_validator():
    v = jsonstrict.Strict({"type": "integer"})
    assert v.is_valid(3) and not v.is_valid(3.0) and not v.is_valid(True)


def test_a_json_path_is_named_with_dots_and_indexes():
    assert jsonstrict.where(("villagers", 2, "name")) == "$.villagers[2].name"


def _verdict(f):
    try:
        return "ok", f()
    except (ConfigError, Refused):
        return "refused", None


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from(ATOMS), max_size=10).map("".join))
def test_a_config_and_an_answer_accept_and_refuse_the_same_texts(text):
    # Within both bounds (nesting of 32, forty digits), where the two readers' rules are one.
    c = _verdict(lambda: config.loads(text, source="c"))
    a = _verdict(lambda: shaped(answer(text), ANY))
    assert c == a


@settings(max_examples=examples(200), deadline=None)
@given(st.recursive(st.text() | st.integers(-9, 9) | st.none(),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                    max_leaves=8))
def test_json_text_is_read_exactly_when_every_string_it_holds_can_be_written_as_utf8(value):
    text = json.dumps(value)   # ASCII, with every code point escaped: surrogates included
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
        encodable = True
    except UnicodeEncodeError:
        encodable = False
    if encodable:
        assert jsonstrict.decode(text, max_depth=64) == value
    else:
        with pytest.raises(jsonstrict.Unstrict) as e:
            jsonstrict.decode(text, max_depth=64)
        assert isinstance(e.value.why, jsonstrict.LoneSurrogate)
        with pytest.raises(ConfigError, match="lone surrogate"):
            config.validate("world", value, source="w")
