"""`village diff A.log B.log`: where two runs part. Thin: kernel.compare computes, this renders."""

from __future__ import annotations

import dataclasses
import sys
from collections import Counter

import click

from kernel.cli import CONTEXT, one_line
from kernel.errors import VillageError

SAME_SHOWN = 3          # a run of shared events longer than this is one line with its count


class UnreadableLog(click.ClickException):
    """A log that cannot be compared: one line, and exit 2, so it is never taken for a difference."""

    exit_code = 2


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else many or one + 's'}"


def _fmt(v) -> str:
    if isinstance(v, str):
        if len(v) == 64 and all(c in "0123456789abcdef" for c in v):
            return v[:16]                       # a sha256: its first 16 hex digits tell it apart
        s = v.replace("\n", "\\n")
        return repr(s if len(s) <= 80 else s[:77] + "...")
    if isinstance(v, tuple):
        return "[" + ",".join(map(str, v)) + "]"
    return str(v)


def _event(e, only: list[str] | None = None) -> str:
    names = [f.name for f in dataclasses.fields(e)] if only is None else only
    fields = " ".join(f"{n}={_fmt(getattr(e, n))}" for n in names)
    return f"{e.kind:<18} {fields}"


def _fields_apart(a, b) -> list[str]:
    return [f.name for f in dataclasses.fields(a) if getattr(a, f.name) != getattr(b, f.name)]


def _value(key: str, v) -> str:
    if v is None:
        return "(none)"
    if key == "config_digest" and isinstance(v, str):
        return v[:16]
    s = repr(v)
    return s if len(s) <= 40 else s[:37] + "..."


def _side(tag: str, s) -> str:
    ticks = "no ticks" if s.first_tick is None else (
        f"{s.ticks:,} ticks ({s.first_tick} .. {s.last_tick})")
    return f"{tag}  {s.path}  {ticks}  head {s.head_hex[:16]}"


def _header_line(d) -> str:
    if not d.headers:
        h = d.a.header
        return (f"headers   the same (config {_value('config_digest', h['config_digest'])}, "
                f"seed {h['seed']})")
    parts = [f"{c.key.replace('_', ' ')} {_value(c.key, c.a)} (A), {_value(c.key, c.b)} (B)"
             for c in d.headers]
    return "headers   differ, and the ticks are compared all the same: " + "; ".join(parts)


def _first_lines(d, limit: int) -> list[str]:
    f = d.first
    held = [f"{tag} holds no frame for it" for tag, has in (("A", f.in_a), ("B", f.in_b))
            if not has]
    n_a = sum(r.a is not None for r in f.rows)
    n_b = sum(r.b is not None for r in f.rows)
    why = "; ".join(held) if held else f"A has {_plural(n_a, 'event')} there, B {n_b}"
    head = f"first difference at tick {f.tick} ({why}):"
    body: list[str] = []
    rows = f.rows
    i = 0
    while i < len(rows):
        if rows[i].same:
            j = i
            while j < len(rows) and rows[j].same:
                j += 1
            run = rows[i:j]
            if len(run) > SAME_SHOWN:
                kinds = Counter(r.a.kind for r in run)
                what = ", ".join(f"{k} {n}" for k, n in kinds.most_common())
                body.append(f"  =  {len(run)} events the same in both ({what})")
            else:
                body.extend(f"  =  {_event(r.a)}" for r in run)
            i = j
            continue
        r = rows[i]
        if r.a is not None:
            body.append(f"  A  {_event(r.a)}")
        if r.a is not None and r.b is not None and type(r.a) is type(r.b):
            body.append(f"  B  {_event(r.b, _fields_apart(r.a, r.b))}  (the rest as A)")
        elif r.b is not None:
            body.append(f"  B  {_event(r.b)}")
        i += 1
    if not rows:
        body.append("  (no events in either)")
    if len(body) > limit:
        body = body[:limit] + [f"  ... {len(body) - limit} more lines (--rows to show more)"]
    return [head, *body]


def _villager_lines(d) -> list[str]:
    verb = "differs" if d.differing == 1 else "differ"
    lines = [f"differing ticks by villager ({_plural(d.differing, 'tick')} {verb}):"]
    if not d.by_villager:
        lines.append("  (no villager's events differ: the ticks hold the same events in "
                     "another order, or no events)")
        return lines
    labels = {v: f"{d.names.get(v, '?')} ({v})" for v, _ in d.by_villager}
    width = max(len("(no villager)"), *(len(s) for s in labels.values()))
    lines += [f"  {labels[v].ljust(width)}  {n:>7,}" for v, n in d.by_villager]
    if d.unattributed:
        lines.append(f"  {'(no villager)'.ljust(width)}  {d.unattributed:>7,}")
    return lines


def _end_line(d) -> str | None:
    short = d.shorter
    if short is None:
        return None
    s, o = (d.a, d.b) if short == "a" else (d.b, d.a)
    tag, other = short.upper(), "B" if short == "a" else "A"
    only = d.only_b if short == "a" else d.only_a
    ends = "holds no ticks" if s.last_tick is None else f"ends at tick {s.last_tick}"
    return (f"ends      {tag} {ends}, and {other} goes on to tick {o.last_tick}: "
            f"{_plural(only, 'tick')} only {other} holds")


@click.command("diff", context_settings=CONTEXT)
@click.argument("a", type=click.Path(), metavar="A.log")
@click.argument("b", type=click.Path(), metavar="B.log")
@click.option("--rows", type=click.IntRange(min=1), default=40, show_default=True,
              help="Print at most N lines of the first differing tick's events.")
def diff_cmd(a: str, b: str, rows: int) -> None:
    """Compare two runs' logs tick by tick: the first tick at which they differ, with both
    logs' events there, and how many ticks differ for each villager. Changes nothing.

    Headers that differ (config digest, seed, any other key) are said on a line
    of their own and do not by themselves make the logs differ.

    Exit 0 when every tick frame is the same, 1 when a tick differs (a log that
    ends before the other included), 2 when a log cannot be read.
    """
    from kernel.compare import diff

    try:
        d = diff(a, b)
    except VillageError as e:
        raise UnreadableLog(one_line(e)) from None
    click.echo(_side("A", d.a))
    click.echo(_side("B", d.b))
    click.echo(_header_line(d))
    for tag, s in (("A", d.a), ("B", d.b)):
        if s.torn:
            click.echo(f"{tag} has a torn tail of {s.torn} bytes after its last whole frame; "
                       f"it is not compared")
    if d.identical:
        click.echo(f"identical: every tick frame is the same ({_plural(d.a.ticks, 'tick')})")
        return
    if d.same_prefix:
        click.echo(f"prefix    {_plural(d.same_prefix, 'tick frame')} the same before the first "
                   f"difference")
    else:
        click.echo("prefix    none: the logs differ from their first tick frame")
    end = _end_line(d)
    if end:
        click.echo(end)
    for line in _first_lines(d, rows):
        click.echo(line)
    for line in _villager_lines(d):
        click.echo(line)
    click.echo(f"differ: {_plural(d.differing, 'tick')}")
    sys.exit(1)


COMMANDS = (diff_cmd,)
