"""Wire tests: what the openai backend sends a server of each dialect, read off the body a
loopback stand-in received, and how it says a bad base URL or a missing model in one line.

The stand-in answers the model list and a chat completion as any OpenAI-protocol server
does; the bodies it received are what the official client put on the wire, so each
dialect's names for the ask's five sampler values, the schema's form, and the absence of
`fill` are pinned here without a model.
"""

from __future__ import annotations

import http.server
import json
import threading

import pytest

from kernel.errors import OracleError
from kernel.oracle import Ask
from kernel.oracle.base import Decoding
from kernel.oracle.openai_api import DIALECTS, OpenAIBackend, OpenAIOracle, base_urls_of
from kernel.seam import drawn_schema
from tests.server.conftest import free_port, send_json

MODEL = "smollm2:135m-instruct"
PIN = "cd" * 32
TUNED = Decoding(repeat_penalty=1.3, repeat_last_n=96, top_k=20, top_p=0.8, min_p=0.1, fill=True)
GOOD = '{"answer": "a day of giving", "numbers": [8]}'


class Stand:
    def __init__(self, models=("smollm2",), extra=None):
        self.bodies: list[dict] = []
        stand = self

        class H(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _send(self, code, value):
                send_json(self, code, json.dumps(value).encode())

            def do_GET(self):
                self._send(200, {"object": "list", "data": [
                    {"id": m, "object": "model", "owned_by": "me", **(extra or {})}
                    for m in models]})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                stand.bodies.append(body)
                if self.path.endswith("/embeddings"):
                    # answered out of order, as the protocol allows: each row carries its index
                    rows = [{"object": "embedding", "index": i, "embedding": [float(i), 0.5, 1.0]}
                            for i in range(len(body["input"]))][::-1]
                    return self._send(200, {"object": "list", "data": rows, "model": "m",
                                            "usage": {"prompt_tokens": 4, "total_tokens": 4}})
                self._send(200, {"id": "x", "object": "chat.completion", "created": 0,
                                 "model": "smollm2", "choices": [
                                     {"index": 0, "finish_reason": "stop", "message": {
                                         "role": "assistant", "content": GOOD}}],
                                 "usage": {"prompt_tokens": 9, "completion_tokens": 5,
                                           "total_tokens": 14}})

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def stand():
    s = Stand()
    yield s
    s.close()


def ask() -> Ask:
    return Ask(purpose="statement", model=MODEL, prompt=b"You asked yourself: why?\n",
               schema=drawn_schema([8, 11]), seed=7, temperature=0.0, limit=64, context=2048,
               decoding=TUNED)


def oracle(base: str, dialect: str, **kw) -> OpenAIOracle:
    return OpenAIOracle(base_url=base, models={MODEL: ("smollm2", None, PIN)}, dialect=dialect,
                        **kw)


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_every_dialect_is_sent_temperature_seed_the_limit_and_the_samplers_it_reads_never_fill(
        stand, dialect):
    o = oracle(stand.base, dialect)
    said = o.generate(ask())
    assert said.text == GOOD and said.digest == PIN
    body = stand.bodies[-1]
    assert body["model"] == "smollm2" and body["messages"] == [
        {"role": "user", "content": "You asked yourself: why?\n"}]
    assert (body["temperature"], body["seed"], body["max_tokens"], body["top_p"]) == (
        0.0, 7, 64, 0.8)
    assert "fill" not in body
    d = DIALECTS[dialect]
    sampled = {"repeat_penalty": 1.3, "repeat_last_n": 96, "top_k": 20, "min_p": 0.1}
    for k, v in sampled.items():
        if k in d.sent:
            assert body[d.sent[k]] == v, (k, body)
        else:
            assert k not in body and k in o.served()["not_sent"], (k, body)


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_the_schema_goes_as_the_embedded_grammar_where_a_server_takes_one_else_as_json_schema(
        stand, dialect):
    o = oracle(stand.base, dialect)
    o.generate(ask())
    body = stand.bodies[-1]
    if DIALECTS[dialect].grammar:
        pytest.importorskip("llama_cpp")
        from kernel.oracle.llamacpp import json_gbnf

        assert body["grammar"] == json_gbnf(ask().schema) and "response_format" not in body
    else:
        assert body["response_format"] == {"type": "json_schema", "json_schema": {
            "name": "answer", "schema": json.loads(ask().schema), "strict": True}}


def test_an_embedding_call_goes_to_v1_embeddings_and_its_rows_come_back_in_the_texts_order(stand):
    o = oracle(stand.base, "vllm")
    v = o.embed(MODEL, ["a", "b", "c"])
    assert stand.bodies[-1]["input"] == ["a", "b", "c"] and stand.bodies[-1]["model"] == "smollm2"
    assert v.dtype.name == "float32" and v[:, 0].tolist() == [0.0, 1.0, 2.0]


def test_a_model_the_server_does_not_serve_is_one_line_naming_what_it_serves(stand):
    o = OpenAIOracle(base_url=stand.base, models={MODEL: ("other", None, PIN)})
    with pytest.raises(OracleError, match=r"does not serve model other: it serves smollm2;"):
        o.digest(MODEL)


def test_a_model_with_no_digest_and_no_weights_pin_is_refused_unless_accepted(stand):
    o = OpenAIOracle(base_url=stand.base, models={MODEL: ("smollm2", None, None)})
    with pytest.raises(OracleError, match="reports no digest for smollm2, and configs/models.json "
                                          "gives no weights_sha256"):
        o.digest(MODEL)
    o = OpenAIOracle(base_url=stand.base, models={MODEL: ("smollm2", None, None)},
                     accept_digest=True)
    assert o.digest(MODEL) == "served:smollm2"


def test_a_digest_the_server_reports_is_the_pin_and_another_one_is_refused():
    s = Stand(extra={"digest": "sha256:" + "ef" * 32})
    try:
        assert OpenAIOracle(base_url=s.base, models={MODEL: ("smollm2", "ef" * 32, PIN)}
                            ).digest(MODEL) == "ef" * 32
        with pytest.raises(OracleError, match="is at digest efefefefefefefef, and "
                                              "configs/models.json pins 0101010101010101"):
            OpenAIOracle(base_url=s.base, models={MODEL: ("smollm2", "01" * 32, PIN)}).digest(MODEL)
    finally:
        s.close()


def test_no_server_at_the_base_url_is_one_line_naming_it():
    base = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(OracleError, match=rf"^no server at {base} answered the list models call"):
        oracle(base, "vllm").digest(MODEL)


@pytest.mark.parametrize("url", ["http://[::1", "http://127.0.0.1:99999", "http://127.0.0.1:0/v1",
                                 "127.0.0.1:8000", "ftp://host/v1", ""])
def test_a_base_url_the_client_cannot_reach_is_one_line_naming_its_setting(monkeypatch, url):
    monkeypatch.delenv("OPENAI_BASE_URLS", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    if not url:   # empty is unset: the config's
        with pytest.raises(OracleError, match="openai.base_url in configs/models.json 'x'"):
            base_urls_of({"base_url": "x"})
        return
    with pytest.raises(OracleError) as e:
        base_urls_of({"base_url": "http://127.0.0.1:8000/v1"})
    line = str(e.value)
    assert line.startswith(f"OPENAI_BASE_URL {url!r} is not a URL this client can reach ("), line
    assert "a base URL is http[s]://host[:port][/path] with a port from 1 to 65535" in line


def test_a_pool_listing_one_server_twice_is_refused(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URLS", "http://a:1/v1,http://a:1/v1")
    with pytest.raises(OracleError, match="OPENAI_BASE_URLS names the server http://a:1/v1 twice"):
        base_urls_of({"base_url": "x"})


def test_concurrent_asks_a_server_is_a_number_of_one_or_more(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URLS", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    for bad in (0, True, "2"):
        with pytest.raises(OracleError, match=r"Expected openai.concurrent >= 1"):
            OpenAIBackend.check_settings({"openai": {"base_url": "http://a:1/v1",
                                                     "concurrent": bad, "models": {}}})


def test_an_accepted_model_is_labelled_by_its_served_name_never_by_a_weights_pin_it_did_not_prove(
        stand):
    """With --accept-digest the server's file is not checked, so its answers are not recorded as
    the pinned weights' (a Qwen answer once went down as SmolLM2's sha256): they are `served:NAME`."""
    o = OpenAIOracle(base_url=stand.base, models={MODEL: ("smollm2", None, PIN)},
                     accept_digest=True)
    assert o.digest(MODEL) == "served:smollm2"
    assert OpenAIOracle(base_url=stand.base, models={MODEL: ("smollm2", None, PIN)}
                        ).digest(MODEL) == PIN
