"""The measure of the minds on the answers the committed recordings hold, and on a run's events.

The cases are the answers the issue that asked for the measure quotes (a statement going round,
a list of numbers, a plan that counts, sixteen copies of one citation, the questions template
said back, a shown line with one number changed), and the plain answers it must let pass. The
last tests fold hand-made events through the measure's projection.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from kernel import events as ev
from kernel.laws import minds as lm
from kernel.report import minds as rm
from kernel.seam import QUESTIONS, TemplateFile
from kernel.seam.templates import pieces


def _reasons(answer: str, done: str = "stop") -> tuple[str, ...]:
    return lm.marks(answer, done).reasons


def test_a_statement_saying_one_phrase_again_and_again_is_a_loop():
    said = ("106 } 106 memories of what Mose did, 106 of what he did not do. 106 of what he did "
            "not do. 106 of what he did not do.")
    assert _reasons(json.dumps({"answer": said, "numbers": [127]})) == ("loop",)


def test_a_list_of_numbers_for_a_statement_is_more_than_thirty_percent_digits():
    answer = json.dumps({"answer": "1330, 1368, 1298, 1352, 1107", "numbers": [1330]})
    assert _reasons(answer) == ("digits",)


def test_an_answer_cut_by_its_token_limit_degenerates_whatever_it_said():
    assert _reasons('{ "statement" : "Mose ate his fill and went', "length") == ("limit",)


def test_a_plan_that_counts_and_a_citation_given_sixteen_times_are_loops():
    counting = {"groups": [{"anchor": a, "absorbed": list(range(a, a + 6))} for a in (1, 2, 3)]}
    assert _reasons(json.dumps(counting)) == ("loop",)
    copies = {"answer": "Halla remembered the most from the day", "numbers": [445] * 16}
    assert _reasons(json.dumps(copies)) == ("loop",)


def test_a_plain_plan_and_a_plain_statement_with_its_citations_do_not_degenerate():
    plan = {"groups": [{"anchor": 1204, "absorbed": [1205, 1206]}, {"anchor": 1300,
                                                                    "absorbed": [1301]}]}
    statement = {"answer": "Mose was hungry, and Halla gave him her bread",
                 "numbers": [1204, 1210, 1301]}
    assert _reasons(json.dumps(plan)) == () and _reasons(json.dumps(statement)) == ()


@pytest.mark.parametrize("line", ["went from 11,2 to 9,3", "ate 50 mouthfuls on 9,3, 25.0 grams",
                                  "handed Mose 7 parcels, 3.5 grams"])
def test_the_densest_lines_a_villager_lives_are_under_the_digit_share(line):
    assert lm.digit_share(line) <= lm.DIGIT_SHARE


def test_two_questions_alike_in_their_first_words_are_no_loop():
    answer = json.dumps({"questions": ["What did Halla eat at the well?",
                                       "What did Halla see on the hill?"]})
    assert lm.marks(answer, "stop").loop == 2 and _reasons(answer) == ()


# The questions template the committed recordings were asked with, which the answers the
# issue quotes say back: the measure is checked against it, whatever the shipped file says now.
_THEN_TEXT = '{% for m in memories %}[{{ m.id }}] {{ m.text }}\n{% endfor %}\nAbove is what {{ name }} remembers of the newest part of the day, in the order it was lived. Give {{ count }} short questions, each a single sentence ending in a question mark, about what the day meant to {{ name }}.\n'


def _then() -> TemplateFile:
    raw = _THEN_TEXT.encode("utf-8")
    return TemplateFile(name=QUESTIONS, path=Path(QUESTIONS), bytes=raw,
                        sha256=hashlib.sha256(raw).hexdigest())


def _runs() -> frozenset:
    return lm.runs(pieces(_then()))


@pytest.mark.parametrize("question", [
    "What did Halla remember of the newest part of the day, in the order it was lived?",
    "The day was filled with memories of the newest part of the day, in the order it was lived.",
    "What Ander remembers of the newest part of the day?",
])
def test_a_question_saying_the_questions_template_back_parrots_it(question):
    assert lm.parrots(question, _runs())


@pytest.mark.parametrize("question", ["What did Halla eat when Mose came into sight?",
                                      "Why did Ander take the parcels out of Halla's hands?",
                                      "What did the day mean to Mose?"])
def test_a_question_in_its_own_words_does_not_parrot_the_template(question):
    assert not lm.parrots(question, _runs())


def test_a_templates_pieces_are_its_text_between_tags_and_never_what_a_variable_puts_in():
    got = pieces(_then())
    assert any("remembers of the newest part of the day" in p for p in got)
    assert not any("{{" in p or "{%" in p for p in got)
    assert "".join(got).count("Above is what") == 1


def test_a_shown_line_with_one_number_changed_is_a_near_restatement():
    shown = {37: "Ander took 7 parcels out of Halla's hands, 3.5 grams",
             40: "ate 50 mouthfuls on 9,3, 25.0 grams"}
    n = lm.nearness("Ander took 17 parcels out of Halla's hands, 3.5 grams", shown)
    assert n.line == 37 and n.edit <= lm.NEAR_EDIT and n.near


def test_a_thought_in_its_own_words_is_not_near_a_shown_line_unless_its_vector_is():
    shown = {37: "Ander took 7 parcels out of Halla's hands, 3.5 grams"}
    thought = "Halla lost her food to Ander and went hungry"
    assert not lm.nearness(thought, shown).near
    v = np.array([1, 0, 0, 0], dtype=np.float32)
    assert lm.nearness(thought, shown, v, {37: v}).near


def test_a_grounding_is_the_cosine_to_the_mean_of_the_citations_not_to_the_nearest_one():
    a, b = np.array([1, 0], dtype=np.float32), np.array([0, 1], dtype=np.float32)
    assert lm.grounding(a, [a, b]) == pytest.approx(2 ** -0.5)
    with pytest.raises(lm.LawError, match="cites"):
        lm.grounding(a, [])


# --- the projection that folds a run's events --------------------------------------------------

def _answered(v: int, purpose: str, index: int, text: str, done: str = "stop") -> ev.Answered:
    return ev.Answered(villager=v, purpose=purpose, index=index, model="m", digest="d", seed=1,
                       prompt_sha256=f"{v}{purpose}{index}", text=text, done_reason=done)


ROUND = [
    _answered(1, "questions", 0, '{"questions": ["What did Halla eat?", "Whom did she see?"]}'),
    _answered(1, "statement", 1, '{"answer": "Halla ate well", "numbers": [3]}'),
    ev.Thought(id=9, villager=1, text="Halla ate well", weight=5, depth=1, about=(1,),
               drawn_from=(3,)),
    _answered(1, "statement", 2, '{"answer": "Halla ate", "numbers": [3]}'),
    ev.Recurred(villager=1, id=9, index=2, text="Halla ate", fallen=1, stored=2),
    _answered(2, "questions", 0, '{"questions": ["What', "length"),
    ev.Refusal(villager=2, purpose="questions", index=0, check="shaped", reason="cut"),
    _answered(1, "night", 0, '{"groups": [{"anchor": 3, "absorbed": [4, 5]}, '
                             '{"anchor": 6, "absorbed": [99]}]}'),
    ev.Absorbed(villager=1, group=1, anchor=3, absorbed=(4, 5), before=1, stored=2),
    ev.Refusal(villager=1, purpose="night", index=2, check="shown", reason="not shown"),
]


def _gathered() -> rm.MindsGather:
    g = rm.MindsGather()
    g.apply(1999, ROUND)
    return g


def test_each_answer_is_paired_with_what_its_tick_made_of_it():
    m = rm.measure(_gathered(), rm.Inputs(), run="hand-made")
    by = {(a.villager, a.purpose, a.index): a for a in m.answers}
    assert by[(1, "statement", 1)].became == "thought"
    assert by[(1, "statement", 2)].became == "recurred"
    assert by[(2, "questions", 0)].refused == "shaped"
    assert by[(2, "questions", 0)].marks.reasons == ("limit",)
    night = by[(1, "night", 0)]
    assert (night.groups, night.absorbed, night.group_checks, night.refused) == (1, 2, ("shown",),
                                                                                  None)
    t = m.all
    assert (t.answers, t.degenerate, t.question_calls, t.questions_refused, t.statements,
            t.thoughts, t.recurred, t.plans, t.plans_with_group, t.absorbed) == \
        (5, 1, 2, 1, 2, 1, 1, 1, 1, 2)
    assert dict(t.refusals) == {"shaped": 1, "shown": 1}


def test_a_measure_with_no_template_no_rounds_and_no_embedder_says_none_never_a_number():
    m = rm.measure(_gathered(), rm.Inputs(), run="hand-made")
    assert m.all.grounding is None and m.all.shown == 0 and m.all.parroting == 0
    assert m.vectors.startswith("none")
    assert any("parroting is not measured" in n for n in m.notes)
    assert any("near-restatements are not measured" in n for n in m.notes)


def test_the_measure_counts_parroting_against_the_template_it_is_given():
    g = rm.MindsGather()
    g.apply(1999, [_answered(1, "questions", 0, json.dumps({"questions": [
        "What did Halla remember of the newest part of the day?", "What did Halla eat?"]}))])
    m = rm.measure(g, rm.Inputs(template=_then()), run="hand-made")
    assert (m.all.parroting, m.all.questions) == (1, 2) and not m.notes


def test_a_sweep_row_keeps_every_figure_of_the_measure_by_name():
    row = rm.figures(rm.measure(_gathered(), rm.Inputs(), run="hand-made"))
    assert tuple(row) == rm.MINDS
    assert row["answers"] == 5 and row["statements_kept"] == 2 and row["thought_grounding"] is None
