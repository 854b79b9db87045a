"""The embedded backend with the real SmolLM2-135M-Instruct: deterministic, pinned, and judged by shaped.

The model is loaded once for the module (loading is the slow part). Answers
are whatever this small model says; the tests check what the backend
guarantees (the same bytes twice, the pinned digest and dimension), and that
shaped accepts or refuses the answer by its rules, never anything else.
"""

from __future__ import annotations

import json
import time

import jsonschema
import numpy as np
import pytest

from kernel import config
from kernel.errors import OracleError, Refused
from kernel.oracle import Ask, RecordingOracle, ReplayOracle
from kernel.seam import DRAWN_SCHEMA, asked_schema, render, shaped

pytestmark = [pytest.mark.embedded, pytest.mark.slow]

HALLA = [
    {"id": 1, "text": "Ander came into sight, 0.8 cells off"},
    {"id": 2, "text": "Mose came into sight, 0.8 cells off"},
    {"id": 8, "text": "handed Ander 50 parcels, 25.0 grams"},
    {"id": 11, "text": "Ander took 40 parcels out of Halla's hands, 20.0 grams"},
    {"id": 35, "text": "ate 50 mouthfuls on 9,3, 25.0 grams"},
    {"id": 84, "text": "went from 9,3 to 9,2"},
]
LIMIT = 64  # enough to finish or to be cut off; small enough to keep the suite fast


@pytest.fixture(scope="module")
def questions(cfg, oracle):
    p = render("reflect-questions", name="Halla", memories=HALLA, lived=HALLA, count=2, interests="").bytes
    ask = Ask("questions", cfg["generate"], p, asked_schema(2), 2901, 0.0, LIMIT, cfg["context"])
    start = time.perf_counter()
    first = oracle.generate(ask)
    took = time.perf_counter() - start
    return ask, first, took


def judged(said, schema):
    """shaped's verdict, checked against the rules it claims to apply."""
    try:
        value = shaped(said, schema)
    except Refused as e:
        assert str(e).startswith(said.model + " ")
        return ("refused", str(e))
    assert said.done_reason == "stop"
    assert jsonschema.Draft202012Validator(json.loads(schema)).is_valid(value)
    return ("accepted", value)


def test_a_questions_prompt_with_a_schema_gets_an_answer_shaped_judges_by_its_rules(questions, cfg):
    ask, said, took = questions
    assert said.model == cfg["generate"] and said.digest == cfg["llamacpp"]["sha256"]
    assert said.done_reason in ("stop", "length")
    assert 0 < said.tokens_in < ask.context and 0 < said.tokens_out <= LIMIT
    assert said.took_ns > 0
    verdict, what = judged(said, ask.schema)
    if said.done_reason == "length":
        assert verdict == "refused" and "token limit" in what
    print(f"questions: {said.tokens_in} in, {said.tokens_out} out, {took:.2f} s, {verdict}")


def test_the_same_ask_twice_gives_the_same_bytes(questions, oracle):
    ask, first, _ = questions
    again = oracle.generate(ask)
    assert again.text.encode() == first.text.encode()
    assert (again.done_reason, again.tokens_in, again.tokens_out) == \
        (first.done_reason, first.tokens_in, first.tokens_out)


def test_a_statement_prompt_gets_an_answer_shaped_judges_by_its_rules(cfg, oracle):
    p = render("reflect-statement", name="Halla", memories=HALLA[:4], lived=HALLA,
               interests="", question="What did Ander do?").bytes
    said = oracle.generate(Ask("statement", cfg["generate"], p, DRAWN_SCHEMA, 2901, 0.0, LIMIT,
                               cfg["context"]))
    judged(said, DRAWN_SCHEMA)


def test_embeddings_have_the_pinned_dimension_and_are_identical_on_repeat(cfg, oracle):
    texts = ["What did Ander do?", "ate 50 mouthfuls on 9,3, 25.0 grams"]
    a = oracle.embed(cfg["embed"], texts)
    b = oracle.embed(cfg["embed"], texts)
    # the embedded backend embeds with the sentence embedder: all-MiniLM-L6-v2, 384 numbers
    assert a.shape == (2, config.load("embedder")["minilm"]["dim"]) == (2, 384)
    assert a.dtype == np.float32
    assert a.tobytes() == b.tobytes()
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    alone = oracle.embed(cfg["embed"], texts[1:])
    assert alone.tobytes() == a[1:].tobytes(), "a vector does not depend on its neighbours"


def test_a_gguf_whose_sha256_differs_from_the_pin_is_refused_unless_accepted(cfg):
    from kernel.oracle.llamacpp import LlamaCppOracle
    bad = dict(cfg["llamacpp"]) | {"sha256": "0" * 64}
    other = {**cfg.value, "llamacpp": bad}
    with pytest.raises(OracleError, match=f"has sha256 {cfg['llamacpp']['sha256']}, and "
                                          f"configs/models.json pins {'0' * 64}: it is another "
                                          f"model; not loaded"):
        LlamaCppOracle.from_config(other)
    assert LlamaCppOracle.from_config(other, accept_digest=True).sha256 == cfg["llamacpp"]["sha256"]


def test_a_model_the_config_does_not_name_is_refused(cfg, oracle):
    with pytest.raises(OracleError, match="has no model qwen2.5:0.5b to generate with"):
        oracle.generate(Ask("questions", "qwen2.5:0.5b", b"x", None, 0, 0.0, 8, 512))
    with pytest.raises(OracleError, match=f"has no model {cfg['generate']} to embed with"):
        oracle.embed(cfg["generate"], ["x"])


def test_a_recording_of_the_embedded_backend_replays_to_the_bit(cfg, oracle, questions, tmp_path):
    first, _, _ = questions
    # A short limit: the recording, not the answer, is what this test is about.
    ask = Ask(first.purpose, first.model, first.prompt, first.schema, first.seed,
              first.temperature, 12, first.context)
    rec = RecordingOracle(oracle)
    said = rec.generate(ask)
    vec = rec.embed(cfg["embed"], ["What did Ander do?"])
    path = rec.save(tmp_path / "embedded.json")
    doc = json.loads(path.read_text())
    assert doc["backend"] == "llamacpp"
    assert doc["models"][cfg["generate"]]["digest"] == cfg["llamacpp"]["sha256"]
    replay = ReplayOracle(path)
    assert replay.generate(ask) == said
    assert replay.embed(cfg["embed"], ["What did Ander do?"]).tobytes() == vec.tobytes()
