"""The oracle interface: what an Ask may hold, and how every oracle counts."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import numpy as np
import pytest

from kernel import config
from kernel.errors import OracleError, VillageError
from kernel.oracle import Ask, Counters, OracleUsageError, RecordingOracle, Said, make
from kernel.seam import DRAWN_SCHEMA
from kernel.testing import ScriptedOracle, text_vector


def ask(**kw) -> Ask:
    d = dict(purpose="statement", model="small", prompt=b"why?\n", schema=DRAWN_SCHEMA, seed=7,
             temperature=0.0, limit=128, context=2048)
    d.update(kw)
    return Ask(**d)


def test_an_ask_and_a_said_are_frozen_values():
    a = ask()
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.seed = 8
    assert a == ask() and hash(a) == hash(ask())
    s = Said("t", "stop", 1, 1, 1, 0, "small", "d")
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.text = "u"


@pytest.mark.parametrize("field,value,words", [
    ("prompt", "why?", "prompt as bytes"),
    ("prompt", b"\xff", "not UTF-8"),
    ("schema", '{"type":"object"}', "schema as bytes or None"),
    ("schema", b"[1]", "must be a JSON object"),
    ("seed", -1, "seed to be an integer >= 0"),
    ("temperature", float("nan"), "temperature >= 0"),
    ("limit", 0, "limit to be an integer >= 1"),
    ("context", True, "context to be an integer >= 1"),
    ("model", "", "model to be non-empty text"),
])
def test_a_bad_ask_is_refused_naming_the_argument_and_its_value(field, value, words):
    with pytest.raises(OracleUsageError, match=words):
        ask(**{field: value})
    assert issubclass(OracleUsageError, VillageError)


def test_model_changes_count_every_switch_across_generate_and_embed_and_the_first_load():
    o = ScriptedOracle(["a"] * 4)
    o.generate(ask())
    o.generate(ask())
    o.embed("embed", ["x", "y"])
    o.embed("embed", ["z"])
    o.generate(ask())
    o.generate(ask(model="other"))
    assert o.counters() == Counters(calls=4, embeddings=3, model_changes=4)
    assert [(c.kind, c.model) for c in o.costs] == [
        ("generate", "small"), ("generate", "small"), ("embed", "embed"), ("embed", "embed"),
        ("generate", "small"), ("generate", "other")]


def test_a_call_that_fails_is_not_counted():
    o = ScriptedOracle([])
    with pytest.raises(OracleError, match="the script has 0 answers and call 1"):
        o.generate(ask())
    assert o.counters() == Counters(0, 0, 0)


def test_a_single_string_is_not_a_list_of_texts():
    with pytest.raises(OracleUsageError, match="Expected a list of texts"):
        ScriptedOracle().embed("embed", "abc")


def test_no_texts_make_no_call():
    o = ScriptedOracle()
    assert o.embed("embed", []).shape == (0, 0)
    assert o.counters() == Counters(0, 0, 0)


def test_the_scripted_vectors_are_a_function_of_the_text():
    assert text_vector("a", 8).tobytes() == text_vector("a", 8).tobytes()
    v = ScriptedOracle(dim=8).embed("e", ["a", "b"])
    assert v.shape == (2, 8) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0)


def test_a_recording_oracle_counts_like_the_one_it_wraps():
    inner = ScriptedOracle(["a", "b"])
    rec = RecordingOracle(inner)
    rec.generate(ask())
    rec.embed("embed", ["x"])
    rec.generate(ask())
    assert rec.counters() == inner.counters() == Counters(2, 1, 3)
    assert len(rec.records) == 3 and rec.backend == "scripted"
    with pytest.raises(OracleError, match="no file to go to"):
        rec.save()


@pytest.mark.parametrize("name", ["models", "models-smollm2"])
def test_the_models_config_is_valid_and_pins_the_gguf_by_its_sha256(name: str):
    from kernel.oracle import weights

    cfg = config.load(name, schema="models")
    assert cfg["backend"] in ("llamacpp", "ollama")
    assert cfg["llamacpp"]["models"][cfg["generate"]]["use"] == "generate"
    assert cfg["llamacpp"]["models"][cfg["embed"]]["use"] == "embed"
    pin = weights.of_model(cfg["llamacpp"], cfg["generate"]).sha256
    assert len(pin) == 64
    # Ollama imports, and the OpenAI-protocol server serves, the same file, pinned by its sha256.
    assert cfg["ollama"]["weights_sha256"] == pin
    assert cfg["openai"]["models"][cfg["generate"]]["weights_sha256"] == pin
    assert {cfg["generate"], cfg["embed"]} <= set(cfg["ollama"]["models"])
    assert set(cfg["ollama"]["models"]) == set(cfg["openai"]["models"])


def test_make_refuses_an_unknown_backend():
    with pytest.raises(OracleError, match="Expected a backend in llamacpp, ollama, openai, replay"):
        make("vllm", config.load("models"))


def test_importing_the_oracles_does_not_import_llama_cpp():
    # Replay must run where the embedded backend is not installed; a fresh
    # interpreter, so this test sees imports as a user's program would.
    code = ("import sys, kernel.oracle, kernel.oracle.llamacpp, kernel.testing; "
            "print('llama_cpp' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
