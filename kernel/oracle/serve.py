"""llama-cpp-python's own OpenAI-compatible server, started on weights it can decode here.

`python -m kernel.oracle.serve ARGS` is `python -m llama_cpp.server ARGS`, the
same program with the same arguments, with one change: the model is loaded with
llama.cpp's extra weight buffers off, as the embedded backend loads it. On a
processor with AMX, llama.cpp repacks the SmolLM2 weights into AMX tiles at load
and the first decode after that kills the process (ggml-org/llama.cpp issue
20824): plain `python -m llama_cpp.server` then answers its model list and dies
on the first chat completion, with nothing on stderr. It must not change a
request, an answer or any other setting of the server.
"""

from __future__ import annotations

import sys

from kernel.oracle.llamacpp import _llama_cpp, _no_repacking


def main(argv: list[str] | None = None) -> None:
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
