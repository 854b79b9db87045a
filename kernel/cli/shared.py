"""What several commands render alike: a run's progress in ticks, the index of a run written, a
text cut to a width, and a table of rows as a reflection ranks them.

Commands share these through this module, never through each other's files. It renders only:
it runs nothing and decides nothing.
"""

from __future__ import annotations

import sys
import time

import click


def ticks_bar(total: int, desc: str):
    """A progress bar of `total` ticks on stderr, shown only where stderr is a terminal."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="tick", file=sys.stderr, leave=False,
                disable=not sys.stderr.isatty())


def write_index(idx, res) -> None:
    """Write the index of a finished run and say so, with what the writing took."""
    if not res.ticks:
        return
    t0 = time.perf_counter()
    got = idx.write(res.path, head_hex=res.head_hex, ticks=res.ticks)
    click.echo(f"indexed {got.memory_rows} memory rows and {got.events} events into "
               f"{got.db_path} ({got.bytes} bytes) in {time.perf_counter() - t0:.2f}s")


def cut(s: str, n: int) -> str:
    """`s`, or its first `n - 3` characters and "..." where it is longer than `n`."""
    return s if len(s) <= n else s[: n - 3] + "..."


def ranked_table(ranked, *, weight: bool, text: int) -> list[str]:
    """The lines of a table of rows as retrieval ranked them, best first: rank, id, tick, the
    row's weight where `weight`, the three scores and their sum, its kind and its text cut to
    `text` characters."""
    head = f" {'weight':>6}" if weight else ""
    out = [f"  {'rank':>4} {'id':>5} {'tick':>6}{head} {'recency':>8} {'import':>7} "
           f"{'relev':>7} {'score':>7}  {'kind':<8} text"]
    for k, r in enumerate(ranked, start=1):
        m = r.memory
        w = f" {m.weight:>6}" if weight else ""
        out.append(f"  {k:>4} {m.id:>5} {m.tick:>6}{w} {r.recency:>8.4f} {r.importance:>7.2f} "
                   f"{r.relevance:>7.4f} {r.score:>7.4f}  {m.kind:<8} {cut(m.text, text)}")
    return out
