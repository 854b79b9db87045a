"""`village scenarios`: what each of the home's scenarios is, and what its recording did.

For every scenario of the home (or those named) it prints one table: its
villagers, ticks and days, who reflects, the calls its recording holds,
and what its replay wrote (questions asked and refused, statements
accepted and refused, thoughts and recurrences, night plans, groups
accepted and refused, rows re-felt and forgotten), with its committed head
hash; then its refusals by check. A recorded scenario is replayed with the
replay oracle (no model) into a temporary folder outside the project; a
world-only one is not run, since nothing in its row needs its events
(`village replay` checks its head). The figures are counted off the
replay's events, never typed in, so `make docs` (which writes
docs/scenarios.md from `--markdown`) stays true after a `make record`.
This module writes nothing in the project and calls no model.
"""

from __future__ import annotations

import sys
import tempfile
import textwrap
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import click
from tqdm import tqdm

from kernel import engine
from kernel import events as ev
from kernel.cli import CONTEXT
from kernel.engine import scenario as msc
from kernel.oracle import make
from kernel.report.figures import felt


@dataclass(frozen=True)
class Row:
    """One scenario's line of the table: its files' figures and, if recorded, its replay's."""

    name: str
    villagers: int
    ticks: int
    days: float
    reflecting: int
    head: str
    description: str = ""
    calls: tuple[int, int] | None = None        # the recording's generate and embed calls
    counts: dict[str, int] = field(default_factory=dict)
    refused: tuple[tuple[str, str, int], ...] = ()   # (call, check, refusals)
    differs: str | None = None                  # why the replay is not the recording, if it is not


def count(events: Iterable[ev.Event]) -> tuple[dict[str, int], tuple[tuple[str, str, int], ...]]:
    """What a run's mind did, counted off its events; and its refusals by call and check."""
    events = list(events)
    n = Counter()
    by: Counter = Counter()
    for e in events:
        if isinstance(e, ev.Answered):
            n[e.purpose] += 1
        elif isinstance(e, ev.Refusal):
            n[f"{e.purpose} refused"] += 1
            call = e.purpose if e.purpose != "night" else "night plan" if e.index == 0 else \
                "night group"
            by[(call, e.check)] += 1
        elif isinstance(e, ev.Thought):
            n["thoughts"] += 1
    out = {"questions": n["questions"], "questions refused": n["questions refused"],
           "statements": n["statement"], "statements refused": n["statement refused"],
           "thoughts": n["thoughts"], **felt(events)}
    return out, tuple((call, check, k) for (call, check), k in sorted(by.items()))


def _replay(sc: msc.Scenario, where: Path):
    """The scenario replayed from its recording into `where`: the run's report, and the oracle
    that read the recording."""
    oracle = make("replay", replay_from=sc.exemplars)
    with tqdm(total=sc.ticks, desc=sc.name, unit="tick", file=sys.stderr, leave=False,
              disable=not sys.stderr.isatty()) as bar:
        report = engine.run(sc, oracle, where / f"{sc.name}.log", progress=bar.update,
                            keep_going=True)
    return report, oracle


def row_of(name: str, where: Path) -> Row:
    """A scenario's row: read off its files, and for a recorded one off its replay into `where`."""
    sc = msc.load(name)
    tpd = sc.world.ticks_per_day
    base = dict(name=sc.name, villagers=len(sc.world.people), ticks=sc.ticks,
                days=sc.ticks / tpd, reflecting=len(sc.reflecting), head=sc.head_sha256 or "",
                description=sc.description)
    if sc.world_only or sc.exemplars is None:
        return Row(**base)
    report, oracle = _replay(sc, where)
    kinds = Counter(c["kind"] for c in oracle.doc["calls"])
    counts, refused = count([*(e for r in report.rounds for e in r.events),
                             *(e for n in report.nights for e in n.events)])
    differs = (f"the replay stopped at tick {report.ticks}: {report.stopped}"
               if report.stopped is not None else
               f"the replay's head is {report.head_hex[:16]}" if report.head_hex != sc.head_sha256
               else None)
    return Row(**base, calls=(kinds["generate"], kinds["embed"]), counts=counts, refused=refused,
               differs=differs)


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


def cells(r: Row) -> tuple[str, ...]:
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


def lines(rows: Sequence[Row], markdown: bool) -> list[str]:
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
    with tempfile.TemporaryDirectory(prefix="village-scenarios-") as tmp:
        rows = [row_of(name, Path(tmp)) for name in names]
    for x in lines(rows, markdown):
        click.echo(x)
    if any(r.differs is not None for r in rows):
        sys.exit(1)


COMMANDS = (scenarios_cmd,)
