"""A real server process: llama-cpp-python's OpenAI-compatible server on the embedded backend's GGUF.

The server is started as its own process (`python -m kernel.oracle.serve`, which is
`python -m llama_cpp.server` with the embedded backend's AMX-safe weight buffers) on a
free loopback port, and stopped after. The same weights, grammar and sampling are asked
once in process and once over HTTP, so the two answers can be compared byte for byte.
"""

from __future__ import annotations

import json
import urllib.request

import pytest

from kernel import config
from kernel.errors import OracleError
from kernel.oracle import Ask
from kernel.oracle.base import Decoding
from kernel.oracle.llamacpp import LlamaCppOracle, json_gbnf
from kernel.seam import drawn_schema

from .conftest import WINDOW
from .conftest import missing as _missing

pytestmark = [pytest.mark.embedded, pytest.mark.slow]


def _post(url: str, body: dict, timeout: float = 120.0) -> dict:
    req = urllib.request.Request(url, json.dumps(body).encode(),
                                 {"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())


def _ask(prompt: str, seed: int) -> Ask:
    return Ask(purpose="statement", model="smollm2:135m-instruct", prompt=prompt.encode(),
               schema=drawn_schema([3, 5]), seed=seed, temperature=0.0, limit=48, context=2048,
               decoding=Decoding(repeat_penalty=1.2, repeat_last_n=WINDOW))


PROMPTS = ["You are Ada, a baker. Today you gave bread to Bo (memory 3) and saw rain "
           "(memory 5). Say one thing you learned, citing a memory by its number.",
           "You are Bo, a smith. Ada gave you bread (memory 3). The forge was cold (memory 5). "
           "What do you think of your day? Cite a memory."]


def test_the_server_lists_the_one_model_it_was_started_with(server):
    assert [m["id"] for m in server.models["data"]] == ["smollm2"]


@pytest.mark.parametrize("i", range(len(PROMPTS)))
def test_the_server_answers_an_ask_with_the_bytes_the_embedded_backend_answers_it_with(server, i):
    base, proc, log = server.base, server.proc, server.log
    cfg = config.load("models-smollm2", schema="models")
    try:
        local = LlamaCppOracle.from_config(cfg)
    except OracleError as e:
        _missing(str(e))
    a = _ask(PROMPTS[i], seed=2000 + i)
    d = a.decoding
    r = _post(base + "/chat/completions", {
        "model": "smollm2", "messages": [{"role": "user", "content": a.prompt_text}],
        "temperature": a.temperature, "seed": a.seed, "max_tokens": a.limit,
        "repeat_penalty": d.repeat_penalty, "top_k": d.top_k, "top_p": d.top_p,
        "min_p": d.min_p, "grammar": json_gbnf(a.schema)})
    assert proc.poll() is None, log.read_text(errors="replace")[-2000:]
    over_http = r["choices"][0]["message"]["content"]
    in_process = local.generate(a).text
    assert over_http == in_process
    json.loads(over_http)
