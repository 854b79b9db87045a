"""`village minds RUN|SCENARIO ...`: how much of what a run's minds said means something, as tables.

For each run (a scenario, replayed with no model, or a log) it prints the measure of
kernel.report.minds: the headline figures (answers that degenerate, questions parroting the
template, questions answers refused, statements kept as thoughts or recurrences, night plans
with an accepted group, rows absorbed, a thought's cosine to its citations, near-restatements,
how alike one villager's thoughts are, refusals by check), then the same per purpose and per
villager, then what the villagers said as a reader reads it (per kind said and per villager),
then the worst answers quoted. With more than one run, a last table holds one line a run.
`--json` prints every figure of every run, and every text read, as one JSON object instead.
This module parses and renders; the measure is computed in kernel.report.minds, and nothing
is written.
"""

from __future__ import annotations

from collections.abc import Sequence

import click

from kernel.cli import CONTEXT
from kernel.cli.scenarios_cmd import text_table
from kernel.events import Purpose

QUOTE = 160
"""An answer is quoted to at most this many characters, its spaces collapsed."""


def of(n: int, total: int) -> str:
    return f"{n} of {total}"


def pct(n: int, total: int) -> str:
    return f"{100 * n / total:.0f}%" if total else "-"


def plural(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def num(x: float | None) -> str:
    return "none" if x is None else f"{x:.2f}"


def checks(pairs: Sequence[tuple[str, int]]) -> str:
    return ", ".join(f"{k} {n}" for k, n in pairs)


def headline(t, vectors: str) -> list[tuple[str, str, str, str]]:
    """The issue's figures of one tally: (what, count, share, more)."""
    none = vectors if vectors.startswith("none") else ""
    return [
        ("answers that degenerate", of(t.degenerate, t.answers), pct(t.degenerate, t.answers),
         checks(t.reasons)),
        ("questions parroting the template", of(t.parroting, t.questions),
         pct(t.parroting, t.questions), ""),
        ("questions answers refused", of(t.questions_refused, t.question_calls),
         pct(t.questions_refused, t.question_calls), ""),
        ("statements that became thoughts or recurrences", of(t.kept, t.statements),
         pct(t.kept, t.statements),
         f"{plural(t.thoughts, 'thought')}, {plural(t.recurred, 'recurrence')}"),
        ("night plans with an accepted group", of(t.plans_with_group, t.plans),
         pct(t.plans_with_group, t.plans), ""),
        ("rows absorbed", str(t.absorbed), "", ""),
        *((("utterances the seam let be said", of(t.said, t.utterances),
            pct(t.said, t.utterances), ""),) if t.utterances else ()),
        ("thought to its citations (cosine)", num(t.grounding), "",
         f"the mean of {plural(t.grounded, 'thought')}" if t.grounded else none),
        ("near-restatements of a line shown", of(t.near, t.shown) if t.shown else "none",
         pct(t.near, t.shown), ""),
        ("one villager's thoughts alike (cosine)", num(t.alike), "",
         f"the mean of {plural(t.alike_pairs, 'pair')}" if t.alike_pairs
         else "no villager has two thoughts with vectors"),
        ("refusals by check", str(sum(n for _, n in t.refusals)), "", checks(t.refusals)),
        ("a call's tokens in / out (mean)", cost(t), "",
         f"{t.per_call('seconds'):.1f} s a call, the recording's, over {t.costed} calls"
         if t.costed else "no call's cost is known"),
    ]


def cost(t) -> str:
    if not t.costed:
        return "none"
    return f"{t.per_call('tokens_in'):.0f} / {t.per_call('tokens_out'):.0f}"


def _purposes(m) -> list[tuple[str, ...]]:
    return [(p, str(t.answers), f"{t.degenerate} ({pct(t.degenerate, t.answers)})",
             *(str(dict(t.reasons).get(r, 0)) for r in ("limit", "loop", "digits")), cost(t),
             checks(t.refusals) or "-") for p, t in m.purposes]


def _villagers(m) -> list[tuple[str, ...]]:
    return [(name, str(t.answers), f"{t.degenerate} ({pct(t.degenerate, t.answers)})",
             of(t.parroting, t.questions), of(t.questions_refused, t.question_calls),
             of(t.kept, t.statements), of(t.plans_with_group, t.plans), str(t.absorbed),
             num(t.grounding), of(t.near, t.shown) if t.shown else "none", num(t.alike))
            for _, name, t in m.villagers]


KINDS = {"thought": "thoughts", "utterance": "utterances", "interview": "interview answers"}
"""What a reader reads of a run (kernel.laws.minds READS), as a table's lines name them."""
EXAMPLES = 8
"""The words not real, and those run together, quoted of each kind said: the most often first."""


def share(n: int, total: int) -> str:
    return f"{n} of {total}, {pct(n, total)}" if total else "none"


def _read_row(what: str, t) -> tuple[str, ...]:
    return (what, str(t.texts), share(t.real, t.words), share(t.sentences, t.texts),
            share(t.copies, t.texts), str(t.run_together), share(t.grounded, t.named))


READ_HEADERS = ("said", "texts", "real words", "complete sentences", "copies of a cited line",
                "words run together", "villagers named, grounded")


def counted(pairs: Sequence[tuple[str, int]], n: int = EXAMPLES) -> str:
    more = f", and {len(pairs) - n} more" if len(pairs) > n else ""
    return ", ".join(f"{w} {k}" if k > 1 else w for w, k in pairs[:n]) + more


def reader_lines(r) -> list[str]:
    """What the run's villagers said as a reader reads it: a line a kind said, a line a
    villager, each kind's words not real and run together, and the distinct interview answers."""
    out = ["", f"  as a reader reads it (real words by {r.words})"]
    out += ["  " + x for x in text_table(READ_HEADERS, [_read_row(KINDS[w], t) for w, t in r.of],
                                         frozenset(range(1, 7)))]
    for w, t in r.of:
        if t.unreal_words:
            out.append(f"    {KINDS[w]}, words not real: {counted(t.unreal_words)}")
        if t.run_together_words:
            out.append(f"    {KINDS[w]}, words run together: {counted(t.run_together_words)}")
    dist = {v: (d, n) for v, _, d, n in r.distinct}
    rows = [(name, str(t.texts), share(t.real, t.words), share(t.sentences, t.texts),
             share(t.copies, t.texts), str(t.run_together), share(t.grounded, t.named),
             *((share(*dist[v]) if v in dist else "-",) if dist else ()))
            for v, name, t in r.villagers]
    heads = ("villager", *READ_HEADERS[1:], *(("distinct interview answers",) if dist else ()))
    out += ["", "  as a reader reads it, per villager (every kind said)"
            + (f"; interviews: {r.interviews}" if r.interviews else "")]
    out += ["  " + x for x in text_table(heads, rows, frozenset(range(1, len(heads))))]
    return out


def quote(text: str) -> str:
    s = " ".join(text.split())
    return s if len(s) <= QUOTE else s[:QUOTE - 1] + "…"


def lines(m) -> list[str]:
    """One run's tables."""
    names = {v: n for v, n, _ in m.villagers}
    n = {p: t.answers for p, t in m.purposes}
    more = "".join(f", {n[p]} {what}" for p, what in (("basins", "basins updates"),
                                                        ("keywords", "keyword consolidations"),
                                                        ("plan", "plans for tomorrow"),
                                                        ("talk", "utterances started"),
                                                        ("answer", "answers to one"))
                   if p in n)
    out = [f"{m.run}: {m.all.answers} answers ({n['questions']} questions, {n['statement']} "
           f"statements, {n['night']} night plans{more}) and "
           f"{plural(len(m.thoughts), 'thought')}; "
           f"vectors: {m.vectors}"]
    out += ["  " + x for x in text_table(("figure", "count", "share", ""), headline(m.all, m.vectors),
                                         frozenset({1, 2}))]
    out += ["", "  per purpose"]
    out += ["  " + x for x in text_table(("purpose", "answers", "degenerate", "limit", "loop",
                                          "digits", "tokens in / out", "refusals by check"),
                                         _purposes(m), frozenset(range(1, 7)))]
    out += ["", "  per villager"]
    out += ["  " + x for x in text_table(("villager", "answers", "degenerate", "parroting",
                                          "questions refused", "kept", "plans with a group",
                                          "absorbed", "grounding", "near", "alike"),
                                         _villagers(m), frozenset(range(1, 11)))]
    if m.reader is not None:
        out += reader_lines(m.reader)
    if m.worst:
        out += ["", "  the worst answers (the most reasons, then the longest loop, then the most digits):"]
        for a in m.worst:
            what = a.purpose if a.purpose != Purpose.STATEMENT else f"statement {a.index}"
            out.append(f"    {names.get(a.villager, a.villager)} at tick {a.tick}, {what} "
                       f"({', '.join(a.marks.reasons)}): {quote(a.text)}")
    out += [f"  note: {x}" for x in m.notes]
    return out


SUMMARY = ("run", "degenerate", "parroting", "questions refused", "kept", "plans with a group",
           "absorbed", "grounding", "near", "alike")


READ_SUMMARY = ("real words", "sentences", "copies", "run together", "named grounded")
"""The reader's columns of the table of runs, over everything a run's villagers said."""


def _read_summary(m) -> tuple[str, ...]:
    from kernel.laws.minds import read_tally

    if m.reader is None:
        return ("none",) * len(READ_SUMMARY)
    t = read_tally(m.reader.readings)
    return (pct(t.real, t.words), pct(t.sentences, t.texts), pct(t.copies, t.texts),
            str(t.run_together), pct(t.grounded, t.named))


def summary(ms: Sequence) -> list[str]:
    """One line a run: the issue's table, then the reader's columns."""
    rows = [(m.run, pct(m.all.degenerate, m.all.answers), pct(m.all.parroting, m.all.questions),
             of(m.all.questions_refused, m.all.question_calls), pct(m.all.kept, m.all.statements),
             of(m.all.plans_with_group, m.all.plans), str(m.all.absorbed), num(m.all.grounding),
             of(m.all.near, m.all.shown) if m.all.shown else "none", num(m.all.alike),
             *_read_summary(m))
            for m in ms]
    return text_table((*SUMMARY, *READ_SUMMARY), rows, frozenset(range(1, 15)))


def _rounded(x: float | None) -> float | None:
    return None if x is None else round(x, 6)


PAIRS = frozenset({"reasons", "refusals", "unreal_words", "run_together_words"})
"""The fields of a tally that are (name, count) pairs, each a JSON object."""


def _fields(value) -> dict:
    """A frozen value's fields as JSON."""
    from dataclasses import fields

    return {f.name: dict(getattr(value, f.name)) if f.name in PAIRS else getattr(value, f.name)
            for f in fields(value)}


def tally_json(t) -> dict:
    """A tally's every figure: its sums, and the means and shares they give."""
    return {**_fields(t), "kept": t.kept, "grounding": _rounded(t.grounding),
            "alike": _rounded(t.alike),
            **{f"{w}_per_call": _rounded(t.per_call(w))
               for w in ("tokens_in", "tokens_out", "seconds")}}


def read_json(t) -> dict:
    """A reader's tally's every figure: its sums, and the shares they give."""
    return {**_fields(t), **{w: _rounded(getattr(t, w)) for w in
                             ("real_share", "sentence_share", "copy_share", "grounded_share")}}


def reader_json(r) -> dict | None:
    if r is None:
        return None
    from kernel.laws.minds import read_tally

    dist = {v: (d, n) for v, _, d, n in r.distinct}
    return {"words": r.words, "interviews": r.interviews,
            "all": read_json(read_tally(r.readings)),
            "said": {w: read_json(t) for w, t in r.of},
            "villagers": [{"villager": v, "name": name, **read_json(t),
                           "interview_answers": dist[v][1] if v in dist else None,
                           "distinct_interview_answers": dist[v][0] if v in dist else None}
                          for v, name, t in r.villagers],
            "readings": [_fields(x) for x in r.readings]}


def document(m) -> dict:
    """Every figure of one run's measure, old and new, as one JSON object."""
    return {"run": m.run, "vectors": m.vectors, "notes": list(m.notes),
            "all": tally_json(m.all),
            "purposes": {p: tally_json(t) for p, t in m.purposes},
            "villagers": [{"villager": v, "name": name, **tally_json(t)}
                          for v, name, t in m.villagers],
            "worst": [{"tick": a.tick, "villager": a.villager, "purpose": a.purpose,
                       "index": a.index, "text": a.text, "reasons": list(a.marks.reasons),
                       "loop": a.marks.loop, "digits": _rounded(a.marks.digits),
                       "limit": a.marks.limit} for a in m.worst],
            "reader": reader_json(m.reader)}


@click.command("minds", context_settings=CONTEXT)
@click.argument("runs", nargs=-1)
@click.option("--exemplars", type=click.Path(dir_okay=False), default=None,
              help="The run's recording, for its token counts and vectors [default: a "
                   "scenario's own]; with one RUN only.")
@click.option("--json", "as_json", is_flag=True,
              help="Print every figure of every run, and every text read, as one JSON object.")
def minds_cmd(runs: tuple[str, ...], exemplars: str | None, as_json: bool) -> None:
    """Print how much of what RUN's minds said means something (default: every scenario of the
    home with a recording). RUN is a log, or a scenario, which is replayed with no model."""
    from kernel.engine import scenario as msc
    from kernel.report.minds import minds

    if exemplars is not None and len(runs) != 1:
        raise click.UsageError(f"--exemplars is one run's recording, and {len(runs)} runs are named")
    names = list(runs) or [s for s in msc.committed() if msc.load(s).exemplars is not None]
    if not names:
        raise click.ClickException(f"no scenario with a recording in {msc.fixtures_dir()}")
    ms = []
    for name in names:
        m = minds(name, exemplars=exemplars)
        ms.append(m)
        if as_json:
            continue
        for x in lines(m):
            click.echo(x)
        click.echo("")
    if as_json:
        import json

        click.echo(json.dumps({"runs": [document(m) for m in ms]}, ensure_ascii=False, indent=1,
                              allow_nan=False))
    elif len(ms) > 1:
        for x in summary(ms):
            click.echo(x)


COMMANDS = (minds_cmd,)
