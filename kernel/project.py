"""A new project folder: what `village init` writes, from the shipped files.

A project is a folder holding `village.toml` (the marker commands find it
by), `configs/` with the shipped config files and templates, and
`fixtures/` with two small scenarios whose head hashes it already knows:
`village-day`, the world alone, and `day-of-three`, the same day with its
three villagers reflecting and having a night, with its recording in
`exemplars/`, so a new project's first replay, report and live run show
minds. Schemas are not copied: they are the kernel's contract, read from
the shipped files always. This module writes only into the new folder,
which is built whole, hidden beside its place, and renamed there, or
nothing is left of it.
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
    # Inside a folder no reader sees until it is renamed whole: a plain write, made durable.
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


_NOT_EMPTY = "village init writes a new project, and {path} is not an empty folder"
"""The refusal of a path that holds something already, a file or a folder with files in it."""

_WORDS = files.Words(
    "project", ConfigError, out_full=_NOT_EMPTY, out_new=_NOT_EMPTY,
    out_irregular="village init writes a new project, and {path} is {kind}, not an empty folder",
    unusable="cannot make the project folder {path}: {why}",
    unwritable="cannot write the project {path}: {why}; nothing of it was left")


def _sources(src: Path) -> list[tuple[Path, Path]]:
    """Every shipped file a new project gets, as (where it is, where it goes under the project)."""
    out = [(p, Path("configs") / p.name) for p in sorted((src / "configs").iterdir())
           if p.is_file() and p.suffix in (".json", ".tmpl")]
    # A folder of templates a shipped scenario renders (configs/smollm2), beside configs/'s own.
    out += [(p, Path("configs") / d.name / p.name) for d in sorted((src / "configs").iterdir())
            if d.is_dir() and d.name != "schema" for p in sorted(d.iterdir())
            if p.is_file() and p.suffix == ".tmpl"]
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
    """Write a new project into `folder`, which must not exist or must be empty.

    It is built whole or not at all (kernel.files.new_folder): a full disk or
    an interrupt leaves nothing of it, and a name the system cannot hold is
    refused before anything is made.
    """
    dest = Path(folder)
    sources = _sources(config.shipped())
    inside = max(len(os.fsencode(os.fspath(rel))) for _, rel in sources) + 1
    wrote = [rel for _, rel in sources] + [Path("village.toml"), Path("README.md")]
    with files.new_folder(dest, _WORDS, inside=inside) as into:
        for p, rel in sources:
            _write(into / rel, p.read_bytes())
        _write(into / "village.toml", TOML.encode())
        _write(into / "README.md", README.encode())
        for d in {into / q for rel in wrote for q in rel.parents}:
            files.fsync(d)
    return Made(dest, tuple(dest / rel for rel in wrote))


__all__ = ["SCENARIOS", "Made", "init"]
