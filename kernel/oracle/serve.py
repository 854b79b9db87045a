"""llama-cpp-python's own OpenAI-compatible server, started on weights it can decode here.

`python -m kernel.oracle.serve ARGS` is `python -m llama_cpp.server ARGS`, the
same program with the same arguments, with one change: the model is loaded with
llama.cpp's extra weight buffers off, as the embedded backend loads it. On a
processor with AMX, llama.cpp repacks the SmolLM2 weights into AMX tiles at load
and the first decode after that kills the process (ggml-org/llama.cpp issue
20824): plain `python -m llama_cpp.server` then answers its model list and dies
on the first chat completion, with nothing on stderr. It must not change a
request, an answer or any other setting of the server.

Its arguments are checked before llama.cpp starts, each refusal one line on
stderr and exit 2 (as argparse refuses a flag it does not know): the model
must be given (`--model`, unless a `--config_file` names it) and be a regular
file holding GGUF weights (its magic, `GGUF`, at byte 0); the port a number
from 1 to 65535 that is free on the host to listen on. Without these checks a
missing file was a traceback, `/dev/zero` was read for ever, no argument at
all was pydantic's validation dump, and `--port 99999` a server announced on a
port that cannot exist.
"""

from __future__ import annotations

import argparse
import errno
import os
import socket
import sys

from kernel import files
from kernel.errors import ServeArgument as BadArgument
from kernel.oracle.llamacpp import _llama_cpp, _no_repacking

PROG = "python -m kernel.oracle.serve"
GGUF = b"GGUF"
"""The first four bytes of every GGUF file."""


def _options(argv: list[str]) -> argparse.Namespace:
    """The few arguments checked here, read as llama_cpp.server reads them; the rest pass on."""
    p = argparse.ArgumentParser(prog=PROG, add_help=False, allow_abbrev=False)
    p.add_argument("--model")
    p.add_argument("--config_file")
    p.add_argument("--host", default="localhost")
    p.add_argument("--port", default="8000")
    got, _ = p.parse_known_args(argv)
    return got


def check(argv: list[str]) -> None:
    """Refuse, as `BadArgument`, arguments the server would fail on: see the module's words."""
    o = _options(argv)
    if "-h" in argv or "--help" in argv:
        return
    if o.model is None and o.config_file is None:
        raise BadArgument("--model FILE is needed: the GGUF weights to serve (or a --config_file "
                          "naming them)")
    if o.model is not None:
        words = files.Words("model file", BadArgument)
        fd = files.open_regular(o.model, words)
        try:
            head = os.pread(fd, 4, 0)
        except OSError as e:
            raise words.refuse("unread", o.model, why=e.strerror or e) from None
        finally:
            os.close(fd)
        if head != GGUF:
            raise BadArgument(f"{o.model} is not GGUF weights: it starts {head!r}, and a GGUF file "
                              f"starts {GGUF!r}")
    try:
        port = int(o.port)
    except ValueError:
        raise BadArgument(f"--port {o.port!r} is not a number: a port is from 1 to 65535") from None
    if not 1 <= port <= 65535:
        raise BadArgument(f"--port {port} is not a port: a port is from 1 to 65535")
    try:
        infos = socket.getaddrinfo(o.host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as e:
        raise BadArgument(f"--host {o.host!r} is not an address to listen on: "
                          f"{getattr(e, 'strerror', None) or e}") from None
    family, kind, proto, _, addr = infos[0]
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(addr)
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                raise BadArgument(f"port {port} on {o.host} is in use: stop what listens there, "
                                  f"or pick another --port") from None
            raise BadArgument(f"cannot listen on {o.host} port {port}: "
                              f"{e.strerror or e}") from None


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        check(args)
    except BadArgument as e:
        print(f"{PROG}: error: {' '.join(str(e).split())}", file=sys.stderr)
        sys.exit(2)
    llama_cpp = _llama_cpp()
    try:
        from llama_cpp.server.__main__ import main as serve
    except ImportError:
        sys.exit("llama-cpp-python's server needs its extra: run "
                 "`pip install 'llama-cpp-python[server]'` (or `make setup`)")
    if argv is not None:
        sys.argv = ["llama_cpp.server", *argv]
    else:
        sys.argv[0] = "llama_cpp.server"
    with _no_repacking(llama_cpp):
        serve()


if __name__ == "__main__":
    main()
