"""Determinism when a server batches: one round's asks made concurrently, and one at a time.

This module owns the batching measurement the openai backend's pool rule follows from
(`make bench-batching`). It starts a real OpenAI-protocol server on a free loopback port on
the embedded backend's GGUF, with several parallel slots where the server has them
(llama.cpp's `llama-server -np N`, named by `LLAMA_SERVER` or `--server`), else
llama-cpp-python's own (`python -m kernel.oracle.serve`, one slot), and asks it the
generation calls of a recording (a live run's, `--recording`) twice through the kernel's
openai backend: one at a time, then all at once with N in flight. It prints how many
answers are the same bytes both ways, and each that is not. It must not write a recording
or a log, or assert anything of a time.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from kernel import config
from kernel.oracle import exemplar
from kernel.oracle.llamacpp import find_gguf
from kernel.oracle.openai_api import OpenAIOracle, OpenAIServers


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(server: str | None, slots: int, threads: int) -> tuple[subprocess.Popen, str, str]:
    """A server process on a free port, its base URL, and its dialect."""
    cfg = config.load("models-smollm2", schema="models")
    lc = cfg["llamacpp"]
    gguf = find_gguf(lc["module"], lc["gguf"], lc["package"])
    port = _free_port()
    if server:
        cmd = [server, "-m", str(gguf), "--host", "127.0.0.1", "--port", str(port),
               "--alias", "smollm2", "-np", str(slots), "-c", str(cfg["context"] * slots),
               "-t", str(threads), "-tb", str(threads),
               "--no-repack"]   # the AMX-safe weight buffers, as kernel.oracle.serve loads them
        dialect = "llama-server"
    else:
        cmd = [sys.executable, "-m", "kernel.oracle.serve", "--model", str(gguf), "--host",
               "127.0.0.1", "--port", str(port), "--model_alias", "smollm2", "--n_threads",
               str(threads), "--n_threads_batch", str(threads), "--n_ctx", str(cfg["context"]),
               "--last_n_tokens_size", "32"]
        dialect = "llama-cpp-python"
    log = tempfile.NamedTemporaryFile(prefix="server-", suffix=".log", delete=False)
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 180
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with {proc.returncode}: see {log.name}")
        try:
            with urllib.request.urlopen(base + "/models", timeout=2):
                break
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                raise SystemExit("the server did not answer its model list within 180 s") from None
            time.sleep(0.5)
    return proc, base, dialect


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--recording", required=True, help="a live recording whose asks are asked")
    p.add_argument("--server", default=os.environ.get("LLAMA_SERVER") or shutil.which(
        "llama-server"), help="llama.cpp's llama-server (default: $LLAMA_SERVER, then PATH)")
    p.add_argument("--slots", type=int, default=4)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--fill-off", action="store_true", default=True)
    a = p.parse_args(argv)
    doc = exemplar.load(Path(a.recording))
    asks = [exemplar.ask(r) for r in doc["calls"] if r["kind"] == "generate"]
    # `fill` is the embedded backend's own decoding; no server is sent it.
    asks = [dataclasses.replace(x, decoding=dataclasses.replace(x.decoding, fill=False))
            for x in asks]
    cfg = config.load("models-smollm2", schema="models")
    pin = cfg["openai"]["models"]["smollm2:135m-instruct"]["weights_sha256"]
    proc, base, dialect = start(a.server, a.slots, a.threads)
    try:
        models = {"smollm2:135m-instruct": ("smollm2", None, pin)}
        one = OpenAIOracle(base_url=base, models=models, dialect=dialect, timeout=600)
        print(f"{dialect}: {one.note()}; {len(asks)} asks, {a.slots} slots")
        t0 = time.perf_counter()
        alone = [one.generate(x).text for x in asks]
        t1 = time.perf_counter()
        pool = OpenAIServers([OpenAIOracle(base_url=base, models=models, dialect=dialect,
                                           timeout=600)], slots=a.slots)
        together = [s.text for s in pool.generate_many(asks)]
        t2 = time.perf_counter()
        again = [s.text for s in pool.generate_many(asks)]
        same = sum(x == y for x, y in zip(alone, together, strict=True))
        stable = sum(x == y for x, y in zip(together, again, strict=True))
        print(f"one at a time {t1 - t0:.1f} s, {a.slots} in flight {t2 - t1:.1f} s")
        print(f"the same bytes one at a time and concurrently: {same} of {len(asks)}; "
              f"concurrently twice: {stable} of {len(asks)}")
        for i, (x, y) in enumerate(zip(alone, together, strict=True)):
            if x != y:
                print(f"  ask {i} ({asks[i].purpose}):\n    alone    {x[:150]!r}\n"
                      f"    together {y[:150]!r}")
        pool.close()
        one.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
