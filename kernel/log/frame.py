"""The byte layout of a log file, and the one scanner that reads it.

A file is an 8-byte magic, then frames. Frame 0 is the header; every later
frame is one tick. A frame is

    length  u32 little-endian   bytes in the payload
    check   u32 little-endian   crc32 of the magic and the length field
    payload msgpack             canonical bytes (kernel.events)
    chain   32 bytes            H_i = sha256(H_{i-1} || payload_i), H_{-1} = 32 zero bytes

The check on the length is what lets a reader tell a torn tail from damage:
a write that was cut short leaves a prefix of a whole frame (a short header,
or a header whose payload or chain is short), while a flipped byte in a
length leaves a header whose check fails, which is damage and is refused
rather than mistaken for a tail and cut away. The chain is what names the
run: the last frame's chain value is the head hash.

This module owns the layout and the scan. It opens no files itself and
knows nothing of writers, locks or events beyond unpacking a payload.
"""

from __future__ import annotations

import hashlib
import struct
import zlib
from dataclasses import dataclass
from typing import BinaryIO

import msgpack

from kernel.errors import LogCorrupt, LogError

MAGIC = b"VLOG\x00\x01\r\n"
FORMAT = 1
HEAD = struct.Struct("<II")
CHAIN = 32
ZERO = b"\x00" * CHAIN
MAX_PAYLOAD = 1 << 30
SALT = zlib.crc32(MAGIC)


def length_check(n: int) -> int:
    return zlib.crc32(struct.pack("<I", n), SALT)


def frame_bytes(prev: bytes, payload: bytes) -> tuple[bytes, bytes]:
    """The bytes of one frame after chain value `prev`, and its own chain value."""
    n = len(payload)
    if n > MAX_PAYLOAD:
        raise LogError(f"a tick's frame holds at most {MAX_PAYLOAD:,} bytes of payload, and this "
                       f"one would hold {n:,}: the tick is not written")
    h = hashlib.sha256(prev)
    h.update(payload)
    chain = h.digest()
    return HEAD.pack(n, length_check(n)) + payload + chain, chain


@dataclass(frozen=True, slots=True)
class Frame:
    index: int          # 0 is the header
    offset: int         # byte offset where the frame starts
    payload: bytes
    chain: bytes        # this frame's chain value

    @property
    def end(self) -> int:
        return self.offset + HEAD.size + len(self.payload) + CHAIN


@dataclass(frozen=True, slots=True)
class Tail:
    """What lies after the last whole frame: nothing, or a torn write of `size` bytes."""

    offset: int         # end of the last whole frame
    size: int           # bytes after it (0: the log ends cleanly)
    frames: int         # whole frames, header included
    head: bytes         # chain value of the last whole frame (ZERO if none)

    @property
    def torn(self) -> bool:
        return self.size > 0


def _all_zero(fh: BinaryIO) -> bool:
    # A crash can leave a zero-filled tail where the file system extended the
    # file before the data landed; that is a torn write, not damage.
    while True:
        b = fh.read(1 << 16)
        if not b:
            return True
        if b.count(0) != len(b):
            return False


BLOCK = 1 << 20


def _after_magic(fh: BinaryIO) -> tuple[int, int, bytes] | Tail:
    """Where the first frame starts (offset, index, chain value), having read the magic; or the
    `Tail` of a file cut short inside it. A file that starts otherwise raises `LogCorrupt`."""
    fh.seek(0)
    magic = fh.read(len(MAGIC))
    if len(magic) < len(MAGIC):
        if MAGIC.startswith(magic):
            return Tail(offset=0, size=len(magic), frames=0, head=ZERO)
        raise LogCorrupt(f"not a village log: the file starts with {magic!r}", frame=0, offset=0)
    if magic != MAGIC:
        raise LogCorrupt(f"not a village log (format {FORMAT}): the file starts with {magic!r}",
                         frame=0, offset=0)
    return len(MAGIC), 0, ZERO


def _zero_tail(fh: BinaryIO, buf: bytes, pos: int, base: int, index: int, prev: bytes) -> Tail:
    """The torn tail at a frame whose length does not check, if all from there to the end of the
    file is zero bytes; otherwise the length is damaged, which raises `LogCorrupt`."""
    offset = base + pos
    have = len(buf) - pos
    if buf.count(0, pos) == have:
        fh.seek(offset + have)
        if _all_zero(fh):
            fh.seek(0, 2)
            return Tail(offset=offset, size=fh.tell() - offset, frames=index, head=prev)
    raise LogCorrupt(f"frame {index} at byte {offset}: its length field does not check "
                     f"(a damaged length, not a torn write)", frame=index, offset=offset)


def _read_on(read, buf: bytes, pos: int, base: int, size: int) -> tuple[bytes, int, bool]:
    """The block from `pos` on with up to `size` more bytes read after it, the file offset of
    its first byte, and whether the file has ended. Once a block, not once a frame."""
    more = read(size)
    return buf[pos:] + more, base + pos, not more


def _changed(index: int, offset: int) -> LogCorrupt:
    return LogCorrupt(f"frame {index} at byte {offset}: its chain value does not match its "
                      f"bytes (the log was changed after it was written)",
                      frame=index, offset=offset)


def scan_raw(fh: BinaryIO, start: tuple[int, int, bytes] | None = None):
    """Yield (index, offset, payload, chain) for every whole frame, checking lengths and chain.

    The fast core of every read: the file is read in blocks of 1 MiB and
    frames are sliced out of the block, so memory holds one block and one
    frame at a time whatever the log's length. Returns (as the generator's
    value) a `Tail`; damage that is not a torn tail raises `LogCorrupt`
    naming the frame index and its byte offset.
    """
    if start is None:
        start = _after_magic(fh)
        if isinstance(start, Tail):
            return start
    base, index, prev = start   # base: the file offset of buf[0]
    fh.seek(base)
    buf = b""
    pos = 0
    sha = hashlib.sha256
    unpack_from = HEAD.unpack_from
    checks: dict[int, int] = {}
    read = fh.read
    eof = False
    while True:
        have = len(buf) - pos
        if have < 8 and not eof:
            buf, base, eof = _read_on(read, buf, pos, base, BLOCK)
            pos = 0
            continue
        if have == 0:
            return Tail(offset=base + pos, size=0, frames=index, head=prev)
        if have < 8:
            return Tail(offset=base + pos, size=have, frames=index, head=prev)
        n, check = unpack_from(buf, pos)
        c = checks.get(n)
        if c is None:
            c = length_check(n)
            if n <= MAX_PAYLOAD:
                checks[n] = c
        if check != c or n > MAX_PAYLOAD:
            return _zero_tail(fh, buf, pos, base, index, prev)
        end = pos + 8 + n + CHAIN
        if end > len(buf):
            if eof:
                return Tail(offset=base + pos, size=have, frames=index, head=prev)
            buf, base, eof = _read_on(read, buf, pos, base, max(BLOCK, end - len(buf)))
            pos = 0
            continue
        payload = buf[pos + 8:end - CHAIN]
        h = sha(prev)
        h.update(payload)
        chain = h.digest()
        if chain != buf[end - CHAIN:end]:
            raise _changed(index, base + pos)
        yield index, base + pos, payload, chain
        prev = chain
        pos = end
        index += 1


def scan(fh: BinaryIO):
    """Like `scan_raw`, yielding `Frame` values; returns the `Tail`."""
    gen = scan_raw(fh)
    while True:
        try:
            i, o, p, c = next(gen)
        except StopIteration as stop:
            return stop.value
        yield Frame(index=i, offset=o, payload=p, chain=c)


def unpack_payload(frame: Frame):
    try:
        return msgpack.unpackb(frame.payload, raw=False, strict_map_key=True)
    except Exception as e:  # msgpack raises several types; all mean the same here
        raise LogCorrupt(f"frame {frame.index} at byte {frame.offset}: its payload is not msgpack "
                         f"({type(e).__name__})", frame=frame.index, offset=frame.offset) from None


def continue_from(fh: BinaryIO, start, on_payload) -> Tail:
    """`scan_raw` from `start` (offset, index, chain value; None: the file's start), calling
    `on_payload(index, offset, payload)` for each whole frame; returns the `Tail`."""
    gen = scan_raw(fh, start)
    while True:
        try:
            i, o, p, _ = next(gen)
        except StopIteration as stop:
            return stop.value
        on_payload(i, o, p)
