"""Config files: load `configs/*.json`, validate each against its JSON Schema
(2020-12) in `configs/schema/`, and hand back frozen values with a digest.

This module owns reading and checking config files and nothing else: it
does not know what a world or a model is, only that `NAME.json` is checked
against `schema/NAME.json`. Every schema error is reported at once, each
with its JSON path, in one line, so a user fixes a file in one pass.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema

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
    return any((folder / m).is_file() for m in MARKERS)


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
    """`configs/FNAME` of the project home, or the shipped one when the project has none."""
    p = project_home()
    if p is not None and (p / "configs" / fname).is_file():
        return p / "configs" / fname
    return shipped() / "configs" / fname


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


def _where(path) -> str:
    out = "$"
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def schema_for(name: str) -> dict:
    # Schemas are the kernel's contract, not a project's: always the shipped ones.
    p = shipped() / "configs" / "schema" / f"{name}.json"
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"no schema for config {name!r}: expected configs/schema/{name}.json") from None


def validate(name: str, value: Any, *, source: str | None = None) -> None:
    """Check `value` against schema `name`; raise one ConfigError naming every error and its path."""
    schema = schema_for(name)
    v = jsonschema.Draft202012Validator(schema)
    errs = sorted(v.iter_errors(value), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    if errs:
        what = "; ".join(f"at {_where(e.absolute_path)}: {e.message}" for e in errs)
        raise ConfigError(f"{source or name} does not match configs/schema/{name}.json "
                          f"({len(errs)} error{'s' if len(errs) > 1 else ''}): {what}")


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
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"no config file at {path}") from None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as e:
        raise ConfigError(f"{path} is not JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    validate(name, value, source=str(path))
    return Config(name=name, path=path, value=freeze(value), digest=digest(value))
