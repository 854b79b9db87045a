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

from kernel.errors import LogCorrupt

MAGIC = b"VLOG\x00\x01\r\n"
FORMAT = 1
HEAD = struct.Struct("<II")
CHAIN = 32
ZERO = b"\x00" * CHAIN
MAX_PAYLOAD = 1 << 30
_SALT = zlib.crc32(MAGIC)


def length_check(n: int) -> int:
    return zlib.crc32(struct.pack("<I", n), _SALT)


def frame_bytes(prev: bytes, payload: bytes) -> tuple[bytes, bytes]:
    """The bytes of one frame after chain value `prev`, and its own chain value."""
    n = len(payload)
    if n > MAX_PAYLOAD:
        raise ValueError(f"a frame holds at most {MAX_PAYLOAD} bytes of payload, not {n}")
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


def scan(fh: BinaryIO, *, decode_payload: bool = False):
    """Yield every whole frame of an open file from its start, checking the chain.

    Returns (as the generator's value) a `Tail`. Damage that is not a torn
    tail raises `LogCorrupt` naming the frame index and its byte offset.
    Memory stays flat: one frame is held at a time.
    """
    fh.seek(0)
    magic = fh.read(len(MAGIC))
    if len(magic) < len(MAGIC):
        if MAGIC.startswith(magic):
            return Tail(offset=0, size=len(magic), frames=0, head=ZERO)
        raise LogCorrupt(f"not a village log: the file starts with {magic!r}", frame=0, offset=0)
    if magic != MAGIC:
        raise LogCorrupt(f"not a village log (format {FORMAT}): the file starts with {magic!r}",
                         frame=0, offset=0)
    offset = len(MAGIC)
    prev = ZERO
    index = 0
    read = fh.read
    sha = hashlib.sha256
    unpack_head = HEAD.unpack
    while True:
        head = read(8)
        if not head:
            return Tail(offset=offset, size=0, frames=index, head=prev)
        if len(head) < 8:
            return Tail(offset=offset, size=len(head), frames=index, head=prev)
        n, check = unpack_head(head)
        if check != length_check(n) or n > MAX_PAYLOAD:
            if head.count(0) == 8 and _all_zero(fh):
                fh.seek(0, 2)
                return Tail(offset=offset, size=fh.tell() - offset, frames=index, head=prev)
            raise LogCorrupt(f"frame {index} at byte {offset}: its length field does not check "
                             f"(a damaged length, not a torn write)", frame=index, offset=offset)
        body = read(n + CHAIN)
        if len(body) < n + CHAIN:
            return Tail(offset=offset, size=8 + len(body), frames=index, head=prev)
        payload = body[:n]
        h = sha(prev)
        h.update(payload)
        chain = h.digest()
        if chain != body[n:]:
            raise LogCorrupt(f"frame {index} at byte {offset}: its chain value does not match its "
                             f"bytes (the log was changed after it was written)",
                             frame=index, offset=offset)
        yield Frame(index=index, offset=offset, payload=payload, chain=chain)
        prev = chain
        offset += 8 + n + CHAIN
        index += 1


def unpack_payload(frame: Frame):
    try:
        return msgpack.unpackb(frame.payload, raw=False, strict_map_key=True)
    except Exception as e:  # msgpack raises several types; all mean the same here
        raise LogCorrupt(f"frame {frame.index} at byte {frame.offset}: its payload is not msgpack "
                         f"({type(e).__name__})", frame=frame.index, offset=frame.offset) from None
