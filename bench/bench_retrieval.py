"""Retrieval quality: does a question find the memories it is about, for the old and the new embedder?

The labelled set (bench/retrieval_set.json) is memory lines of a real world
run, eight kinds of happening, the same number of lines of each kind, and
questions in other words than the lines use. For every question, every line
is a candidate and the lines of its kind are the relevant ones. Printed for
SmolLM2 mean-pooled through llama.cpp (the old embedder) and all-MiniLM-L6-v2
through onnxruntime (the new), side by side: precision@8 and MRR against
their chance levels, the mean spread of cosine over a question's candidates
(max minus min; a flat spread leaves recency and weight to rank), and per
question its span, precision@8 and reciprocal rank. Targets for the new
embedder: precision@8 at least 2.5 times chance, and each span at least 0.30;
for a question short of that span, the nearest and the farthest line and
their cosines, which say why.

Also counted, across the committed recordings: questions calls whose list
repeats a question (as `laws.repeated` compares them) and accepted-looking
statements that restate a memory their prompt showed (`laws.restates`).

`python -m bench.bench_retrieval build RUN.duckdb` remakes the set's lines
from a run's index, keeping its questions.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SET = HERE / "retrieval_set.json"
K = 8
TARGET_RATIO = 2.5
TARGET_SPAN = 0.30

# What each kind of happening is, as (kind, event) pairs of memory rows.
KINDS: dict[str, tuple[tuple[str, str], ...]] = {
    "settling": (("did", "founding"),),
    "gathering": (("did", "gather"),),
    "giving": (("did", "gift"), ("saw", "gift")),
    "eating": (("did", "meal"),),
    "taking": (("did", "take"), ("saw", "take")),
    "walking": (("did", "walk"),),
    "leaving": (("saw", "parting"),),
    "arriving": (("saw", "sighting"),),
}
PER_KIND = 10


# -- the measures --------------------------------------------------------------


def chance_precision(relevant: int, total: int) -> float:
    """Expected precision@k of a random order: the share of relevant candidates."""
    return relevant / total


def chance_rr(relevant: int, total: int) -> float:
    """Expected reciprocal rank of the first relevant candidate in a random order, exactly."""
    e = Fraction(0)
    none_yet = Fraction(1)
    for r in range(1, total - relevant + 2):
        left = total - (r - 1)
        hit = Fraction(relevant, left)
        e += none_yet * hit / r
        none_yet *= 1 - hit
    return float(e)


def order(scores: np.ndarray) -> np.ndarray:
    """Candidates best first; ties by candidate index, so the order is total and machine-free."""
    return np.lexsort((np.arange(len(scores)), -scores.astype(np.float64)))


def measure(q: np.ndarray, lines: np.ndarray, relevant: np.ndarray) -> tuple[float, float, float]:
    """(precision@K, reciprocal rank, span) of one question over every candidate line."""
    cos = lines.astype(np.float64) @ q.astype(np.float64)
    ranked = order(cos)
    hits = relevant[ranked]
    p = float(hits[:K].mean())
    first = int(np.argmax(hits)) if hits.any() else None
    rr = 0.0 if first is None else 1.0 / (first + 1)
    return p, rr, float(cos.max() - cos.min())


# -- the embedders ---------------------------------------------------------------
#
# Each is asked through `village embed` in a child process, the way a user
# embeds text as a run does; a backend that cannot run here (or crashes)
# costs its column, not the benchmark.

# The old embedder by its own name (SmolLM2 mean-pooled through llama.cpp, which the
# models config still offers), and the new one as the embedder config names it.
EMBEDDERS = (
    ("SmolLM2 mean (llama.cpp)", None, "smollm2:135m-instruct/mean"),
    ("all-MiniLM-L6-v2 (onnx)", "embedder", "embed"),
)


def _embed(config_name: str | None, key: str, texts: Sequence[str]) -> tuple[np.ndarray | None, str]:
    from kernel import config

    model = key if config_name is None else config.load(config_name)[key]
    cmd = [sys.executable, "-c", "import sys; from kernel.cli import main; sys.exit(main())",
           "embed", "--oracle", "llamacpp", "--model", model]
    r = subprocess.run(cmd, input="\n".join(texts) + "\n", capture_output=True, text=True,
                       encoding="utf-8")
    if r.returncode != 0:
        how = (f"killed by signal {-r.returncode}" if r.returncode < 0
               else f"exit {r.returncode}")
        last = [line for line in r.stderr.splitlines() if line.strip()][-1:] or [""]
        return None, f"`village embed --model {model}` failed ({how}): {last[0][:160]}"
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    if len(rows) != len(texts):
        return None, f"`village embed --model {model}` gave {len(rows)} vectors for {len(texts)} texts"
    return np.asarray(rows, dtype=np.float32), ""


# -- the committed recordings ------------------------------------------------------

_SHOWN = re.compile(r"^\[(\d+)\] (.*)$")


def recorded_refusals(root: Path) -> tuple[int, int, int, int, int]:
    """(questions calls, of them repeating a question, statements, of them restating a shown
    memory, of them wordless), over every committed recording."""
    from kernel import laws
    from kernel.oracle import exemplar
    from kernel.seam.schemas import SAID

    asks = repeats = statements = restated = wordless = 0
    for f in sorted((root / "exemplars").glob("*.json")):
        doc = exemplar.load(f)
        for call in doc["calls"]:
            if call.get("kind") != "generate":
                continue
            try:
                answer = json.loads(call["answer"])
            except (ValueError, TypeError):
                continue
            if not isinstance(answer, dict):
                continue
            if call.get("purpose") == "questions" and isinstance(answer.get("questions"), list):
                asks += 1
                qs = [q for q in answer["questions"] if isinstance(q, str)]
                repeats += laws.repeated(qs) is not None
            elif isinstance(answer.get("statement"), str):
                statements += 1
                prompt = exemplar.prompt_bytes(call).decode("utf-8")
                shown = {int(m[1]): m[2] for line in prompt.splitlines() if (m := _SHOWN.match(line))}
                restated += laws.restates(answer[SAID], shown) is not None
                wordless += laws.wordless(answer[SAID])
    return asks, repeats, statements, restated, wordless


# -- the report ------------------------------------------------------------------


def load_set(path: Path = SET) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def run() -> list[str]:
    data = load_set()
    kinds = list(data["kinds"])
    lines = [(k, t) for k in kinds for t in data["kinds"][k]["lines"]]
    questions = [(k, q) for k in kinds for q in data["kinds"][k]["questions"]]
    texts = [t for _, t in lines] + [q for _, q in questions]
    line_kind = np.array([k for k, _ in lines])
    n = len(lines)
    rel = len(lines) // len(kinds)
    cp, crr = chance_precision(rel, n), chance_rr(rel, n)

    results = []
    for label, config_name, key in EMBEDDERS:
        vecs, why = _embed(config_name, key, texts)
        if vecs is None:
            results.append((label, None, why, None))
            continue
        rows = [measure(vecs[n + i], vecs[:n], line_kind == k) for i, (k, _) in enumerate(questions)]
        results.append((label, np.array(rows), "", vecs))

    out = [f"  labelled set: {n} memory lines of {len(kinds)} kinds ({rel} each) from "
           f"{data['source']['what']}, {len(questions)} questions; relevant = the lines of the "
           f"question's kind",
           f"  chance: precision@{K} {cp:.3f}, MRR {crr:.3f}", "",
           f"  {'embedder':<26} {'p@' + str(K):>6} {'x chance':>9} {'MRR':>6} {'x chance':>9} "
           f"{'mean spread':>12} {'spans >= ' + format(TARGET_SPAN, '.2f'):>14}"]
    for label, rows, why, _ in results:
        if rows is None:
            out.append(f"  {label:<26} not measured: {why}")
            continue
        p, rr, span = rows.mean(axis=0)
        wide = int((rows[:, 2] >= TARGET_SPAN).sum())
        out.append(f"  {label:<26} {p:>6.3f} {p / cp:>8.2f}x {rr:>6.3f} {rr / crr:>8.2f}x "
                   f"{span:>12.3f} {wide:>8}/{len(rows):<5}")
    new = results[1][1]
    if new is not None:
        p = float(new[:, 0].mean())
        narrow = int((new[:, 2] < TARGET_SPAN).sum())
        out.append(f"  target for the new embedder: precision@{K} >= {TARGET_RATIO}x chance "
                   f"({TARGET_RATIO * cp:.3f}): {'met' if p >= TARGET_RATIO * cp else 'NOT met'} "
                   f"({p / cp:.2f}x); every span >= {TARGET_SPAN:.2f}: "
                   f"{'met' if narrow == 0 else f'NOT met ({narrow} narrower)'}")

    out += ["", "  per question: span (max - min cosine over the candidates), precision@8, reciprocal rank",
            f"  {'kind':<10} {'question':<52} " + "  ".join(
                f"{(lab.split()[0])[:10]:>10} {'p@8':>5} {'RR':>5}" for lab, _, _, _ in results)]
    for i, (k, q) in enumerate(questions):
        cells = []
        for _, rows, _, _ in results:
            cells.append(" " * 22 if rows is None else
                         f"{rows[i, 2]:>10.3f} {rows[i, 0]:>5.2f} {rows[i, 1]:>5.2f}")
        out.append(f"  {k:<10} {q[:52]:<52} " + "  ".join(cells))

    new_vecs = results[1][3]
    if new_vecs is not None:
        narrow = [(i, q) for i, (_, q) in enumerate(questions)
                  if results[1][1][i, 2] < TARGET_SPAN]
        if narrow:
            out += ["", f"  why the narrower spans of {results[1][0]}: the model puts no line "
                        f"much nearer the question than the farthest (cosine of the nearest line, "
                        f"and of the farthest)"]
        for i, q in narrow:
            cos = new_vecs[:n].astype(np.float64) @ new_vecs[n + i].astype(np.float64)
            near, far = int(np.argmax(cos)), int(np.argmin(cos))
            out.append(f"    {q}  nearest {cos[near]:.3f} ({lines[near][1]!r}, {lines[near][0]}), "
                       f"farthest {cos[far]:.3f} ({lines[far][1]!r}, {lines[far][0]})")

    root = HERE.parent
    asks, repeats, statements, restated, wordless = recorded_refusals(root)
    out += ["", f"  committed recordings, as the seam's new rules would judge them: {repeats} of {asks} "
                f"questions calls repeat a question; of {statements} statements, {restated} restate "
                f"a memory their prompt showed and {wordless} are wordless"]
    return out


# -- remaking the lines from a run ----------------------------------------------------


def build(db: Path, path: Path = SET) -> None:
    """Take PER_KIND distinct lines of each kind from RUN.duckdb's memory table, evenly spread."""
    import duckdb

    data = load_set(path)
    con = duckdb.connect(str(db), read_only=True)
    head = con.execute("SELECT value FROM meta WHERE key = 'log_head'").fetchone()
    for name, pairs in KINDS.items():
        chosen: list[str] = []
        share = [PER_KIND // len(pairs) + (i < PER_KIND % len(pairs)) for i in range(len(pairs))]
        for (kind, event), m in zip(pairs, share, strict=True):
            texts = [r[0] for r in con.execute(
                "SELECT text FROM memory WHERE kind = ? AND event = ? GROUP BY text "
                "ORDER BY min(id)", [kind, event]).fetchall()]
            if len(texts) < m:
                raise SystemExit(f"{db} has {len(texts)} distinct {kind}/{event} lines, fewer than {m}")
            step = len(texts) / m
            chosen += [texts[math.floor(i * step)] for i in range(m)]
        data["kinds"].setdefault(name, {"questions": []})["lines"] = chosen
    data["source"]["head_sha256"] = head[0] if head else None
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "build":
        build(Path(sys.argv[2]))
    else:
        print("\n".join(run()))
