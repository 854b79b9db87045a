"""Properties of the measure of the minds over generated answers, questions, texts and vectors."""

from __future__ import annotations

import json
import math

import numpy as np
from hypothesis import assume, given
from hypothesis import strategies as st

from kernel.laws import minds as lm
from kernel.laws.statement import plain

texts = st.text(max_size=60)
words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=7)
phrases = st.lists(words, min_size=3, max_size=6)
vectors = st.lists(st.floats(-1, 1, allow_nan=False, width=32), min_size=4, max_size=4).map(
    lambda xs: np.array(xs, dtype=np.float32)).filter(lambda v: float(np.abs(v).sum()) > 1e-3)
purposes = st.sampled_from(lm.PURPOSES)


@st.composite
def answers(draw) -> lm.AnswerRead:
    purpose = draw(purposes)
    text = draw(texts)
    asked = draw(st.integers(0, 3)) if purpose == "questions" else 0
    return lm.AnswerRead(
        tick=draw(st.integers(0, 50)), villager=draw(st.integers(1, 4)), purpose=purpose,
        index=draw(st.integers(0, 3)), text=text,
        marks=lm.marks(text, draw(st.sampled_from(["stop", "length"]))),
        questions=asked, parroting=draw(st.integers(0, asked)),
        refused=draw(st.none() | st.sampled_from(["shaped", "cites", "restates"])),
        became=draw(st.none() | st.sampled_from(["thought", "recurred"]))
        if purpose == "statement" else None,
        groups=draw(st.integers(0, 2)) if purpose == "night" else 0,
        absorbed=draw(st.integers(0, 5)) if purpose == "night" else 0,
        cost=draw(st.none() | st.tuples(st.integers(0, 900), st.integers(0, 300),
                                        st.integers(0, 10**10))))


# --- what an answer says -----------------------------------------------------------------------

@given(st.dictionaries(words, texts, max_size=4))
def test_an_answer_says_its_string_values_in_order_and_never_its_keys(d):
    assert lm.said(json.dumps(d)) == tuple(d.values())


@given(st.lists(texts, max_size=4), st.lists(st.integers(0, 10**6), max_size=16))
def test_an_answers_integers_say_nothing(strings, ids):
    answer = json.dumps({"answer": strings, "numbers": ids})
    assert lm.said(answer) == tuple(strings)


# text that JSON writes as it is: no quote, backslash or control character to escape
unescaped = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs"),
                                           blacklist_characters='"\\'), max_size=30)


@given(st.lists(unescaped, min_size=1, max_size=3), st.data())
def test_an_answer_cut_anywhere_still_says_what_it_said_up_to_the_cut(strings, data):
    whole = json.dumps({"questions": strings}, ensure_ascii=False)
    # cut past the key's colon: a key cut before it cannot be told from a value yet
    cut = whole[:data.draw(st.integers(len('{"questions":'), len(whole)))]
    got, full = lm.said(cut), lm.said(whole)
    assert len(got) <= len(full)
    # every string it says is what the whole said, the last perhaps cut short
    assert all(g == f for g, f in zip(got[:-1], full, strict=False))
    if got:
        assert full[len(got) - 1].startswith(got[-1])


# --- loops and digits --------------------------------------------------------------------------

@given(phrases, st.integers(1, 6))
def test_a_phrase_of_three_words_or_more_said_k_times_is_a_loop_of_at_least_k(phrase, k):
    assert lm.loop(" ".join(phrase * k)) >= k


@given(st.lists(words, unique=True, min_size=3, max_size=12))
def test_words_said_once_each_are_no_loop(ws):
    assert lm.loop(" ".join(ws)) == 1


@given(phrases, st.integers(3, 5), st.sampled_from([", ", "; ", ". ", " , ", "\n", " [", "] "]))
def test_a_loop_is_counted_whatever_the_case_and_punctuation_between_its_words(phrase, k, sep):
    plain = " ".join(phrase * k)
    noisy = sep.join(w.upper() if i % 2 else w for i, w in enumerate(phrase * k))
    assert lm.loop(noisy) == lm.loop(plain) >= lm.LOOP_TIMES


@given(texts)
def test_a_digit_share_is_a_share_and_spaces_never_change_it(text):
    share = lm.digit_share(text)
    assert 0.0 <= share <= 1.0
    assert lm.digit_share("  ".join(text.split())) == lm.digit_share("".join(text.split()))


@given(st.text(alphabet="0123456789", min_size=1, max_size=20),
       st.text(alphabet="abcdefgh ", max_size=20))
def test_only_digits_are_all_digits_and_no_digits_are_none(digits, letters):
    assert lm.digit_share(digits) == 1.0
    assert lm.digit_share(letters) == 0.0


@given(texts, st.sampled_from(["stop", "length", "error"]), st.integers(0, 300),
       st.integers(1, 300))
def test_an_answer_ran_to_its_limit_when_its_done_reason_or_its_tokens_say_so(text, done, out,
                                                                             limit):
    m = lm.marks(text, done, out, limit)
    assert m.limit == (done == "length" or out >= limit)
    assert lm.marks(text, done).limit == (done == "length")


@given(texts, st.sampled_from(["stop", "length"]))
def test_an_answer_degenerates_exactly_when_one_of_its_reasons_holds(text, done):
    m = lm.marks(text, done)
    assert m.degenerate == (m.limit or m.loop >= lm.LOOP_TIMES or m.digits > lm.DIGIT_SHARE)
    assert set(m.reasons) <= set(lm.DEGENERATE)


# --- parroting ---------------------------------------------------------------------------------

@given(st.lists(words, min_size=lm.PARROT_RUN, max_size=12), st.data(), phrases, phrases)
def test_a_question_holding_five_words_in_a_row_of_a_piece_parrots_it(piece, data, before, after):
    at = data.draw(st.integers(0, len(piece) - lm.PARROT_RUN))
    run = piece[at:at + lm.PARROT_RUN]
    question = " ".join([*before, *[w.capitalize() for w in run], *after]) + "?"
    assert lm.parrots(question, lm.runs([" ".join(piece)]))


@given(st.lists(words, min_size=1, max_size=12), st.lists(words, min_size=1, max_size=12))
def test_a_question_of_words_its_template_never_says_never_parrots(piece, question):
    assume(not set(question) & set(piece))
    assert not lm.parrots(" ".join(question), lm.runs([" ".join(piece)]))


@given(st.lists(words, min_size=lm.PARROT_RUN, max_size=8, unique=True), st.integers(1, 4))
def test_a_run_of_words_never_spans_two_pieces_of_a_template(ws, cut):
    pieces = [" ".join(ws[:cut]), " ".join(ws[cut:])]
    assert tuple(ws[:lm.PARROT_RUN]) not in lm.runs(pieces)
    assert tuple(ws[:lm.PARROT_RUN]) in lm.runs([" ".join(ws)])


# --- edits, cosines, nearness, likeness ----------------------------------------------------------

short = st.text(alphabet="abc d", max_size=12)


@given(short, short, short)
def test_the_edit_distance_is_a_metric(a, b, c):
    assert lm.edit_distance(a, a) == 0
    assert lm.edit_distance(a, b) == lm.edit_distance(b, a)
    assert lm.edit_distance(a, c) <= lm.edit_distance(a, b) + lm.edit_distance(b, c)
    assert abs(len(a) - len(b)) <= lm.edit_distance(a, b) <= max(len(a), len(b))
    assert (lm.edit_distance(a, b) == 0) == (a == b)


@given(texts, texts)
def test_an_edit_share_is_a_share_and_is_nothing_between_two_forms_of_one_text(a, b):
    assert 0.0 <= lm.edit_share(a, b) == lm.edit_share(b, a) <= 1.0
    assert lm.edit_share(a, a) == 0.0
    assert lm.edit_share(a, plain(a) + " !") == 0.0


@given(vectors, st.floats(0.1, 10))
def test_a_thought_citing_one_row_it_points_the_same_way_as_is_grounded_at_one(v, scale):
    assert math.isclose(lm.grounding(v, [v * np.float32(scale)]), 1.0, abs_tol=1e-6)


@given(vectors, st.lists(vectors, min_size=1, max_size=5), st.randoms(use_true_random=False))
def test_a_grounding_is_a_cosine_whatever_the_order_of_the_citations(v, cited, rnd):
    g = lm.grounding(v, cited)
    shuffled = list(cited)
    rnd.shuffle(shuffled)
    assert -1.0 <= g <= 1.0
    assert lm.grounding(v, shuffled) == g


@given(texts, st.dictionaries(st.integers(0, 50), texts, min_size=1, max_size=5))
def test_a_thought_is_near_the_shown_line_it_says_again_and_names_the_nearest(thought, shown):
    n = lm.nearness(thought, shown)
    assert n.line in shown and n.cosine is None
    assert n.edit == min(lm.edit_share(thought, t) for t in shown.values())
    again = lm.nearness(thought, {**shown, 99: thought})
    assert again.near and again.edit == 0.0


@given(texts)
def test_a_thought_shown_no_line_has_no_nearness(thought):
    assert lm.nearness(thought, {}) is None


@given(st.lists(vectors, max_size=6))
def test_likeness_sums_a_cosine_for_every_pair(vs):
    total, pairs = lm.alike(vs)
    assert pairs == len(vs) * (len(vs) - 1) // 2
    assert -pairs - 1e-9 <= total <= pairs + 1e-9


@given(vectors, st.integers(2, 5))
def test_thoughts_all_alike_have_a_likeness_of_one(v, n):
    total, pairs = lm.alike([v] * n)
    assert math.isclose(total / pairs, 1.0, abs_tol=1e-6)


# --- the sums ------------------------------------------------------------------------------------

@given(st.lists(answers(), max_size=12), st.lists(answers(), max_size=12))
def test_the_counts_of_two_runs_of_answers_add(a, b):
    ta, tb, both = lm.tally(a), lm.tally(b), lm.tally(a + b)
    for f in ("answers", "degenerate", "questions", "parroting", "question_calls",
              "questions_refused", "statements", "thoughts", "recurred", "plans",
              "plans_with_group", "absorbed", "costed", "tokens_in", "tokens_out", "took_ns"):
        assert getattr(both, f) == getattr(ta, f) + getattr(tb, f), f


@given(st.lists(answers(), max_size=20))
def test_each_count_is_at_most_what_it_counts_among(a):
    t = lm.tally(a)
    assert t.degenerate <= t.answers and t.parroting <= t.questions
    assert t.questions_refused <= t.question_calls and t.kept <= t.statements
    assert t.plans_with_group <= t.plans
    # every answer is counted under its purpose: a reflection's, a night's consolidation plan,
    # the basins' and plans' calls, or an utterance's
    assert t.question_calls + t.statements + t.plans + t.interest_calls + t.utterances == t.answers
    assert t.said <= t.utterances
    assert sum(n for _, n in t.reasons) >= t.degenerate


@given(st.lists(answers(), max_size=20))
def test_a_mean_over_nothing_is_none_never_a_number(a):
    t = lm.tally(a)
    assert t.grounding is None and t.alike is None
    assert (t.per_call("tokens_out") is None) == (t.costed == 0)


@given(st.lists(answers(), max_size=20), st.randoms(use_true_random=False), st.integers(0, 6))
def test_the_worst_answers_are_degenerate_at_most_n_and_do_not_depend_on_the_order_given(a, rnd,
                                                                                        n):
    shuffled = list(a)
    rnd.shuffle(shuffled)
    w = lm.worst(a, n)
    assert len(w) <= n and all(x.marks.degenerate for x in w)
    # answers that sort alike have the same marks and place, so the list is one list
    assert [(x.tick, x.villager, x.purpose, x.index, x.marks) for x in lm.worst(shuffled, n)] == \
        [(x.tick, x.villager, x.purpose, x.index, x.marks) for x in w]
