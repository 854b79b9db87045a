"""`village world run`: run the village into a new log. Thin: parse, call the engine, print."""

from __future__ import annotations

import time
from pathlib import Path

import click

from kernel.cli import CONTEXT, writes_log
from kernel.cli.shared import ticks_bar, write_index


def _pace(ticks: int, per_second: int) -> str:
    s = ticks / per_second
    return f"{int(s // 60)}m{s % 60:04.1f}s" if s >= 60 else f"{s:.1f}s"


@click.group("world", context_settings=CONTEXT)
def world() -> None:
    """The village world: run it into a log."""


@world.command("run", context_settings=CONTEXT)
@click.option("--config", "config_path", default="world", show_default=True,
              help="A world config: a name under the home's configs/ or a path to a .json file.")
@click.option("--ticks", type=click.IntRange(min=1), default=None,
              help="How many ticks to run from tick 0 [default: one day, the config's ticks_per_day].")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path),
              help="The new log to write; it must not exist yet.")
@click.option("--index", "index", is_flag=True,
              help="Also write the run's DuckDB index (OUT with .duckdb), from the rows the run "
                   "folds as it goes: what `village index OUT` would write.")
def run_cmd(config_path: str, ticks: int | None, out: Path, index: bool) -> None:
    """Run the world from tick 0 and append one frame per tick to a new log.

    A world run is the engine with nobody reflecting: the same driver as `village run`.
    """
    from kernel import engine

    sc = engine.of_world(config_path, ticks=ticks)
    with writes_log(out):
        _run(sc, out, index)


def _run(sc, out: Path, index: bool) -> None:
    from kernel import engine
    from kernel.store import run_index

    idx = run_index(sc, out) if index else None
    started = time.perf_counter()
    with ticks_bar(sc.ticks, "world") as bar:
        res = engine.run(sc, None, out, progress=bar.update, projections=[idx] if idx else ())
    took = time.perf_counter() - started
    cfg = sc.world
    click.echo(f"ran {res.ticks} ticks ({_pace(res.ticks, cfg.ticks_per_second)} of village time "
               f"at {cfg.ticks_per_second} ticks a second) in {took:.2f}s: {res.events} events")
    width = max([len("villager")] + [len(p.name) for p in cfg.people])
    click.echo(f"  {'villager'.ljust(width)}    id   rows")
    for p in cfg.people:
        click.echo(f"  {p.name.ljust(width)}  {p.id:4d}  {res.rows.get(p.id, 0):5d}")
    click.echo(f"wrote {res.path}, {res.bytes} bytes, head {res.head_hex}")
    if idx is not None:
        write_index(idx, res)


COMMANDS = (world,)
