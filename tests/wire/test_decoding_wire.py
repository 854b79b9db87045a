"""Wire tests: an ask's decoding goes to Ollama and to llama.cpp the same way, and is recorded.

The Ollama side reads the request body the fake server (this folder's conftest)
received; the llama.cpp side reads the arguments a stand-in for a loaded `Llama`
was called with, so neither needs a model. The two must carry the same five
values the ask holds, whatever they are, and a recording must hold them beside
seed and temperature so a replay compares them.
"""

from __future__ import annotations

import json

import pytest

from kernel.errors import OracleUsageError, ReplayMismatch
from kernel.oracle import Ask
from kernel.oracle import exemplar as ex
from kernel.oracle.base import Decoding, Said
from kernel.oracle.fanout import Retry
from kernel.oracle.llamacpp import LlamaCppOracle
from kernel.oracle.ollama import OllamaOracle
from kernel.oracle.replay import ReplayOracle
from kernel.seam import drawn_schema

MODEL = "smollm2:135m-instruct"
NAME = "village-smollm2:135m-instruct-q4_1"
DIGEST = "ab" * 32
TUNED = Decoding(repeat_penalty=1.3, repeat_last_n=96, top_k=20, top_p=0.8, min_p=0.1)
GOOD = '{"answer": "a day of giving", "numbers": [8]}'


def ask(decoding: Decoding = TUNED) -> Ask:
    return Ask(purpose="statement", model=MODEL, prompt=b"You asked yourself: why?\n",
               schema=drawn_schema([8, 11]), seed=7, temperature=0.0, limit=64, context=2048,
               decoding=decoding)


class FakeLlama:
    """What `LlamaCppOracle` calls on a loaded model: reset, the window, one chat completion."""

    def __init__(self):
        self.last_n_tokens_size = 64
        self.calls: list[dict] = []

    def reset(self):
        pass

    def create_chat_completion(self, messages, **kw):
        self.calls.append({"messages": messages, "window": self.last_n_tokens_size, **kw})
        return {"choices": [{"message": {"content": GOOD}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 9, "completion_tokens": 5}}


def llamacpp(monkeypatch, tmp_path) -> tuple[LlamaCppOracle, FakeLlama]:
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"not a model")
    from kernel.oracle.base import file_sha256
    o = LlamaCppOracle(sha256=file_sha256(gguf), models={MODEL: "generate"}, gguf=gguf)
    fake = FakeLlama()
    monkeypatch.setattr(o, "_load", lambda **kw: (fake, 0))
    monkeypatch.setattr("kernel.oracle.llamacpp.json_grammar", lambda schema: "grammar")
    return o, fake


def test_ollama_is_sent_the_asks_repeat_penalty_its_window_and_the_sampling_cut_offs(fake):
    fake.script["/api/generate"] = [fake.answer(GOOD)]
    OllamaOracle(host=fake.host, models={MODEL: (NAME, DIGEST)}, timeout=5.0,
                 retry=Retry(sleep=lambda s: None)).generate(ask())
    (body,) = fake.bodies("/api/generate")
    assert body["options"] == {"temperature": 0.0, "seed": 7, "num_predict": 64, "num_ctx": 2048,
                               "repeat_penalty": 1.3, "repeat_last_n": 96, "top_k": 20,
                               "top_p": 0.8, "min_p": 0.1}


def test_llamacpp_is_given_the_same_five_values_the_window_as_its_last_n_tokens(monkeypatch,
                                                                                tmp_path):
    o, fake = llamacpp(monkeypatch, tmp_path)
    said = o.generate(ask())
    (call,) = fake.calls
    assert (call["repeat_penalty"], call["window"], call["top_k"], call["top_p"],
            call["min_p"]) == (1.3, 96, 20, 0.8, 0.1)
    assert (call["temperature"], call["seed"], call["max_tokens"]) == (0.0, 7, 64)
    assert call["messages"] == [{"role": "user", "content": "You asked yourself: why?\n"}]
    assert (said.text, said.tokens_in, said.tokens_out) == (GOOD, 9, 5)


def test_both_backends_are_sent_what_the_ask_holds_and_nothing_of_their_own(monkeypatch,
                                                                             tmp_path, fake):
    fake.script["/api/generate"] = [fake.answer(GOOD)]
    OllamaOracle(host=fake.host, models={MODEL: (NAME, DIGEST)}, timeout=5.0,
                 retry=Retry(sleep=lambda s: None)).generate(ask(Decoding()))
    o, llama = llamacpp(monkeypatch, tmp_path)
    o.generate(ask(Decoding()))
    sent = fake.bodies("/api/generate")[0]["options"]
    (call,) = llama.calls
    here = {"repeat_penalty": call["repeat_penalty"], "repeat_last_n": call["window"],
            "top_k": call["top_k"], "top_p": call["top_p"], "min_p": call["min_p"]}
    assert {k: sent[k] for k in here} == here == Decoding().options()


def test_a_recording_holds_the_decoding_and_a_replay_under_another_stops_naming_it():
    said = Said(text=GOOD, done_reason="stop", tokens_in=9, tokens_out=5, took_ns=1, load_ns=0,
                model=MODEL, digest=DIGEST)
    rec = ex.generate_record(ask(), said, "scripted")
    assert {k: rec["options"][k] for k in TUNED.options()} == TUNED.options()
    doc = ex.document("scripted", [rec])
    assert ReplayOracle(json.loads(json.dumps(doc))).generate(ask()).text == GOOD
    other = ReplayOracle(json.loads(json.dumps(doc)))
    with pytest.raises(ReplayMismatch, match="the repeat_penalty here is 1.0, and the "
                                             "recording's is 1.3"):
        other.generate(ask(Decoding()))


def test_ollama_is_never_sent_fill_since_it_samples_every_token_itself(fake):
    fake.script["/api/generate"] = [fake.answer(GOOD)]
    filled = Decoding(repeat_penalty=1.3, repeat_last_n=96, top_k=20, top_p=0.8, min_p=0.1,
                      fill=True)
    OllamaOracle(host=fake.host, models={MODEL: (NAME, DIGEST)}, timeout=5.0,
                 retry=Retry(sleep=lambda s: None)).generate(ask(filled))
    (body,) = fake.bodies("/api/generate")
    assert "fill" not in body["options"]
    assert {k: body["options"][k] for k in TUNED.sampling()} == TUNED.sampling()


def test_a_recording_names_fill_only_where_it_is_on_and_a_replay_without_it_stops_naming_it():
    said = Said(text=GOOD, done_reason="stop", tokens_in=9, tokens_out=5, took_ns=1, load_ns=0,
                model=MODEL, digest=DIGEST)
    assert "fill" not in ex.generate_record(ask(), said, "scripted")["options"]
    filled = Decoding(repeat_penalty=1.3, repeat_last_n=96, top_k=20, top_p=0.8, min_p=0.1,
                      fill=True)
    rec = ex.generate_record(ask(filled), said, "scripted")
    assert rec["options"]["fill"] is True
    doc = json.loads(json.dumps(ex.document("scripted", [rec])))
    assert ReplayOracle(doc).generate(ask(filled)).text == GOOD
    with pytest.raises(ReplayMismatch, match="fill"):
        ReplayOracle(json.loads(json.dumps(doc))).generate(ask())


@pytest.mark.parametrize("kw", [{"repeat_penalty": 0.9}, {"repeat_penalty": True},
                                {"repeat_last_n": -1}, {"top_p": 1.5}, {"min_p": float("nan")},
                                {"top_k": 2.0}, {"fill": 1}, {"fill": "yes"}])
def test_a_decoding_out_of_range_is_refused_naming_the_value(kw):
    name = next(iter(kw))
    with pytest.raises(OracleUsageError, match=f"{name}"):
        Decoding(**kw)


def test_a_recordings_options_give_back_the_decoding_they_were_made_with():
    filled = Decoding(repeat_penalty=1.3, repeat_last_n=96, top_k=20, top_p=0.8, min_p=0.1,
                      fill=True)
    for d in (TUNED, filled, Decoding()):
        assert Decoding.of(ex.options(ask(d))) == d
