"""Wire tests: the Ollama oracle against a fake Ollama server on 127.0.0.1.

The fake (`FakeOllama`, in this folder's conftest) is a stdlib HTTP server
in a thread that records every request body and answers from a script per
path, so a test reads exactly what went on the wire and decides exactly
what comes back (a 503, a slow answer, a cut-off answer). No real server is
needed or contacted.
"""

from __future__ import annotations

import json
import socket
import threading
import time

import numpy as np
import pytest

from kernel import config
from kernel.errors import OracleError, Refused
from kernel.oracle import Ask, make
from kernel.oracle.fanout import Retry
from kernel.oracle.ollama import OllamaOracle
from kernel.seam import DRAWN_SCHEMA, asked_schema, shaped

MODEL = "smollm2:135m-instruct"
NAME = "village-smollm2:135m-instruct-q4_1"
DIGEST = "ab" * 32
OTHER = "cd" * 32


def oracle(fake, **kw) -> OllamaOracle:
    kw.setdefault("models", {MODEL: (NAME, DIGEST), MODEL + "/mean": (NAME, DIGEST)})
    kw.setdefault("timeout", 5.0)
    kw.setdefault("retry", Retry(sleep=lambda s: None))
    return OllamaOracle(host=fake.host, **kw)


def ask(schema=DRAWN_SCHEMA, **kw) -> Ask:
    d = dict(purpose="statement", model=MODEL, prompt=b"The question is: why?\n",
             schema=schema, seed=2907, temperature=0.0, limit=128, context=2048)
    d.update(kw)
    return Ask(**d)


GOOD = '{"answer": "a day of giving", "numbers": [8, 11]}'


def test_the_schema_goes_on_the_wire_as_given_and_only_when_there_is_one(fake):
    fake.script["/api/generate"] = [fake.answer(GOOD)]
    o = oracle(fake)
    o.generate(ask(schema=DRAWN_SCHEMA))
    o.generate(ask(schema=None))
    with_schema, without = fake.bodies("/api/generate")
    assert with_schema["format"] == json.loads(DRAWN_SCHEMA)
    sent = json.dumps(with_schema["format"], separators=(",", ":")).encode()
    assert sent == DRAWN_SCHEMA, "same keys, same order, same values as the caller's bytes"
    assert "format" not in without


def test_every_request_carries_the_asks_temperature_seed_limit_and_context(fake):
    fake.script["/api/generate"] = [fake.answer(GOOD)]
    oracle(fake, keep_alive="10m").generate(ask(seed=4, limit=64, context=1024))
    (body,) = fake.bodies("/api/generate")
    assert body["options"] == {"temperature": 0.0, "seed": 4, "num_predict": 64, "num_ctx": 1024,
                               "repeat_penalty": 1.0, "repeat_last_n": 64, "top_k": 40,
                               "top_p": 0.95, "min_p": 0.05}
    assert body["model"] == NAME and body["stream"] is False and body["keep_alive"] == "10m"
    assert body["prompt"] == "The question is: why?\n"


def test_an_answer_comes_back_with_its_tokens_durations_and_the_servers_digest(fake):
    fake.script["/api/generate"] = [fake.answer(GOOD)]
    said = oracle(fake).generate(ask())
    assert (said.text, said.done_reason, said.tokens_in, said.tokens_out) == (GOOD, "stop", 57, 12)
    assert (said.took_ns, said.load_ns, said.model, said.digest) == (3_000_000, 1_000_000, MODEL, DIGEST)
    assert shaped(said, DRAWN_SCHEMA) == {"answer": "a day of giving", "numbers": [8, 11]}


def test_no_server_is_one_line_telling_the_user_to_start_one():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    o = OllamaOracle(host=f"http://127.0.0.1:{port}", models={MODEL: (NAME, DIGEST)}, timeout=2)
    with pytest.raises(OracleError) as e:
        o.generate(ask())
    assert str(e.value) == f"no Ollama server at http://127.0.0.1:{port}: start it with `ollama serve`"


def test_a_model_the_server_does_not_list_is_one_line_telling_the_user_to_pull_it(fake):
    fake.script["/api/tags"] = [(200, {"models": []}, 0.0)]
    with pytest.raises(OracleError, match=f"^model {NAME} is not pulled on {fake.host}: "
                                          f"run `ollama pull {NAME}`$"):
        oracle(fake).generate(ask())


def test_a_404_for_the_model_is_the_same_line(fake):
    fake.script["/api/generate"] = [(404, {"error": f"model '{NAME}' not found"}, 0.0)]
    with pytest.raises(OracleError, match=f"^model {NAME} is not pulled on "):
        oracle(fake).generate(ask())


def test_a_server_error_is_an_oracle_error_naming_the_status_and_the_servers_words(fake):
    fake.script["/api/generate"] = [(500, {"error": "llama runner process has terminated"}, 0.0)]
    with pytest.raises(OracleError) as e:
        oracle(fake).generate(ask())
    assert str(e.value) == (f"Ollama at {fake.host} failed on the statement call to {NAME}: "
                            f"500 llama runner process has terminated")
    assert len(fake.bodies("/api/generate")) == 1, "a 500 is not retried"


def test_a_busy_server_is_retried_with_a_capped_exponential_backoff(fake):
    busy = (503, {"error": "server busy, please try again"}, 0.0)
    limited = (429, {"error": "too many requests"}, 0.0)
    fake.script["/api/generate"] = [busy, limited, busy, fake.answer(GOOD)]
    slept: list[float] = []
    o = oracle(fake, retry=Retry(attempts=4, base_s=0.5, cap_s=1.5, sleep=slept.append))
    assert o.generate(ask()).text == GOOD
    assert slept == [0.5, 1.0, 1.5]
    assert len(fake.bodies("/api/generate")) == 4 and o.calls == 1


def test_a_server_busy_through_every_attempt_is_an_oracle_error(fake):
    fake.script["/api/generate"] = [(503, {"error": "server busy"}, 0.0)]
    slept: list[float] = []
    with pytest.raises(OracleError, match=r"stayed busy \(503: server busy\) through 3 attempts"):
        oracle(fake, retry=Retry(attempts=3, sleep=slept.append)).generate(ask())
    assert len(slept) == 2


def test_a_slow_answer_past_the_timeout_is_an_oracle_error(fake):
    fake.script["/api/generate"] = [(200, {"response": GOOD, "done_reason": "stop"}, 1.0)]
    start = time.monotonic()
    with pytest.raises(OracleError, match=f"^Ollama at {fake.host} did not answer the statement "
                                          f"call to {NAME} within 0.2 s$"):
        oracle(fake, timeout=0.2).generate(ask())
    assert time.monotonic() - start < 0.9


def test_an_answer_cut_at_the_token_limit_is_refused_by_shaped(fake):
    fake.script["/api/generate"] = [fake.answer('{"answer": "a day of', done_reason="length")]
    said = oracle(fake).generate(ask())
    with pytest.raises(Refused, match=rf"^{MODEL} stopped at the token limit \(done_reason length\)"):
        shaped(said, DRAWN_SCHEMA)


def test_an_answer_with_a_field_the_schema_lacks_is_refused_by_shaped(fake):
    extra = '{"answer": "a day", "numbers": [8], "confidence": 0.9}'
    fake.script["/api/generate"] = [fake.answer(extra)]
    with pytest.raises(Refused, match="not the shape asked for"):
        shaped(oracle(fake).generate(ask()), DRAWN_SCHEMA)


def test_an_answer_that_is_not_json_is_refused_by_shaped(fake):
    fake.script["/api/generate"] = [fake.answer("Sure! Here are two questions: ...")]
    with pytest.raises(Refused, match=f"^{MODEL} answered with something that is not JSON"):
        shaped(oracle(fake).generate(ask(schema=asked_schema(2))), asked_schema(2))


def test_a_body_the_client_cannot_read_is_an_oracle_error(fake):
    fake.script["/api/generate"] = [(200, "<html>proxy error</html>", 0.0)]
    with pytest.raises(OracleError, match="with a body this client cannot read"):
        oracle(fake).generate(ask())


def test_a_digest_other_than_the_pinned_one_is_refused_unless_accepted(fake):
    fake.script["/api/generate"] = [fake.answer(GOOD)]
    with pytest.raises(OracleError, match=f"is at digest {DIGEST[:16]}, and configs/models.json "
                                          f"pins {OTHER[:16]}: it is another model"):
        oracle(fake, models={MODEL: (NAME, OTHER)}).generate(ask())
    assert fake.bodies("/api/generate") == [], "nothing is asked of the wrong model"
    said = oracle(fake, models={MODEL: (NAME, OTHER)}, accept_digest=True).generate(ask())
    assert said.digest == DIGEST, "an accepted model is labelled with the digest it really has"


def test_a_model_with_no_pinned_digest_is_refused_with_the_digest_to_pin(fake):
    with pytest.raises(OracleError, match=f"pins no digest for {NAME}.*has it at {DIGEST}"):
        oracle(fake, models={MODEL: (NAME, None)}).generate(ask())


def test_the_digest_is_read_once_from_the_model_list(fake):
    fake.script["/api/generate"] = [fake.answer(GOOD)]
    o = oracle(fake)
    o.generate(ask())
    o.generate(ask())
    assert len([1 for _, p, _ in fake.requests if p == "/api/tags"]) == 1


def test_embeddings_go_to_api_embed_and_come_back_as_float32_rows(fake):
    fake.script["/api/embed"] = [(200, {"model": NAME, "embeddings": [[0.5, 0.25], [1.0, -1.0]],
                                        "prompt_eval_count": 9, "total_duration": 7}, 0.0)]
    o = oracle(fake, keep_alive="10m")
    v = o.embed(MODEL + "/mean", ["why?", "how?"], purpose="question embedded")
    assert v.dtype == np.float32 and v.tolist() == [[0.5, 0.25], [1.0, -1.0]]
    (body,) = fake.bodies("/api/embed")
    assert body["input"] == ["why?", "how?"] and body["model"] == NAME
    assert body["options"] == {"num_ctx": 2048}
    assert (o.embeddings, o.costs[-1].purpose, o.costs[-1].tokens_in) == (2, "question embedded", 9)


def test_a_model_change_is_counted_across_generate_and_embed(fake):
    fake.script["/api/generate"] = [fake.answer(GOOD)]
    fake.script["/api/embed"] = [(200, {"embeddings": [[1.0]]}, 0.0)]
    o = oracle(fake)
    o.generate(ask())
    o.generate(ask())
    o.embed(MODEL + "/mean", ["a"])
    o.generate(ask())
    assert (o.calls, o.embeddings, o.model_changes) == (3, 1, 3)


def test_the_host_comes_from_OLLAMA_HOST_before_the_config(fake, monkeypatch):
    cfg = config.load("models")
    monkeypatch.setenv("OLLAMA_HOST", fake.host)
    o = make("ollama", cfg, accept_digest=True)
    assert isinstance(o, OllamaOracle) and o.host == fake.host
    assert o.timeout == cfg["timeout_s"] and o.keep_alive == cfg["keep_alive"]
    monkeypatch.delenv("OLLAMA_HOST")
    assert make("ollama", cfg).host == cfg["ollama"]["host"]


# -- what real servers (and things that pretend to be one) do --------------------------


class RawServer:
    """A TCP server that runs `behave(conn)` on each connection: for what no HTTP server does."""

    def __init__(self, behave):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.host = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.conns: list[socket.socket] = []
        self.behave = behave
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)
            threading.Thread(target=self.behave, args=(conn,), daemon=True).start()

    def close(self):
        self.sock.close()
        for c in self.conns:
            try:
                c.close()
            except OSError:
                pass


def _read_request(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        more = conn.recv(65536)
        if not more:
            break
        data += more
    head, _, body = data.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            n = int(line.split(b":")[1])
            while len(body) < n:
                more = conn.recv(65536)
                if not more:
                    break
                body += more
    return head


def test_an_answer_cut_at_the_token_limit_keeps_the_committed_refusal_text(fake):
    fake.script["/api/generate"] = [fake.answer('{"answer": "a day of', done_reason="length")]
    with pytest.raises(Refused) as e:
        shaped(oracle(fake).generate(ask()), DRAWN_SCHEMA)
    assert str(e.value) == (f"{MODEL} stopped at the token limit (done_reason length): "
                            f"the answer is cut off and is not an answer")


def test_a_listed_model_with_no_digest_is_said_to_have_no_digest_not_to_be_unpulled(fake):
    fake.script["/api/tags"] = [(200, {"models": [{"name": NAME, "model": NAME, "size": 1}]}, 0.0)]
    with pytest.raises(OracleError) as e:
        oracle(fake).generate(ask())
    msg = str(e.value)
    assert msg.startswith(f"{fake.host} lists model {NAME} with no digest")
    assert "not pulled" not in msg
    assert fake.bodies("/api/generate") == [], "nothing is asked of a model whose digest is unknown"


def test_a_server_that_answers_200_for_any_model_name_is_not_believed(fake):
    # It answers every generate, whatever the name; only its model list says what it has.
    fake.script["/api/generate"] = [fake.answer(GOOD)]
    o = oracle(fake, models={MODEL: ("no-such-model:1b", DIGEST)})
    with pytest.raises(OracleError, match="^model no-such-model:1b is not pulled on "):
        o.generate(ask())
    assert fake.bodies("/api/generate") == [], "the name is checked against the list first"


def test_a_server_that_accepts_and_never_answers_is_one_line_within_the_timeout():
    def silent(conn):
        _read_request(conn)
        time.sleep(30)   # holds the connection open and says nothing

    server = RawServer(silent)
    try:
        start = time.monotonic()
        with pytest.raises(OracleError, match=f"^Ollama at {server.host} did not answer the list "
                                              f"models call to {NAME} within 0.3 s$"):
            OllamaOracle(host=server.host, models={MODEL: (NAME, DIGEST)}, timeout=0.3).generate(ask())
        assert time.monotonic() - start < 5
    finally:
        server.close()


def test_a_connection_reset_in_the_middle_of_the_body_is_one_line():
    tags = json.dumps({"models": [{"name": NAME, "model": NAME, "digest": DIGEST}]}).encode()

    def reset_mid_body(conn):
        head = _read_request(conn)
        if b"/api/tags" in head:
            conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                         b"content-length: %d\r\n\r\n" % len(tags) + tags)
            _read_request(conn)   # the same connection carries the next request
        body = b'{"model": "x", "response": "{\\"statement\\": \\"a da'
        conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                     b"content-length: 4096\r\n\r\n" + body)
        # SO_LINGER 0: close with a reset, not a clean end.
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        conn.close()

    server = RawServer(reset_mid_body)
    try:
        with pytest.raises(OracleError) as e:
            OllamaOracle(host=server.host, models={MODEL: (NAME, DIGEST)}, timeout=5).generate(ask())
        msg = str(e.value)
        assert "\n" not in msg
        assert msg.startswith(f"Ollama at {server.host} failed on the statement call to {NAME}: ")
    finally:
        server.close()


def test_an_answer_over_64_kib_from_a_server_is_an_oracle_error_not_a_refusal(fake):
    huge = '{"answer": "' + "a" * 100_000 + '", "numbers": [1]}'
    fake.script["/api/generate"] = [fake.answer(huge)]
    o = oracle(fake)
    with pytest.raises(OracleError, match=f"^{MODEL} answered the statement call with 100,030 "
                                          f"bytes, more than the 65,536 an answer may hold"):
        o.generate(ask())
    assert o.calls == 0


@pytest.mark.parametrize("host,why", [("http://127.0.0.1:99999", "Port out of range"),
                                      ("http://[::1", "Invalid IPv6 URL"),
                                      ("http://256.1.1.1:11434", "Invalid IPv4 address")])
def test_an_ollama_host_that_is_not_a_url_is_one_line_naming_it(monkeypatch, host, why):
    monkeypatch.setenv("OLLAMA_HOST", host)
    with pytest.raises(OracleError) as e:
        make("ollama", config.load("models"))
    msg = str(e.value)
    assert msg.startswith(f"OLLAMA_HOST {host!r} is not a URL this client can reach ({why}")
    assert msg.endswith("set it like http://127.0.0.1:11434")
