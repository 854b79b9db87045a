"""Real server processes for the server tests: llama-cpp-python's OpenAI-compatible server on
the embedded backend's GGUF, started on a free loopback port and stopped after, and a small
proxy in front of one that answers as a busy or a hung server would.

`serve()` starts one (`python -m kernel.oracle.serve`, which is `python -m llama_cpp.server`
with the embedded backend's AMX-safe weight buffers) and waits for its model list; the
session's `server` fixture is one shared by every test that leaves it running, and a test
that kills a server starts its own. With CI=true a missing server extra or model fails the
run instead of skipping it.
"""

from __future__ import annotations

import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from kernel import config
from kernel.errors import OracleError

WINDOW = 32       # the server's repeat window is a setting of the process, not of a request


def missing(why: str):
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true and the server test cannot run: {why}", pytrace=False)
    pytest.skip(why)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    proc: subprocess.Popen
    base: str          # the base URL, http://127.0.0.1:PORT/v1
    log: Path
    models: dict

    def alive(self) -> bool:
        return self.proc.poll() is None

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-2000:]

    def requests(self, path: str = "/v1/chat/completions") -> int:
        """How many requests to `path` the server has logged so far."""
        return self.log.read_text(errors="replace").count(f'"POST {path} ')

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def serve(log: Path) -> Server:
    """A fresh server process on a free loopback port, answering its model list."""
    try:
        import llama_cpp.server  # noqa: F401
    except ImportError as e:
        missing(f"llama-cpp-python's server extra is not installed ({e})")
    cfg = config.load("models-smollm2", schema="models")
    lc = cfg["llamacpp"]
    from kernel.oracle.llamacpp import find_gguf

    try:
        gguf = find_gguf(lc["module"], lc["gguf"], lc["package"])
    except OracleError as e:
        missing(str(e))
    port = free_port()
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "kernel.oracle.serve", "--model", str(gguf),
             "--host", "127.0.0.1", "--port", str(port), "--model_alias", "smollm2",
             "--n_threads", str(lc["threads"]), "--n_threads_batch", str(lc["threads"]),
             "--n_ctx", str(cfg["context"]), "--last_n_tokens_size", str(WINDOW)],
            stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    while True:
        if proc.poll() is not None:
            pytest.fail(f"the server exited with {proc.returncode}: "
                        f"{log.read_text(errors='replace')[-2000:]}")
        try:
            with urllib.request.urlopen(base + "/models", timeout=2) as r:
                return Server(proc, base, log, json.loads(r.read()))
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            if time.monotonic() > deadline:
                proc.kill()
                pytest.fail("the server did not answer its model list within 120 s")
            time.sleep(0.25)


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    s = serve(tmp_path_factory.mktemp("server") / "server.log")
    try:
        yield s
    finally:
        s.stop()


def send_json(handler: http.server.BaseHTTPRequestHandler, code: int, data: bytes) -> None:
    """Answer `handler`'s request with status `code` and the JSON bytes `data`."""
    handler.send_response(code)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


class Proxy:
    """A loopback proxy to `upstream` (a base URL) that forwards every request but a chat
    completion, which it answers by `mode`: "busy" (503 every time), "busy-twice" (503 twice,
    then forwarded), or "hang" (read, and never answered). `hits` counts the completions."""

    def __init__(self, upstream: str, mode: str):
        self.upstream = upstream.rsplit("/v1", 1)[0]
        self.mode = mode
        self.hits = 0
        self._stop = threading.Event()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _forward(self, body: bytes | None):
                req = urllib.request.Request(proxy.upstream + self.path, data=body,
                                             method=self.command,
                                             headers={"content-type": "application/json"})
                try:
                    with urllib.request.urlopen(req, timeout=300) as r:
                        code, data = r.status, r.read()
                except urllib.error.HTTPError as e:
                    code, data = e.code, e.read()
                send_json(self, code, data)

            def do_GET(self):
                self._forward(None)

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                if not self.path.endswith("/chat/completions"):
                    return self._forward(body)
                proxy.hits += 1
                if proxy.mode == "hang":
                    proxy._stop.wait(600)
                    return
                if proxy.mode == "busy" or (proxy.mode == "busy-twice" and proxy.hits <= 2):
                    data = json.dumps({"error": {"message": "the server is busy",
                                                 "type": "server_busy"}}).encode()
                    return send_json(self, 503, data)
                self._forward(body)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()
