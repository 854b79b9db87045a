"""Files: opening a file to read it, checking a path before writing it, and the atomic write.

This module owns the few ways the kernel touches a file as a file. A file
is opened without blocking (a FIFO with no writer is refused at once, never
waited on) and only if it is a regular file; a path holding a NUL byte is
refused before the system sees it; a path is checked before anything is
written to it; and a file is written atomically: a temporary file in the
same folder, fsynced, renamed over the path, the folder fsynced, so a
reader sees the old file or the new one and never half of one. Every
refusal is one line in the words of the caller's `Words` (each kind of
file names itself, and its tests hold its lines). It imports only the
standard library and kernel.errors; it must not know what a log, a config
or an index holds.
"""

from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from kernel.errors import VillageError


@dataclass(frozen=True)
class Words:
    """How refusals about one kind of file read, and the error they are raised as.

    Each is a format string over {path}, {what}, {doing}, {kind} (a folder, a
    FIFO ...), {why} (the system's reason) and {folder} (a path's folder).
    """

    what: str
    error: type[Exception] = VillageError
    doing: str = "read it"
    nul: str = "{path!r} is not a path: it holds a NUL byte"
    missing: str = "no {what} at {path}"
    folder: str = "{path} is a folder, not a {what}"
    irregular: str = "{path} is not a regular file (it is {kind}); a {what} is one"
    denied: str = "cannot read the {what} {path}: permission denied"
    failed: str = "cannot open the {what} {path}: {why}"
    unread: str = "cannot read the {what} {path}: {why}"
    too_big: str = "{path} is {size:,} bytes; a {what} is at most {most:,}"
    grew: str = "{path} holds more than {most:,} bytes; a {what} is at most that"
    # Before a write: what is at the path, or the folder it would go in.
    out_folder: str = "{path} is a folder: the {what} is written to a file"
    out_irregular: str = "{path} is {kind}: the {what} is written to a regular file"
    no_folder: str = "cannot write {path}: the folder {folder} does not exist"
    unusable: str = "cannot use the path {path} for the {what}: {why}"

    def refuse(self, template: str, path: str | os.PathLike, **more: object) -> Exception:
        """The error to raise, its line made from `template` (one of the fields above)."""
        return self.error(getattr(self, template).format(
            path=os.fspath(path), what=self.what, doing=self.doing, **more))


def kind_of(mode: int) -> str:
    """What a file that is not a regular one is, as a refusal names it."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def a_path(path: str | os.PathLike, words: Words) -> str:
    """`path` as a string, refused if it holds a NUL byte (no file system can hold one)."""
    s = os.fspath(path)
    if "\0" in s:
        raise words.refuse("nul", s)
    return s


def open_regular(path: str | os.PathLike, words: Words, *, flags: int = os.O_RDONLY) -> int:
    """A blocking file descriptor on the regular file at `path`, or one refusal saying why not.

    Opened with O_NONBLOCK, so a FIFO with no writer is refused at once
    instead of blocking the open or the first read forever.
    """
    a_path(path, words)
    try:
        fd = os.open(path, flags | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise words.refuse("missing", path) from None
    except IsADirectoryError:
        raise words.refuse("folder", path) from None
    except PermissionError:
        raise words.refuse("denied", path) from None
    except OSError as e:
        raise words.refuse("failed", path, why=e.strerror or e) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise words.refuse("folder", path)
        if not stat.S_ISREG(mode):
            raise words.refuse("irregular", path, kind=kind_of(mode))
        # A regular file never blocks; drop the flag so every later read is an ordinary one.
        os.set_blocking(fd, True)
    except OSError as e:
        os.close(fd)
        raise words.refuse("unread", path, why=e.strerror or e) from None
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: str | os.PathLike, words: Words, *, max_bytes: int) -> bytes:
    """The bytes of the regular file at `path`, at most `max_bytes` of them."""
    fd = open_regular(path, words)
    try:
        size = os.fstat(fd).st_size
        if size > max_bytes:
            raise words.refuse("too_big", path, size=size, most=max_bytes)
        chunks = []
        total = 0
        while b := os.read(fd, 1 << 20):
            total += len(b)
            if total > max_bytes:   # it grew while being read
                raise words.refuse("grew", path, most=max_bytes)
            chunks.append(b)
        return b"".join(chunks)
    except OSError as e:
        raise words.refuse("unread", path, why=e.strerror or e) from None
    finally:
        os.close(fd)


def head(path: str | os.PathLike, n: int) -> bytes | None:
    """The first `n` bytes of the regular file at `path`; None if it is not one or cannot be read."""
    try:
        fd = open_regular(path, Words("file"))
    except VillageError:
        return None
    try:
        return os.read(fd, n)
    except OSError:
        return None
    finally:
        os.close(fd)


def check_output(path: str | os.PathLike, words: Words) -> Path:
    """`path` as a Path if a file may be written there: no NUL, in a folder that exists,
    and not a folder or anything but a regular file already; else one refusal."""
    p = Path(a_path(path, words))
    try:
        st = os.stat(p)
    except (FileNotFoundError, NotADirectoryError):
        if not p.parent.is_dir():
            raise words.refuse("no_folder", p, folder=p.parent) from None
        return p
    except OSError as e:
        raise words.refuse("unusable", p, why=e.strerror or e) from None
    if stat.S_ISDIR(st.st_mode):
        raise words.refuse("out_folder", p)
    if not stat.S_ISREG(st.st_mode):
        raise words.refuse("out_irregular", p, kind=kind_of(st.st_mode))
    return p


# -- durable writes ----------------------------------------------------------


def fsync(path: str | os.PathLike) -> None:
    """Make a file's bytes, or a folder's entries, durable (a rename into a folder is on
    disk only once the folder is fsynced)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def commit(tmp: str | os.PathLike, path: str | os.PathLike) -> Path:
    """Put the whole file (or folder) `tmp` at `path` by one rename, durably.

    `tmp` is fsynced (the files inside a folder are the caller's to fsync),
    renamed over `path` (in the same folder: a rename does not cross file
    systems), and the folder fsynced, so a crash leaves the old or the new.
    """
    path = Path(path)
    fsync(tmp)
    os.replace(tmp, path)
    fsync(path.parent)
    return path


def write_atomic(path: str | os.PathLike, data: bytes) -> Path:
    """Write `data` to `path` so a reader sees the old file or the new one, never half of one.

    The temporary file is `.NAME.XXXX.tmp` in the same folder (a rename does
    not cross file systems), removed if anything fails; the new file is
    readable by all (0644), like one an editor writes.
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            # mkstemp makes the file private; what the kernel writes is meant to be read and shared.
            os.fchmod(f.fileno(), 0o644)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    fsync(path.parent)
    return path
