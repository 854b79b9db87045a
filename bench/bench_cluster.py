"""A round's calls on a pool of Ray workers, and a sweep's runs as Ray tasks, against one process.

- Throughput: the 24-villager day's questions group (its 24 independent
  calls, the prompts the recording of day-of-twenty-four holds) and its
  memories-and-questions embedding call, asked of a pool of 1 and of 2
  llama.cpp workers (one thread each) on a local Ray of 2 CPUs; the ratio
  is what the second worker buys on this machine.
- The driver's overhead per call: the same asks answered by workers that
  look the answer up (no model), through the pool, against the same lookup
  called directly in this process.
- A sweep's overhead per run: world runs of village-day as Ray tasks on a
  local Ray of 1 CPU (files shipped, written back, renamed, the table
  built), against the same runs made by `engine.run` one after another.
- A pool of Ollama hosts: the same questions group asked of 1 and of 2
  stand-in Ollama servers on this machine (stdlib HTTP, through the real
  `ollama` client), each taking a fixed time a call as a model would; the
  ratio is what the second host buys when the hosts are the workers, and
  the gap to the fixed time is the client's and the pool's cost a call.

`BENCH_CLUSTER_CALLS` asks fewer of the round's calls (default: all 24).
Figures are ratios and per-call costs measured here; the machine is shared.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from kernel import cluster, engine, sweep
from kernel.cluster.testing import Recalled, RecalledMaker
from kernel.engine import scenario as msc
from kernel.oracle import exemplar
from kernel.oracle.base import Ask

SCENARIO = "day-of-twenty-four"
WORLD = "village-day"


def _asks(doc, purpose: str) -> list[Ask]:
    return [Ask(purpose=c["purpose"], model=c["model"], prompt=exemplar.prompt_bytes(c),
                schema=exemplar.schema_bytes(c), seed=c["options"]["seed"],
                temperature=c["options"]["temperature"], limit=c["options"]["limit"],
                context=c["options"]["context"])
            for c in doc["calls"] if c["kind"] == "generate" and c["purpose"] == purpose]


def _texts(doc) -> list[str]:
    emb = [c for c in doc["calls"] if c["kind"] == "embed"]
    return max(emb, key=lambda c: len(c["texts"]))["texts"] if emb else []


def _round(sc, asks: list[Ask], texts: list[str], workers: int) -> tuple[float, float, float]:
    pool = cluster.start("llamacpp", sc.models, workers, threads=1)
    try:
        # every worker's models loaded and warm before the clock: one call each of both kinds
        pool.generate_many(asks[:workers])
        pool.embed(sc.settings.embed_model, texts[:8 * workers], purpose="warm")
        t0 = time.perf_counter()
        pool.generate_many(asks)
        gen = time.perf_counter() - t0
        t0 = time.perf_counter()
        pool.embed(sc.settings.embed_model, texts, purpose="memories and questions")
        emb = time.perf_counter() - t0
    finally:
        pool.close()
    return gen, emb, gen + emb


def _overhead(sc, asks: list[Ask], reps: int = 5) -> tuple[float, float]:
    direct = Recalled(sc.exemplars, jitter=0)
    many = asks * reps
    t0 = time.perf_counter()
    for a in many:
        direct.generate(a)
    d = (time.perf_counter() - t0) / len(many)
    pool = cluster.PoolOracle(RecalledMaker(sc.exemplars, jitter=0), 1,
                              models=(sc.settings.generate_model, sc.settings.embed_model),
                              backend="llamacpp")
    try:
        pool.generate_many(asks[:1])
        t0 = time.perf_counter()
        pool.generate_many(many)
        p = (time.perf_counter() - t0) / len(many)
    finally:
        pool.close()
    return d, p


def _sweep_overhead(n: int = 6, ticks: int = 400) -> tuple[float, float]:
    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as tmp:
        tmp = Path(tmp)
        spec = tmp / "spec.json"
        spec.write_text(json.dumps({"name": "bench", "scenarios": [WORLD], "ticks": ticks,
                                    "seeds": list(range(1, n + 1))}))
        s = sweep.load(spec, out=tmp / "out")
        t0 = time.perf_counter()
        for seed in range(1, n + 1):
            sc = msc.load(WORLD)
            sc = replace(sc, world=replace(sc.world, seed=seed), ticks=ticks)
            engine.run(sc, None, tmp / f"plain{seed}.log")
        plain = (time.perf_counter() - t0) / n
        with cluster.session(workers=1):
            t0 = time.perf_counter()
            o = sweep.run(s, show=False)
            swept = (time.perf_counter() - t0) / n
        assert all(r["status"] == "ok" for r in o.rows), [r.get("reason") for r in o.rows]
    return plain, swept


OLLAMA_CALL_S = 0.05
"""What a stand-in Ollama server takes a call, as a model would."""


def _stand_in(delay: float):
    """A server with one model listed, answering every generate call after `delay` seconds."""
    from kernel.testing import serve_json

    def handle(method, path, req):
        if path == "/api/tags":
            return 200, {"models": [{"name": "m", "model": "m", "digest": "ab" * 32, "size": 1}]}
        time.sleep(delay)
        return 200, {"model": (req or {}).get("model"), "response": '{"questions": ["why?"]}',
                     "done": True, "done_reason": "stop", "prompt_eval_count": 1,
                     "eval_count": 1, "total_duration": int(delay * 1e9)}

    return serve_json(handle)[0]


def _ollama_hosts(asks: list[Ask], n: int) -> float:
    from kernel.oracle.ollama import OllamaHosts, OllamaOracle

    servers = [_stand_in(OLLAMA_CALL_S) for _ in range(n)]
    models = {a.model: ("m", "ab" * 32) for a in asks}
    pool = OllamaHosts([OllamaOracle(host=f"http://127.0.0.1:{s.server_address[1]}",
                                     models=models, timeout=30) for s in servers])
    try:
        pool.digest(asks[0].model)
        pool.generate_many(asks[:n])      # connections open before the clock
        t0 = time.perf_counter()
        pool.generate_many(asks)
        return time.perf_counter() - t0
    finally:
        pool.close()
        for s in servers:
            s.shutdown()
            s.server_close()


def run() -> list[str]:
    sc = msc.load(SCENARIO)
    doc = exemplar.load(sc.exemplars)
    asks = _asks(doc, "questions")
    n = int(os.environ.get("BENCH_CLUSTER_CALLS", len(asks)))
    asks = asks[:n]
    texts = _texts(doc)
    out = [f"cluster  {SCENARIO}: its questions group ({len(asks)} calls) and its "
           f"memories-and-questions embedding call ({len(texts)} texts), llama.cpp workers of "
           f"1 thread each on a local Ray of 2 CPUs"]
    with cluster.session(workers=2):
        try:
            one = _round(sc, asks, texts, 1)
            two = _round(sc, asks, texts, 2)
        except Exception as e:  # no embedded model here: the rest still measures the driver
            out.append(f"  no throughput figures: the embedded backend is not usable here "
                       f"({' '.join(str(e).split())[:160]})")
        else:
            out += [
                f"  1 worker        {one[0]:8.1f} s generate  {one[1]:7.2f} s embed  "
                f"{len(asks) / one[0]:6.2f} calls/s",
                f"  2 workers       {two[0]:8.1f} s generate  {two[1]:7.2f} s embed  "
                f"{len(asks) / two[0]:6.2f} calls/s",
                f"  throughput      {one[0] / two[0]:8.2f}x generate  {one[1] / two[1]:6.2f}x embed  "
                f"{one[2] / two[2]:6.2f}x both (2 workers against 1)",
            ]
        d, p = _overhead(sc, asks)
        out.append(f"  driver overhead {(p - d) * 1e3:8.2f} ms a call through the pool "
                   f"({p * 1e3:.2f} ms) against a direct call ({d * 1e3:.3f} ms), no model")
    one, two = _ollama_hosts(asks, 1), _ollama_hosts(asks, 2)
    out += [f"  ollama hosts    {one:8.2f} s on 1 host, {two:.2f} s on 2, {one / two:.2f}x "
            f"({len(asks)} calls of {OLLAMA_CALL_S * 1e3:.0f} ms each on stand-in servers); "
            f"{(one / len(asks) - OLLAMA_CALL_S) * 1e3:.1f} ms a call over the server's time"]
    plain, swept = _sweep_overhead()
    out.append(f"  sweep overhead  {(swept - plain) * 1e3:8.0f} ms a run: {swept * 1e3:.0f} ms a run "
               f"as a Ray task (1 CPU) against {plain * 1e3:.0f} ms for engine.run of the same "
               f"world run ({WORLD}, 400 ticks)")
    return out


if __name__ == "__main__":
    for line in run():
        print(line)
