"""The settings before issue 22 beside the recorded ones, asked live on the same prompts.

This module owns the live side by side of `make bench`: it takes the generation calls of a
bench world's live recording (bench/worlds/trials/WORLD/recording.json, made by `make
bench-minds`), asks each call's exact prompt twice through the embedded backend
(kernel.oracle.llamacpp), once with the settings before issue 22 (BEFORE: llama-cpp-python's
own decoding, repeat_penalty 1.0, and the call's schema loosened by `loosened`: no `enum`,
no `pattern`, the old bounds on lengths and counts) and once with the call's own options and
schema as recorded, and prints for each setting, per purpose and over all, the calls, the
answers that degenerate (kernel.laws.minds' own test), the mean tokens in and out and the mean
seconds. The two asks of a call are made one after the other, so a busy moment of a shared
machine falls on both. It must not write a recording or a log, touch a committed scenario,
or assert anything of a time: a second here is this machine's, under its load.

`BENCH_CALLS` (or `--calls N` run alone) asks only N of the calls, taken in turn from each
purpose; `BENCH_WORLD` names the world (default day-of-four).
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernel.laws import minds as lm

HERE = Path(__file__).resolve().parent

# The bounds of the answers' shapes before issue 22, by purpose (kernel.seam.schemas at commit
# bb5f4c9: a question of at most 160 characters, a statement of at most 240 drawn from at
# most 16 ids; configs/thought.json's night: at most 6 groups of at most 6 rows).
CHARS = {"questions": 160, "statement": 240}
"""The longest a string of a call's answer could be, by the call's purpose."""
IDS = {"statement": 16, "night": 6}
"""The most ids a list of integers could hold, by purpose."""
GROUPS = {"night": 6}
"""The most objects a list of objects could hold, by purpose."""
DROPPED = ("enum", "pattern")
"""What a schema said that it did not say before: the shown ids, and the words it asks for."""

BEFORE = "before 22"
RECORDED = "recorded"
SETTINGS = (BEFORE, RECORDED)


def _loosen(node: Any, purpose: str) -> Any:
    if isinstance(node, list):
        return [_loosen(x, purpose) for x in node]
    if not isinstance(node, dict):
        return node
    if "anyOf" in node and node["anyOf"]:
        # A request tied by branches (a statement's first id and count) was one shape before.
        return _loosen(node["anyOf"][0], purpose)
    if "prefixItems" in node:
        # A list of fixed places (a first id, then others) was a list of any integers.
        node = {"type": "array", "items": {"type": "integer"}, "minItems": 1,
                "maxItems": len(node["prefixItems"])}
    out = {}
    for k, v in node.items():
        if k in DROPPED:
            continue
        # The names under `properties` are the answer's keys, never a schema's words.
        out[k] = ({name: _loosen(s, purpose) for name, s in v.items()}
                  if k == "properties" and isinstance(v, dict) else _loosen(v, purpose))
    if out.get("type") == "string" and "maxLength" in out and purpose in CHARS:
        out["maxLength"] = max(out["maxLength"], CHARS[purpose])
    items = out.get("items")
    if out.get("type") == "array" and "maxItems" in out and isinstance(items, dict):
        most = {"integer": IDS, "object": GROUPS}.get(items.get("type"), {}).get(purpose)
        if most is not None:
            out["maxItems"] = max(out["maxItems"], most)
    return out


def loosened(schema: bytes, purpose: str) -> bytes:
    """`schema` as the call of `purpose` would have sent it before issue 22: every `enum` and
    `pattern` dropped, and each string's maxLength and each list's maxItems widened to the old
    bound of its purpose and its items' type (CHARS, IDS, GROUPS), whatever the keys are named."""
    return json.dumps(_loosen(json.loads(schema), purpose), separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


@dataclass(frozen=True, slots=True)
class Result:
    """One live answer under one setting: what it said and what it cost, and what the
    recording holds as the answer to the same call."""

    setting: str
    purpose: str
    text: str
    done_reason: str
    limit: int
    tokens_in: int
    tokens_out: int
    seconds: float
    recorded: str | None = None


def reasons(r: Result) -> tuple[str, ...]:
    """Why one answer degenerates, by the measure of the minds' own test (kernel.laws.minds
    .marks): of "limit", "loop", "digits"; () for an answer that does not."""
    return lm.marks(r.text, r.done_reason, r.tokens_out, r.limit).reasons


def degenerate(r: Result) -> bool:
    return bool(reasons(r))


def pick(calls: Sequence[Mapping[str, Any]], most: int | None) -> list[Mapping[str, Any]]:
    """At most `most` of `calls` (all with None), taken in turn from each purpose, the purposes
    in the order a round and a night make them (any other after), each one's in the
    recording's order: so a few calls still hold every purpose."""
    seen = list(dict.fromkeys(c["purpose"] for c in calls))
    order = [p for p in lm.PURPOSES if p in seen] + [p for p in seen if p not in lm.PURPOSES]
    by = [[c for c in calls if c["purpose"] == p] for p in order]
    out = [of[i] for i in range(max(map(len, by), default=0)) for of in by if i < len(of)]
    return out if most is None else out[:most]


def _mean(xs: Sequence[float], fmt: str) -> str:
    return format(sum(xs) / len(xs), fmt) if xs else "-"


def _share(n: int, rs: Sequence[Result]) -> str:
    return f"{n}/{len(rs)} {100 * n / len(rs):3.0f}%" if rs else "-"


def _why(rs: Sequence[Result]) -> str:
    return "/".join(str(sum(why in reasons(r) for r in rs)) for why in lm.DEGENERATE) if rs else "-"


FIGURES: tuple[tuple[str, Callable[[Sequence[Result]], str]], ...] = (
    ("calls", lambda rs: str(len(rs))),
    ("answers that degenerate", lambda rs: _share(sum(map(degenerate, rs)), rs)),
    (f"  by {'/'.join(lm.DEGENERATE)}", _why),
    ("the recording's answer, byte for byte",
     lambda rs: _share(sum(r.text == r.recorded for r in rs), rs)),
    ("tokens in (mean)", lambda rs: _mean([r.tokens_in for r in rs], ".0f")),
    ("tokens out (mean)", lambda rs: _mean([r.tokens_out for r in rs], ".0f")),
    ("seconds (mean)", lambda rs: _mean([r.seconds for r in rs], ".1f")),
)
"""Each figure of the table, and how it is read off some results of one setting."""


def table(results: Sequence[Result], settings: Sequence[str] = SETTINGS) -> list[str]:
    """The side by side: per purpose (those with a result, in PURPOSES order) and over all, a
    row for each figure, a column for each setting."""
    purposes = [p for p in lm.PURPOSES if any(r.purpose == p for r in results)]
    purposes += sorted({r.purpose for r in results} - set(purposes))
    width = max(len(f) for f, _ in FIGURES)
    out = [f"  {'':<10} {'':<{width}}" + "".join(f"  {s:>12}" for s in settings)]
    for p in (*purposes, "all"):
        of = [r for r in results if p == "all" or r.purpose == p]
        for i, (what, show) in enumerate(FIGURES):
            cells = [show([r for r in of if r.setting == s]) for s in settings]
            out.append(f"  {p if i == 0 else '':<10} {what:<{width}}"
                       + "".join(f"  {c:>12}" for c in cells))
    return out


def examples(results: Sequence[Result], settings: Sequence[str] = SETTINGS,
             n: int = 100) -> list[str]:
    """For each setting, its first answer that degenerates, why, and its first `n` characters."""
    out = []
    for s in settings:
        bad = next((r for r in results if r.setting == s and degenerate(r)), None)
        if bad is not None:
            text = " ".join(bad.text.split())
            text = text if len(text) <= n else text[:n - 3] + "..."
            out.append(f"  {s}, a {bad.purpose} answer ({', '.join(reasons(bad))}): {text}")
    return out


# --- the live part ----------------------------------------------------------------------------


def _asks(rec: Mapping[str, Any]):
    """The two asks of one recorded call: before issue 22, and as recorded."""
    from kernel.oracle import exemplar
    from kernel.oracle.base import Ask, Decoding

    o = rec["options"]
    schema = exemplar.schema_bytes(rec)
    recorded = Decoding.of(o)
    common = dict(purpose=rec["purpose"], model=rec["model"], prompt=exemplar.prompt_bytes(rec),
                  seed=o["seed"], temperature=o["temperature"], limit=o["limit"],
                  context=o["context"])
    before = Ask(schema=None if schema is None else loosened(schema, rec["purpose"]),
                 decoding=Decoding(), **common)
    return {BEFORE: before, RECORDED: Ask(schema=schema, decoding=recorded, **common)}


def _ask_live(oracle, calls: Sequence[Mapping[str, Any]]) -> list[Result]:
    out = []
    for rec in calls:
        for setting, ask in _asks(rec).items():
            said = oracle.generate(ask)
            out.append(Result(setting, ask.purpose, said.text, said.done_reason, ask.limit,
                              said.tokens_in, said.tokens_out,
                              (said.took_ns - said.load_ns) / 1e9, rec["answer"]))
    return out


def _calls_wanted(calls: int | None) -> int | None:
    if calls is not None:
        return calls
    raw = os.environ.get("BENCH_CALLS", "").strip()
    if not raw:
        return None
    if not raw.isdecimal() or int(raw) < 1:
        raise ValueError(f"BENCH_CALLS must be a whole number of calls >= 1 but is {raw!r}")
    return int(raw)


def run(calls: int | None = None, world: str | None = None) -> list[str]:
    from kernel import config
    from kernel.errors import VillageError
    from kernel.oracle import exemplar
    from kernel.oracle.llamacpp import LlamaCppOracle

    world = world or os.environ.get("BENCH_WORLD") or "day-of-four"
    path = HERE / "worlds" / "trials" / world / "recording.json"
    shown = f"bench/worlds/trials/{world}/recording.json"
    try:
        most = _calls_wanted(calls)
    except ValueError as e:
        return [f"decoding  {e}; the live side by side is skipped"]
    if not path.is_file():
        return [f"decoding  no live recording of {world} at {shown}: make it with "
                f"`make bench-minds BENCH_WORLD={world}`; the live side by side is skipped"]
    try:
        every = [c for c in exemplar.load(path)["calls"] if c["kind"] == "generate"]
        asked = pick(every, most)
        oracle = LlamaCppOracle.from_config(config.load("models-smollm2", schema="models"))
        results = _ask_live(oracle, asked)
    except VillageError as e:
        return [f"decoding  the live side by side is skipped: {e}"]
    return [f"decoding  {world}: {len(asked)} of the {len(every)} generation calls of {shown}, "
            f"each prompt asked live twice through llama.cpp ({oracle.path.name})",
            f"  {BEFORE}: repeat_penalty 1.0 and llama-cpp-python's other defaults; the schema "
            f"with no enum or pattern, strings to {CHARS['statement']} (a statement) and "
            f"{CHARS['questions']} (a question), {IDS['statement']} citations, "
            f"{GROUPS['night']} groups of {IDS['night']}",
            f"  {RECORDED}: each call's own options and schema, as recorded; seconds are this "
            f"machine's under its load, the model's loading left out",
            *table(results), *examples(results)]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.bench_decoding",
                                description=__doc__.split("\n")[0])
    p.add_argument("--calls", type=int, default=None, help="ask only this many calls (>= 1)")
    p.add_argument("--world", default=None, help="the bench world (default day-of-four)")
    a = p.parse_args(argv)
    if a.calls is not None and a.calls < 1:
        p.error(f"--calls must be a whole number of calls >= 1 but is {a.calls}")
    for line in run(a.calls, a.world):
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
