"""`village scenarios`: what each of the home's scenarios is, and what its recording did.

For every scenario of the home (or those named) it prints one table: its
villagers, ticks and days, who reflects, the calls its recording holds,
and what its replay wrote (questions asked and refused, statements
accepted and refused, thoughts and recurrences, night plans, groups
accepted and refused, rows re-felt and forgotten), with its committed head
hash; then its refusals by check. The rows are kernel.report.scenarios',
counted off each recorded scenario's one replay (no model, into a
temporary folder outside the project), so `make docs` (which writes
docs/scenarios.md from `--markdown`) stays true after a `make record`.
This module only parses the command and renders the rows (text or
Markdown tables, a progress bar on each replay); it counts nothing,
writes nothing in the project and calls no model.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Sequence

import click

from kernel.cli import CONTEXT
from kernel.cli.shared import ticks_bar
from kernel.engine import scenario as msc
from kernel.report.scenarios import ScenarioRow, replays, row_of

HEADERS = ("scenario", "villagers", "ticks", "days", "reflect", "recorded", "questions",
           "statements", "thoughts", "nights", "groups", "re-felt", "forgotten", "head")
LEGEND = ("reflect: villagers who reflect; recorded: the recording's generate / embed calls; "
          "questions: calls (refused); statements: accepted / refused; thoughts: written "
          "(recurred); nights: plan calls (refused whole); groups: accepted / refused; re-felt, "
          "forgotten: rows; head: the committed head sha256's first 12 digits")
RIGHT = frozenset(range(1, 13))
"""The columns of numbers, aligned right in the text table."""


def _days(d: float) -> str:
    return f"{d:g}" if d == int(d) else f"{d:.2f}"


def cells(r: ScenarioRow) -> tuple[str, ...]:
    """A row's cells, in HEADERS' order; '-' where a figure has no meaning for the scenario."""
    first = (r.name, str(r.villagers), f"{r.ticks:,}", _days(r.days), str(r.reflecting))
    head = r.head[:12] or "-"
    if r.calls is None:
        return (*first, *("-",) * 8, head)
    c = r.counts
    nights = c["night_plans"] > 0
    return (*first, f"{r.calls[0]} / {r.calls[1]}",
            f"{c['questions']} ({c['questions refused']})",
            f"{c['statements'] - c['statements refused']} / {c['statements refused']}",
            f"{c['thoughts']} ({c['recurrences']})",
            f"{c['night_plans']} ({c['plans_refused']})" if nights else "-",
            f"{c['groups_accepted']} / {c['groups_refused']}" if nights else "-",
            str(c["rows_refelt"]), str(c["rows_forgotten"]) if nights else "-", head)


def text_table(headers: Sequence[str], rows: Sequence[Sequence[str]],
               right: frozenset[int] = frozenset()) -> list[str]:
    """Aligned columns, two spaces apart; numbers to the right."""
    w = [max(len(x[i]) for x in (headers, *rows)) for i in range(len(headers))]

    def line(xs: Sequence[str]) -> str:
        return "  ".join(x.rjust(w[i]) if i in right else x.ljust(w[i])
                         for i, x in enumerate(xs)).rstrip()

    return [line(headers), line(["-" * n for n in w]), *(line(x) for x in rows)]


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]],
                   right: frozenset[int] = frozenset()) -> list[str]:
    """A Markdown table; numbers to the right."""
    rule = ["---:" if i in right else "---" for i in range(len(headers))]
    return ["| " + " | ".join(x) + " |" for x in (headers, rule, *rows)]


def lines(rows: Sequence[ScenarioRow], markdown: bool) -> list[str]:
    """Both tables: the scenarios, then the refusals by check, with the notes of a differing replay."""
    table = markdown_table if markdown else text_table
    out = [*table(HEADERS, [cells(r) for r in rows], RIGHT), "", *textwrap.wrap(LEGEND, 100)]
    by = [(r.name, call, check, str(k)) for r in rows for call, check, k in r.refused]
    if by:
        out += ["", "Refusals by the call refused and the check that refused it:", ""]
        out += table(("scenario", "call", "check", "refusals"), by, frozenset({3}))
    out += ["", "What each is, as its scenario.json describes it:", ""]
    out += [f"- `{r.name}`: {r.description}" if markdown else f"  {r.name}: {r.description}"
            for r in rows]
    for r in rows:
        if r.differs is not None:
            out += ["", f"{r.name} DIFFERS from its recording: {r.differs}"]
    return out


def _row(name: str) -> ScenarioRow:
    """A scenario's row, with a progress bar on its replay when it has one."""
    sc = msc.load(name)
    if not replays(sc):
        return row_of(sc)
    with ticks_bar(sc.ticks, sc.name) as bar:
        return row_of(sc, progress=bar.update)


@click.command("scenarios", context_settings=CONTEXT)
@click.argument("scenarios", nargs=-1)
@click.option("--markdown", is_flag=True,
              help="Print Markdown tables (what `make docs` writes to docs/scenarios.md).")
def scenarios_cmd(scenarios: tuple[str, ...], markdown: bool) -> None:
    """Print what each of the home's scenarios is and what its recording did (default: every one).

    Counted off each recorded scenario's replay (no model, into a temporary
    folder: nothing in the project is written), so the table is always the
    recordings' own. Exit 1 when a replay does not reach its committed head.
    """
    names = list(scenarios) or msc.committed()
    if not names:
        raise click.ClickException(f"no scenario in {msc.fixtures_dir()}")
    rows = [_row(name) for name in names]
    for x in lines(rows, markdown):
        click.echo(x)
    if any(r.differs is not None for r in rows):
        sys.exit(1)


COMMANDS = (scenarios_cmd,)
