"""A scenario, resolved once: its world, rules, thought settings and models as typed, frozen values.

A scenario is a folder holding `scenario.json` (checked against
configs/schema/scenario.json) and a `world.json`. Its own `thought`,
`models` and `importance` files, where it names them, resolve relative to
the scenario's folder; the rest come from the project home, and from the
shipped configs where the home has none. The recording it replays from
resolves relative to the project home that holds the scenario. Everything
is read and checked here, before a run creates its log, and nothing outside
this module reads the file's raw value. A world run is a scenario too: one
whose reflect phase has nobody due. This module runs nothing.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from kernel import config, oracle  # noqa: F401  (the backend registry feeds the models schema)
from kernel.errors import ConfigError
from kernel.laws.importance import Importance
from kernel.mind import settings as msettings
from kernel.world import config as wconfig


@dataclass(frozen=True)
class Scenario:
    name: str
    folder: Path | None
    description: str
    ticks: int
    head_sha256: str | None
    world: wconfig.WorldConfig
    rules: Importance
    rules_digest: str
    settings: msettings.Settings | None      # None: nobody reflects, so no thought settings are read
    models: config.Config | None
    exemplars: Path | None
    recorded_with: config.Frozen
    reflecting: tuple[str, ...]
    files: tuple[tuple[str, Path], ...]      # every file the run reads, by what it is
    parent: str | None = None                # a fork: the scenario whose first fork_at ticks it shares
    fork_at: int | None = None
    raw: dict = field(repr=False, compare=False, default_factory=dict)

    @property
    def world_only(self) -> bool:
        """Nobody reflects: the run is the world's alone, and its header is a world run's."""
        return not self.reflecting

    @property
    def digest(self) -> str:
        """The config digest of a run with reflection: the world's, and every digest of
        `Settings.digests` (the thought, importance, models and embedder files, and
        both templates), by name."""
        if self.settings is None:
            return self.world.digest
        return config.digest({"world": self.world.digest, **dict(self.settings.digests)})

    @property
    def header_digest(self) -> str:
        """What the log header records: the world config's digest for a world run, else `digest`."""
        return self.world.digest if self.world_only else self.digest

    @property
    def recorded(self) -> bool:
        return self.exemplars is not None

    def with_settings(self, settings: msettings.Settings) -> Scenario:
        from dataclasses import replace
        return replace(self, settings=settings)


def fixtures_dir() -> Path:
    return config.home() / "fixtures"


def _names() -> str:
    d = fixtures_dir()
    if not d.is_dir():
        return f"none: {d} does not exist"
    return ", ".join(sorted(x.name for x in d.iterdir() if (x / "scenario.json").is_file())) or "none"


def find(name_or_path: str | os.PathLike) -> Path:
    """A scenario folder: a path to one, or the name of one in the home's fixtures/."""
    p = Path(name_or_path)
    if (p / "scenario.json").is_file():
        return p
    q = fixtures_dir() / str(name_or_path)
    if (q / "scenario.json").is_file():
        return q
    if p.is_dir():
        raise ConfigError(f"{p} holds no scenario.json, so it is not a scenario")
    raise ConfigError(f"no scenario {str(name_or_path)!r} in {fixtures_dir()}: the ones there are "
                      f"{_names()}")


def committed() -> list[str]:
    """Every scenario of the home, by name: those with a recording and the world-only ones."""
    d = fixtures_dir()
    if not d.is_dir():
        return []
    return sorted(x.name for x in d.iterdir() if (x / "scenario.json").is_file())


def load(name_or_path: str | os.PathLike) -> Scenario:
    """Read, check and resolve a scenario; every file it names is loaded here."""
    folder = find(name_or_path)
    sc = config.load(folder / "scenario.json", schema="scenario")
    v = config.thaw(sc.value)
    home = config.find_home(folder) or config.home()

    def own(key: str, default: str) -> Path:
        if key in v:
            p = folder / v[key]
            if not p.is_file():
                raise ConfigError(f"scenario {v['name']} names its own {key} file {v[key]!r}, "
                                  f"and {p} is not a file")
            return p
        return config.config_file(f"{default}.json")

    wpath = folder / "world.json"
    world = wconfig.load(wpath)
    names = [p.name for p in world.people]
    reflecting = tuple(v.get("reflecting", names))
    unknown = sorted(set(reflecting) - set(names))
    if unknown:
        raise ConfigError(f"scenario {v['name']} names reflecting villagers its world does not "
                          f"have: {', '.join(unknown)}")
    ipath = own("importance", "importance")
    imp = config.load(ipath, schema="importance")
    files = [("world", wpath), ("importance", ipath)]
    settings = models = None
    if reflecting:
        tpath, mpath = own("thought", "thought"), own("models", "models")
        epath = config.config_file("embedder.json")
        settings = msettings.load(thought=tpath, models=mpath, importance=ipath, embedder=epath)
        models = config.load(mpath, schema="models")
        files += [("thought", tpath), ("models", mpath), ("embedder", epath)]
    ex = v.get("exemplars")
    return Scenario(
        name=v["name"], folder=folder, description=v["description"], ticks=v["ticks"],
        head_sha256=v["head_sha256"], world=world, rules=Importance.from_value(imp.value),
        rules_digest=imp.digest, settings=settings, models=models,
        exemplars=(home / ex) if ex else None,
        recorded_with=config.freeze(v.get("recorded_with", {})), reflecting=reflecting,
        files=tuple(files), parent=v.get("parent"), fork_at=v.get("fork_at"), raw=v,
    )


def load_rules(name_or_path: str | os.PathLike = "importance") -> Importance:
    """The importance table (and run lengths) from configs/importance.json, checked."""
    return Importance.from_value(config.load(name_or_path, schema="importance").value)


def rules_digest(name_or_path: str | os.PathLike = "importance") -> str:
    return config.load(name_or_path, schema="importance").digest


def of_world(world: str | os.PathLike | wconfig.WorldConfig = "world", *, ticks: int | None = None,
             importance: str | os.PathLike = "importance") -> Scenario:
    """A world run as a scenario: the world config, its rules, and nobody reflecting."""
    if not isinstance(world, wconfig.WorldConfig):
        world = wconfig.load(world)
    imp = config.load(importance, schema="importance")
    n = world.ticks_per_day if ticks is None else ticks
    return Scenario(
        name="world", folder=None, description="a world run", ticks=n, head_sha256=None,
        world=world, rules=Importance.from_value(imp.value), rules_digest=imp.digest,
        settings=None, models=None, exemplars=None, recorded_with=config.freeze({}),
        reflecting=(), files=(("importance", imp.path),),
    )


def write_digest(sc: Scenario, head_hex: str, recorded_with: dict | None = None) -> None:
    """Record the head hash (and what recorded it) in the scenario file, atomically."""
    if sc.folder is None:
        raise ConfigError("a world run has no scenario file to write a head hash to")
    v = dict(sc.raw)
    v["head_sha256"] = head_hex
    if recorded_with is not None:
        v["recorded_with"] = recorded_with
    config.validate("scenario", v, source=str(sc.folder / "scenario.json"))
    from kernel import files

    files.write_atomic(sc.folder / "scenario.json",
                       (json.dumps(v, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
