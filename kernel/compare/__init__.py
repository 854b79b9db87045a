"""Comparing runs: where two logs part, computed as data.

`diff(a, b)` streams two logs in step and returns a `Diff` (the header keys
that differ, the first differing tick with both logs' events at it, and a
count of differing ticks per villager). It prints nothing and changes no
file; the CLI renders it.
"""

from kernel.compare.diff import Diff, DiffRow, First, HeaderChange, Side, concerned, diff

__all__ = ["Diff", "First", "HeaderChange", "DiffRow", "Side", "concerned", "diff"]
