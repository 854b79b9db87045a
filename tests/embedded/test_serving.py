"""Many asks served together by the embedded backend: the bytes each ask gives alone.

The asks are a recording's (SmolLM2's held-out bench day), put live: every answer served together must be
the answer the same ask gives asked alone (`sequences` 1) in this process, byte for
byte and token count for token count, whatever else is in flight with it and in
whatever order the asks come.
"""

from __future__ import annotations

import random

import pytest

from kernel import config
from kernel.errors import OracleError
from kernel.oracle import Ask, exemplar
from kernel.oracle.llamacpp import LlamaCppOracle
from tests.process import ROOT

pytestmark = [pytest.mark.embedded, pytest.mark.slow]


def _server(cfg, sequences: int) -> LlamaCppOracle:
    try:
        return LlamaCppOracle.from_config(cfg, sequences=sequences)
    except OracleError as e:
        pytest.fail(f"the embedded backend cannot be made: {e}", pytrace=False)


def _alike(said) -> tuple:
    return said.text, said.done_reason, said.tokens_in, said.tokens_out, said.model, said.digest


@pytest.fixture(scope="module")
def asks():
    # SmolLM2's asks (the quick model these tests load): the held-out bench day's first round
    doc = exemplar.load(ROOT / "bench" / "worlds" / "day-of-six" / "recording.json")
    return [exemplar.ask(r) for r in doc["calls"] if r["kind"] == "generate"][:12]


@pytest.fixture(scope="module")
def alone(cfg, asks):
    o = _server(cfg, 1)
    assert not o.together
    return [_alike(o.generate(a)) for a in asks]


def test_asks_served_together_are_the_bytes_of_each_ask_asked_alone(cfg, asks, alone):
    o = _server(cfg, 4)     # fewer sequences than asks: a sequence is emptied and taken again
    assert o.together
    said = o.generate_many(asks)
    assert [_alike(s) for s in said] == alone
    assert o.calls == len(asks)


def test_an_answer_does_not_depend_on_the_asks_served_with_it_nor_their_order(cfg, asks, alone):
    order = list(range(len(asks)))
    random.Random(39).shuffle(order)
    said = _server(cfg, 3).generate_many([asks[i] for i in order])
    assert [_alike(s) for s in said] == [alone[i] for i in order]


def test_one_sequence_asks_one_at_a_time(cfg, asks, alone):
    said = _server(cfg, 1).generate_many(asks[:3])
    assert [_alike(s) for s in said] == alone[:3]


def test_a_prompt_longer_than_the_context_is_refused_in_one_line_naming_both(cfg, asks):
    o = _server(cfg, 2)
    ask = asks[0]
    short = Ask(ask.purpose, ask.model, ask.prompt, ask.schema, ask.seed, ask.temperature,
                ask.limit, 64, ask.decoding)
    with pytest.raises(OracleError) as got:
        o.generate_many([short, short])
    line = str(got.value)
    assert "\n" not in line and line.startswith(f"llama.cpp could not answer 2 {ask.purpose} calls "
                                                 f"to {ask.model} together: the prompt is "), line
    assert "tokens, and the context holds" in line, line


def test_the_serving_setting_is_read_from_the_models_config():
    cfg = config.load("models-smollm2", schema="models")
    assert LlamaCppOracle.from_config(cfg).sequences == cfg["llamacpp"]["sequences"] > 1


@pytest.fixture(scope="module")
def opened(asks):
    """Two asks a villager, opening alike: each questions ask's prompt, its last paragraph (the
    request) kept apart as the rest, once as recorded and once with a sentence more before it."""
    out = []
    for a in [a for a in asks if a.purpose == "questions"][:3]:
        cut = a.prompt.rindex(b"\n\n") + 2
        for more in (b"", b"Think of the others first. "):
            out.append(Ask(a.purpose, a.model, a.prompt[:cut] + more + a.prompt[cut:], a.schema,
                           a.seed, a.temperature, a.limit, a.context, a.decoding, opening=cut))
    return out


@pytest.fixture(scope="module")
def opened_alone(cfg, opened):
    return [_alike(s) for s in _server(cfg, 1).generate_many(opened)]


def test_asks_that_open_alike_read_the_opening_once_and_give_the_bytes_of_each_alone(
        cfg, opened, opened_alone):
    o = _server(cfg, 3)
    read, reused = o.reading()
    said = o.generate_many(opened)
    assert [_alike(s) for s in said] == opened_alone
    read2, reused2 = o.reading()
    assert reused2 - reused >= 3 * 100, "each villager's second ask reads its opening again"
    assert [s.tokens_in for s in said] == [t[2] for t in opened_alone]
    # the next round reads none of the openings again
    again = o.generate_many(list(reversed(opened)))
    assert [_alike(s) for s in again] == list(reversed(opened_alone))
    read3, reused3 = o.reading()
    assert reused3 - reused2 > reused2 - reused


def test_an_opening_kept_does_not_change_an_answer_in_any_order(cfg, opened, opened_alone):
    order = list(range(len(opened)))
    random.Random(40).shuffle(order)
    said = _server(cfg, 2).generate_many([opened[i] for i in order])
    assert [_alike(s) for s in said] == [opened_alone[i] for i in order]
