"""Test doubles a user's own experiment can run against: a scripted oracle.

This module owns `ScriptedOracle`, which answers `generate` from a list given
up front and `embed` with vectors made from each text's sha256, so a test or
a notebook can drive a reflection with no model and no recording. It counts
like every other oracle (it is an `Oracle`), so it can be wrapped by the
recording oracle to make an exemplar file by hand. It must not be used by
the kernel's own run path.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable

import numpy as np

from kernel.errors import OracleError
from kernel.oracle.base import Ask, Oracle, Said

Script = str | Said | Callable[[Ask], "str | Said"]


def text_vector(text: str, dim: int) -> np.ndarray:
    """A unit float32 vector that is a function of the text alone (and the same on every machine)."""
    seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
    v = np.random.default_rng(seed).standard_normal(dim)
    return (v / np.linalg.norm(v)).astype(np.float32)


class ScriptedOracle(Oracle):
    """Answers generation calls from `answers`, in order; embeds with `text_vector`.

    An answer is the text (said to have stopped, with a token count of one
    per four bytes), a whole `Said`, or a function of the `Ask` returning
    either. Asking past the end of the script is an `OracleError`.
    """

    backend = "scripted"

    def __init__(self, answers: Iterable[Script] = (), *, dim: int = 8,
                 digest: str = "scripted", took_ns: int = 1_000_000):
        super().__init__()
        self.answers = list(answers)
        self.dim = dim
        self._scripted_digest = digest
        self.took_ns = took_ns
        self.asked: list[Ask] = []
        self.embedded: list[tuple[str, tuple[str, ...]]] = []

    def _digest(self, model: str) -> str:
        return self._scripted_digest

    def _generate(self, ask: Ask) -> Said:
        i = len(self.asked)
        if i >= len(self.answers):
            raise OracleError(f"the script has {len(self.answers)} answers and call {i + 1} "
                              f"({ask.purpose}) asks for another")
        self.asked.append(ask)
        a = self.answers[i]
        if callable(a):
            a = a(ask)
        if isinstance(a, Said):
            return a
        if not isinstance(a, str):
            raise OracleError(f"answer {i + 1} of the script is neither text nor a Said: {a!r}")
        return Said(text=a, done_reason="stop", tokens_in=len(ask.prompt) // 4,
                    tokens_out=max(1, len(a.encode("utf-8")) // 4), took_ns=self.took_ns,
                    load_ns=0, model=ask.model, digest=self._scripted_digest)

    def _embed(self, model: str, texts: list[str], purpose: str) -> tuple[np.ndarray, int, int]:
        self.embedded.append((model, tuple(texts)))
        rows = np.stack([text_vector(t, self.dim) for t in texts])
        return rows, self.took_ns, sum(len(t.encode("utf-8")) // 4 + 1 for t in texts)


def variant(name: str, folder, *, thought: Callable[[dict], None] | None = None,
            importance: Callable[[dict], None] | None = None):
    """A copy of scenario `name` in `folder` (a new folder), with its thought or importance
    config changed: each change edits the config's JSON in place.

    The file changed is the scenario's own, or the home's where it has none; the copy names
    its changed files beside its scenario.json and keeps every other key, its recording
    included. Returns the copy's folder, which `village run` and `load_scenario` take.
    """
    import json
    import shutil
    from pathlib import Path

    from kernel.engine import scenario as msc

    sc = msc.load(name)
    dst = Path(folder)
    shutil.copytree(sc.folder, dst)
    doc = json.loads((dst / "scenario.json").read_text(encoding="utf-8"))
    for key, change in (("thought", thought), ("importance", importance)):
        if change is None:
            continue
        value = json.loads(Path(dict(sc.files)[key]).read_text(encoding="utf-8"))
        change(value)
        (dst / f"{key}.json").write_text(json.dumps(value, indent=2), encoding="utf-8")
        doc[key] = f"{key}.json"
    (dst / "scenario.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return dst


def serve_json(handle: Callable[[str, str, object], tuple[int, object]]):
    """A local HTTP server in a thread, answering every request with `handle(method, path,
    request JSON or None) -> (status, body)`; a body that is a str is sent as it is, any other
    as JSON. Returns the server and its address; `server.shutdown()` stops it.

    This is the wire of a stand-in server (a fake Ollama in a test, a slow host in a bench):
    what it answers is the caller's, how it answers is here once.
    """
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self):
            n = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(n) if n else b""
            status, body = handle(self.command, self.path, json.loads(raw) if raw else None)
            data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
            try:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up waiting

        do_GET = do_POST = _answer

        def log_message(self, *a):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02},
                     daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"
