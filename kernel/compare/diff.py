"""Two runs' logs compared tick by tick: where they part, and whom it concerns.

`diff(a, b)` streams both logs in step, one frame of each at a time, and
returns a `Diff`: the header keys that differ, the first tick whose frames
differ with both logs' events at it aligned row by row, and for every
villager the number of ticks at which the events concerning them differ.

Frames are compared by their payload bytes, so an equal tick is never
decoded. When the two headers are the same bytes their chain values agree
at frame 0, and an equal chain value at frame i then means every frame up
to i is the same: a frame is the same in both exactly when its bytes are.
So the common prefix is the files' common run of bytes (found block by
block), checked and hashed in one file alone, at the speed of the scan's
sha256; the other file is read on from the first frame they do not share.
Past the prefix, ticks are matched by tick number; a tick held by one log
only differs (that is how a log against its own prefix is seen: the first
tick after the shorter one ends). A header that differs is reported and
changes nothing else: the ticks are compared all the same.

Whom an event concerns is its kind's `concerns` (who acted or saw, and the
other party): a villager's tick differs when the events concerning them at
that tick are not the same, in the same order, in both logs.

Memory holds one frame of each log, the first differing tick's events and a
count per villager, whatever the logs' length. The logs are read and never
changed. Damage is refused as the log's own readers refuse it: a
`LogCorrupt` naming the file, the frame index and its byte offset.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, BinaryIO

from kernel import events as ev
from kernel import files
from kernel.errors import LogCorrupt, LogError, VillageError
from kernel.log.frame import CHAIN, FORMAT, HEAD, scan_raw
from kernel.log.log import tick_prefix

HEADER_KEYS = ("format", "config_digest", "seed")
_FOUNDED = ev.pack(ev.Founded.kind)     # the kind's text as msgpack: a cheap test before decoding


@dataclass(frozen=True, slots=True)
class HeaderChange:
    """One header key whose value differs; None where a log's header lacks the key."""

    key: str
    a: Any
    b: Any


@dataclass(frozen=True, slots=True)
class DiffRow:
    """One row of the first differing tick: an event of A beside an event of B.

    Both are set and equal for an event the two logs share there; one is
    None where a log has no event in that place.
    """

    a: ev.Event | None
    b: ev.Event | None

    @property
    def same(self) -> bool:
        return self.a is not None and self.a == self.b


@dataclass(frozen=True, slots=True)
class First:
    """The first tick whose frames differ, and both logs' events at it, aligned."""

    tick: int
    in_a: bool          # whether A holds a frame for this tick
    in_b: bool
    rows: tuple[DiffRow, ...]


@dataclass(frozen=True, slots=True)
class Side:
    """What one log holds, as far as the comparison read it."""

    path: str
    header: Mapping[str, Any]
    ticks: int                  # tick frames
    first_tick: int | None
    last_tick: int | None
    head: bytes                 # chain value of the last whole frame
    torn: int                   # bytes of a torn tail after the last whole frame, not compared

    @property
    def head_hex(self) -> str:
        return self.head.hex()


@dataclass(frozen=True, slots=True)
class Diff:
    a: Side
    b: Side
    headers: tuple[HeaderChange, ...]   # empty: the two headers are the same
    same_prefix: int                    # tick frames the two logs share before the first difference
    first: First | None                 # None: every tick frame is the same
    differing: int                      # ticks that differ, those held by one log only included
    only_a: int                         # of those, ticks only A holds
    only_b: int
    by_villager: tuple[tuple[int, int], ...]   # (villager, differing ticks), by villager id
    unattributed: int                   # differing ticks at which no villager's events differ
    names: Mapping[int, str]            # villager id -> name, from the founding events read

    @property
    def identical(self) -> bool:
        """Every tick frame is the same (the headers may still differ)."""
        return self.first is None

    @property
    def shorter(self) -> str | None:
        """"a" or "b": the log whose ticks end first while the other's go on; None if neither."""
        la, lb = self.a.last_tick, self.b.last_tick
        if la == lb:
            return None
        if la is None:
            return "a"
        if lb is None:
            return "b"
        return "a" if la < lb else "b"


# --- reading one log -------------------------------------------------------


@dataclass(slots=True)
class _RawFrame:
    index: int
    offset: int
    payload: bytes
    chain: bytes
    tick: int

    @property
    def end(self) -> int:
        return self.offset + HEAD.size + len(self.payload) + CHAIN


_WORDS = files.Words("log", LogError, denied="cannot open {path} to read it: permission denied",
                     failed="cannot open {path} to read it: {why}",
                     irregular="{path} is not a regular file, and a log is one")


def _open(path: str) -> BinaryIO:
    """The log file at `path`, open to read, or one LogError saying why not."""
    return open(files.open_regular(path, _WORDS), "rb")


class _LogReader:
    """One log read frame by frame: its header first, then its ticks in order."""

    def __init__(self, path: str | os.PathLike):
        self.path = os.fsdecode(path)
        self.fh = _open(self.path)
        self.gen = scan_raw(self.fh)
        self.ticks = 0
        self.first_tick: int | None = None
        self.last_tick: int | None = None
        self.head = b""
        self.torn = 0
        self.end = 0                # once done: where the last whole frame ends
        self.frames = 0             # once done: whole frames, the header included
        self.done = False
        try:
            h = self._raw()
            if h is None:
                raise LogError(f"{self.path} has no header frame: it is empty or was cut off "
                               f"while being created")
            self.header = self._header(h)
            self.header_chain = h[3]
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        self.fh.close()

    def _raw(self):
        if self.done:
            return None
        try:
            fr = next(self.gen)
        except StopIteration as stop:
            self.done = True
            tail = stop.value
            self.torn, self.end, self.frames = tail.size, tail.offset, tail.frames
            return None
        except LogCorrupt as e:
            raise LogCorrupt(f"{self.path}: {e}", frame=e.frame, offset=e.offset) from None
        except OSError as e:
            raise LogError(f"cannot read {self.path}: {e.strerror or e}") from None
        self.head = fr[3]
        return fr

    def resume(self, at: tuple[int, int, bytes], *, ticks: int, first_tick: int | None,
               last_tick: int | None) -> None:
        """Read on from byte offset, frame index and chain value `at`, as if every frame before
        it had been read here, holding `ticks` ticks from `first_tick` to `last_tick`."""
        self.gen.close()
        self.gen = scan_raw(self.fh, at)
        self.head = at[2]
        self.ticks, self.first_tick, self.last_tick = ticks, first_tick, last_tick

    def _corrupt(self, index: int, offset: int, what: str) -> LogCorrupt:
        return LogCorrupt(f"{self.path}: frame {index} at byte {offset}: {what}",
                          frame=index, offset=offset)

    def _header(self, fr) -> dict[str, Any]:
        index, offset, payload, _ = fr
        try:
            m = ev.unpack(payload)
        except Exception:
            raise self._corrupt(index, offset, "not a log header (its payload is not msgpack)") from None
        if (not isinstance(m, dict) or not all(isinstance(k, str) for k in m)
                or not set(HEADER_KEYS) <= set(m)):
            raise self._corrupt(index, offset, f"not a log header (a header holds "
                                               f"{', '.join(HEADER_KEYS)})")
        if type(m["format"]) is not int or m["format"] != FORMAT:
            raise self._corrupt(index, offset, f"log format {m['format']!r}, and this kernel "
                                               f"reads format {FORMAT}")
        if type(m["config_digest"]) is not str or type(m["seed"]) is not int:
            raise self._corrupt(index, offset, "not a log header (its config digest must be text "
                                               "and its seed an integer)")
        return m

    def next(self) -> _RawFrame | None:
        """The next tick frame, its tick read off the payload's first bytes; None at the end."""
        fr = self._raw()
        if fr is None:
            return None
        index, offset, payload, chain = fr
        tick, _ = tick_prefix(payload, index, offset)
        if self.last_tick is not None and tick <= self.last_tick:
            raise self._corrupt(index, offset, f"tick {tick} does not come after tick "
                                               f"{self.last_tick}")
        if self.first_tick is None:
            self.first_tick = tick
        self.last_tick = tick
        self.ticks += 1
        return _RawFrame(index, offset, payload, chain, tick)

    def events(self, f: _RawFrame) -> tuple[ev.Event, ...]:
        try:
            m = ev.unpack(f.payload)
        except Exception:
            raise self._corrupt(f.index, f.offset, "its payload is not msgpack") from None
        if not isinstance(m, list) or len(m) != 2 or not isinstance(m[1], list):
            raise self._corrupt(f.index, f.offset, "not a tick frame")
        try:
            return tuple(ev.from_map(x) for x in m[1])
        except VillageError as e:
            raise self._corrupt(f.index, f.offset, f"tick {f.tick}: {e}") from None
        except Exception as e:
            raise self._corrupt(f.index, f.offset, f"tick {f.tick}: {type(e).__name__}") from None

    def side(self) -> Side:
        return Side(path=self.path, header=dict(self.header), ticks=self.ticks,
                    first_tick=self.first_tick, last_tick=self.last_tick, head=self.head,
                    torn=self.torn)


# --- comparing ---------------------------------------------------------------

SHARED_BLOCK = 1 << 20


def _shared_bytes(a: _LogReader, b: _LogReader) -> int:
    """How many bytes the two files share from their start: read block by block, in place."""
    fa, fb = a.fh.fileno(), b.fh.fileno()
    at = 0
    try:
        while True:
            x, y = os.pread(fa, SHARED_BLOCK, at), os.pread(fb, SHARED_BLOCK, at)
            if x == y and len(x) == SHARED_BLOCK:
                at += SHARED_BLOCK
                continue
            lo, hi = 0, min(len(x), len(y))
            while lo < hi:                  # x[:lo] == y[:lo]; find the first byte that differs
                mid = (lo + hi + 1) // 2
                if x[lo:mid] == y[lo:mid]:
                    lo = mid
                else:
                    hi = mid - 1
            return at + lo
    except OSError as e:
        raise LogError(f"cannot read {a.path} or {b.path}: {e.strerror or e}") from None


def header_changes(a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[HeaderChange, ...]:
    """The header keys whose values differ: the three every header holds first, then the rest by name."""
    rest = sorted((set(a) | set(b)) - set(HEADER_KEYS))
    return tuple(HeaderChange(k, a.get(k), b.get(k)) for k in (*HEADER_KEYS, *rest)
                 if a.get(k) != b.get(k) or (k in a) != (k in b))


def concerned(e: ev.Event) -> Iterator[int]:
    """The villagers an event concerns: who acted or saw, and the other party, if any."""
    for field in type(e).concerns:
        if field is not None:
            v = getattr(e, field)
            if isinstance(v, int):
                yield v


def _by_villager(events: tuple[ev.Event, ...]) -> dict[int, list[ev.Event]]:
    out: dict[int, list[ev.Event]] = {}
    for e in events:
        for v in dict.fromkeys(concerned(e)):
            out.setdefault(v, []).append(e)
    return out


def differing_villagers(a: tuple[ev.Event, ...], b: tuple[ev.Event, ...]) -> set[int]:
    """The villagers whose events at a tick are not the same, in the same order, in both."""
    pa, pb = _by_villager(a), _by_villager(b)
    return {v for v in pa.keys() | pb.keys() if pa.get(v) != pb.get(v)}


def align(a: tuple[ev.Event, ...], b: tuple[ev.Event, ...]) -> tuple[DiffRow, ...]:
    """Two ticks' events as rows: shared events once, the others beside each other in order."""
    rows: list[DiffRow] = []
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            rows.extend(DiffRow(e, e) for e in a[i1:i2])
            continue
        xs, ys = a[i1:i2], b[j1:j2]
        for k in range(max(len(xs), len(ys))):
            rows.append(DiffRow(xs[k] if k < len(xs) else None, ys[k] if k < len(ys) else None))
    return tuple(rows)


class _Tally:
    def __init__(self):
        self.differing = self.only_a = self.only_b = self.unattributed = 0
        self.counts: dict[int, int] = {}
        self.first: First | None = None
        self.names: dict[int, str] = {}

    def learn_names(self, log: _LogReader, f: _RawFrame, events: tuple[ev.Event, ...] | None = None) -> None:
        if events is None:
            if _FOUNDED not in f.payload:
                return
            events = log.events(f)
        for e in events:
            if isinstance(e, ev.Founded):
                self.names.setdefault(e.villager, e.name)

    def differs(self, tick: int, ea, eb) -> None:
        """A differing tick; `ea` or `eb` is None where that log holds no frame for it."""
        self.differing += 1
        if ea is None:
            self.only_b += 1
        if eb is None:
            self.only_a += 1
        if self.first is None:
            self.first = First(tick=tick, in_a=ea is not None, in_b=eb is not None,
                               rows=align(ea or (), eb or ()))
        who = differing_villagers(ea or (), eb or ())
        if not who:
            self.unattributed += 1
        for v in who:
            self.counts[v] = self.counts.get(v, 0) + 1


def diff(a: str | os.PathLike, b: str | os.PathLike) -> Diff:
    """Compare two logs tick by tick, streaming both in step; see the module's account."""
    la = _LogReader(a)
    try:
        lb = _LogReader(b)
    except BaseException:
        la.close()
        raise
    try:
        return _compare(la, lb)
    finally:
        la.close()
        lb.close()


def _compare(la: _LogReader, lb: _LogReader) -> Diff:
    t = _Tally()
    same = 0
    if la.header_chain == lb.header_chain:
        # The same header bytes. A frame is then the same in both exactly when its bytes are
        # (its chain value says so for every frame before it), so the frames the two files
        # share byte for byte are checked, hashed, in A alone, and decoded in neither; B is
        # read on from the first frame the files do not share.
        shared = _shared_bytes(la, lb)
        prev, first, last = la.header_chain, None, None
        fa = la.next()
        while fa is not None and fa.end <= shared:
            same += 1
            t.learn_names(la, fa)
            prev, last = fa.chain, fa.tick
            first = fa.tick if first is None else first
            fa = la.next()
        at = (fa.offset, fa.index, prev) if fa is not None else (la.end, la.frames, prev)
        lb.resume(at, ticks=same, first_tick=first, last_tick=last)
        fb = lb.next()
    else:
        fa, fb = la.next(), lb.next()
    prefix = True
    while fa is not None or fb is not None:
        if fa is not None and fb is not None and fa.tick == fb.tick:
            if fa.payload == fb.payload:
                if prefix:
                    same += 1
                t.learn_names(la, fa)
            else:
                prefix = False
                ea, eb = la.events(fa), lb.events(fb)
                t.learn_names(la, fa, ea)
                t.learn_names(lb, fb, eb)
                t.differs(fa.tick, ea, eb)
            fa, fb = la.next(), lb.next()
        elif fb is None or (fa is not None and fa.tick < fb.tick):
            prefix = False
            ea = la.events(fa)
            t.learn_names(la, fa, ea)
            t.differs(fa.tick, ea, None)
            fa = la.next()
        else:
            prefix = False
            eb = lb.events(fb)
            t.learn_names(lb, fb, eb)
            t.differs(fb.tick, None, eb)
            fb = lb.next()
    return Diff(a=la.side(), b=lb.side(), headers=header_changes(la.header, lb.header),
                same_prefix=same, first=t.first, differing=t.differing, only_a=t.only_a,
                only_b=t.only_b, by_villager=tuple(sorted(t.counts.items())),
                unattributed=t.unattributed, names=dict(sorted(t.names.items())))
