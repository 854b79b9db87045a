"""What several commands render alike: a run's progress in ticks, and the index of a run written.

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
