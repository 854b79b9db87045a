"""A new project folder: what `village init` writes, from the shipped files.

A project is a folder holding `village.toml` (the marker commands find it
by), `configs/` with the shipped config files and templates, and
`fixtures/` with one small world-only scenario whose head hash it already
knows. Schemas are not copied: they are the kernel's contract, read from
the shipped files always. This module writes only into the new folder, and
each file through a temporary name and a rename.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from kernel import config, files
from kernel.errors import ConfigError

SCENARIO = "village-day"
"""The scenario a new project starts with: the shipped world's first day, world only."""

README = """# A village project

Made by `village init`. Commands run in this folder (or below it) use the
files here: `configs/` for the world, the importance table, the thought
settings, the models and the two prompt templates; `fixtures/` for the
scenarios `village replay` checks. Try `village replay`, then
`village world run --out day.log` and `village sql day.log "SELECT villager,
count(*) FROM memory GROUP BY 1"`.
"""

TOML = """# A village kernel project: commands find their home by this file.
[project]
kernel = 1
"""


@dataclass(frozen=True)
class Made:
    folder: Path
    files: tuple[Path, ...]


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    files.write_atomic(path, data)


def init(folder: str | os.PathLike) -> Made:
    """Write a new project into `folder`, which must not exist or must be empty."""
    dest = Path(folder)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise ConfigError(f"village init writes a new project, and {dest} is not an empty folder")
    src = config.shipped()
    world = src / "fixtures" / SCENARIO
    if not (world / "scenario.json").is_file():
        raise ConfigError(f"the shipped files hold no {SCENARIO} scenario at {world}")
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ConfigError(f"cannot make the project folder {dest}: {e.strerror}") from None
    files: list[Path] = []
    for p in sorted((src / "configs").iterdir()):
        if p.is_file() and p.suffix in (".json", ".tmpl"):
            files.append(dest / "configs" / p.name)
            _write(files[-1], p.read_bytes())
    for p in sorted(world.iterdir()):
        if p.is_file() and p.suffix == ".json":
            files.append(dest / "fixtures" / SCENARIO / p.name)
            _write(files[-1], p.read_bytes())
    files.append(dest / "village.toml")
    _write(files[-1], TOML.encode())
    files.append(dest / "README.md")
    _write(files[-1], README.encode())
    return Made(dest, tuple(files))


__all__ = ["Made", "init"]
