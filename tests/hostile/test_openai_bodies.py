"""Any body an OpenAI-protocol server sends is checked before use: one line, nothing recorded.

A stand-in server on loopback answers `/v1/models`, `/v1/chat/completions` and
`/v1/embeddings` with a body a row chooses (a list whose `data` is a string,
token counts as text, negative or 1e30, NUL or a lone surrogate in an answer,
a digest sent as a map, NaN or overflowing vectors), or misbehaves on the wire
(a redirect loop; an answer dripped a byte at a time, slower than `timeout_s`
allows a whole answer). Each row runs the real `village` program on every path
it can take (run with and without `--record` and `--accept-digest`, interview,
embed) and wants exit 1, one line naming the server and the field or the
fault, and the home as it was: the committed recording kept byte for byte, no
file half-written (the ticks a run made before the refused call stay in its
log, which verifies).
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from kernel import log as vlog
from tests.process import env, one_error_line, village

from .conftest import row, tree

pytestmark = pytest.mark.slow   # a real process, server, model or browser each test

GOOD_LIST = {"object": "list", "data": [{"id": "qwen2.5-coder-1.5b", "object": "model", "owned_by": "me"}]}


def completion(content="{}", usage=None, **over) -> dict:
    body = {"id": "x", "object": "chat.completion", "created": 1, "model": "qwen2.5-coder-1.5b",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": "stop"}],
            "usage": usage if usage is not None else {"prompt_tokens": 3, "completion_tokens": 2,
                                                      "total_tokens": 5}}
    body.update(over)
    return body


class Stand:
    """The stand-in server: `bodies` maps a path's last part to the raw bytes it answers, or to
    'redirect' (a 307 to itself, for ever) or 'drip' (a body sent one byte every 0.5 s)."""

    def __init__(self, bodies: dict[str, bytes | str]):
        stand = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def _answer(self):
                n = int(self.headers.get("content-length") or 0)
                if n:
                    self.rfile.read(n)
                got = stand.bodies.get(self.path.rstrip("/").rsplit("/", 1)[-1])
                if got == "redirect":
                    self.send_response(307)
                    self.send_header("location", self.path)
                    self.send_header("content-length", "0")
                    self.end_headers()
                    return
                data = b"{}" if got is None or got == "drip" else got
                if got == "drip":
                    data = json.dumps(completion("x" * 40)).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                try:
                    if got == "drip":
                        for i in range(len(data)):
                            if stand.stop.is_set():
                                return
                            self.wfile.write(data[i:i + 1])
                            self.wfile.flush()
                            time.sleep(0.5)
                    else:
                        self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = do_POST = _answer

        self.bodies = {"models": json.dumps(GOOD_LIST).encode(),
                       "completions": json.dumps(completion()).encode(), **bodies}
        self.stop = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/v1"
        self.host = f"127.0.0.1:{self.server.server_port}"

    def close(self):
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()


def _raw(v) -> bytes:
    return v if isinstance(v, bytes) else json.dumps(v).encode()


# (row id, the path it spoils, the body, what the line must say)
BODIES = [
    ("list-data-a-string", "models", {"object": "list", "data": "qwen2.5-coder-1.5b"}, "data 'qwen2.5-coder-1.5b', not a list"),
    ("list-entry-a-number", "models", {"data": [7]}, "data[0] 7, not an object"),
    ("list-id-a-map", "models", {"data": [{"id": {"a": 1}}]}, "data[0].id {'a': 1}, not a model's name"),
    ("list-digest-a-map", "models", {"data": [{"id": "qwen2.5-coder-1.5b", "digest": {"a": 1}}]},
     "data[0].digest {'a': 1}, not a sha256 digest"),
    ("list-digest-short", "models", {"data": [{"id": "qwen2.5-coder-1.5b", "digest": "sha256:abc"}]},
     "data[0].digest 'sha256:abc', not a sha256 digest"),
    ("list-nan", "models", b'{"data": NaN}', "NaN, which is not a number JSON has"),
    ("list-not-utf8", "models", b'{"data": "\xff"}', "a body that is not UTF-8"),
    ("usage-text", "completions", completion(usage={"prompt_tokens": "12", "completion_tokens": 2}),
     "usage.prompt_tokens '12', not a whole number of tokens"),
    ("usage-negative", "completions", completion(usage={"prompt_tokens": 3, "completion_tokens": -5}),
     "usage.completion_tokens -5, not a count of tokens"),
    ("usage-1e30", "completions", completion(usage={"prompt_tokens": 1e30, "completion_tokens": 2}),
     "usage.prompt_tokens 1e+30, not a whole number of tokens"),
    ("usage-huge-int", "completions", completion(usage={"prompt_tokens": 10**30, "completion_tokens": 2}),
     "usage.prompt_tokens 1000000000000000000000000000000, not a count of tokens"),
    ("usage-a-list", "completions", completion(usage=[1, 2]), "usage [1, 2], not an object"),
    ("content-nul", "completions", completion("{\"questions\": [\"a\u0000b\"]}"),
     "choices[0].message.content holding a NUL character"),
    ("content-surrogate", "completions",
     json.dumps(completion("@")).replace("@", "\\ud800").encode(),
     "the string at $.choices[0].message.content holds a lone surrogate \\ud800"),
    ("content-a-number", "completions", completion(5), "choices[0].message.content 5, not text"),
    ("no-choices", "completions", completion(choices=[]), "no choice to read"),
    ("choice-a-string", "completions", completion(choices=["hi"]), "choices[0] 'hi', not an object"),
    ("reason-a-map", "completions",
     completion(choices=[{"message": {"content": "{}"}, "finish_reason": {"x": 1}}]),
     "choices[0].finish_reason {'x': 1}, not text"),
    ("key-twice", "completions", b'{"choices": [], "choices": []}', "the key 'choices' twice"),
]

RUNS = {"plain": [], "accept": ["--accept-digest"], "record": ["--record"],
        "record-accept": ["--record", "--accept-digest"]}


def _refused(home: Path, command: list[str], stand: Stand, *said: str) -> None:
    before = tree(home.parent)
    with row():
        r = village(*command, cwd=home, environ=env(drop=("VILLAGE_HOME", "OPENAI_BASE_URLS"),
                                                    OPENAI_BASE_URL=stand.url), timeout=120)
        line = one_error_line(r, printed=r.stdout if r.stdout.startswith("day-of-three: ") else "")
        for s in said:
            assert s in line, line
        after = tree(home.parent)
        if "p/r.log" in after and "p/r.log" not in before:
            # the ticks run before the refused call stay: the log is append-only and verifies
            vlog.verify(home / "r.log")
            after.pop("p/r.log")
        assert after == before, "the home is as it was: the recording kept, nothing half-written"


@pytest.mark.parametrize("how", sorted(RUNS))
@pytest.mark.parametrize("rid,path,body,said", BODIES, ids=[b[0] for b in BODIES])
def test_a_body_field_out_of_its_rule_is_one_line_and_nothing_is_recorded(project, rid, path, body,
                                                                          said, how):
    stand = Stand({path: _raw(body)})
    try:
        _refused(project, ["run", "day-of-three", "--oracle", "openai", "--out", "r.log", *RUNS[how]],
                 stand, f"the server at {stand.host}", said)
    finally:
        stand.close()


@pytest.fixture
def base_log(project) -> Path:
    r = village("run", "day-of-three", "--out", "../base.log", cwd=project,
                environ=env(drop=("VILLAGE_HOME",)))
    assert r.returncode == 0, r.stderr
    return project.parent / "base.log"


@pytest.mark.parametrize("rid,path,body,said", [b for b in BODIES if b[1] == "completions"][:6],
                         ids=[b[0] for b in BODIES if b[1] == "completions"][:6])
def test_a_body_field_out_of_its_rule_is_one_line_in_an_interview_too(project, base_log, rid, path,
                                                                      body, said):
    stand = Stand({path: _raw(body)})
    try:
        _refused(project, ["interview", str(base_log), "What did you eat?", "--who", "Halla",
                           "--oracle", "openai", "--record", "../asked.json"],
                 stand, f"the server at {stand.host}", said)
    finally:
        stand.close()


EMBEDS = [
    ("nan", b'{"data": [{"index": 0, "embedding": [NaN, 1.0]}]}', "NaN, which is not a number JSON has"),
    ("overflow", _raw({"data": [{"index": 0, "embedding": [1e39, 1.0]}]}),
     "an embedding too large to hold as a 32-bit number"),
    ("text-in-vector", _raw({"data": [{"index": 0, "embedding": ["a", 1.0]}]}),
     "data[0].embedding holding 'a', not a finite number"),
    ("too-few", _raw({"data": []}), "0 embeddings indexed [], for 1 texts"),
    ("index-twice", _raw({"data": [{"index": 0, "embedding": [1.0]}, {"index": 0, "embedding": [1.0]}]}),
     "2 embeddings indexed [0, 0], for 1 texts"),
    ("empty-vector", _raw({"data": [{"index": 0, "embedding": []}]}), "not one width above 0"),
    ("usage-negative", _raw({"data": [{"index": 0, "embedding": [1.0]}], "usage": {"prompt_tokens": -1}}),
     "usage.prompt_tokens -1, not a count of tokens"),
]


@pytest.mark.parametrize("rid,body,said", EMBEDS, ids=[e[0] for e in EMBEDS])
def test_embeddings_out_of_their_rule_are_one_line_and_no_vector_is_printed(tmp_path, rid, body, said):
    stand = Stand({"embeddings": body, "models": _raw({"data": [{"id": "nomic"}]})})
    try:
        with row():
            r = village("embed", "--oracle", "openai", "--model", "nomic", "--accept-digest", cwd=tmp_path,
                        environ=env(drop=("OPENAI_BASE_URLS",), OPENAI_BASE_URL=stand.url), timeout=60,
                        input="the well\n")
            line = one_error_line(r)
            assert f"the server at {stand.host}" in line and said in line, line
    finally:
        stand.close()


@pytest.mark.parametrize("how", ["plain", "record"])
def test_a_redirect_loop_is_named_as_one(project, how):
    stand = Stand({"models": "redirect"})
    try:
        _refused(project, ["run", "day-of-three", "--oracle", "openai", "--out", "r.log", *RUNS[how]],
                 stand, "redirected the list models call to qwen2.5-coder-1.5b round and round")
    finally:
        stand.close()


@pytest.mark.parametrize("how", ["plain", "record"])
def test_an_answer_dripped_slower_than_timeout_s_is_cut_off_at_timeout_s(project, how):
    models = project / "configs" / "models.json"
    v = json.loads(models.read_text())
    v["timeout_s"] = 3
    models.write_text(json.dumps(v, indent=2))
    stand = Stand({"completions": "drip"})
    try:
        t0 = time.monotonic()
        _refused(project, ["run", "day-of-three", "--oracle", "openai", "--out", "r.log", *RUNS[how]],
                 stand, "did not finish its answer to the", "within 3 s")
        assert time.monotonic() - t0 < 60, "the whole answer is bounded, not each byte of it"
    finally:
        stand.close()
