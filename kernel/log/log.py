"""Opening, reading, verifying and appending to one run's log file.

The log is the only truth of a run: every other table is folded from it.
This module owns the file: its creation (header frame, fsync of the file
and its folder), the single-writer lock, appending one frame per tick with
one write, fsync at commit points, repair of a torn tail on open, refusal
of any other damage, and streaming reads. It knows the shape of a header
and of a tick frame, and hands events to kernel.events to decode; it does
not know what a world or a memory is.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from kernel import events as ev
from kernel import files
from kernel.calendar import DAY, Calendar
from kernel.errors import LogCorrupt, LogError, LogLocked
from kernel.log import encode
from kernel.log.decode import events_of
from kernel.log.frame import (
    BLOCK,
    FORMAT,
    HEAD,
    MAGIC,
    SALT,
    ZERO,
    Frame,
    Tail,
    continue_from,
    frame_bytes,
    scan,
    scan_raw,
    unpack_payload,
)
from kernel.log.frame import (
    CHAIN as CHAIN_SIZE,
)

S = TypeVar("S")


@dataclass(frozen=True, slots=True)
class Header:
    """Frame 0: the format version, the digest of the run's config, the world seed.

    A fork's header also names its parent (the parent's head hash), the
    parent's chain value at the tick before the fork, `fork_at` and the
    digests of the configs it changed. These keys are written only for a
    fork, so the header of any other run is the same bytes as before.
    """

    format: int
    config_digest: str
    seed: int
    fork_at: int | None = None
    parent: str | None = None            # the parent's head hash, hex
    parent_chain: str | None = None      # the parent's chain value at tick fork_at - 1, hex
    overrides: tuple[tuple[str, str], ...] = ()   # (what, digest) of every config changed

    def to_map(self) -> dict[str, Any]:
        m: dict[str, Any] = {"config_digest": self.config_digest, "format": self.format,
                             "seed": self.seed}
        if self.fork_at is not None:
            m |= {"fork_at": self.fork_at, "overrides": dict(self.overrides),
                  "parent": self.parent, "parent_chain": self.parent_chain}
        return {k: m[k] for k in sorted(m)}

    @property
    def is_fork(self) -> bool:
        return self.fork_at is not None

    def fork_record(self) -> dict[str, Any] | None:
        """The fork's keys as a plain map, or None for a run that is not a fork."""
        if self.fork_at is None:
            return None
        return {"fork_at": self.fork_at, "parent": self.parent, "parent_chain": self.parent_chain,
                "overrides": dict(self.overrides)}


HEADER_KEYS = frozenset({"config_digest", "format", "seed"})
FORK_KEYS = frozenset({"fork_at", "overrides", "parent", "parent_chain"})


def _hex64(v: Any) -> bool:
    return type(v) is str and len(v) == 64 and all(c in "0123456789abcdef" for c in v)


@dataclass(frozen=True, slots=True)
class Tick:
    """One tick frame, decoded."""

    index: int
    offset: int
    tick: int
    events: tuple[ev.Event, ...]
    chain: bytes


@dataclass(frozen=True, slots=True)
class Summary:
    """What a verified log holds."""

    header: Header
    frames: int          # header included
    ticks: int
    events: int
    bytes: int           # bytes of whole frames, magic included
    head: bytes          # chain value of the last frame: the run's name
    first_tick: int | None
    last_tick: int | None
    tail: Tail

    @property
    def head_hex(self) -> str:
        return self.head.hex()


def _header(frame: Frame) -> Header:
    m = unpack_payload(frame)
    if not isinstance(m, dict) or set(m) not in (HEADER_KEYS, HEADER_KEYS | FORK_KEYS):
        raise LogCorrupt(f"frame 0 at byte {frame.offset}: not a log header", frame=0, offset=frame.offset)
    if type(m["format"]) is not int or m["format"] != FORMAT:
        raise LogCorrupt(f"frame 0 at byte {frame.offset}: log format {m['format']!r}, and this "
                         f"kernel reads format {FORMAT}", frame=0, offset=frame.offset)
    if type(m["config_digest"]) is not str or type(m["seed"]) is not int:
        raise LogCorrupt(f"frame 0 at byte {frame.offset}: not a log header (its config digest "
                         f"must be text and its seed an integer)", frame=0, offset=frame.offset)
    if "fork_at" not in m:
        return Header(format=m["format"], config_digest=m["config_digest"], seed=m["seed"])
    ov = m["overrides"]
    if (type(m["fork_at"]) is not int or m["fork_at"] < 1 or not _hex64(m["parent"])
            or not _hex64(m["parent_chain"]) or not isinstance(ov, dict)
            or not all(type(k) is str and type(v) is str for k, v in ov.items())):
        raise LogCorrupt(f"frame 0 at byte {frame.offset}: not a fork's header (fork_at is a tick "
                         f">= 1, parent and parent_chain are sha256 hex, overrides maps names to "
                         f"digests)", frame=0, offset=frame.offset)
    return Header(format=m["format"], config_digest=m["config_digest"], seed=m["seed"],
                  fork_at=m["fork_at"], parent=m["parent"], parent_chain=m["parent_chain"],
                  overrides=tuple(sorted(ov.items())))


def _corrupt(index: int, offset: int, what: str) -> LogCorrupt:
    return LogCorrupt(f"frame {index} at byte {offset}: {what}", frame=index, offset=offset)


def tick_prefix(payload: bytes, index: int, offset: int) -> tuple[int, int]:
    """The tick and the event count of a tick frame, read off its first bytes.

    A tick frame's payload is the msgpack array [tick, [event, ...]], so both
    numbers sit at its start and a check of the whole log need not decode a
    single event; reading decodes them, and refuses an unknown kind there.
    """
    try:
        if payload[0] != 0x92:
            raise IndexError
        b = payload[1]
        if b < 0x80:
            tick, i = b, 2
        elif b in _UINT:
            size = _UINT[b]
            tick, i = int.from_bytes(payload[2:2 + size], "big"), 2 + size
        else:
            raise IndexError
        a = payload[i]
        if 0x90 <= a <= 0x9F:
            count = a & 0x0F
        elif a == 0xDC:
            count = int.from_bytes(payload[i + 1:i + 3], "big")
        elif a == 0xDD:
            count = int.from_bytes(payload[i + 1:i + 5], "big")
        else:
            raise IndexError
    except IndexError:
        raise _corrupt(index, offset, "not a tick frame") from None
    return tick, count


_UINT = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8}


def _tick_map(frame: Frame) -> tuple[int, list]:
    m = unpack_payload(frame)
    if (not isinstance(m, list) or len(m) != 2 or type(m[0]) is not int or m[0] < 0
            or not isinstance(m[1], list)):
        raise _corrupt(frame.index, frame.offset, "not a tick frame")
    return m[0], m[1]


def _decode_tick(frame: Frame) -> Tick:
    tick, maps = _tick_map(frame)
    try:
        events = events_of(maps)
    except LogError:
        raise
    except Exception as e:
        raise LogCorrupt(f"frame {frame.index} at byte {frame.offset} (tick {tick}): {e}",
                         frame=frame.index, offset=frame.offset) from None
    return Tick(index=frame.index, offset=frame.offset, tick=tick, events=events, chain=frame.chain)


class _Walk:
    """One streaming pass over a file: header, ticks in order, tail."""

    def __init__(self, fh):
        self.gen = scan(fh)
        self.tail: Tail | None = None
        self.header: Header | None = None

    def frames(self) -> Iterator[Frame]:
        try:
            while True:
                yield next(self.gen)
        except StopIteration as stop:
            self.tail = stop.value


# How a log names itself when it cannot be opened; kernel.files does the opening.
_WORDS = files.Words("log", LogError, denied="cannot open {path} to {doing}: permission denied",
                     failed="cannot open {path} to {doing}: {why}",
                     irregular="{path} is {kind}, not a log: a log is a regular file",
                     unread="cannot read {path}: {why}")


def _open_fd(path: str | os.PathLike, flags: int, doing: str) -> int:
    """A file descriptor on the regular file at `path`, or one LogError saying why not."""
    return files.open_regular(path, replace(_WORDS, doing=doing), flags=flags)


def _a_path(path: str | os.PathLike) -> None:
    files.a_path(path, _WORDS)


# How a new log's path is refused: the output guard's refusal part, for a file that is
# appended to and so never written through a temporary one.
_NEW = files.Words("log", LogError,
                   out_folder="{path} is a folder: {doing} writes a new log file",
                   out_irregular="{path} is {kind}: {doing} writes a new log file",
                   out_new="{path} already exists: {doing} writes a new log (remove it, or pick "
                           "another path)",
                   no_folder="cannot create {path}: the folder {folder} does not exist",
                   unusable="cannot create {path}: {why}")


def check_new(path: str | os.PathLike, *, who: str = "a run") -> Path:
    """`path` as a Path if a new log may be created there by `who` ("a run", "a fork"): no
    NUL, no name or path over the system's limits, and nothing there at all (a file, a link
    to one of the run's inputs, a FIFO, a device, a folder), so a log is only ever new."""
    return files.check_new_file(path, replace(_NEW, doing=who))


def _open_read(path: str | os.PathLike):
    return open(_open_fd(path, os.O_RDONLY, "read it"), "rb", buffering=1 << 20)


def _unreadable(path: str | os.PathLike, e: OSError) -> LogError:
    return LogError(f"cannot read {path}: {e.strerror or e}")


def _no_header(path: str | os.PathLike) -> LogError:
    # The one line every reader gives for a file with no whole header frame.
    return LogError(f"{path} has no header frame: it is empty or was cut off while being created")


def read_ticks(path: str | os.PathLike, *, from_tick: int | None = None) -> Iterator[Tick]:
    """Every tick frame of a log in order (from `from_tick` on), checking the chain as it goes.

    A torn tail ends the read quietly at the last whole frame (a writer may be
    mid-append); damage raises LogCorrupt. A file with no whole header frame
    (empty, only the magic, or cut inside frame 0) is refused with the line
    `verify` gives it, never read as a log of no ticks.
    """
    with _open_read(path) as fh:
        walk = _Walk(fh)
        last = None
        frames = walk.frames()
        while True:
            try:
                fr = next(frames)
            except StopIteration:
                if walk.tail.frames == 0:
                    raise _no_header(path) from None
                return
            except OSError as e:
                raise _unreadable(path, e) from None
            if fr.index == 0:
                _header(fr)
                continue
            t = _decode_tick(fr)
            if last is not None and t.tick <= last:
                raise LogCorrupt(f"frame {fr.index} at byte {fr.offset}: tick {t.tick} does not come "
                                 f"after tick {last}", frame=fr.index, offset=fr.offset)
            last = t.tick
            if from_tick is None or t.tick >= from_tick:
                yield t


def read_events(path: str | os.PathLike, *, from_tick: int | None = None) -> Iterator[tuple[int, ev.Event]]:
    """Every event of a log as (tick, event), in log order."""
    for t in read_ticks(path, from_tick=from_tick):
        for e in t.events:
            yield t.tick, e


def read_header(path: str | os.PathLike) -> Header:
    with _open_read(path) as fh:
        try:
            for fr in _Walk(fh).frames():
                return _header(fr)
        except OSError as e:
            raise _unreadable(path, e) from None
    raise _no_header(path)


def fold(items: Iterable[Any], step: Callable[[S, Any], S], state: S) -> S:
    """Fold items into a state with a pure `step(state, item) -> state`."""
    for x in items:
        state = step(state, x)
    return state


try:
    from kernel.log import _chain as _native
except ImportError:  # not built here: the same checks run in Python
    _native = None


def native() -> bool:
    """Whether the compiled chain check is built on this machine."""
    return _native is not None


def verify(path: str | os.PathLike, *, deep: bool = True, use_native: bool = True) -> Summary:
    """Check every frame of a log without changing it; count frames, ticks and events.

    Every frame's length check and chain value, and the order of ticks, are
    always checked. `deep` also decodes every event, refusing a kind this
    kernel does not know; without it the check runs at close to the speed
    of sha256 over the file. Streams the file: memory does not grow with
    the log's length.
    """
    c = _Count()
    with _open_read(path) as fh:
        try:
            if not deep and use_native and _native is not None:
                tail = _verify_native(fh, c)
            else:
                tail = continue_from(fh, None, c.deep if deep else c.fast)
        except OSError as e:
            raise _unreadable(path, e) from None
    if c.header is None:
        raise _no_header(path)
    return Summary(header=c.header, frames=tail.frames, ticks=c.ticks, events=c.events,
                   bytes=tail.offset, head=tail.head, first_tick=c.first, last_tick=c.last, tail=tail)


def _verify_native(fh, c: _Count) -> Tail:
    """The fast check with the compiled loop over whole blocks of frames.

    Frame 0 (the header) and any frame the loop stops at are handed to the
    Python scan from there on, which holds the rules for tails and damage.
    """
    gen = scan_raw(fh)
    try:
        index, offset, payload, chain = next(gen)
    except StopIteration as stop:
        return stop.value
    c.fast(index, offset, payload)
    c.header = _header(Frame(index, offset, payload, chain))
    base = offset + HEAD.size + len(payload) + CHAIN_SIZE
    index, prev = 1, chain
    fh.seek(base)
    buf = b""
    while True:
        more = fh.read(BLOCK)
        buf = buf + more if buf else more
        done, frames, prev, last, first, events, stopped = _native.check(
            buf, prev, SALT, -1 if c.last is None else c.last)
        if frames:
            if c.first is None:
                c.first = first
            c.last = last
            c.ticks += frames
            c.events += events
            index += frames
        base += done
        buf = buf[done:]
        if stopped or not more:
            return continue_from(fh, (base, index, prev), c.fast)


class _Count:
    """What verify counts, frame by frame."""

    def __init__(self):
        self.header: Header | None = None
        self.ticks = self.events = 0
        self.first: int | None = None
        self.last: int | None = None

    def _tick(self, index: int, offset: int, tick: int, count: int) -> None:
        if self.last is not None and tick <= self.last:
            raise _corrupt(index, offset, f"tick {tick} does not come after tick {self.last}")
        if self.first is None:
            self.first = tick
        self.last = tick
        self.ticks += 1
        self.events += count

    def fast(self, index: int, offset: int, payload: bytes) -> None:
        if index == 0:
            self.header = _header(Frame(index, offset, payload, b""))
            return
        # The common case inline: a tick under 128 and fewer than 16 events, else the full parse.
        if len(payload) > 2 and payload[0] == 0x92 and payload[1] < 0x80 and 0x90 <= payload[2] <= 0x9F:
            self._tick(index, offset, payload[1], payload[2] & 0x0F)
        else:
            tick, count = tick_prefix(payload, index, offset)
            self._tick(index, offset, tick, count)

    def deep(self, index: int, offset: int, payload: bytes) -> None:
        if index == 0:
            self.header = _header(Frame(index, offset, payload, b""))
            return
        # Every event decoded by the reader's own code, so whatever `read_ticks`
        # (and so `show` and `index`) would refuse, the deep check refuses too.
        t = _decode_tick(Frame(index, offset, payload, b""))
        self._tick(index, offset, t.tick, len(t.events))


@dataclass(frozen=True, slots=True)
class Recovery:
    """What opening a log for append found at its end."""

    cut_bytes: int       # bytes of a torn tail cut away (0: the log ended cleanly)
    at_offset: int
    frames: int

    def __str__(self) -> str:
        if not self.cut_bytes:
            return f"the log ends cleanly after {self.frames} frames"
        return (f"a torn tail of {self.cut_bytes} bytes after frame {self.frames - 1} was cut back "
                f"to byte {self.at_offset}")


class LogWriter:
    """The one writer of a log: appends a frame per tick, fsyncs at commit points.

    A commit point is every `commit_every` frames (0: none by count), the last
    tick of every day (`ticks_per_day`), an explicit `sync()`, and `close()`.
    `durable_tick` is the last tick known to be on disk.
    """

    def __init__(self, path: Path, fd: int, header: Header, head: bytes, last_tick: int | None,
                 recovery: Recovery, *, commit_every: int, ticks_per_day: int):
        self.path = path
        self._fd = fd
        self.header = header
        self.head = head
        self.frames = recovery.frames   # the whole frames opening found, the header's among them
        self.last_tick = last_tick
        self.durable_tick = last_tick
        self.recovery = recovery
        self.commit_every = commit_every
        self.ticks_per_day = ticks_per_day
        self._days = Calendar(ticks_per_day) if ticks_per_day else None   # 0: no commit at a night
        self._since_sync = 0
        self._size = recovery.at_offset   # bytes of whole frames: where the next one starts
        self._broken: str | None = None  # why appending stopped, once a write has failed

    # -- opening ------------------------------------------------------------

    @staticmethod
    def _lock(fd: int, path: Path) -> None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            os.close(fd)
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise LogLocked(f"{path} is held by another writer: a log has one writer at a time") from None
            raise LogError(f"cannot lock {path} for writing: {e.strerror or e}") from None

    @classmethod
    def create(cls, path: str | os.PathLike, *, config_digest: str, seed: int,
               commit_every: int = 0, ticks_per_day: int = DAY,
               fork: Header | None = None) -> LogWriter:
        """Create a new log with its header frame; refuse if the file exists.

        `fork`, a header holding a fork record, makes the new log a fork's: its
        fork keys are written beside the config digest and seed given here.
        """
        _a_path(path)
        path = Path(path)
        if type(seed) is not int:
            raise LogError(f"a world seed is an integer, not {seed!r}")
        check_new(path)
        if path.suffix.lower() == ".duckdb":
            raise LogError(f"{path} ends in .duckdb, the name of a run's index: a log's name must "
                           f"not, or indexing it would replace it (pick another name, e.g. .log)")
        header = Header(format=FORMAT, config_digest=config_digest, seed=seed)
        if fork is not None and fork.fork_at is not None:
            header = Header(format=FORMAT, config_digest=config_digest, seed=seed,
                            fork_at=fork.fork_at, parent=fork.parent,
                            parent_chain=fork.parent_chain, overrides=tuple(sorted(fork.overrides)))
        data, head = frame_bytes(ZERO, ev.pack(header.to_map()))
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC, 0o644)
        except FileExistsError:
            if path.is_dir():
                raise LogError(f"{path} is a folder: a run writes a new log file") from None
            raise LogError(f"{path} already exists: a run writes a new log (remove it, or pick another path)") from None
        except OSError as e:
            raise _cannot_create(path, e) from None
        try:
            cls._lock(fd, path)
        except BaseException:
            _unlink_quietly(path)
            raise
        try:
            _write_all(fd, MAGIC + data)
            os.fsync(fd)
            files.fsync(path.parent)
        except OSError as e:
            # Nothing of the run is in it yet: a failed creation leaves no file behind.
            os.close(fd)
            _unlink_quietly(path)
            if e.errno in (errno.ENOSPC, errno.EDQUOT):
                raise LogError(f"the disk is full: {path} could not be created, and no file "
                               f"was left behind") from None
            raise LogError(f"cannot write the new log {path}: {e.strerror or e}; no file was "
                           f"left behind") from None
        return cls(path, fd, header, head, None, Recovery(0, len(MAGIC) + len(data), 1),
                   commit_every=commit_every, ticks_per_day=ticks_per_day)

    @classmethod
    def open(cls, path: str | os.PathLike, *, commit_every: int = 0, ticks_per_day: int = DAY) -> LogWriter:
        """Open an existing log for append: check it whole, cut a torn tail, refuse damage."""
        _a_path(path)
        path = Path(path)
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            raise LogError(f"no log at {path}") from None
        except OSError as e:
            raise LogError(f"cannot open {path} to repair it: {e.strerror or e}") from None
        if stat.S_ISREG(mode) and not mode & 0o222:
            # Even where the user may write anyway (root), a file marked read-only is not cut.
            raise LogError(f"{path} is read-only (mode {stat.S_IMODE(mode):04o}): a log is opened "
                           f"for writing to repair or extend it; make it writable first")
        fd = _open_fd(path, os.O_RDWR | os.O_APPEND, "repair or extend it")
        cls._lock(fd, path)
        try:
            with open(os.dup(fd), "rb", buffering=1 << 20) as fh:
                walk = _Walk(fh)
                header = None
                last = None
                for fr in walk.frames():
                    if fr.index == 0:
                        header = _header(fr)
                    else:
                        tick, _ = _tick_map(fr)
                        if last is not None and tick <= last:
                            raise LogCorrupt(f"frame {fr.index} at byte {fr.offset}: tick {tick} does "
                                             f"not come after tick {last}", frame=fr.index, offset=fr.offset)
                        last = tick
                tail = walk.tail
            if header is None:
                raise LogError(f"{path} has no header frame: it was cut off while being created; "
                               f"remove it and run again")
            if tail.torn:
                os.ftruncate(fd, tail.offset)
                os.fsync(fd)
            rec = Recovery(tail.size, tail.offset, tail.frames)
            return cls(path, fd, header, tail.head, last, rec,
                       commit_every=commit_every, ticks_per_day=ticks_per_day)
        except OSError as e:
            os.close(fd)
            raise LogError(f"cannot repair {path}: {e.strerror or e}") from None
        except BaseException:
            os.close(fd)
            raise

    # -- writing ------------------------------------------------------------

    def append(self, tick: int, events: Iterable[ev.Event]) -> bytes:
        """Append one tick's frame with one write; return the new head hash."""
        if self._fd < 0:
            raise LogError(f"{self.path} is closed")
        if self._broken is not None:
            raise LogError(f"{self.path} takes no more ticks: {self._broken}")
        if type(tick) is not int or tick < 0:
            raise LogError(f"a tick is an integer >= 0, not {tick!r}")
        if self.last_tick is not None and tick <= self.last_tick:
            raise LogError(f"tick {tick} does not come after tick {self.last_tick}, the log's last")
        payload = encode.payload(tick, events)
        data, chain = frame_bytes(self.head, payload)
        try:
            _write_all(self._fd, data)
        except OSError as e:
            raise self._failed(tick, e) from None
        self._size += len(data)
        self.head = chain
        self.frames += 1
        self.last_tick = tick
        self._since_sync += 1
        if ((self.commit_every and self._since_sync >= self.commit_every)
                or (self._days is not None and self._days.is_last_tick_of_day(tick))):
            self.sync()
        return chain

    def _failed(self, tick: int, e: OSError) -> LogError:
        """A write that failed: cut the file back to its last whole frame, and say so in one line."""
        try:
            # Shrinking a file needs no free space; the torn frame goes now,
            # not at the next open, so the log verifies as it stands.
            os.ftruncate(self._fd, self._size)
            cut = True
        except OSError:
            cut = False
        last = "none" if self.last_tick is None else f"tick {self.last_tick}"
        where = (f"the log keeps every tick up to its last whole one ({last})" if cut else
                 f"the log is repairable to its last whole tick ({last}): "
                 f"`village log repair {self.path}`")
        if e.errno in (errno.ENOSPC, errno.EDQUOT):
            why = f"the disk is full: tick {tick} could not be written to {self.path}"
        else:
            why = f"tick {tick} could not be written to {self.path}: {e.strerror or e}"
        self._broken = f"{why}; {where}"
        return LogError(self._broken)

    def sync(self) -> None:
        if self._fd >= 0 and self._since_sync:
            try:
                os.fsync(self._fd)
            except OSError as e:
                raise LogError(f"{self.path} could not be synced to disk: {e.strerror or e}; "
                               f"the log is repairable to its last whole tick: "
                               f"`village log repair {self.path}`") from None
            self._since_sync = 0
        self.durable_tick = self.last_tick

    def close(self) -> None:
        if self._fd >= 0:
            try:
                self.sync()
            finally:
                os.close(self._fd)
                self._fd = -1

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _cannot_create(path: Path, e: OSError) -> LogError:
    folder = path.parent if str(path.parent) else Path(".")
    if isinstance(e, FileNotFoundError):
        return LogError(f"cannot create {path}: the folder {folder} does not exist")
    if isinstance(e, NotADirectoryError):
        return LogError(f"cannot create {path}: {folder} is not a folder")
    if isinstance(e, PermissionError):
        return LogError(f"cannot create {path}: the folder {folder} is not writable (permission denied)")
    if e.errno == errno.EROFS:
        return LogError(f"cannot create {path}: {folder} is on a read-only file system")
    if e.errno in (errno.ENOSPC, errno.EDQUOT):
        return LogError(f"the disk is full: {path} could not be created")
    return LogError(f"cannot create {path}: {e.strerror or e}")


def _unlink_quietly(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def _write_all(fd: int, data: bytes) -> None:
    # One write per frame; the loop only matters if the kernel takes part of it.
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]
