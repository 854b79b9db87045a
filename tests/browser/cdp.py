"""Headless Chromium driven over the Chrome DevTools Protocol, with a websocket client of our own.

Why the protocol and not `--screenshot --dump-dom`: a console error and an
uncaught exception arrive as typed events (`Runtime.consoleAPICalled`,
`Runtime.exceptionThrown`, `Log.entryAdded`) rather than as lines of a log
whose format changes between Chromium releases; the page's elements are
counted by the page's own `querySelectorAll`, after its script has run;
and the screenshot is of the whole page at a fixed width. The websocket
client is the standard library's sockets and about a hundred lines, so
the tests need nothing from PyPI.

Chromium is started with `--remote-debugging-port=0` and a fresh
`--user-data-dir`; it writes the port it chose into `DevToolsActivePort`
there, which is read instead of parsing its stderr.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time
from pathlib import Path

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--mute-audio", "--disable-dev-shm-usage")

EXECUTABLES = ("chromium", "chromium-browser", "google-chrome")


def executable() -> str | None:
    for name in EXECUTABLES:
        p = shutil.which(name)
        if p:
            return p
    return None


class WebSocket:
    """A client websocket (RFC 6455): text frames out, masked; frames in, reassembled."""

    def __init__(self, url: str, timeout: float = 30.0):
        assert url.startswith("ws://"), url
        hostport, _, path = url[5:].partition("/")
        host, _, port = hostport.partition(":")
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /{path} HTTP/1.1\r\nHost: {hostport}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           f"Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("the browser closed the websocket during its handshake")
            head += chunk
        status, _, rest = head.partition(b"\r\n\r\n")
        if b" 101 " not in status.split(b"\r\n")[0]:
            raise ConnectionError(f"no websocket upgrade: {status[:200]!r}")
        self.buf = rest

    def _read(self, n: int) -> bytes:
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise ConnectionError("the browser closed the websocket")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def send(self, text: str) -> None:
        data = text.encode()
        n = len(data)
        head = bytes([0x81])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 1 << 16:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(head + mask + body)

    def recv(self) -> str:
        parts = []
        while True:
            b0, b1 = self._read(2)
            op, n = b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            data = self._read(n)
            if mask:
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
            if op == 0x8:
                raise ConnectionError("the browser closed the websocket")
            if op == 0x9:          # ping: answer and read on
                self.sock.sendall(bytes([0x8A, 0x80 | len(data)]) + b"\0\0\0\0" + data)
                continue
            if op in (0x1, 0x2, 0x0):
                parts.append(data)
                if b0 & 0x80:
                    return b"".join(parts).decode()

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


class Browser:
    """One headless Chromium with one page, and every console error and exception it reports."""

    def __init__(self, width: int = 1280, height: int = 900):
        exe = executable()
        if exe is None:
            raise RuntimeError(f"no Chromium: none of {', '.join(EXECUTABLES)} is on PATH")
        self.profile = tempfile.mkdtemp(prefix="village-chromium-")
        # Its stderr goes to a file: a pipe nobody reads can fill and stall the browser.
        self._err_path = Path(self.profile) / "stderr.txt"
        self._err = open(self._err_path, "wb")
        self.proc = subprocess.Popen(
            [exe, *FLAGS, f"--user-data-dir={self.profile}", "--remote-debugging-port=0",
             f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._err)
        self.ws = WebSocket(self._endpoint())
        self.n = 0
        self.errors: list[str] = []
        self.events: list[dict] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    def _endpoint(self, wait: float = 30.0) -> str:
        port_file = Path(self.profile) / "DevToolsActivePort"
        end = time.monotonic() + wait
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                err = self._err_path.read_bytes().decode(errors="replace")[-2000:]
                raise RuntimeError(f"Chromium exited with {self.proc.returncode}: {err}")
            if port_file.is_file():
                lines = port_file.read_text().split("\n")
                if len(lines) >= 2 and lines[0].strip() and lines[1].strip():
                    return f"ws://127.0.0.1:{lines[0].strip()}{lines[1].strip()}"
            time.sleep(0.05)
        raise RuntimeError(f"Chromium wrote no DevToolsActivePort within {wait:.0f}s")

    def _note(self, msg: dict) -> None:
        self.events.append(msg)
        method, p = msg.get("method"), msg.get("params", {})
        if method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            self.errors.append(f"exception: {d.get('text')} {d.get('exception', {}).get('description', '')}")
        elif method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            self.errors.append("console." + p["type"] + ": " +
                               " ".join(str(a.get("value", a.get("description"))) for a in p.get("args", [])))
        elif method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            e = p["entry"]
            self.errors.append(f"log ({e.get('source')}): {e.get('text')} {e.get('url', '')}")

    def call(self, method: str, session: bool = False, **params):
        self.n += 1
        msg = {"id": self.n, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        self.ws.send(json.dumps(msg))
        while True:
            got = json.loads(self.ws.recv())
            if got.get("id") == self.n:
                if "error" in got:
                    raise RuntimeError(f"{method}: {got['error']}")
                return got.get("result", {})
            self._note(got)

    def wait_for(self, method: str, timeout: float = 60.0) -> dict:
        seen = [m for m in self.events if m.get("method") == method]
        if seen:
            return seen[0]
        end = time.monotonic() + timeout
        self.ws.sock.settimeout(timeout)
        while time.monotonic() < end:
            got = json.loads(self.ws.recv())
            self._note(got)
            if got.get("method") == method:
                return got
        raise TimeoutError(f"no {method} within {timeout:.0f}s")

    def open(self, path: Path) -> None:
        self.events.clear()
        self.call("Page.navigate", session=True, url=Path(path).resolve().as_uri())
        self.wait_for("Page.loadEventFired")

    def js(self, expression: str):
        r = self.call("Runtime.evaluate", session=True, expression=expression, returnByValue=True,
                      awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression}: {r['exceptionDetails'].get('text')}")
        return r["result"].get("value")

    def screenshot(self, out: Path, *, full: bool = True, max_height: int = 16000) -> Path:
        params = {"format": "png"}
        if full:
            w, h = self.js("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            params |= {"captureBeyondViewport": True,
                       "clip": {"x": 0, "y": 0, "width": w, "height": min(h, max_height), "scale": 1}}
        data = self.call("Page.captureScreenshot", session=True, **params)["data"]
        out.write_bytes(base64.b64decode(data))
        return out

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except Exception:
            pass
        self.ws.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._err.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
