"""One SQL statement against a run's index, and its result laid out for a person to read.

The connection is read-only: SQL over a run looks at a projection of the
log and never changes it (a change would be lost at the next rebuild,
and would be a lie until then). Read-only is not enough on its own: DuckDB
reads and writes any file through COPY, read_text, ATTACH and extensions.
So external access is turned off and the configuration locked before the
user's SQL runs, and no statement can reach outside the index. And a read
is allowed, not a list of writes refused: DuckDB's own parser types every
statement, and only a SELECT (or an EXPLAIN of one) runs; CHECKPOINT,
PRAGMA, SET, COPY and whatever kind DuckDB adds next are refused unrun.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from numbers import Number
from pathlib import Path
from typing import Any

import duckdb

from kernel import files
from kernel.errors import QueryError


@dataclass(frozen=True, slots=True)
class Result:
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]


SANDBOX = {
    # Nothing outside the database file: no COPY TO, read_text, read_csv, ATTACH or
    # extension install; and no extension loaded behind the user's back.
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
}


def _first_line(e: Exception) -> str:
    return (str(e).splitlines() or [type(e).__name__])[0]


_WORDS = files.Words("index", QueryError, missing="no index at {path}: build it with `village index`",
                     folder="the index {path} is a folder, not an index file",
                     irregular="the index {path} is not a regular file",
                     denied="cannot open the index {path}: permission denied",
                     failed="cannot open the index {path}: {why}")


def connect(db_path: str | os.PathLike) -> duckdb.DuckDBPyConnection:
    """A read-only connection to the index at `db_path` that no statement can lead outside it."""
    db = Path(db_path)
    # Opened once to check it is a regular file, without blocking: DuckDB opens it itself.
    os.close(files.open_regular(db, _WORDS))
    try:
        con = duckdb.connect(str(db), read_only=True, config=dict(SANDBOX))
    except duckdb.Error as e:
        raise QueryError(f"cannot open the index {db}: {_first_line(e)}") from None
    try:
        # Locked, so a statement cannot turn external access back on.
        con.execute("SET lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


# What SQL over a run may run: reads. Every other kind of statement is refused by its type.
READS = frozenset({duckdb.StatementType.SELECT})
_EXPLAIN = re.compile(r"\s*EXPLAIN\s+(?:ANALYZE\s+)?(.*)", re.IGNORECASE | re.DOTALL)
_EXAMPLE = "e.g. \"SELECT count(*) FROM memory\""


def _refused(kind: str, text: str) -> QueryError:
    said = repr(" ".join(text.split())[:60])
    what = (f"a{'n' if kind[0] in 'AEIOU' else ''} {kind} statement ({said})" if kind.isupper()
            else f"a statement of {kind} ({said})")
    rule = ("SQL over a run reads its index and nothing else: only SELECT, or EXPLAIN of a "
            "SELECT, runs on its read-only connection")
    if kind == "SET":   # a setting: say too that the configuration is locked against it
        return QueryError(f"the query did not run: the configuration has been locked, and {rule}; "
                          f"this is {what}")
    return QueryError(f"the query was refused: {rule}; this is {what}")


def _parse(con: duckdb.DuckDBPyConnection, sql: str) -> list:
    try:
        return con.extract_statements(sql)
    except duckdb.Error as e:
        raise QueryError(f"the query did not run: {_first_line(e)}") from None


def _type(st):
    """The statement's type, or None for a kind this duckdb module has no name for."""
    try:
        return st.type
    except ValueError:
        return None


def _explained_read(con: duckdb.DuckDBPyConnection, text: str) -> bool:
    """Whether an EXPLAIN statement explains exactly one SELECT (checked by parsing what follows)."""
    m = _EXPLAIN.fullmatch(text)
    if m is None:
        return False
    try:
        inner = con.extract_statements(m.group(1))
    except (duckdb.Error, ValueError):
        return False
    return len(inner) == 1 and _type(inner[0]) in READS


def reads(sql: str, con: duckdb.DuckDBPyConnection | None = None) -> list:
    """The statements of `sql`, each a read, or one QueryError naming the first that is not."""
    if not isinstance(sql, str) or not sql.strip().strip(";").strip():
        raise QueryError(f"the query is empty ({sql!r}): give one SQL statement, {_EXAMPLE}")
    own = con is None
    con = duckdb.connect(":memory:", config=dict(SANDBOX)) if own else con
    try:
        statements = _parse(con, sql)
        if not statements:
            raise QueryError(f"the query holds no SQL statement ({sql[:80]!r}): give one, {_EXAMPLE}")
        for st in statements:
            kind = _type(st)
            if kind in READS:
                continue
            if kind == duckdb.StatementType.EXPLAIN and _explained_read(con, st.query):
                continue
            raise _refused("a kind this duckdb has no name for" if kind is None else kind.name, st.query)
        return statements
    finally:
        if own:
            con.close()


def query(db_path: str | os.PathLike, sql: str) -> Result:
    """Run `sql` on the index at `db_path`, read-only and sandboxed, and fetch every row.

    Only reads run (see `reads`); each statement runs as DuckDB's parser gave
    it, so what runs is what was checked.
    """
    reads(sql)                  # refused before the index is opened, as before it is built
    con = connect(db_path)
    try:
        cur = None
        for st in reads(sql, con):
            cur = con.execute(st)
        if cur is None or cur.description is None:
            return Result((), ())
        cols = tuple(d[0] for d in cur.description)
        return Result(cols, tuple(tuple(r) for r in cur.fetchall()))
    except duckdb.PermissionException as e:
        raise QueryError(f"the query was refused: SQL over a run reads its index and nothing "
                         f"else ({_first_line(e)})") from None
    except duckdb.Error as e:
        raise QueryError(f"the query did not run: {_first_line(e)}") from None
    except (ValueError, OverflowError) as e:
        # A value DuckDB holds that Python cannot (a date past year 9999, say).
        raise QueryError(f"the query ran, and a value in its result cannot be read: "
                         f"{_first_line(e)}") from None
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
