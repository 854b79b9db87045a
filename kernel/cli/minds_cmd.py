"""`village minds RUN|SCENARIO ...`: how much of what a run's minds said means something, as tables.

For each run (a scenario, replayed with no model, or a log) it prints the measure of
kernel.report.minds: the headline figures (answers that degenerate, questions parroting the
template, questions answers refused, statements kept as thoughts or recurrences, night plans
with an accepted group, rows absorbed, a thought's cosine to its citations, near-restatements,
how alike one villager's thoughts are, refusals by check), then the same per purpose and per
villager, then the worst answers quoted. With more than one run, a last table holds one line
a run. This module parses and renders; the measure is computed in kernel.report.minds, and
nothing is written.
"""

from __future__ import annotations

from collections.abc import Sequence

import click

from kernel.cli import CONTEXT
from kernel.cli.scenarios_cmd import text_table

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
    if m.worst:
        out += ["", "  the worst answers (the most reasons, then the longest loop, then the most digits):"]
        for a in m.worst:
            what = a.purpose if a.purpose != "statement" else f"statement {a.index}"
            out.append(f"    {names.get(a.villager, a.villager)} at tick {a.tick}, {what} "
                       f"({', '.join(a.marks.reasons)}): {quote(a.text)}")
    out += [f"  note: {x}" for x in m.notes]
    return out


SUMMARY = ("run", "degenerate", "parroting", "questions refused", "kept", "plans with a group",
           "absorbed", "grounding", "near", "alike")


def summary(ms: Sequence) -> list[str]:
    """One line a run: the issue's table."""
    rows = [(m.run, pct(m.all.degenerate, m.all.answers), pct(m.all.parroting, m.all.questions),
             of(m.all.questions_refused, m.all.question_calls), pct(m.all.kept, m.all.statements),
             of(m.all.plans_with_group, m.all.plans), str(m.all.absorbed), num(m.all.grounding),
             of(m.all.near, m.all.shown) if m.all.shown else "none", num(m.all.alike))
            for m in ms]
    return text_table(SUMMARY, rows, frozenset(range(1, 10)))


@click.command("minds", context_settings=CONTEXT)
@click.argument("runs", nargs=-1)
@click.option("--exemplars", type=click.Path(dir_okay=False), default=None,
              help="The run's recording, for its token counts and vectors [default: a "
                   "scenario's own]; with one RUN only.")
def minds_cmd(runs: tuple[str, ...], exemplars: str | None) -> None:
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
        for x in lines(m):
            click.echo(x)
        click.echo("")
    if len(ms) > 1:
        for x in summary(ms):
            click.echo(x)


COMMANDS = (minds_cmd,)
