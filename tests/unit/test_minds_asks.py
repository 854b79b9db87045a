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
from kernel.seam.basins import BASINS_KEYWORDS, BASINS_UPDATE, PLAN
from kernel.seam.plan import NIGHT, plan_schema


def said(text: str) -> Said:
    return Said(text=text, done_reason="stop", tokens_in=1, tokens_out=1, took_ns=1, load_ns=0,
                model="m", digest="d")


def test_a_statement_asks_for_one_to_three_of_the_ids_shown_and_a_sentence():
    s = json.loads(drawn_schema([41, 7, 19, 3]))
    cites = s["properties"]["numbers"]
    assert cites["items"] == {"type": "integer", "enum": [41, 7, 19, 3]}
    assert (cites["minItems"], cites["maxItems"]) == (1, 3)
    assert s["properties"]["answer"]["maxLength"] == 120
    v = jsonschema.Draft202012Validator(s)
    assert v.is_valid({"answer": "A day of giving", "numbers": [7, 3]})
    assert not v.is_valid({"answer": "A day of giving", "numbers": [8]})
    assert not v.is_valid({"answer": "A day of giving", "numbers": []})
    assert not v.is_valid({"answer": "A day of giving", "numbers": [41, 7, 19, 3]})
    assert not v.is_valid({"answer": "A " + "x" * 119, "numbers": [7]})
    # asked for in words, from its first character
    assert not v.is_valid({"answer": "206, 206, 206, 206", "numbers": [7]})
    assert not v.is_valid({"answer": "I ate 50 mouthfuls", "numbers": [7]})


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
    del a["properties"]["numbers"]["items"]["enum"]
    del a["properties"]["answer"]["pattern"]
    assert a == c
    # an id not shown passes the shape and is left to laws.cite, which names its own check
    assert shaped(said('{"answer": "a day of giving", "numbers": [99]}'), check)
    with pytest.raises(Refused, match="not the shape asked for"):
        shaped(said('{"answer": "' + "x" * 121 + '", "numbers": [7]}'), check)


def test_a_few_shown_ids_bound_the_count_of_citations_and_none_is_refused():
    assert json.loads(drawn_schema([5]))["properties"]["numbers"]["maxItems"] == 1
    assert json.loads(drawn_schema([5, 5, 6]))["properties"]["numbers"]["items"]["enum"] == [5, 6]
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


def test_a_night_asks_each_group_to_take_in_two_rows_where_two_others_were_shown():
    def fewest(members, shown):
        ask = json.loads(plan_schema(3, members, shown))
        return ask["properties"]["groups"]["items"]["properties"]["absorbed"]["minItems"]
    assert fewest(4, [10, 12, 15]) == 2
    assert fewest(4, [10, 12]) == 1 and fewest(1, [10, 12, 15]) == 1
    # the seam's check takes a group of one member still
    check = jsonschema.Draft202012Validator(json.loads(plan_schema(3, 4)))
    assert check.is_valid({"groups": [{"anchor": 10, "absorbed": [12]}]})


def test_a_statement_answer_is_the_numbers_it_is_drawn_from_then_its_words():
    for schema in (drawn_schema([4, 7]), drawn_schema([4, 7], request=False)):
        s = json.loads(schema)
        assert list(s["properties"]) == ["numbers", "answer"] == s["required"]


def test_a_question_a_request_asks_for_opens_with_why_or_who():
    from kernel.seam import asked_schema
    q = jsonschema.Draft202012Validator(json.loads(asked_schema(2, request=True,
                                                                words=["Suvi", "parcels"])))
    assert q.is_valid({"questions": ["Why did Suvi leave?", "Who took my parcels?"]})
    assert not q.is_valid({"questions": ["Why did Suvi leave?", "How many parcels did I eat?"]})
    # a question is not refused for how it opens: the pattern is a request
    check = jsonschema.Draft202012Validator(json.loads(asked_schema(2)))
    assert check.is_valid({"questions": ["Why did Suvi leave?", "How many parcels did I eat?"]})


def test_a_repeated_line_is_shown_once_with_its_count_and_every_id_it_stands_for():
    rows = [Memory(3, 1, 5, "did", "meal", "ate 50 mouthfuls, 25.0 grams", 1, ()),
            Memory(4, 1, 6, "saw", "sighting", "Ander came into sight", 1, ()),
            Memory(9, 1, 7, "did", "meal", "ate 50 mouthfuls, 25.0 grams", 1, ())]
    lines = laws.collapse(rows)
    text = render(QUESTIONS, name="Halla", memories=lines, lived=lines, count=2, interests="").text
    assert "[3, 9] ate 50 mouthfuls, 25.0 grams (2 times)\n" in text
    assert "[4] Ander came into sight\n" in text


def test_a_thought_is_told_apart_from_what_was_lived_in_the_window_and_the_ranking():
    rows = [Memory(3, 1, 5, "saw", "sighting", "Ander came into sight", 1, ()),
            Memory(8, 1, 6, "thought", "reflection", "Ander is kind to me", 4, (2,), (3,))]
    for name, extra in ((QUESTIONS, {"count": 2, "interests": ""}),
                        (STATEMENT, {"question": "Why?", "interests": ""})):
        lines = laws.collapse(rows)
        text = render(name, name="Halla", memories=lines, lived=lines, **extra).text
        # its own thoughts a list of their own, after what it lived: a marker before each one
        # ("you thought: ...") was said back in answers as if it were part of the line
        assert "\n[3] Ander came into sight\nWhat you made of it, each with its number:\n" \
               "[8] Ander is kind to me\n" in text
        assert "you thought" not in text


@pytest.mark.parametrize("name", [QUESTIONS, STATEMENT, NIGHT, BASINS_UPDATE, BASINS_KEYWORDS,
                                  PLAN])
def test_every_template_names_who_is_speaking_on_its_first_line(name):
    extra = {"count": 2, "question": "Why?", "interests": "- food: 0.50, steady\n",
             "label": "Food", "keywords": ["bread"], "people": ["Ander"], "places": ["1,2"]}
    text = render(name, name="Zorune", memories=[{"id": 1, "text": "x"}],
                  **({"lived": [{"id": 1, "text": "x"}]} if name in (QUESTIONS, STATEMENT) else {}),
                  **extra).text
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
    assert s.is_valid({"answer": "I was glad Suvi came.", "numbers": [4]})
    assert not s.is_valid({"answer": "The day was long.", "numbers": [4]})
    # with no words to name, a request still asks for words
    assert json.loads(drawn_schema([4]))["properties"]["answer"]["pattern"].startswith("^[A-Z]")


def _night_book(stored: dict[int, int], thoughts: tuple[int, ...] = ()):
    """A felt book of one villager's rows felt today, stored as given (thousandths)."""
    from types import SimpleNamespace

    from kernel.laws.memory import Memory
    rows = {i: SimpleNamespace(id=i, villager=1, living=True, is_thought=i in thoughts,
                               stored=s, last_felt=1500) for i, s in stored.items()}
    book = SimpleNamespace(rows=rows, ticks_per_day=2000, laws=SimpleNamespace(anchor_minimum=400),
                           of=lambda v: list(rows.values()))
    stream = [Memory.trusted(i, 1, 1500 + i, "thought" if i in thoughts else "did", "ate",
                             f"ate {i} mouthfuls", 1, ()) for i in stored]
    return book, {1: stream}


class _NoModel:
    def generate(self, ask):
        raise AssertionError(f"a night was asked of a villager: {ask.prompt_text[:80]}")


def test_a_night_asks_nothing_where_no_row_shown_can_hold_a_group():
    from types import SimpleNamespace

    from kernel.mind import night
    due = [SimpleNamespace(villager=1, name="Pell")]
    ns = SimpleNamespace(shown=24, groups=3, members=3, limit=256)
    for stored, thoughts in (({1: 100, 2: 200, 3: 399}, ()),    # none at the anchor minimum
                             ({1: 500, 2: 100}, (1,))):          # the one strong row a thought
        book, streams = _night_book(stored, thoughts)
        assert night._anchors(streams[1], book) == []
        assert night._ask_plans(1999, due, streams, book, _NoModel(), None, ns) == []


def test_a_night_offers_as_anchors_the_rows_at_the_minimum_with_a_fellow_no_stronger():
    from kernel.mind import night
    book, streams = _night_book({1: 400, 2: 100, 3: 900, 4: 50}, thoughts=(4,))
    assert night._anchors(streams[1], book) == [1, 3]
    book, streams = _night_book({1: 600, 2: 700})
    assert night._anchors(streams[1], book) == [2]      # 1 could take in nothing: 2 is stronger


LINES = {14: "Ander came into sight, 2.2 cells off", 89: "went from 9,3 to 9,2",
         35: "Mose took 7 parcels out of Halla's hands, 3.5 grams"}


def test_a_tied_request_asks_that_a_statement_name_a_word_of_the_first_line_it_cites():
    v = jsonschema.Draft202012Validator(json.loads(drawn_schema(list(LINES), lines=LINES)))
    assert v.is_valid({"numbers": [14, 89], "answer": "I was glad Ander came."})
    assert v.is_valid({"numbers": [35], "answer": "Poor Mose was hungry."})
    # the words of another line cited later are not the first line's
    assert not v.is_valid({"numbers": [35, 14], "answer": "I was glad Ander came."})
    # a line with no word to name asks only for words
    assert v.is_valid({"numbers": [89, 14], "answer": "The walk was long"})
    # the ids are still the shown ones, one to three, the first never again
    assert not v.is_valid({"numbers": [14, 99], "answer": "I was glad Ander came."})
    assert not v.is_valid({"numbers": [14, 14], "answer": "I was glad Ander came."})
    assert not v.is_valid({"numbers": [14, 89, 35, 89], "answer": "I was glad Ander came."})
    # the seam's check is the same shape with no ids or words asked for
    check = jsonschema.Draft202012Validator(json.loads(drawn_schema(list(LINES), request=False)))
    assert check.is_valid({"numbers": [35, 14], "answer": "I was glad Ander came."})


def test_a_tied_request_needs_the_line_of_every_id_it_shows():
    with pytest.raises(SeamError, match="none for 7"):
        drawn_schema([14, 7], lines={14: "Ander came into sight"})


@pytest.mark.parametrize("opening", ["Why", "Who", "What", "When", "Which"])
def test_a_statement_a_request_asks_for_does_not_open_as_a_question_does(opening):
    for schema in (drawn_schema([4], words=["Suvi"]), drawn_schema([4], lines={4: "Suvi left"})):
        v = jsonschema.Draft202012Validator(json.loads(schema))
        assert v.is_valid({"numbers": [4], "answer": "Wanda saw Suvi leave."})
        assert not v.is_valid({"numbers": [4], "answer": f"{opening} did Suvi leave"})


def test_a_night_asks_for_two_groups_where_two_shown_rows_can_anchor_one_and_checks_for_none():
    def least(anchors, groups=3):
        ask = json.loads(plan_schema(groups, 3, [10, 12, 15], anchors))
        return ask["properties"]["groups"].get("minItems", 0)
    assert least([10, 12]) == 2 and least([12]) == 1 and least([10, 12], groups=1) == 1
    check = jsonschema.Draft202012Validator(json.loads(plan_schema(3, 3)))
    assert check.is_valid({"groups": []})
