"""The server launcher checks its arguments before llama.cpp starts: one line, exit 2.

`python -m kernel.oracle.serve` used to hand every argument to llama-cpp-python's
server as it was: a missing model file was a traceback, `/dev/zero` as the model
was read for ever, no argument at all printed pydantic's validation dump, and
`--port 99999` announced a server on a port that cannot exist. Each row runs the
launcher as a real process and wants exit 2 and one line on stderr naming the
argument and the rule, well before any model could load.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from kernel.oracle import llamacpp

pytestmark = pytest.mark.slow   # a real process, server, model or browser each test

PROG = "python -m kernel.oracle.serve: error: "


def _gguf() -> str:
    try:
        return str(llamacpp.find_gguf())
    except Exception:  # noqa: BLE001 - a machine without the model still checks every other row
        return ""


def _serve(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kernel.oracle.serve", *args], capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL,
                          cwd=Path(__file__).resolve().parents[2])


def _refused(r: subprocess.CompletedProcess, *said: str) -> str:
    assert r.returncode == 2, (r.returncode, r.stdout[-500:], r.stderr[-2000:])
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(PROG), r.stderr[-2000:]
    assert "Traceback" not in r.stderr and not r.stdout
    for s in said:
        assert s in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def text_file(tmp_path) -> Path:
    p = tmp_path / "weights.gguf"
    p.write_text("these are not weights\n")
    return p


def test_no_arguments_say_the_model_is_needed():
    _refused(_serve(), "--model FILE is needed")


@pytest.mark.parametrize("model,said", [
    ("/no/such/weights.gguf", "no model file at /no/such/weights.gguf"),
    ("/dev/zero", "/dev/zero is not a regular file (it is a character device)"),
    ("/", "/ is a folder, not a model file"),
])
def test_a_model_that_is_not_a_file_of_weights_is_refused(model, said):
    _refused(_serve("--model", model), said)


def test_a_text_file_as_the_model_is_refused_by_its_first_bytes(text_file):
    _refused(_serve("--model", str(text_file)), f"{text_file} is not GGUF weights")
    _refused(_serve(f"--model={text_file}"), "is not GGUF weights")


@pytest.mark.parametrize("port,said", [("99999", "--port 99999 is not a port"),
                                       ("0", "--port 0 is not a port"),
                                       ("-1", "--port -1 is not a port"),
                                       ("eighty", "--port 'eighty' is not a number")])
def test_a_port_that_cannot_exist_is_refused(port, said):
    gguf = _gguf()
    assert gguf, "the embedded backend's model is installed (make setup)"
    _refused(_serve("--model", gguf, "--port", port), said)


def test_a_port_in_use_is_refused_before_the_model_loads():
    gguf = _gguf()
    assert gguf, "the embedded backend's model is installed (make setup)"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        _refused(_serve("--model", gguf, "--host", "127.0.0.1", "--port", str(port)),
                 f"port {port} on 127.0.0.1 is in use")


def test_a_host_that_is_no_address_is_refused():
    gguf = _gguf()
    assert gguf, "the embedded backend's model is installed (make setup)"
    _refused(_serve("--model", gguf, "--host", "nowhere.invalid"), "--host 'nowhere.invalid'")
