"""`village log verify|show|repair`: verify and show read a run's log and change nothing; repair cuts a torn tail."""

from __future__ import annotations

import dataclasses
import sys

import click

from kernel import log as vlog
from kernel.cli import CONTEXT, one_line
from kernel.errors import LogCorrupt


@click.group("log", context_settings=CONTEXT)
def log_group() -> None:
    """Check and read a run's append-only event log."""


def _summary_lines(s) -> list[str]:
    rows = [
        ("format", f"{s.header.format}"),
        ("config", f"sha256 {s.header.config_digest[:16]}"),
        ("seed", f"{s.header.seed}"),
        ("frames", f"{s.frames:,} (1 header + {s.ticks:,} ticks)"),
        ("ticks", "none" if s.first_tick is None else f"{s.first_tick} .. {s.last_tick}"),
        ("events", f"{s.events:,}"),
        ("bytes", f"{s.bytes:,}"),
        ("head", s.head_hex),
    ]
    return [f"{k:<10} {v}" for k, v in rows]


@log_group.command("verify", context_settings=CONTEXT)
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--fast", is_flag=True,
              help="Check lengths, the chain and tick order only, at close to sha256 speed; "
                   "without it every event is decoded too, and an unknown kind refused.")
def verify_cmd(path: str, fast: bool) -> None:
    """Check every frame's length and hash chain; print what the log holds. Changes nothing.

    Exit 0 when the log is whole, 1 with the frame index and byte offset when not.
    """
    try:
        s = vlog.verify(path, deep=not fast)
    except LogCorrupt as e:
        click.echo(f"village: {path}: {e}", err=True)
        click.echo(f"damaged at frame {e.frame}, byte {e.offset}; the log is refused, not repaired", err=True)
        sys.exit(1)
    for line in _summary_lines(s):
        click.echo(line)
    if s.tail.torn:
        click.echo(f"village: {path}: a torn tail of {s.tail.size} bytes after frame {s.frames - 1}, "
                   f"at byte {s.tail.offset}; `village log repair {path}` or the next writer cuts it",
                   err=True)
        sys.exit(1)
    click.echo("intact: every frame's length and chain check")


@log_group.command("repair", context_settings=CONTEXT)
@click.argument("path", type=click.Path(dir_okay=False))
def repair_cmd(path: str) -> None:
    """Cut a torn tail back to the last whole frame, as a writer opening the log does.

    Damage that is not a torn tail is refused, and the file is left as it is.
    """
    try:
        w = vlog.LogWriter.open(path)
    except LogCorrupt as e:
        click.echo(f"village: {path}: {e}", err=True)
        click.echo(f"damaged at frame {e.frame}, byte {e.offset}; the log is refused, not repaired", err=True)
        sys.exit(1)
    w.close()
    click.echo(f"repair     {w.recovery}")
    for line in _summary_lines(vlog.verify(path, deep=False)):
        click.echo(line)


def _line(tick: int, e) -> str:
    fields = " ".join(f"{f.name}={_fmt(getattr(e, f.name))}" for f in dataclasses.fields(e))
    return f"{tick:>8}  {e.kind:<18} {fields}"


def _fmt(v) -> str:
    if isinstance(v, str):
        s = v.replace("\n", "\\n")
        return repr(s if len(s) <= 80 else s[:77] + "...")
    if isinstance(v, tuple):
        return "[" + ",".join(map(str, v)) + "]"
    return str(v)


@log_group.command("show", context_settings=CONTEXT)
@click.argument("path", type=click.Path())      # a folder is refused by the reader, in one line
@click.option("--from-tick", "from_tick", type=click.IntRange(min=0), default=None,
              help="Start at this tick.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Print at most N events.")
def show_cmd(path: str, from_tick: int | None, limit: int | None) -> None:
    """Print the log's events one per line: tick, kind, fields.

    A file that is not a whole log (empty, only the magic, cut inside its
    header, damaged, a folder or a FIFO) is one line and exit 1, as for verify.
    """
    n = 0
    try:
        for tick, e in vlog.read_events(path, from_tick=from_tick):
            click.echo(_line(tick, e))
            n += 1
            if limit is not None and n >= limit:
                break
    except LogCorrupt as e:
        # The first line verify gives for the same damage; where it is, the line says already.
        click.echo(f"village: {path}: {one_line(e)}", err=True)
        sys.exit(1)


COMMANDS = (log_group,)
