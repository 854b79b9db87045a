"""A prompt's opening: the bytes other prompts begin with too, marked by its template and
carried by its ask, which a backend that keeps what it has read reads once.

The rule is one: an opening ends a line and a word follows it. A template marks it with
`{{ opening_ends }}`, which renders as nothing; the ask carries its length; a recording
names it only where there is one, so every recording made before keeps its bytes.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kernel.oracle import Ask, OracleUsageError, Said, exemplar
from kernel.seam import TemplateError, render
from kernel.seam.templates import TemplateFile

ASK = Ask("questions", "m", b"You are Pell.\n[1] ate berries\n\nAsk yourself.", None, 1, 0.0, 8, 512)
WORDS = st.text(alphabet="abcdefgh ", min_size=1, max_size=12).map(str.strip).filter(bool)


def _tf(text: str) -> TemplateFile:
    import hashlib
    from pathlib import Path
    raw = text.encode("utf-8")
    return TemplateFile(name="t.tmpl", path=Path("t.tmpl"), bytes=raw,
                        sha256=hashlib.sha256(raw).hexdigest())


@given(head=st.lists(WORDS, min_size=1, max_size=4), rest=WORDS)
def test_an_opening_that_ends_a_line_before_a_word_is_an_ask_s_own(head, rest):
    opening = ("\n".join(head) + "\n").encode()
    ask = dataclasses.replace(ASK, prompt=opening + rest.encode(), opening=len(opening))
    assert ask.prompt[:ask.opening] == opening


@pytest.mark.parametrize("n", [3, 13, 14 + 15 + 2 + 3, 200, -1])
def test_an_opening_that_does_not_end_a_line_before_a_word_is_refused_in_one_line(n):
    with pytest.raises(OracleUsageError) as got:
        dataclasses.replace(ASK, opening=n)
    line = str(got.value)
    assert "\n" not in line and f"opening={n}" in line, line


def test_a_recording_names_an_opening_only_where_there_is_one_and_gives_it_back():
    said = Said("{}", "stop", 1, 1, 1, 0, "m", "d")
    plain = exemplar.generate_record(ASK, said, "llamacpp")
    assert "opening" not in plain["options"]
    opened = dataclasses.replace(ASK, opening=ASK.prompt.index(b"[1]"))
    rec = exemplar.generate_record(opened, said, "llamacpp")
    assert rec["options"]["opening"] == opened.opening
    assert exemplar.ask(rec) == opened and exemplar.ask(plain) == ASK


def test_a_marked_template_renders_without_its_mark_and_says_where_the_opening_ends():
    r = render(_tf("You are {{ name }}.\n{{ opening_ends }}Ask yourself.\n"), name="Pell")
    assert r.bytes == b"You are Pell.\nAsk yourself.\n"
    assert r.opening == len(b"You are Pell.\n")
    assert render(_tf("You are {{ name }}.\n"), name="Pell").opening == 0


@given(name=WORDS)
def test_two_templates_of_one_opening_render_the_same_opening_bytes(name):
    a = render(_tf("You are {{ name }}.\n\n{{ opening_ends }}Ask.\n"), name=name)
    b = render(_tf("You are {{ name }}.\n\n{{ opening_ends }}Say more, {{ name }}.\n"), name=name)
    assert a.bytes[:a.opening] == b.bytes[:b.opening] and a.opening > 0


@pytest.mark.parametrize("text, words", [
    ("{{ opening_ends }}{{ opening_ends }}x\n", "once"),
    ("You {{ opening_ends }}are\n", "must end a line"),
    ("You\n{{ opening_ends }} are\n", "must end a line"),
    ("You\n{{ opening_ends }}", "must end a line"),
])
def test_a_mark_that_breaks_the_rule_is_refused_naming_the_template(text, words):
    with pytest.raises(TemplateError) as got:
        render(_tf(text))
    line = str(got.value)
    assert "\n" not in line and line.startswith("configs/t.tmpl") and words in line, line


def test_the_mark_is_the_renderer_s_to_give_never_a_call_s():
    with pytest.raises(TemplateError, match="the renderer's to give"):
        render(_tf("a\n{{ opening_ends }}b\n"), opening_ends="x")


def test_a_villager_s_questions_statement_and_interview_prompts_of_the_shipped_templates_open_alike():
    from kernel.seam import QUESTIONS, STATEMENT, template_file
    rows = [{"id": 3, "text": "you ate berries in the east meadow this morning"},
            {"id": 5, "text": "Tamsin handed you a dozen berries this afternoon"}]
    mine = {"name": "Pell", "interests": "", "lived": rows}
    q = render(template_file(QUESTIONS), memories=rows, count=2, **mine)
    s = render(template_file(STATEMENT), question="Why?", memories=rows[1:], **mine)
    assert q.opening > 0 and q.bytes[:q.opening] == s.bytes[:s.opening]
    assert q.bytes[q.opening:] != s.bytes[s.opening:]
    i = render(template_file("interview"), day=2, question="Who?", memories=rows, **mine)
    t = render(template_file("talk"), other="Tamsin", bond="", heard="",
               memories=rows, **mine)
    assert i.opening > 0 and t.opening > 0
    assert b"Tamsin handed you a dozen berries" in i.bytes[:i.opening]
