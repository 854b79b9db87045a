"""Filling forced text, with the real SmolLM2: the model chooses only what the grammar leaves open.

The model is loaded once for the module. The tests hold what `decoding.fill`
promises: with nothing filled its loop is `create_chat_completion` to the
byte, a filled answer holds to the request it was asked under, its forced
text is counted in and never out, and the same ask gives the same bytes.
"""

from __future__ import annotations

import json
from dataclasses import replace
from types import SimpleNamespace

import jsonschema
import pytest

from kernel.laws.window import collapse
from kernel.oracle import Ask
from kernel.oracle.base import Decoding
from kernel.oracle.llamacpp import json_gbnf, json_grammar
from kernel.seam import asked_schema, drawn_schema, render
from kernel.seam.plan import plan_schema

pytestmark = [pytest.mark.embedded, pytest.mark.slow]

HALLA = collapse([SimpleNamespace(id=i, text=t) for i, t in (
    (1, "Ander came into sight, 0.8 cells off"),
    (8, "handed Ander 50 parcels, 25.0 grams"),
    (11, "Ander took 40 parcels out of Halla's hands, 20.0 grams"),
    (35, "ate 50 mouthfuls on 9,3, 25.0 grams"))])
TUNED = Decoding(repeat_penalty=1.2, repeat_last_n=32)
FILLED = replace(TUNED, fill=True)


def statement(cfg, decoding: Decoding, limit: int = 64) -> Ask:
    p = render("reflect-statement", name="Halla", memories=HALLA, lived=HALLA, interests="",
               question="Why did Ander take from Halla?").bytes
    schema = drawn_schema([1, 8, 11, 35], words=["Ander", "Halla", "parcels"])
    return Ask("statement", cfg["generate"], p, schema, 2903, 0.0, limit, cfg["context"], decoding)


def test_with_nothing_filled_the_loop_gives_create_chat_completions_bytes(cfg, oracle):
    gen = oracle.generator
    ask = statement(cfg, TUNED)
    llm, _ = gen._load(embedding=False, n_ctx=ask.context)
    llm.reset()
    llm.last_n_tokens_size = TUNED.repeat_last_n
    r = llm.create_chat_completion([{"role": "user", "content": ask.prompt_text}],
                                   temperature=0.0, seed=ask.seed, max_tokens=ask.limit,
                                   repeat_penalty=1.2, top_k=40, top_p=0.95, min_p=0.05,
                                   grammar=json_grammar(ask.schema))
    f = gen.filler(llm).decode(ask.prompt_text, json_gbnf(ask.schema), limit=ask.limit,
                               seed=ask.seed, temperature=0.0, decoding=TUNED)
    assert f.text == r["choices"][0]["message"]["content"]
    assert (f.prompt_tokens, f.chosen, f.filled) == (r["usage"]["prompt_tokens"],
                                                      r["usage"]["completion_tokens"], 0)
    assert f.done_reason == r["choices"][0]["finish_reason"]


@pytest.mark.parametrize("purpose", ["statement", "questions", "night"])
def test_a_filled_answer_holds_to_its_request_and_its_forced_text_is_counted_in_not_out(
        cfg, oracle, purpose):
    if purpose == "statement":
        ask = statement(cfg, FILLED)
    elif purpose == "questions":
        p = render("reflect-questions", name="Halla", memories=HALLA, lived=HALLA, count=2, interests="").bytes
        ask = Ask("questions", cfg["generate"], p, asked_schema(2, request=True, words=["Ander"]),
                  2901, 0.0, 64, cfg["context"], FILLED)
    else:
        p = render("night-plan", name="Halla", memories=HALLA).bytes
        ask = Ask("night", cfg["generate"], p, plan_schema(2, 2, [1, 8, 11, 35], [11, 35]),
                  2902, 0.0, 96, cfg["context"], FILLED)
    filled = oracle.generate(ask)
    plain = oracle.generate(replace(ask, decoding=TUNED))
    assert filled.done_reason == "stop"
    value = json.loads(filled.text)
    jsonschema.Draft202012Validator(json.loads(ask.schema)).validate(value)
    # The compact layout, its first key written for the model.
    first = next(iter(json.loads(ask.schema)["properties"]))
    assert filled.text.startswith('{"' + first + '":')
    # The prompt is the same bytes both ways; what was filled is read, so counted in.
    assert filled.tokens_in > plain.tokens_in
    gen = oracle.generator
    llm, _ = gen._load(embedding=False, n_ctx=ask.context)
    written = len(llm.tokenize(filled.text.encode(), add_bos=False, special=False))
    assert filled.tokens_out < written
    print(f"{purpose}: plain {plain.tokens_out} out, filled {filled.tokens_out} out and "
          f"{filled.tokens_in - plain.tokens_in} filled: {filled.text}")


def test_the_same_filled_ask_twice_gives_the_same_bytes(cfg, oracle):
    ask = statement(cfg, FILLED)
    first, again = oracle.generate(ask), oracle.generate(ask)
    assert again.text.encode() == first.text.encode()
    assert (again.tokens_in, again.tokens_out) == (first.tokens_in, first.tokens_out)


def test_the_limit_bounds_a_filled_answer_whoever_wrote_its_tokens(cfg, oracle):
    said = oracle.generate(statement(cfg, FILLED, limit=6))
    gen = oracle.generator
    llm, _ = gen._load(embedding=False, n_ctx=2048)
    assert said.done_reason == "length"
    assert len(llm.tokenize(said.text.encode(), add_bos=False, special=False)) <= 6
