"""The templates and the schemas: what a prompt is made of, and what it must never say."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

import jsonschema
import pytest

from kernel import config
from kernel.seam import (
    DRAWN_SCHEMA,
    QUESTIONS,
    STATEMENT,
    SeamError,
    TemplateError,
    asked_schema,
    render,
    shipped_templates,
    template_file,
)

HALLA = [{"id": 1, "text": "Ander came into sight, 0.8 cells off"},
         {"id": 8, "text": "handed Ander 50 parcels, 25.0 grams"},
         {"id": 87, "text": "ate 8 mouthfuls on 9,2, 4.0 grams"}]


@dataclass
class Row:
    """A memory row with the columns that must stay on the engine's side."""

    id: int
    text: str
    tick: int
    weight: int
    about: tuple[int, ...]


def test_a_rendering_is_a_function_of_the_template_and_the_rows():
    a = render(QUESTIONS, name="Halla", memories=HALLA, lived=HALLA, count=2, interests="")
    b = render("reflect-questions", name="Halla", memories=[dict(m) for m in HALLA],
               lived=[dict(m) for m in HALLA], count=2, interests="")
    assert a == b
    assert a.sha256 == hashlib.sha256(a.bytes).hexdigest()
    assert a.template == QUESTIONS and a.template_sha256 == template_file(QUESTIONS).sha256
    assert render(QUESTIONS, name="Halla", memories=HALLA[:2], lived=HALLA[:2], count=2,
                  interests="").sha256 != a.sha256


def test_a_memory_reaches_the_template_as_its_identity_and_its_line_and_nothing_else():
    rows = [Row(1, "Ander came into sight, 0.8 cells off", 901, 4, (2,)),
            Row(8, "handed Ander 50 parcels, 25.0 grams", 999, 7, (2,))]
    r = render(STATEMENT, name="Halla", memories=rows, question="What did Ander do?",
               interests="", lived=[])
    text = r.text
    assert "[1] Ander came into sight, 0.8 cells off\n[8] handed Ander 50 parcels, 25.0 grams\n" in text
    assert [ln for ln in text.splitlines() if ln.startswith("[")] == [
        "[1] Ander came into sight, 0.8 cells off", "[8] handed Ander 50 parcels, 25.0 grams"]
    for hidden in ("901", "999", "weight", "tick", "(2,)"):
        assert hidden not in text
    assert r == render(STATEMENT, name="Halla", question="What did Ander do?", interests="",
                       lived=[], memories=[{"id": m.id, "text": m.text} for m in rows])


def test_the_questions_prompt_names_the_villager_the_window_and_the_count():
    text = render(QUESTIONS, name="Halla", memories=HALLA, lived=HALLA, count=2, interests="").text
    lines = text.splitlines()
    assert "Halla" in lines[0], "who is speaking comes first"
    start = next(i for i, ln in enumerate(lines) if ln.startswith("[1] "))
    assert lines[start:start + 3] == ["[1] Ander came into sight, 0.8 cells off",
                                      "[8] handed Ander 50 parcels, 25.0 grams",
                                      "[87] ate 8 mouthfuls on 9,2, 4.0 grams"], \
        "the window, in the order given"
    request = "\n".join(lines[start + 3:])
    assert re.search(r"\b2\b", request)
    assert text.endswith("\n"), "the file's last newline is part of the prompt"


def test_a_missing_key_is_an_error_naming_the_template_and_the_key():
    with pytest.raises(TemplateError, match=r"reflect-statement.tmpl needs 'question'"):
        render(STATEMENT, name="Halla", memories=HALLA, interests="", lived=HALLA)
    with pytest.raises(TemplateError, match=r"reflect-questions.tmpl needs 'count'"):
        render(QUESTIONS, name="Halla", memories=HALLA, interests="", lived=HALLA)


def test_a_memory_without_an_identity_or_a_line_is_refused():
    with pytest.raises(TemplateError, match=r"memories\[0\] has no 'id'"):
        render(QUESTIONS, name="Halla", memories=[{"text": "x"}], lived=[{"text": "x"}], count=2,
               interests="")
    with pytest.raises(TemplateError, match=r"memories\[0\].id must be an integer"):
        render(QUESTIONS, name="Halla", memories=[{"id": "1", "text": "x"}],
               lived=[{"id": "1", "text": "x"}], count=2, interests="")


def test_an_unknown_template_is_an_error_naming_it():
    with pytest.raises(TemplateError, match="no template configs/reflect-dreams.tmpl"):
        render("reflect-dreams", name="Halla")


def test_a_template_using_a_column_the_engine_keeps_fails_to_render(tmp_path, monkeypatch):
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "leak.tmpl").write_text("{% for m in memories %}{{ m.tick }}{% endfor %}")
    monkeypatch.setenv("VILLAGE_HOME", str(tmp_path))
    with pytest.raises(TemplateError, match="leak.tmpl.*tick"):
        render("leak", memories=HALLA)


def test_the_template_files_are_read_with_their_size_and_sha256():
    files = shipped_templates()
    assert [f.name for f in files] == [QUESTIONS, STATEMENT]
    for f in files:
        raw = (config.configs_dir() / f.name).read_bytes()
        assert (f.bytes, f.size, f.sha256) == (raw, len(raw), hashlib.sha256(raw).hexdigest())


# Words a seam rule is stated in. A rule lives in one place, and that place
# is the laws' code: a template that says it is a second copy that can drift.
RULE_WORDS = ("must", "exist", "belong", "no later", "not after", "after tick", "unique",
              "twice", "only cite", "cite only", "citation", "cap", "depth", "from the list",
              "valid", "invalid", "allowed", "json", "schema", "don't", "do not")


@pytest.mark.parametrize("name", [QUESTIONS, STATEMENT])
def test_neither_template_states_a_seam_rule(name):
    text = template_file(name).text.lower()
    said = [w for w in RULE_WORDS if re.search(rf"\b{re.escape(w)}", text)]
    assert said == [], f"{name} states a seam rule in the words {said}"


def test_the_statement_asks_for_the_numbers_first_and_a_sentence_that_says_only_what_those_lines_say():
    text = template_file(STATEMENT).text
    assert "numbers of the lines" in text and "says only what those lines say" in text
    assert text.index("{{ question }}") < text.index("{% for m in memories"), \
        "the question comes before the lines, after who is asking"


def test_the_smollm2_statement_it_was_recorded_with_asked_what_the_day_meant_never_how_much():
    text = template_file(STATEMENT, "smollm2").text
    assert "meant" in text and "never" in text and "how much" in text
    assert "numbers of the memories" in text


def test_every_template_of_a_villager_opens_with_the_same_line_so_its_calls_share_it():
    firsts = {template_file(n).text.splitlines()[0] for n in (QUESTIONS, STATEMENT, "talk", "interview")}
    assert {f.split(".")[0] for f in firsts} == {"You are {{ name }}, who lives in the village"}


def test_the_asked_schema_is_exactly_n_strings_and_no_other_field():
    s = asked_schema(2)
    assert s == (b'{"type":"object","properties":{"questions":{"type":"array","items":'
                 b'{"type":"string","minLength":1,"maxLength":100},"minItems":2,"maxItems":2,'
                 b'"uniqueItems":true}},'
                 b'"required":["questions"],"additionalProperties":false}')
    v = jsonschema.Draft202012Validator(json.loads(s))
    assert v.is_valid({"questions": ["a", "b"]})
    assert not v.is_valid({"questions": ["a"]})
    assert not v.is_valid({"questions": ["a", "b", "c"]})
    assert not v.is_valid({"questions": ["a", "b"], "why": "x"})
    assert not v.is_valid({})
    assert not v.is_valid({"questions": ["a", ""]})
    assert not v.is_valid({"questions": ["a", "b" * 101]})
    assert not v.is_valid({"questions": ["a", "a"]})
    assert asked_schema(3) != s


def test_the_drawn_schema_is_the_numbers_cited_then_a_statement_and_no_other_field():
    assert DRAWN_SCHEMA == (b'{"type":"object","properties":{"numbers":{"type":"array",'
                            b'"items":{"type":"integer"},"maxItems":16},'
                            b'"answer":{"type":"string","minLength":5,"maxLength":240}},'
                            b'"required":["numbers","answer"],"additionalProperties":false}')
    v = jsonschema.Draft202012Validator(json.loads(DRAWN_SCHEMA))
    assert v.is_valid({"answer": "it rained", "numbers": [1, 2]})
    assert not v.is_valid({"answer": "it rained"})
    assert not v.is_valid({"answer": "it rained", "numbers": ["1"]})
    assert not v.is_valid({"answer": "it rained", "numbers": [], "confidence": 0.9})
    assert not v.is_valid({"answer": "", "numbers": [1]})
    assert not v.is_valid({"answer": "ab c", "numbers": [1]})
    assert not v.is_valid({"answer": "it rained", "numbers": list(range(17))})


@pytest.mark.parametrize("n", [0, -1, True, 2.0, "2"])
def test_a_count_of_questions_must_be_a_positive_integer(n):
    with pytest.raises(SeamError, match="Expected a count of questions >= 1"):
        asked_schema(n)
