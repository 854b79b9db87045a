"""A fake Ollama for the wire suite: a stdlib HTTP server in a thread, scripted per path.

`FakeOllama` records every request body and answers from a script per path,
so a test reads exactly what went on the wire and decides exactly what comes
back. A step's body may be a function of the request's JSON, which is how
`serve_recording` makes a fake answer a whole run: each generate call with
the recorded answer to the same prompt and options, each embed call with the
recorded vectors of the same texts, and the model list with the recording's
digests. No real server is needed or contacted.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

from kernel import config
from kernel.oracle import exemplar
from kernel.testing import serve_json

NAME = "village-smollm2:135m-instruct-q4_1"
DIGEST = "ab" * 32


class FakeOllama:
    """A scripted Ollama: `script[path]` is a list of (status, body, delay_s); the last one repeats.

    A body that is callable is called with the request's JSON and its value sent.
    """

    def __init__(self):
        self.requests: list[tuple[str, str, dict | None]] = []
        self.script: dict[str, list[tuple[int, object, float]]] = {
            "/api/tags": [(200, {"models": [
                {"name": NAME, "model": NAME, "digest": DIGEST, "size": 1}]}, 0.0)],
        }

        def handle(method, path, req):
            self.requests.append((method, path, req))
            steps = self.script.get(path) or [(404, {"error": "no such path"}, 0.0)]
            status, body, delay = steps.pop(0) if len(steps) > 1 else steps[0]
            if delay:
                time.sleep(delay)
            if callable(body):
                status, body = body(req)
            return status, body

        self.server, self.host = serve_json(handle)

    def answer(self, text, done_reason="stop", **extra):
        body = {"model": NAME, "response": text, "done": True, "done_reason": done_reason,
                "prompt_eval_count": 57, "eval_count": 12, "total_duration": 3_000_000,
                "load_duration": 1_000_000}
        body.update(extra)
        return (200, body, 0.0)

    def bodies(self, path):
        return [b for _, p, b in self.requests if p == path]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def serve_recording(fake: FakeOllama, recording: str | Path, *,
                    digests: dict[str, str] | None = None) -> FakeOllama:
    """Make `fake` answer as the model that made `recording` answered, under the home's Ollama names.

    `digests` replaces a logical model's recorded digest in the model list
    (the digest a host holds the model at).
    """
    doc = exemplar.load(Path(recording))
    names = {k: v["name"] for k, v in config.load("models").value["ollama"]["models"].items()}
    answers, vectors = {}, {}
    for rec in doc["calls"]:
        if rec["kind"] == "generate":
            o = rec["options"]
            key = (names[rec["model"]], rec["prompt_sha256"], o["seed"], o["limit"], o["context"])
            answers[key] = rec
        else:
            for t, v in zip(rec["texts"], exemplar.vectors(rec), strict=True):
                vectors[(names[rec["model"]], t)] = [float(x) for x in v]
    listed = [{"name": names[m], "model": names[m], "size": 1,
               "digest": (digests or {}).get(m, v["digest"])} for m, v in doc["models"].items()]

    def generate(req):
        o = req["options"]
        key = (req["model"], hashlib.sha256(req["prompt"].encode("utf-8")).hexdigest(),
               o["seed"], o["num_predict"], o["num_ctx"])
        rec = answers.get(key)
        if rec is None:
            return 500, {"error": f"the recording holds no answer to {key}"}
        return 200, {"model": req["model"], "response": rec["answer"], "done": True,
                     "done_reason": rec["done_reason"], "prompt_eval_count": rec["tokens_in"],
                     "eval_count": rec["tokens_out"], "total_duration": 2_000_000,
                     "load_duration": 0}

    def embed(req):
        try:
            rows = [vectors[(req["model"], t)] for t in req["input"]]
        except KeyError as e:
            return 500, {"error": f"the recording holds no vector for {e}"}
        return 200, {"model": req["model"], "embeddings": rows, "total_duration": 1_000_000,
                     "prompt_eval_count": len(rows)}

    fake.script["/api/tags"] = [(200, {"models": listed}, 0.0)]
    fake.script["/api/generate"] = [(200, generate, 0.0)]
    fake.script["/api/embed"] = [(200, embed, 0.0)]
    return fake
