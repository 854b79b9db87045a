"""A new project folder: what `village init` writes, from the shipped files.

A project is a folder holding `village.toml` (the marker commands find it
by), `configs/` with the shipped config files and templates, and
`fixtures/` with two small scenarios whose head hashes it already knows:
`village-day`, the world alone, and `day-of-three`, the same day with its
three villagers reflecting and having a night, with its recording in
`exemplars/`, so a new project's first replay, report and live run show
minds. Schemas are not copied: they are the kernel's contract, read from
the shipped files always. This module writes only into the new folder, and
each file through a temporary name and a rename.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from kernel import config, files
from kernel.errors import ConfigError

SCENARIOS = ("village-day", "day-of-three")
"""The scenarios a new project starts with: the shipped world's first day, world only, and
the same day with minds in it (reflections, a night) and the recording it replays from."""

README = """# A village project

Made by `village init`. Commands run in this folder (or below it) use the
files here: `configs/` for the world, the importance table, the thought
settings, the models and the prompt templates; `fixtures/` for the
scenarios `village replay` checks (`village-day`, the world alone, and
`day-of-three`, whose villagers reflect and have a night); `exemplars/` for
the recording `day-of-three` replays from. Try `village replay`, then
`village report day-of-three --out day.html`, `village world run --out day.log`
and `village sql day.log "SELECT villager, count(*) FROM memory GROUP BY 1"`.
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


def _sources(src: Path) -> list[tuple[Path, Path]]:
    """Every shipped file a new project gets, as (where it is, where it goes under the project)."""
    out = [(p, Path("configs") / p.name) for p in sorted((src / "configs").iterdir())
           if p.is_file() and p.suffix in (".json", ".tmpl")]
    for name in SCENARIOS:
        folder = src / "fixtures" / name
        if not (folder / "scenario.json").is_file():
            raise ConfigError(f"the shipped files hold no {name} scenario at {folder}")
        out += [(p, Path("fixtures") / name / p.name) for p in sorted(folder.iterdir())
                if p.is_file() and p.suffix == ".json"]
        rec = config.load(folder / "scenario.json", schema="scenario").value.get("exemplars")
        if rec is not None:
            if not (src / rec).is_file():
                raise ConfigError(f"the shipped scenario {name} replays from {rec}, and the "
                                  f"shipped files do not hold it at {src / rec}")
            out.append((src / rec, Path(rec)))
    return out


def init(folder: str | os.PathLike) -> Made:
    """Write a new project into `folder`, which must not exist or must be empty."""
    dest = Path(folder)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise ConfigError(f"village init writes a new project, and {dest} is not an empty folder")
    sources = _sources(config.shipped())
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ConfigError(f"cannot make the project folder {dest}: {e.strerror}") from None
    files: list[Path] = []
    for p, rel in sources:
        files.append(dest / rel)
        _write(files[-1], p.read_bytes())
    files.append(dest / "village.toml")
    _write(files[-1], TOML.encode())
    files.append(dest / "README.md")
    _write(files[-1], README.encode())
    return Made(dest, tuple(files))


__all__ = ["SCENARIOS", "Made", "init"]
