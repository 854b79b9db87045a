"""Where an index may be written: never over its log, and never over any village log.

The index is derived and rebuilt whole, by a rename over its path; the log
is the only truth of a run. A rename over the wrong path would replace a
log with its own projection, so an index path is checked before anything
is written: it must not be the log itself (by name or by inode), and it
passes the output guard of kernel.files as the index's writer, which
replaces only an index (a file with DuckDB's header) or an empty file:
never a log, a folder, a FIFO or anything else a user keeps. This module
owns that check and nothing else; it reads at most the first bytes of a
file and never writes.
"""

from __future__ import annotations

import os
from pathlib import Path

from kernel import files
from kernel.errors import IndexPathError


def default_index(log_path: str | os.PathLike) -> Path:
    """`RUN.log` -> `RUN.duckdb`, beside it (the same rule as kernel.store.db_path_for)."""
    return Path(log_path).with_suffix(".duckdb")


WORDS = files.Words(
    "index", IndexPathError,
    out_folder="the index path {path} is a folder: an index is one file",
    out_irregular="the index path {path} is not a regular file: an index is one",
    no_folder="cannot write the index {path}: the folder {folder} does not exist",
    unusable="cannot use the index path {path}: {why}",
    out_log="{path} holds a village log: an index never replaces a log (pick another --out)",
    out_other="{path} holds {held} ({size:,} bytes), not an index: an index replaces only an "
              "index, so this would be lost (pick another --out, or remove it first)",
    unwritable="cannot write the index {path}: {why}")


def check_index_path(log_path: str | os.PathLike,
                     db_path: str | os.PathLike | None = None) -> Path:
    """The index path for `log_path` (`db_path`, else RUN.duckdb), or IndexPathError saying why not."""
    for p in (log_path, db_path):
        if p is not None:
            files.a_path(p, WORDS)
    log = Path(log_path)
    db = Path(db_path) if db_path is not None else default_index(log)
    same = os.path.abspath(db) == os.path.abspath(log)
    if not same:
        try:
            same = os.path.samefile(db, log)
        except OSError:
            same = False
    if same:
        raise IndexPathError(f"the index path {db} is the log itself: an index is written beside "
                             f"its log, never over it (a log named .duckdb needs --out, or a new name)")
    return output(log, db).check()


def output(log_path: str | os.PathLike, db: str | os.PathLike) -> files.Output:
    """The index `db` of `log_path` as the output guard sees it: it replaces only an index
    (a DuckDB file), and never its log."""
    return files.Output(Path(db), WORDS, kind=files.INDEX, inputs=(log_path,))
