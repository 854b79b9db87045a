"""`village embed`, through click's CliRunner: one line in, one JSON array out, as a run embeds.

The sentence-embedder tests skip where it is not installed (and fail under
CI=true); the Ollama test talks to a small fake server on 127.0.0.1.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from click.testing import CliRunner

from kernel import config
from kernel.cli import main
from kernel.oracle import minilm
from kernel.testing import serve_json

NAME = "all-minilm:l6-v2"


@pytest.fixture(scope="module")
def embedder():
    cfg = config.load("embedder")
    why = minilm.available(cfg)
    if why is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI installs the sentence embedder, yet: {why}")
        pytest.skip(why)
    return minilm.MiniLMOracle.from_config(cfg)


def test_embed_answers_dash_h():
    res = CliRunner().invoke(main, ["embed", "-h"])
    assert res.exit_code == 0 and "Usage:" in res.output and "--oracle" in res.output


def test_each_line_in_gives_one_vector_out_that_reads_back_to_the_same_float32_bytes(embedder):
    lines = ["took 7 parcels out of Mose's hands", "", "Who robbed a neighbour?", "naïve café, 3.0 grams"]
    res = CliRunner().invoke(main, ["embed"], input="\n".join(lines) + "\n")
    assert res.exit_code == 0, res.output
    out = res.stdout.splitlines()
    assert len(out) == len(lines)
    got = np.array([json.loads(x) for x in out], dtype=np.float32)
    assert got.shape == (4, 384)
    assert got.tobytes() == embedder.embed(NAME, lines).tobytes()


def test_a_last_line_without_a_newline_and_windows_line_ends_are_read_as_texts(embedder):
    res = CliRunner().invoke(main, ["embed", "--model", NAME], input="ate well\r\nslept late")
    assert res.exit_code == 0, res.output
    got = np.array([json.loads(x) for x in res.stdout.splitlines()], dtype=np.float32)
    assert got.tobytes() == embedder.embed(NAME, ["ate well", "slept late"]).tobytes()


def test_a_model_the_embedded_backend_lacks_is_one_line_naming_the_ones_it_has():
    res = CliRunner().invoke(main, ["embed", "--model", "nope"], input="x\n")
    assert res.exit_code == 1
    assert res.output.strip().splitlines()[-1].startswith("Error: the embedded backend has no model nope")
    assert NAME in res.output


def test_wheels_goes_with_install():
    res = CliRunner().invoke(main, ["embed", "--wheels", "."], input="")
    assert res.exit_code == 2 and "--wheels goes with --install" in res.output


def test_install_says_where_each_pinned_file_is(embedder):
    res = CliRunner().invoke(main, ["embed", "--install"])
    assert res.exit_code == 0, res.output
    assert "model.onnx" in res.output and "tokenizer.json" in res.output
    assert "the sentence embedder is ready" in res.output


class _FakeOllama:
    """Enough of Ollama for embeddings: a model list and /api/embed, recording what was asked."""

    def __init__(self):
        self.asked: list[dict] = []

        def handle(method, path, body):
            if path == "/api/tags":
                return 200, {"models": [{"name": "all-minilm:l6-v2", "model": "all-minilm:l6-v2",
                                         "digest": "ab" * 32, "size": 1}]}
            self.asked.append(body)
            return 200, {"model": body["model"],
                         "embeddings": [[float(len(t)), 0.5, -0.25] for t in body["input"]]}

        self.server, self.host = serve_json(handle)


def test_with_ollama_each_line_is_embedded_by_the_model_named(monkeypatch):
    fake = _FakeOllama()
    monkeypatch.setenv("OLLAMA_HOST", fake.host)
    try:
        res = CliRunner().invoke(main, ["embed", "--oracle", "ollama", "--model", NAME,
                                        "--accept-digest"], input="abc\nhello\n")
    finally:
        fake.server.shutdown()
        fake.server.server_close()
    assert res.exit_code == 0, res.output
    assert [json.loads(x) for x in res.stdout.splitlines()] == [[3.0, 0.5, -0.25], [5.0, 0.5, -0.25]]
    assert [(a["model"], a["input"]) for a in fake.asked] == [(NAME, ["abc"]), (NAME, ["hello"])]


def test_a_line_that_is_not_utf8_is_one_line_naming_it(embedder):
    res = CliRunner().invoke(main, ["embed"], input=b"fine\n\xff\xfe bad\n")
    assert res.exit_code == 1
    assert "line 2 of standard input is not UTF-8 (byte 0)" in res.output
    assert len(res.stdout.splitlines()) == 1
