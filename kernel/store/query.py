"""One SQL statement against a run's index, and its result laid out for a person to read.

The connection is read-only: SQL over a run looks at a projection of the
log and never changes it (a change would be lost at the next rebuild,
and would be a lie until then).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from numbers import Number
from pathlib import Path
from typing import Any

import duckdb

from kernel.errors import VillageError


class QueryError(VillageError):
    """The SQL did not run."""


@dataclass(frozen=True, slots=True)
class Result:
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]


def query(db_path: str | os.PathLike, sql: str) -> Result:
    """Run `sql` on the index at `db_path`, read-only, and fetch every row."""
    db = Path(db_path)
    try:
        con = duckdb.connect(str(db), read_only=True)
    except duckdb.Error as e:
        raise QueryError(f"cannot open the index {db}: {str(e).splitlines()[0]}") from None
    try:
        cur = con.execute(sql)
        if cur.description is None:
            return Result((), ())
        cols = tuple(d[0] for d in cur.description)
        return Result(cols, tuple(tuple(r) for r in cur.fetchall()))
    except duckdb.Error as e:
        raise QueryError(f"the query did not run: {str(e).splitlines()[0]}") from None
    finally:
        con.close()


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_cell(x) for x in v) + "]"
    if isinstance(v, float):
        return f"{v:.4f}"
    return str(v)


def table(result: Result) -> str:
    """Aligned columns under a header rule: numbers to the right, everything else to the left."""
    if not result.columns:
        return "(no result)"
    cells = [[_cell(v) for v in row] for row in result.rows]
    numeric = [
        bool(result.rows) and all(r[i] is None or (isinstance(r[i], Number) and not isinstance(r[i], bool))
                                  for r in result.rows)
        for i in range(len(result.columns))
    ]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(result.columns)]

    def line(values: list[str]) -> str:
        out = [v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric, strict=True)]
        return "  ".join(out).rstrip()

    lines = [line(list(result.columns)), "  ".join("-" * w for w in widths)]
    lines.extend(line(r) for r in cells)
    n = len(result.rows)
    lines.append(f"({n} row{'s' if n != 1 else ''})")
    return "\n".join(lines)
