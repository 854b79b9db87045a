"""Config files: load `configs/*.json`, validate each against its JSON Schema
(2020-12) in `configs/schema/`, and hand back frozen values with a digest.

This module owns reading and checking config files and nothing else: it
does not know what a world or a model is, only that `NAME.json` is checked
against `schema/NAME.json`, each schema read once a process. Schema errors
are reported together, each with its JSON path, in one line (the first ten
and a count of the rest), so a user fixes a file in one pass. Files are read as strict JSON: a key given
twice, NaN or Infinity, a number past its digit bound, nesting past a depth
bound, bytes that are not UTF-8 and a path that is not a regular file are
each refused with one line, before any recursive walk can fail.
"""

from __future__ import annotations

import copy
import errno
import functools
import hashlib
import json
import math
import os
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernel import files, jsonstrict
from kernel.errors import ConfigError

# -- where a project's files are ----------------------------------------------
#
# A project home is a folder holding a `village.toml` or a `configs/world.json`.
# It is found from the working folder upward, unless `--home` (set_home) or
# $VILLAGE_HOME names one. A config a project does not have comes from the
# shipped files: package data in `kernel/shipped/` in a wheel, or the
# checkout's own `configs/` when the kernel runs from its source tree.

MARKERS = ("village.toml", "configs/world.json")
_chosen: Path | None = None


def set_home(path: str | os.PathLike | None) -> None:
    """Use `path` as the project home for the rest of this process (the CLI's `--home`)."""
    global _chosen
    if path is None:
        _chosen = None
        return
    p = Path(path)
    if not p.is_dir():
        raise ConfigError(f"--home names a project folder, and {p} is not a folder")
    _chosen = p.resolve()


def is_home(folder: Path) -> bool:
    # An entry of a marker's name makes a home, even a broken one: a home whose
    # configs/world.json is a FIFO is refused for it, not passed over for the folder above.
    return any(os.path.lexists(folder / m) for m in MARKERS)


def find_home(start: str | os.PathLike) -> Path | None:
    """The nearest project home at `start` or above it, or None."""
    p = Path(start).resolve()
    for q in (p, *p.parents):
        if is_home(q):
            return q
    return None


def project_home() -> Path | None:
    """The project home in use: --home, else $VILLAGE_HOME, else found from the working folder."""
    if _chosen is not None:
        return _chosen
    env = os.environ.get("VILLAGE_HOME")
    if env:
        p = Path(env)
        if not p.is_dir():
            raise ConfigError(f"VILLAGE_HOME names a project folder, and {p} is not a folder")
        return p.resolve()
    return find_home(Path.cwd())


def shipped() -> Path:
    """The folder holding the shipped `configs/` (and the small scenario `village init` copies)."""
    pkg = Path(__file__).resolve().parent
    data = pkg / "shipped"
    if (data / "configs" / "world.json").is_file():
        return data
    return pkg.parent


def home() -> Path:
    """The project home in use, or the shipped files' folder when there is none."""
    return project_home() or shipped()


def home_line() -> str:
    """One line saying which home a command uses, for verbose and settings output."""
    p = project_home()
    if p is None:
        return f"home: none found from {Path.cwd()}; shipped configs from {shipped()}"
    how = ("--home" if _chosen is not None else
           "VILLAGE_HOME" if os.environ.get("VILLAGE_HOME") else "found from the working folder")
    return f"home: {p} ({how})"


def config_file(fname: str) -> Path:
    """`configs/FNAME` of the project home, or the shipped one when the project has none.

    The shipped file stands in only where the home has no entry of that name
    at all. An entry the home has is the home's file, and one that cannot be
    read as a regular file (a folder, a FIFO, a device, a symbolic link loop
    or a link to nothing, a file it may not read) is refused in one line
    naming it, never passed over for the shipped one.
    """
    p = project_home()
    if p is not None:
        own = p / "configs" / fname
        if _has_entry(own, p):
            _check_own(own, fname)
            return own
    return shipped() / "configs" / fname


def _own_words(fname: str) -> files.Words:
    rule = (f"a home's configs/{fname} is read in place of the shipped one, so it must be a "
            f"regular file it can read (the shipped one is used only where the home has none)")
    return files.Words(
        "config file", ConfigError,
        missing="{path} is a symbolic link to nothing (a dangling link); " + rule,
        folder="{path} is a folder, not a file; " + rule,
        irregular="{path} is {kind}, not a regular file; " + rule,
        denied="{path} cannot be read: permission denied; " + rule,
        failed="{path} cannot be opened: {why}; " + rule,
        unread="{path} cannot be read: {why}; " + rule,
        unusable="{path} cannot be looked at: {why}; " + rule)


def _has_entry(own: Path, home_: Path) -> bool:
    """Whether the home has an entry at `own` (a file, a folder, a link, even a broken one).

    Each folder on the way from the home down must be a folder; a missing one
    means the home has no such entry, and one that is anything else is refused.
    """
    words = _own_words(own.relative_to(home_ / "configs").as_posix())
    files.a_path(own, words)
    for q in (*reversed(own.relative_to(home_).parents[:-1]), own.relative_to(home_)):
        at = home_ / q
        try:
            st = os.lstat(at)
        except FileNotFoundError:
            return False
        except OSError as e:
            raise words.refuse("unusable", at, why=e.strerror or e) from None
        if at != own:
            _a_folder(at, st, words)
    return True


def _a_folder(at: Path, st: os.stat_result, words: files.Words) -> None:
    """Refuse a step on the way to a home's config that is not a folder (or a link to one)."""
    if stat.S_ISLNK(st.st_mode):
        _link_target(at, words)
        st = os.stat(at)
    if not stat.S_ISDIR(st.st_mode):
        kind = "a file" if stat.S_ISREG(st.st_mode) else files.kind_of(st.st_mode)
        raise words.refuse("unusable", at, why=f"it is {kind}, not a folder")


def _link_target(link: Path, words: files.Words) -> None:
    """Refuse a symbolic link that points nowhere, or into a loop, naming it."""
    try:
        os.stat(link)
    except FileNotFoundError:
        raise words.refuse("missing", link) from None
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise words.refuse("failed", link, why="it is a symbolic link loop") from None
        raise words.refuse("unusable", link, why=e.strerror or e) from None


def _check_own(own: Path, fname: str) -> None:
    """Refuse, in one line naming it, a home's config that is not a regular file it can read."""
    # Looked at, not opened: the file is opened once, by the reader that reads it (which refuses
    # a FIFO, a device or a folder put there since, in its own words).
    words = _own_words(fname)
    if os.path.islink(own):
        _link_target(own, words)
    try:
        mode = os.stat(own).st_mode
    except OSError as e:
        raise words.refuse("unusable", own, why=e.strerror or e) from None
    if stat.S_ISDIR(mode):
        raise words.refuse("folder", own)
    if not stat.S_ISREG(mode):
        raise words.refuse("irregular", own, kind=files.kind_of(mode))
    if not os.access(own, os.R_OK):
        raise words.refuse("denied", own)


def configs_dir() -> Path:
    """The project home's `configs/` folder (the shipped one when there is no project)."""
    return home() / "configs"


class Frozen(Mapping):
    """An immutable, hashable JSON object: read by key or by attribute."""

    __slots__ = ("_d", "_h")

    def __init__(self, d: Mapping[str, Any]):
        object.__setattr__(self, "_d", dict(d))
        object.__setattr__(self, "_h", None)

    def __getitem__(self, k: str) -> Any:
        return self._d[k]

    def __getattr__(self, k: str) -> Any:
        try:
            return self._d[k]
        except KeyError:
            raise AttributeError(k) from None

    def __setattr__(self, k: str, v: Any) -> None:
        raise AttributeError("a config value is frozen")

    def __iter__(self) -> Iterator[str]:
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)

    def __hash__(self) -> int:
        if self._h is None:
            object.__setattr__(self, "_h", hash(canonical(thaw(self))))
        return self._h

    def __repr__(self) -> str:
        return f"Frozen({self._d!r})"


def freeze(v: Any) -> Any:
    if isinstance(v, Mapping):
        return Frozen({k: freeze(x) for k, x in v.items()})
    if isinstance(v, list | tuple):
        return tuple(freeze(x) for x in v)
    return v


def thaw(v: Any) -> Any:
    if isinstance(v, Mapping):
        return {k: thaw(x) for k, x in v.items()}
    if isinstance(v, tuple | list):
        return [thaw(x) for x in v]
    return v


def canonical(v: Any) -> bytes:
    """Canonical bytes of a JSON value: sorted keys, no spaces, UTF-8."""
    return json.dumps(thaw(v), sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def digest(v: Any) -> str:
    """sha256 (hex) of a value's canonical bytes: what a log header records."""
    return hashlib.sha256(canonical(v)).hexdigest()


@dataclass(frozen=True)
class Config:
    """One loaded config file: its name, where it was read, its frozen value and digest."""

    name: str
    path: Path
    value: Frozen
    digest: str

    def __getitem__(self, k: str) -> Any:
        return self.value[k]

    def __getattr__(self, k: str) -> Any:
        if k.startswith("__"):
            raise AttributeError(k)
        return getattr(self.value, k)


@functools.lru_cache(maxsize=64)
def _schema(path: Path, mtime_ns: int, size: int) -> tuple[dict, jsonstrict.Strict]:
    # Keyed by the file's resolved path, its mtime and its size: a schema is package data, read
    # once a process (the checker made from it with it), and a home's edited one is read again.
    schema = json.loads(path.read_text(encoding="utf-8"))
    return schema, jsonstrict.Strict(schema)


def _schema_of(name: str) -> tuple[dict, jsonstrict.Strict]:
    p = config_file(f"schema/{name}.json")
    try:
        st = p.stat()
    except FileNotFoundError:
        raise ConfigError(f"no schema for config {name!r}: expected configs/schema/{name}.json") from None
    return _schema(p.resolve(), st.st_mtime_ns, st.st_size)


def schema_for(name: str) -> dict:
    """The schema configs/schema/NAME.json, as a fresh value the caller may change."""
    return copy.deepcopy(_schema_of(name)[0])


def validate(name: str, value: Any, *, source: str | None = None) -> None:
    """Check `value` against schema `name`; raise one ConfigError naming the errors and their paths.

    An integer is a whole number written without a point: Draft 2020-12
    lets 2000.0 pass as an integer, but the same world must be the same
    bytes, so here it does not. At most the first `SHOWN` errors are named,
    with the count of the rest, so the line stays one a person can read.
    """
    where = source or name
    _shape(value, where)
    v = _schema_of(name)[1]
    errs = sorted(v.iter_errors(value), key=lambda e: (_order(e.absolute_path), e.message))
    if errs:
        shown = "; ".join(f"at {jsonstrict.where(e.absolute_path)}: {_short(e.message)}" for e in errs[:SHOWN])
        more = f"; and {len(errs) - SHOWN} more" if len(errs) > SHOWN else ""
        raise ConfigError(f"{where} does not match configs/schema/{name}.json "
                          f"({len(errs)} error{'s' if len(errs) > 1 else ''}): {shown}{more}")


def _order(path) -> list[tuple[int, int, str]]:
    # Array indexes in numeric order, so villagers[2] comes before villagers[10].
    return [(0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in path]


def load(name_or_path: str | os.PathLike, *, schema: str | None = None) -> Config:
    """Load a config by name (`world` -> configs/world.json) or by path.

    The schema is the file's stem unless `schema` names another, so a
    scenario's `fixtures/day1/world.json` is checked against the same
    `configs/schema/world.json` as the shipped one.
    """
    s = str(name_or_path)
    if os.sep in s or s.endswith(".json"):
        path = Path(s)
    else:
        path = config_file(f"{s}.json")
    name = schema or path.stem
    value = read_json(path)
    validate(name, value, source=str(path))
    return Config(name=name, path=path, value=freeze(value), digest=digest(value))


# -- strict JSON ---------------------------------------------------------------
#
# Every config and recording is read by one strict reader. JSON as Python
# reads it by default lets a key appear twice (the last wins, silently),
# reads NaN and Infinity, recurses once per bracket (a file nested 100,000
# deep is a RecursionError) and turns a 5,000-digit literal into a
# ValueError from int(). Here each of those is a refusal that names the
# rule and the value, and a path that is not a regular file (a folder, a
# FIFO that would block a read forever, a device) is refused before a
# byte is read. The rules are kernel.jsonstrict's, the same reader a
# model's answer goes through in kernel.seam.shaped; the words are ours.

MAX_DEPTH = 64
"""The deepest a config or a recording may nest objects and arrays (the shipped ones use 5)."""

MAX_DIGITS = 40
"""The most digits an integer literal may have; every schema bound is far below it."""

MAX_BYTES = 256 << 20
"""The largest file read as JSON: far above any config or recording, far below memory."""

SHOWN = 10
"""How many schema errors a refusal names before it counts the rest."""

_DETAIL = 120


def _short(v: Any) -> str:
    s = " ".join(str(v).split())
    return s if len(s) <= _DETAIL else s[:_DETAIL] + "..."


def _says(why: jsonstrict.Why, source: str) -> str:
    """The line a config's reader says for a refusal of the strict reader."""
    match why:
        case jsonstrict.TooDeep(depth=d, bound=bound):
            return f"{source} nests objects and arrays {d} deep; at most {bound} are read"
        case jsonstrict.Empty():
            return f"{source} is empty: a JSON value was expected"
        case jsonstrict.Syntax(msg=msg, line=line, col=col):
            return f"{source} is not JSON: {msg} at line {line} column {col}"
        case jsonstrict.After(line=line, col=col):
            return f"{source} is not JSON: more after the value at line {line} column {col}"
        case jsonstrict.Unreadable(detail=detail):
            return f"{source} cannot be read as JSON: {_short(detail)}"
    return f"{source} is not strict JSON: {_rule(why)}"


def _rule(why: jsonstrict.Why) -> str:
    match why:
        case jsonstrict.Twice(key=k):
            return f"the key {_short(k)!r} appears twice in one object; a key is given once"
        case jsonstrict.NotANumber(name=name):
            return f"{name} is not a number JSON has; every number must be finite"
        case jsonstrict.Infinite(literal=s):
            return f"the number {_short(s)} is too large to be a finite number"
        case jsonstrict.TooManyDigits(literal=s, digits=digits, bound=bound):
            return f"an integer of {digits} digits ({s[:12]}...); at most {bound} are read"
        case jsonstrict.LoneSurrogate(path=path, escape=esc):
            return (f"the string at {_short(jsonstrict.where(path))} holds a lone surrogate {esc}; "
                    f"every string must be encodable as UTF-8")
    raise AssertionError(f"no words for {why!r}")


def loads(text: str | bytes, *, source: str = "the text", error: type[Exception] = ConfigError,
          max_depth: int = MAX_DEPTH) -> Any:
    """One JSON value from `text`, strictly: see the section's comment for what is refused."""
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            raise error(f"{source} is not UTF-8: byte 0x{text[e.start]:02x} at offset {e.start} "
                        f"does not decode") from None
    try:
        return jsonstrict.decode(text, max_depth=max_depth, max_digits=MAX_DIGITS)
    except jsonstrict.Unstrict as e:
        raise error(_says(e.why, source)) from None


def read_bytes(path: str | os.PathLike, *, what: str = "config file",
               error: type[Exception] = ConfigError, max_bytes: int = MAX_BYTES) -> bytes:
    """The bytes of a regular file, refusing a folder, a FIFO or a device without blocking on it."""
    return files.read_regular(Path(path), files.Words(what, error), max_bytes=max_bytes)


def read_json(path: str | os.PathLike, *, what: str = "config file",
              error: type[Exception] = ConfigError, max_bytes: int = MAX_BYTES) -> Any:
    """One strict JSON value from the regular file at `path` (see `read_bytes` and `loads`)."""
    return loads(read_bytes(path, what=what, error=error, max_bytes=max_bytes),
                 source=str(path), error=error)


def _shape(value: Any, source: str) -> None:
    """Refuse a value no JSON file could hold (non-finite numbers, strings UTF-8 cannot encode,
    nesting past MAX_DEPTH), walking it without recursion so that the schema's own recursive
    walk is safe."""
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, float) and not math.isfinite(v):
            raise ConfigError(f"{source} holds the number {v!r}; every number must be finite")
        if isinstance(v, Mapping | list | tuple):
            if d > MAX_DEPTH:
                raise ConfigError(f"{source} nests objects and arrays more than {MAX_DEPTH} deep")
            items = v.values() if isinstance(v, Mapping) else v
            stack.extend((x, d + 1) for x in items)
    # Strings last, by the one rule the reader of a file keeps, so the refusal names the path.
    lone = jsonstrict.lone_surrogate(value)
    if lone is not None:
        raise ConfigError(f"{source} is not strict JSON: {_rule(lone)}")

