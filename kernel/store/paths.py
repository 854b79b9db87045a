"""Where an index may be written: never over its log, and never over any village log.

The index is derived and rebuilt whole, by a rename over its path; the log
is the only truth of a run. A rename over the wrong path would replace a
log with its own projection, so an index path is checked before anything
is written: it must not be the log itself (by name or by inode), must not
be a file that holds a village log (its first bytes are the log's magic),
and must not be a folder or anything but a regular file. This module owns
that check and nothing else; it reads at most the first bytes of a file
and never writes.
"""

from __future__ import annotations

import os
from pathlib import Path

from kernel import files
from kernel.errors import IndexPathError
from kernel.log import MAGIC


def default_index(log_path: str | os.PathLike) -> Path:
    """`RUN.log` -> `RUN.duckdb`, beside it (the same rule as kernel.store.db_path_for)."""
    return Path(log_path).with_suffix(".duckdb")


def holds_a_log(path: str | os.PathLike) -> bool:
    """Whether the regular file at `path` starts with a village log's magic bytes."""
    return files.head(path, len(MAGIC)) == MAGIC


_WORDS = files.Words(
    "index", IndexPathError,
    out_folder="the index path {path} is a folder: an index is one file",
    out_irregular="the index path {path} is not a regular file: an index is one",
    no_folder="cannot write the index {path}: the folder {folder} does not exist",
    unusable="cannot use the index path {path}: {why}")


def check_index_path(log_path: str | os.PathLike,
                     db_path: str | os.PathLike | None = None) -> Path:
    """The index path for `log_path` (`db_path`, else RUN.duckdb), or IndexPathError saying why not."""
    for p in (log_path, db_path):
        if p is not None:
            files.a_path(p, _WORDS)
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
    files.check_output(db, _WORDS)
    if holds_a_log(db):
        raise IndexPathError(f"{db} holds a village log: an index never replaces a log "
                             f"(pick another --out)")
    return db
