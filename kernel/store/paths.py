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
import stat
from pathlib import Path

from kernel.errors import IndexPathError
from kernel.log import MAGIC


def default_index(log_path: str | os.PathLike) -> Path:
    """`RUN.log` -> `RUN.duckdb`, beside it (the same rule as kernel.store.db_path_for)."""
    return Path(log_path).with_suffix(".duckdb")


def holds_a_log(path: str | os.PathLike) -> bool:
    """Whether the regular file at `path` starts with a village log's magic bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        return os.read(fd, len(MAGIC)) == MAGIC
    except OSError:
        return False
    finally:
        os.close(fd)


def check_index_path(log_path: str | os.PathLike,
                     db_path: str | os.PathLike | None = None) -> Path:
    """The index path for `log_path` (`db_path`, else RUN.duckdb), or IndexPathError saying why not."""
    for p in (log_path, db_path):
        if p is not None and "\0" in os.fspath(p):
            raise IndexPathError(f"{os.fspath(p)!r} is not a path: it holds a NUL byte")
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
    try:
        st = os.stat(db)
    except FileNotFoundError:
        folder = db.parent if str(db.parent) else Path(".")
        if not folder.is_dir():
            raise IndexPathError(f"cannot write the index {db}: the folder {folder} does not exist") from None
        return db
    except OSError as e:
        raise IndexPathError(f"cannot use the index path {db}: {e.strerror or e}") from None
    if stat.S_ISDIR(st.st_mode):
        raise IndexPathError(f"the index path {db} is a folder: an index is one file")
    if not stat.S_ISREG(st.st_mode):
        raise IndexPathError(f"the index path {db} is not a regular file: an index is one")
    if holds_a_log(db):
        raise IndexPathError(f"{db} holds a village log: an index never replaces a log "
                             f"(pick another --out)")
    return db
