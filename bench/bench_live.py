"""A round of asks live with the default model: one at a time, served together, and the floor.

This module owns the embedded backend's speed figure (`python -m bench bench_live`). It takes
the rounds of a bench world's recording (bench/worlds/opening-of-six/recording.json: its
six villagers' questions, then their statements), puts each recorded ask's exact prompt, schema
and options to the default generation model of configs/models.json, and answers every round
twice in one process: one ask at a time with nothing reused (`sequences` 1), then served
together (`kernel.oracle.serving`, the config's `sequences`). Then the floor: for each ask,
the bare model's time for the same tokens, llama.cpp evaluating the prompt (and the text its
answer's grammar forced, as the call does) and each token the model chose, one at a time, with
no grammar and no sampling work. It prints per purpose the asks, the tokens in and out and
the seconds of each way, the floor's tokens a second for prompt and answer, and last exactly
one line:

    live: many/one xA, call/floor xB, same bytes yes|no

A is seconds served together over seconds one at a time; B a call's mean seconds (one at a
time) over the floor's mean for the same calls; same bytes whether the served answers are the one-at-a-time answers,
byte for byte. It must not write a recording or a log, or assert anything of a time: a second
here is this machine's, under its load.

The default world, opening-of-six, is recorded with the shipped templates: a villager's
questions and statements open with who it is and its day, so served together its statements
read only what follows the opening its questions read (`kernel.oracle.serving` keeps it);
one at a time, every ask reads its whole prompt. `BENCH_WORLD` names the world (day-of-six's
prompts open with nothing), `BENCH_PURPOSES` the rounds (default questions,statement),
`BENCH_CALLS` the most asks of a round (default all).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _asks(world: str, purposes: list[str], most: int | None, model: str) -> dict[str, list]:
    """The recorded asks of each round, put to `model`."""
    import dataclasses

    from kernel.oracle import exemplar

    doc = exemplar.load(HERE / "worlds" / world / "recording.json")
    rounds: dict[str, list] = {p: [] for p in purposes}
    for rec in doc["calls"]:
        if rec["kind"] == "generate" and rec["purpose"] in rounds:
            rounds[rec["purpose"]].append(dataclasses.replace(exemplar.ask(rec), model=model))
    return {p: a[:most] for p, a in rounds.items() if a}


def _floor(llm: Any, filler: Any, ask: Any, said: Any) -> tuple[float, int, int]:
    """Seconds for the bare model to read `ask`'s prompt and as many tokens as the call filled
    (one batch, as the call reads them), then to write as many as it chose, one a decode; and
    the two counts. The answer's own tokens stand in (the time is the count's, not the id's)."""
    prompt = filler.prompt_tokens(ask.prompt.decode("utf-8"))
    filled = max(said.tokens_in - len(prompt), 0)
    words = llm.tokenize(said.text.encode("utf-8") or b" ", add_bos=False, special=False)
    stream = words * (1 + (filled + said.tokens_out) // len(words))
    forced, chosen = stream[:filled], stream[filled:filled + said.tokens_out]
    llm.reset()
    start = time.perf_counter()
    llm.eval(prompt + forced)
    for t in chosen:
        llm.eval([t])
    return time.perf_counter() - start, len(prompt) + filled, len(chosen)


def run() -> list[str]:
    import dataclasses

    from kernel import config
    from kernel.oracle.llamacpp import LlamaCppOracle

    cfg = config.load("models", schema="models")
    world = os.environ.get("BENCH_WORLD", "opening-of-six")
    purposes = os.environ.get("BENCH_PURPOSES", "questions,statement").split(",")
    most = int(os.environ["BENCH_CALLS"]) if os.environ.get("BENCH_CALLS") else None
    rounds = _asks(world, purposes, most, cfg["generate"])
    one = LlamaCppOracle.from_config(cfg, sequences=1)
    many = LlamaCppOracle.from_config(cfg)
    lines = [f"{world}: {', '.join(f'{len(a)} {p}' for p, a in rounds.items())} asks, model "
             f"{cfg['generate']}, {cfg['llamacpp']['threads']} thread(s), {many.sequences} "
             f"sequences served together"]
    # loaded before anything is timed; warmed with no opening, so none is kept before the rounds
    first = [dataclasses.replace(a, opening=0) for a in next(iter(rounds.values()))[:2]]
    one.generate(first[0])
    many.generate_many(first)
    kept = many.reading()
    t_one = t_many = t_floor = 0.0
    same = True
    llm, _ = one._load(embedding=False, n_ctx=cfg["context"])
    filler = one.filler(llm)
    for purpose, asks in rounds.items():
        start = time.perf_counter()
        alone = []
        for a in asks:
            begin = time.perf_counter()
            alone.append((one.generate(a), time.perf_counter() - begin))
        s_one = time.perf_counter() - start
        start = time.perf_counter()
        together = many.generate_many(asks)
        s_many = time.perf_counter() - start
        alike = [s.text for s, _ in alone] == [s.text for s in together]
        same &= alike
        floors = []
        for a, (s, _) in zip(asks, alone, strict=True):
            floors.append(_floor(llm, filler, a, s)[0])
        tin = sum(s.tokens_in for s, _ in alone)
        tout = sum(s.tokens_out for s, _ in alone)
        lines.append(f"{purpose:<10} {len(asks):3} asks  tokens {tin}/{tout} in/out  one at a time "
                     f"{s_one:7.1f}s  together {s_many:7.1f}s (x{s_many / s_one:.2f})  floor "
                     f"{sum(floors):7.1f}s  same bytes {'yes' if alike else 'no'}")
        t_one += s_one
        t_many += s_many
        t_floor += sum(floors)
    read, reused = (b - a for a, b in zip(kept, many.reading(), strict=True))
    lines.append(f"served together: {read} prompt tokens read, {reused} not read again "
                 f"(openings kept)")
    lines.append(_rates(llm, filler, rounds))
    b = t_one / t_floor     # a call's mean seconds over its floor's mean, over the same calls
    lines.append(f"live: many/one x{t_many / t_one:.2f}, call/floor x{b:.2f}, "
                 f"same bytes {'yes' if same else 'no'}")
    return lines


def _rates(llm: Any, filler: Any, rounds: dict[str, list]) -> str:
    """The floor's tokens a second reading a prompt (one batch) and writing (one token a
    decode), measured apart on the first ask's prompt."""
    ask = next(iter(rounds.values()))[0]
    prompt = filler.prompt_tokens(ask.prompt.decode("utf-8"))
    llm.reset()
    start = time.perf_counter()
    llm.eval(prompt)
    read = time.perf_counter() - start
    n = 16
    start = time.perf_counter()
    for t in prompt[:n]:
        llm.eval([t])
    write = time.perf_counter() - start
    return (f"floor: {len(prompt) / read:.1f} tokens a second reading a prompt of "
            f"{len(prompt)}, {n / write:.2f} a second writing one token a decode")
