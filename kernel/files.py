"""Files: opening a file to read it, the one guard every output passes, and the atomic write.

This module owns the few ways the kernel touches a file as a file: a file
is opened without blocking (a FIFO with no writer is refused at once, never
waited on) and only if it is a regular file; a path holding a NUL byte is
refused before the system sees it; every command that writes asks the one
output guard here first (`check_output`, `check_new_file`, `check_new_folder`,
or `Output`, which checks and then writes), and writes through a temporary
file or folder beside its path. It imports only the standard library and
kernel.errors; it knows each kind of file by its first bytes alone, and
must not know what a log, a config or an index holds. The guard refuses, in
one line in the words of the caller's `Words` (each kind of file names
itself, and its tests hold its lines):

- a path with a NUL byte, a name longer than its file system's NAME_MAX, a
  path longer than PATH_MAX, a folder that does not exist;
- a folder, a FIFO, a device or a socket where the file would go;
- one of the command's own inputs, by name, through a symbolic link or by a
  hard link (the same device and inode);
- any file holding a village log (its magic, `LOG`): nothing replaces a log;
- any file holding a DuckDB database (`DUCK` at byte 8), unless the writer
  is the index's, which replaces an index;
- any other file that is not empty and not of the writer's own kind, told
  by its first bytes: it would be lost.

What each writer may replace, so, beside a missing or empty file: the index
(`village index`, `run --index`, `village sql`'s rebuild, a sweep's table) an
index (`INDEX`); `village plot` a PNG (`PNG`, its signature); `village
report` an HTML page (`HTML`, its doctype); a recording (`run --record`) a
recording (`RECORDING`, a JSON object holding the exemplar `format` key);
`embed --install` the file at its own pinned place whatever that holds
(`PINNED`: it was the wrong bytes). A run's log (`world run`, `run`, `fork
--out`), `village init`'s project and a fork's `--save-as` scenario replace
nothing: they are new, or (a project) an empty folder.

A file that passes is written through a temporary file beside it, fsynced,
renamed over the path, the folder fsynced, so a reader sees the old file or
the new one and never half of one; the temporary file is removed on any
error (a full disk, an interrupt), so a failed write leaves what was there
before, byte for byte, and "cannot write PATH: WHY" is its one line. A
folder (a new project) is built the same way, hidden beside its place and
renamed there whole, as is each run of a sweep (kernel.sweep, its `.part`
folder). A run's log is the exception: it is appended to and crash-safe by
itself (kernel.log), so it asks only the refusals (`check_new_file`).

A file that a process writes only at its end, after minutes of work (a
recording), has one writer at a time: `sole_writer` takes an exclusive lock
on a hidden `.NAME.lock` beside it when the work starts (refused at once, in
one line, while another process holds it) and removes it when the file is
written or the process ends; the system drops a dead holder's lock, and a
lock file left by one is taken over.
"""

from __future__ import annotations

import atexit
import fcntl
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from kernel.errors import VillageError


@dataclass(frozen=True)
class Words:
    """How refusals about one kind of file read, and the error they are raised as.

    Each is a format string over {path}, {what}, {doing}, {kind} (a folder, a
    FIFO ...), {why} (the system's reason) and {folder} (a path's folder); the
    output guard's add {input} and {how} (which input, and how it is the same
    file), {held} and {own} (what is there, what the writer writes, as `Kind`
    names them), {size}, and {name}, {n} and {most} (a name or path too long).
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
    out_input: str = ("{path} is {how}this command's input {input}: the {what} is never "
                      "written over what the command reads (pick another path)")
    out_log: str = "{path} holds a village log: no {what} replaces a log (pick another path)"
    out_other: str = ("{path} holds {held} ({size:,} bytes), not {own}: the {what} replaces only "
                      "{own}, so this would be lost (pick another path, or remove it first)")
    out_full: str = "{path} is a folder that is not empty: the {what} is made new"
    out_new: str = ("{path} already exists ({size:,} bytes): the {what} is written new, never "
                    "over a file (pick another path, or remove it first)")
    name_long: str = ("cannot write {path}: the name {name} is {n} bytes, and its file system "
                      "allows {most}")
    path_long: str = "cannot write {path}: the path is {n} bytes, and the system allows {most}"
    unwritable: str = "cannot write {path}: {why}"
    busy: str = ("{path} is being written by another village process (pid {pid}): a {what} has "
                 "one writer at a time (wait for it, or pick another path)")

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


# -- the output guard ---------------------------------------------------------

HEAD = 64
"""How many first bytes tell a kind of file."""
JSON_MOST = 1 << 30
"""The largest file read whole to tell whether it is a JSON kind (a recording)."""


@dataclass(frozen=True)
class Kind:
    """A kind of file, told by its first bytes: `signature` at byte `at` (with `loose`, after
    any white space and in any case), or, with `key`, a JSON object holding that key. `any`
    is a kind every regular file is (a pinned file's place: what is there is the wrong bytes)."""

    name: str
    signature: bytes = b""
    at: int = 0
    loose: bool = False
    key: str | None = None
    any: bool = False

    def holds(self, path: str | os.PathLike, first: bytes) -> bool:
        """Whether the file at `path`, whose first bytes are `first`, is of this kind."""
        if self.any:
            return True
        if self.key is not None:
            return _json_holds(path, self.key)
        got = first.lstrip().lower() if self.loose else first[self.at:]
        return got.startswith(self.signature.lower() if self.loose else self.signature)


def _json_holds(path: str | os.PathLike, key: str) -> bool:
    import json

    try:
        data = read_regular(path, Words("file"), max_bytes=JSON_MOST)
        value = json.loads(data)
    except (VillageError, ValueError, RecursionError):
        return False
    return isinstance(value, dict) and key in value


LOG = Kind("a village log", b"VLOG\x00\x01\r\n")     # kernel.log.MAGIC; a test holds them equal
INDEX = Kind("a DuckDB database", b"DUCK", at=8)
PNG = Kind("a PNG image", b"\x89PNG\r\n\x1a\n")
HTML = Kind("an HTML page", b"<!doctype html", loose=True)
RECORDING = Kind("a recording", key="format")
PINNED = Kind("a pinned file", any=True)


def _is_dir(p: Path) -> bool:
    try:
        return stat.S_ISDIR(os.stat(p).st_mode)
    except (OSError, ValueError):
        return False


def _limits(folder: Path) -> tuple[int, int]:
    """NAME_MAX and PATH_MAX of the file system `folder` is on (or its nearest existing parent)."""
    at = folder
    while not _is_dir(at) and at != at.parent:
        at = at.parent
    got = []
    for name, usual in (("PC_NAME_MAX", 255), ("PC_PATH_MAX", 4096)):
        try:
            got.append(os.pathconf(at if _is_dir(at) else ".", name))
        except (OSError, ValueError):
            got.append(usual)
    return got[0], got[1]


def check_name(path: str | os.PathLike, words: Words, *, inside: int = 0) -> Path:
    """`path` as a Path if the system can name it: no NUL byte, no name over NAME_MAX, and no
    path over PATH_MAX, counting `inside` more bytes for the deepest file to go under it."""
    p = Path(a_path(path, words))
    name_max, path_max = _limits(p.parent)
    for part in p.parts:
        n = len(os.fsencode(part))
        if n > name_max:
            shown = part if len(part) <= 40 else f"{part[:20]}...{part[-12:]}"
            raise words.refuse("name_long", p, name=repr(shown), n=n, most=name_max)
    n = len(os.fsencode(os.fspath(p))) + inside
    if n >= path_max:
        raise words.refuse("path_long", p, n=n, most=path_max - 1)
    return p


def _same_file(p: Path, st: os.stat_result, inputs) -> tuple[str, str] | None:
    """The input `p` is, and how: by name, through a symbolic link, or by a hard link."""
    for given in inputs:
        if given is None:
            continue
        i = os.fspath(given)
        try:
            ist = os.stat(i)
        except (OSError, ValueError):
            continue
        if (ist.st_dev, ist.st_ino) != (st.st_dev, st.st_ino):
            continue
        if os.path.abspath(p) == os.path.abspath(i):
            return i, ""
        if os.path.realpath(p) == os.path.realpath(i):
            return i, "the same file, through a symbolic link, as "
        return i, "the same file, by a hard link (one device and inode), as "
    return None


def _there(p: Path, words: Words, look) -> os.stat_result | None:
    """What is at the output `p` (by `look`, os.stat or os.lstat), or None when nothing is and
    its folder exists; a missing folder, an unusable path or a folder at `p` is a refusal."""
    try:
        st = look(p)
    except (FileNotFoundError, NotADirectoryError):
        if not _is_dir(p.parent):
            raise words.refuse("no_folder", p, folder=p.parent) from None
        return None
    except OSError as e:
        raise words.refuse("unusable", p, why=e.strerror or e) from None
    if stat.S_ISDIR(st.st_mode):
        raise words.refuse("out_folder", p)
    return st


def check_output(path: str | os.PathLike, words: Words, *, kind: Kind | None = None,
                 inputs=(), inside: int = 0) -> Path:
    """`path` as a Path if the writer of `kind` may write there, else one refusal (the rules
    are this module's): a name the system can hold, in a folder that exists, not a folder nor
    anything but a regular file, none of `inputs`, and, if something is there, of `kind` (no
    kind: only a missing or an empty file may be written)."""
    p = check_name(path, words, inside=inside)
    st = _there(p, words, os.stat)
    if st is None:
        return p
    if not stat.S_ISREG(st.st_mode):
        raise words.refuse("out_irregular", p, kind=kind_of(st.st_mode))
    same = _same_file(p, st, inputs)
    if same is not None:
        raise words.refuse("out_input", p, input=same[0], how=same[1])
    _replaceable(p, st, words, kind)
    return p


def check_new_file(path: str | os.PathLike, words: Words) -> Path:
    """`path` as a Path if a new file may be made there, by a writer that makes it itself and
    never replaces one (a run's log): a name the system can hold, and nothing there at all,
    not even a link (so no input, no log, no FIFO, no device), in a folder that exists."""
    p = check_name(path, words)
    st = _there(p, words, os.lstat)
    if st is None:
        return p
    if not stat.S_ISREG(st.st_mode) and not stat.S_ISLNK(st.st_mode):
        raise words.refuse("out_irregular", p, kind=kind_of(st.st_mode))
    raise words.refuse("out_new", p, size=st.st_size)


def _replaceable(p: Path, st: os.stat_result, words: Words, kind: Kind | None) -> None:
    """Refuse the regular file at `p` unless the writer of `kind` may replace it."""
    first = head(p, HEAD)
    if first is None:
        raise words.refuse("unusable", p, why="it cannot be read, to tell what it holds")
    if LOG.holds(p, first):
        raise words.refuse("out_log", p)
    if st.st_size == 0:
        return
    if kind is None:
        raise words.refuse("out_new", p, size=st.st_size)
    if INDEX.holds(p, first) and kind is not INDEX:
        raise words.refuse("out_other", p, held=INDEX.name, size=st.st_size, own=kind.name)
    if not kind.holds(p, first):
        raise words.refuse("out_other", p, held="something else", size=st.st_size, own=kind.name)


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
    WRITTEN.append(str(path))
    fsync(path.parent)
    return path


WRITTEN: list[str] = []
"""Every path this process has put a whole file or folder at (`commit`, `write_atomic`), in
order: what a command stopped by a signal as it ends can say is whole on disk."""


def _temporary(path: Path, *, folder: bool = False) -> Path:
    """A new hidden file (or folder) beside `path`, `.NAME.XXXXXXXX.tmp`, its name cut short
    where NAME is long, so it fits the same limits `path` does; a file is readable by all."""
    name_max, path_max = _limits(path.parent)
    room = min(name_max, path_max - 2 - len(os.fsencode(os.fspath(path.parent)))) - 14
    stem = path.name
    while stem and len(os.fsencode(stem)) > room:
        stem = stem[:-1]
    where = path.parent if str(path.parent) else Path(".")
    if folder:
        return Path(tempfile.mkdtemp(prefix=f".{stem}.", suffix=".tmp", dir=where))
    fd, tmp = tempfile.mkstemp(prefix=f".{stem}.", suffix=".tmp", dir=where)
    try:
        # mkstemp makes the file private; what the kernel writes is meant to be read and shared.
        os.fchmod(fd, 0o644)
    finally:
        os.close(fd)
    return Path(tmp)


def _remove(p: Path) -> None:
    try:
        if p.is_dir() and not p.is_symlink():
            import shutil

            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink()
    except OSError:
        pass


def write_atomic(path: str | os.PathLike, data: bytes) -> Path:
    """Write `data` to `path` so a reader sees the old file or the new one, never half of one.

    The temporary file is `.NAME.XXXX.tmp` in the same folder (a rename does
    not cross file systems), removed if anything fails; the new file is
    readable by all (0644), like one an editor writes. No refusal is asked:
    a writer whose path a user gives writes through `Output`.
    """
    path = Path(path)
    tmp = _temporary(path)
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        WRITTEN.append(str(path))
    except BaseException:
        _remove(tmp)
        raise
    fsync(path.parent)
    return path


@dataclass(frozen=True)
class Output:
    """Where one writer writes: its path, its words, the kind it may replace and what the
    command reads (which it never writes over). `check` asks the guard; `write` and
    `replacing` ask it, then write through a temporary file beside the path."""

    path: Path
    words: Words
    kind: Kind | None = None
    inputs: tuple = ()

    def check(self) -> Path:
        return check_output(self.path, self.words, kind=self.kind, inputs=self.inputs)

    @contextmanager
    def replacing(self, *, fresh: bool = False, leftovers: tuple[str, ...] = ()) -> Iterator[Path]:
        """A temporary path beside the checked path, to write the whole new file at; when the
        block ends it is fsynced and renamed over the path and the folder fsynced. On any
        error (a full disk, an interrupt) it is removed, with any `leftovers` (suffixes of its
        name a writer leaves beside it, a database's `.wal`), and what was at the path stays
        as it was; an OSError is the one line "cannot write PATH: WHY". With `fresh` the
        temporary path holds no file yet, for a writer that must make its own."""
        p = self.check()
        try:
            tmp = _temporary(p)
        except OSError as e:
            raise self.words.refuse("unwritable", p, why=e.strerror or e) from None
        try:
            if fresh:
                tmp.unlink()
            yield tmp
            commit(tmp, p)
        except OSError as e:
            raise self.words.refuse("unwritable", p, why=e.strerror or e) from None
        finally:
            for q in (tmp, *(tmp.with_name(tmp.name + x) for x in leftovers)):
                _remove(q)

    def write(self, data: bytes) -> Path:
        """Write `data` at the path, whole or not at all."""
        with self.replacing() as tmp, open(tmp, "wb") as f:
            f.write(data)
        return Path(self.path)


def check_new_folder(path: str | os.PathLike, words: Words, *, inside: int = 0) -> Path:
    """`path` as a Path if a new folder may be made there: a name the system can hold (with
    `inside` bytes more for the deepest file in it), and nothing there but an empty folder."""
    p = check_name(path, words, inside=inside)
    try:
        st = os.stat(p)
    except (FileNotFoundError, NotADirectoryError):
        return p
    except OSError as e:
        raise words.refuse("unusable", p, why=e.strerror or e) from None
    if not stat.S_ISDIR(st.st_mode):
        raise words.refuse("out_irregular" if not stat.S_ISREG(st.st_mode) else "out_new", p,
                           kind=kind_of(st.st_mode), size=st.st_size)
    if any(os.scandir(p)):
        raise words.refuse("out_full", p)
    return p


def _make_parents(folder: Path, made: list[Path]) -> None:
    """Make `folder` and its missing parents, adding each made to `made`, deepest first."""
    missing = []
    at = folder
    while not at.exists() and at != at.parent:
        missing.append(at)
        at = at.parent
    for d in reversed(missing):
        d.mkdir()
        made.insert(0, d)


@contextmanager
def new_folder(path: str | os.PathLike, words: Words, *, inside: int = 0) -> Iterator[Path]:
    """A folder to fill, put at `path` whole when the block ends, or nothing left on any error.

    Where `path` is missing it is a hidden folder made beside it (its missing
    parents are made, and removed again on an error), renamed to `path` once
    filled: a crash leaves no half a folder. Where `path` is an empty folder
    (a mount point, say, which cannot be renamed over) it is filled in place
    and emptied again on an error. The caller fsyncs the files it writes; an
    OSError is the one line "cannot write PATH: WHY".
    """
    p = check_new_folder(path, words, inside=inside)
    there = p.is_dir()
    made: list[Path] = []
    tmp = None
    try:
        if not there:
            _make_parents(p.parent, made)
            tmp = _temporary(p, folder=True)
            # mkdtemp makes the folder private; a made folder has the mode mkdir would give it.
            mask = os.umask(0)
            os.umask(mask)
            os.chmod(tmp, 0o777 & ~mask)
        yield p if there else tmp
        commit(tmp, p) if tmp is not None else fsync(p)
    except BaseException as e:
        if tmp is not None:
            _remove(tmp)
        else:
            for child in list(os.scandir(p)):
                _remove(Path(child.path))
        for d in made:
            try:
                d.rmdir()
            except OSError:
                pass
        if isinstance(e, OSError):
            raise words.refuse("unwritable", p, why=e.strerror or e) from None
        raise


# -- one writer at a time ---------------------------------------------------------


class Held:
    """An exclusive lock on `.NAME.lock` beside a file: `release` removes the lock file, then
    lets the lock go (so a process that opens the old file after its removal finds it gone).
    Within one process the lock is shared: each `sole_writer` of the same path holds it once
    more, and it goes when the last lets it go (one process is one writer)."""

    def __init__(self, lock: Path, fd: int):
        self.lock, self.fd, self.pid, self.count = lock, fd, os.getpid(), 1
        atexit.register(self._drop)

    def release(self) -> None:
        if self.fd < 0 or os.getpid() != self.pid:   # a forked child holds nothing of its own
            return
        self.count -= 1
        if self.count <= 0:
            self._drop()

    def _drop(self) -> None:
        if self.fd < 0 or os.getpid() != self.pid:
            return
        fd, self.fd = self.fd, -1
        _HELD.pop(str(self.lock), None)
        try:
            self.lock.unlink()
        except OSError:
            pass
        os.close(fd)
        atexit.unregister(self._drop)


_HELD: dict[str, Held] = {}
"""The locks this process holds, by lock file."""


def sole_writer(path: str | os.PathLike, words: Words) -> Held | None:
    """Hold `path` as its one writer until `release` (or this process's end); refused in one
    line (`busy`, naming the holder's pid) while another process holds it. None where the
    folder does not exist yet: nothing can be writing there, and nothing is made here."""
    path = Path(path)
    if not _is_dir(path.parent):
        return None
    lock = Path(os.path.abspath(path.with_name(f".{path.name}.lock")))
    mine = _HELD.get(str(lock))
    if mine is not None and mine.fd >= 0 and mine.pid == os.getpid():
        mine.count += 1
        return mine
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
        except OSError as e:
            raise words.refuse("unwritable", lock, why=e.strerror or e) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise words.refuse("busy", path, pid=pid) from None
        # The holder before us may have removed the file as we opened it: hold the file that
        # is at the name now, or try again.
        try:
            now = os.stat(lock, follow_symlinks=False)
        except FileNotFoundError:
            os.close(fd)
            continue
        st = os.fstat(fd)
        if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
            os.close(fd)
            continue
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode("ascii"), 0)
        held = _HELD[str(lock)] = Held(lock, fd)
        return held
