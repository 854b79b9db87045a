"""`village report RUN.log|SCENARIO`: one self-contained HTML page of a run. Thin: kernel.report computes."""

from __future__ import annotations

from pathlib import Path

import click

from kernel import files
from kernel.cli import CONTEXT


def _output(run: str, out: str | None, exemplars: str | None) -> files.Output:
    """Where the page goes, checked before the run is replayed: an HTML page may be replaced,
    never the run's log, its recording or its index (each an input of the page) nor any
    other file."""
    name = Path(run).name
    path = Path(out) if out else Path(name).with_suffix(".html") if name else Path("report.html")
    if path.suffix == "" and not out:
        path = Path(f"{name}.html")
    inputs = (run, exemplars, Path(run).with_suffix(".duckdb") if name else None)
    o = files.Output(path, files.Words("report"), kind=files.HTML, inputs=inputs)
    o.check()
    return o


@click.command("report", context_settings=CONTEXT)
@click.argument("run")
@click.option("--exemplars", type=click.Path(dir_okay=False), default=None,
              help="The run's recording, for the retrieval tables and the cost of each call "
                   "[default: a scenario's own].")
@click.option("--out", type=click.Path(), default=None,
              help="Where the page goes [default: RUN's name with .html, in the working folder].")
def report_cmd(run: str, exemplars: str | None, out: str | None) -> None:
    """Write one HTML page of RUN (a log, or a scenario, which is replayed first).

    The page holds the header, the map with every villager's path, a timeline
    per villager, felt memory (each villager's strongest rows as strength
    curves, and what each night did), for a run with basins or plans each
    villager's basin weights over the nights, each night's update and each
    day's plan with what became of it (beside the world told to ignore
    intentions), the measure of the minds (what
    `village minds` prints), every thought with its citation tree,
    every refusal, the retrieval table of each statement and the cost of each
    call. It is one file: its CSS, SVG and script are inline, and it fetches
    nothing.
    """
    from kernel.report.day import day
    from kernel.report.html import render

    o = _output(run, out, exemplars)
    d = day(run, exemplars=exemplars)
    path = o.write(render(d).encode("utf-8"))
    size = path.stat().st_size
    click.echo(f"{path}: {size:,} bytes; {d.header.ticks:,} ticks, {len(d.header.people)} villagers, "
               f"{len(d.thoughts)} thoughts, {d.refusal_count} refusals, "
               f"{len(d.retrievals)} retrieval tables, {len(d.calls)} calls, "
               f"{d.felt.curves} felt strength curves")
    notes = (d.retrieval_note, d.cost_note, d.header.stopped, d.felt.note)
    for note in sorted({n for n in notes if n}):
        click.echo(f"  note: {note}")


COMMANDS = (report_cmd,)
