"""`village news RUN.log`: how each piece of news a run's villagers were given spread.

For each piece of news: its holders by the end of each day as a curve of numbers, the tree of
who told whom first (indented, each with the tick and day it came to hold the news and how:
given, a citation of a row carrying it, or its words), how many said its words without holding
it, and, where the news names a cell and a day, who stood there that day, holding it or not.
This module parses and renders; the spread is worked out by kernel.laws.news, through
kernel.report.talk, and nothing is written: the log is only read.
"""

from __future__ import annotations

from pathlib import Path

import click

from kernel.cli import CONTEXT

BARS = "▁▂▃▄▅▆▇█"


def curve(per_day: tuple[int, ...], ceiling: int) -> str:
    """Holders by the end of each day, as numbers and as a line of bars up to `ceiling`."""
    if not per_day:
        return "no day in the log"
    top = max(ceiling, max(per_day), 1)
    bars = "".join(BARS[min(len(BARS) - 1, (n * (len(BARS) - 1) + top - 1) // top)] if n else " "
                   for n in per_day)
    return f"{' '.join(str(n) for n in per_day)}   {bars}  (days 1 to {len(per_day)})"


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def tree_lines(branches, d, cal, depth: int = 2) -> list[str]:
    out = []
    for b in branches:
        h = b.holding
        how = "given it" if h.by == "given" else f"told by {d.name(h.teller)}, {h.by}"
        out.append(f"{' ' * depth}{d.name(h.villager)}  tick {h.tick}, day {cal.day_number(h.tick)}"
                   f" ({how})")
        out += tree_lines(b.told, d, cal, depth + 4)
    return out


def lines(d, ticks_per_day: int) -> list[str]:
    from kernel.calendar import Calendar

    cal = Calendar(ticks_per_day)
    if not d.news:
        return [f"no piece of news was given in this run ({_plural(len(d.utterances), 'utterance', 'utterances')})"]
    out = []
    for s in d.news:
        words = ", ".join(s.words) or "none"
        out.append(f"news {s.news!r}: {s.text!r} (words: {words})")
        out.append(f"  holders by each day's end: {curve(s.per_day, len(d.names))}; "
                   f"{len(s.holders)} of {_plural(len(d.names), 'villager', 'villagers')} hold it")
        out.append("  who told whom first:")
        out += tree_lines(s.tree(), d, cal, 4)
        n = len(s.unheld)
        if n:
            out.append(f"  said without holding it: {_plural(n, 'utterance', 'utterances')} with its "
                       f"words from a speaker who did not hold it (they carry nothing)")
        a = s.attendance
        if a is not None:
            where = f"{a.x},{a.y} on day {a.day + 1}"
            if not a.reached:
                out.append(f"  at {where}: the log ends before that day")
            else:
                held = ", ".join(d.name(v) for v in a.holders) or "nobody"
                others = ", ".join(d.name(v) for v in a.others) or "nobody"
                out.append(f"  at {where}: {_plural(a.count, 'villager', 'villagers')}; "
                           f"{len(a.holders)} holding the news ({held}), {len(a.others)} not ({others})")
        out.append("")
    return out[:-1]


@click.command("news", context_settings=CONTEXT)
@click.argument("log", type=click.Path(path_type=Path))   # a folder is refused by the reader, in one line
@click.option("--importance", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None,
              help="The importance table the run was made with [default: that of the home's "
                   "scenario the log's header names, else the home's].")
def news_cmd(log: Path, importance: Path | None) -> None:
    """Print how each piece of news in LOG spread: holders per day, who told whom, and who was at
    the place and day it names. The log is only read."""
    from kernel.report.talk import diffusion_of

    d, ticks_per_day = diffusion_of(log, importance=importance)
    for x in lines(d, ticks_per_day):
        click.echo(x)


COMMANDS = (news_cmd,)
