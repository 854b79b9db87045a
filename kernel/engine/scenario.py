"""A scenario, resolved once: its world, rules, thought settings and models as typed, frozen values.

A scenario is a folder holding `scenario.json` (checked against
configs/schema/scenario.json) and a `world.json`. Its own `thought`,
`models` and `importance` files, where it names them, resolve relative to
the scenario's folder; the rest come from the project home, and from the
shipped configs where the home has none. The recording it replays from
resolves relative to the project home that holds the scenario. Everything
is read and checked here, once, before a run creates its log: the typed
values a run, an index or a report needs (the world, the importance table
and its valences, the thought settings and the night's, the prompt
templates) are on the `Scenario`, so nothing reads a config file or a
template after `load`, and nothing outside this module reads the file's
raw value. A world run is a scenario too: one whose reflect phase has
nobody due. This module also finds which scenario of the home ran a log
(`by_digest`) and writes a scenario.json, atomically. It runs nothing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernel import config, files
from kernel.errors import ConfigError, VillageError
from kernel.laws import felt as lf
from kernel.laws.importance import Importance
from kernel.mind import settings as msettings
from kernel.seam import TemplateFile, template_file
from kernel.world import config as wconfig


@dataclass(frozen=True)
class Table:
    """A scenario's importance table as read: its rules, its file's digest, and its valence
    table (None: no felt memory)."""

    rules: Importance
    digest: str
    valences: lf.Valences | None


@dataclass(frozen=True)
class Recording:
    """What a scenario's committed run is: the head hash of its log (None: none committed),
    the exemplars it replays from (None: no recording), and what recorded them."""

    head_sha256: str | None
    exemplars: Path | None
    recorded_with: config.Frozen


@dataclass(frozen=True)
class Forked:
    """A fork's scenario: the scenario whose first `at` ticks it shares (`parent`)."""

    parent: str
    at: int


@dataclass(frozen=True)
class Read:
    """What was read to resolve a scenario: every file its run reads, by what it is (`files`);
    scenario.json's raw value; every config read, loaded and checked, by what it is (what a
    fork's parent, a fork's settings or a backend read from here instead of from the file)."""

    files: tuple[tuple[str, Path], ...]
    raw: dict = field(repr=False, compare=False, default_factory=dict)
    configs: tuple[tuple[str, config.Config], ...] = field(repr=False, compare=False, default=())


@dataclass(frozen=True)
class Scenario:
    name: str
    folder: Path | None
    description: str
    ticks: int
    world: wconfig.WorldConfig
    table: Table                             # the importance table
    settings: msettings.Settings | None      # None: nobody reflects, so no thought settings are read
    models: config.Config | None
    recording: Recording
    reflecting: tuple[str, ...]
    read: Read
    forked: Forked | None = None             # a fork: its parent and the tick it forks at

    @property
    def rules(self) -> Importance:
        return self.table.rules

    @property
    def rules_digest(self) -> str:
        return self.table.digest

    @property
    def valences(self) -> lf.Valences | None:
        """The importance table's valence table; None: no felt memory."""
        return self.table.valences

    @property
    def night(self) -> msettings.NightSettings | None:
        """The thought file's night block; None: no nights."""
        return None if self.settings is None else self.settings.night

    @property
    def head_sha256(self) -> str | None:
        return self.recording.head_sha256

    @property
    def exemplars(self) -> Path | None:
        return self.recording.exemplars

    @property
    def recorded_with(self) -> config.Frozen:
        return self.recording.recorded_with

    @property
    def parent(self) -> str | None:
        return None if self.forked is None else self.forked.parent

    @property
    def fork_at(self) -> int | None:
        return None if self.forked is None else self.forked.at

    @property
    def files(self) -> tuple[tuple[str, Path], ...]:
        return self.read.files

    @property
    def raw(self) -> dict:
        return self.read.raw

    @property
    def configs(self) -> tuple[tuple[str, config.Config], ...]:
        return self.read.configs

    @property
    def templates(self) -> tuple[TemplateFile, ...]:
        """The prompt templates its runs render, as read when it was resolved (none for a
        scenario where nobody reflects)."""
        return () if self.settings is None else self.settings.templates

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
    def template_folder(self) -> str | None:
        """The folder of configs/ its templates are read from (scenario.json's `templates`);
        None: configs/'s own."""
        got = self.raw.get("templates")
        return got if isinstance(got, str) else None

    def names(self, key: str) -> str | None:
        """The file scenario.json names for `key` (thought, models, importance), as written:
        one beside it, or a config of the home by name; None where it names none."""
        got = self.raw.get(key)
        return got if isinstance(got, str) else None

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


class _Reader:
    """Loads each config once by its resolved path (and schema), and the prompt templates once:
    a fork's parent is resolved with the configs the fork already read (the home's importance,
    models and embedder) and the templates it read."""

    def __init__(self, known: Iterable[config.Config | TemplateFile] = ()):
        known = list(known)
        self._got = {(c.path.resolve(), c.name): c for c in known
                     if isinstance(c, config.Config)}
        self._templates = {c.path.resolve(): c for c in known if isinstance(c, TemplateFile)}

    def __call__(self, path: Path, schema: str) -> config.Config:
        key = (Path(path).resolve(), schema)
        if key not in self._got:
            self._got[key] = config.load(path, schema=schema)
        return self._got[key]

    def templates(self, folder: str | None = None) -> tuple[TemplateFile, ...]:
        """The templates a run renders (msettings.TEMPLATES), from configs/FOLDER where a
        scenario names one, those known not read again."""
        out = []
        for name in msettings.TEMPLATES:
            p = config.config_file(name if folder is None else f"{folder}/{name}").resolve()
            if p not in self._templates:
                self._templates[p] = template_file(name, folder)
            out.append(self._templates[p])
        return tuple(out)


def load(name_or_path: str | os.PathLike, *,
         known: Iterable[config.Config | TemplateFile] = ()) -> Scenario:
    """Read, check and resolve a scenario; every file it names is loaded here, once (a config
    or a template among `known`, already read, is not read again)."""
    read = _Reader(known)
    folder = find(name_or_path)
    sc = read(folder / "scenario.json", "scenario")
    v = config.thaw(sc.value)
    home = config.find_home(folder) or config.home()

    def own(key: str, default: str) -> Path:
        """The file the scenario names for `key`: in its folder, else a config of the home (or
        shipped) by that name (`"models": "models-smollm2.json"`); by default configs/DEFAULT."""
        if key in v:
            p = folder / v[key]
            if p.is_file():
                return p
            if os.path.lexists(p):   # one beside it is its own, never passed over for configs/'s
                raise ConfigError(f"scenario {v['name']} names its own {key} file {v[key]!r}, and "
                                  f"{p} is not a regular file it can read")
            named = Path(v[key])
            if named.name == v[key] and named.suffix == ".json":
                q = config.config_file(v[key])
                if q.is_file():
                    return q
            raise ConfigError(f"scenario {v['name']} names its own {key} file {v[key]!r}, "
                              f"and neither {p} nor configs/{named.name} is a file")
        return config.config_file(f"{default}.json")

    wpath = folder / "world.json"
    wc = read(wpath, "world")
    world = wconfig.from_value(wc.value, digest=wc.digest, source=str(wc.path))
    names = [p.name for p in world.people]
    reflecting = tuple(v.get("reflecting", names))
    unknown = sorted(set(reflecting) - set(names))
    if unknown:
        raise ConfigError(f"scenario {v['name']} names reflecting villagers its world does not "
                          f"have: {', '.join(unknown)}")
    ipath = own("importance", "importance")
    imp = read(ipath, "importance")
    configs = [("scenario", sc), ("world", wc), ("importance", imp)]
    settings = None
    if reflecting:
        paths = {"thought": own("thought", "thought"), "models": own("models", "models"),
                 "embedder": config.config_file("embedder.json")}
        got = {k: read(p, k) for k, p in paths.items()}
        settings = msettings.of(**got, importance=imp, templates=read.templates(v.get("templates"))
                                ).worded(world.in_words)
        configs += got.items()
    ex = v.get("exemplars")
    return weighed(Scenario(
        name=v["name"], folder=folder, description=v["description"], ticks=v["ticks"],
        world=world, table=table_of(imp), settings=settings, models=dict(configs).get("models"),
        recording=Recording(v["head_sha256"], (home / ex) if ex else None,
                            config.freeze(v.get("recorded_with", {}))),
        reflecting=reflecting,
        read=Read(tuple((k, c.path) for k, c in configs if k != "scenario"), v, tuple(configs)),
        forked=Forked(v["parent"], v["fork_at"]) if "parent" in v else None,
    ))


def weighed(sc: Scenario) -> Scenario:
    """`sc`, once its importance table is known to weigh every row its run can give (`weighs`):
    the loader asks it of a scenario, and a fork of the scenario it runs under a changed thought
    or world config, so a table that cannot weigh a row is refused before tick 0."""
    imp = dict(sc.configs)["importance"]
    weighs(sc.name, str(imp.path), config.thaw(imp.value), sc.world,
           talks=sc.settings is not None and sc.settings.talk is not None)
    return sc


def weighs(name: str, path: str, table: Mapping[str, Any], world: wconfig.WorldConfig, *,
           talks: bool) -> None:
    """The importance table `table` (read from `path`) weighs, and where it has a valence table
    feels, every row the scenario's run can give: words where its thought file has a talk block
    (`talks`), and each kind of row its villagers are given. Found here, before tick 0, not when the first such row is born.
    The role a row takes is `laws.felt.role`'s: words said are the actor's, words heard (about
    their speaker) and given rows (about others, by the world's rule) a witness's."""
    needs: list[tuple[str, str, str, str]] = []
    if talks:
        needs += [("did", "talk", "actor", "a talk block"), ("heard", "talk", "witness", "a talk block")]
    for p in world.people:
        for g in p.given:
            needs.append(("given", g.event, "witness", f"{p.name}'s given {g.event}"))
    base = table.get("base", {})
    valence = table.get("valence")
    for kind, event, role, why in needs:
        if event not in base.get(kind, {}):
            raise ConfigError(f"scenario {name} has {why}, and its importance table {path} "
                              f"has no base weight for a {kind} {event} row "
                              f"(base.{kind}.{event})")
        if valence is not None and role not in valence.get(kind, {}).get(event, {}):
            raise ConfigError(f"scenario {name} has {why}, and its importance table {path} "
                              f"has no valence for a {kind} {event} row's {role} "
                              f"(valence.{kind}.{event}.{role})")


def table_of(importance: config.Config) -> Table:
    """The importance table of a loaded importance config."""
    return Table(Importance.from_value(importance.value), importance.digest, valences(importance))


def valences(importance: config.Config) -> lf.Valences | None:
    """The valence table of a loaded importance config, or None where it has none."""
    v = config.thaw(importance.value).get("valence")
    return None if v is None else lf.Valences.from_value(v)


def load_rules(name_or_path: str | os.PathLike = "importance") -> Importance:
    """The importance table (and run lengths) from configs/importance.json, checked."""
    return Importance.from_value(config.load(name_or_path, schema="importance").value)


def rules_digest(name_or_path: str | os.PathLike = "importance") -> str:
    return config.load(name_or_path, schema="importance").digest


def of_world(world: str | os.PathLike | wconfig.WorldConfig = "world", *, ticks: int | None = None,
             importance: str | os.PathLike = "importance") -> Scenario:
    """A world run as a scenario: the world config, its rules, and nobody reflecting."""
    configs = []
    if not isinstance(world, wconfig.WorldConfig):
        wc = config.load(world, schema="world")
        world = wconfig.from_value(wc.value, digest=wc.digest, source=str(wc.path))
        configs.append(("world", wc))
    imp = config.load(importance, schema="importance")
    n = world.ticks_per_day if ticks is None else ticks
    return Scenario(
        name="world", folder=None, description="a world run", ticks=n, world=world,
        table=table_of(imp), settings=None, models=None,
        recording=Recording(None, None, config.freeze({})), reflecting=(),
        read=Read((("importance", imp.path),), configs=(*configs, ("importance", imp))),
    )


def write_digest(sc: Scenario, head_hex: str, recorded_with: dict | None = None) -> None:
    """Record the head hash (and what recorded it) in the scenario file, atomically."""
    if sc.folder is None:
        raise ConfigError("a world run has no scenario file to write a head hash to")
    v = dict(sc.raw)
    v["head_sha256"] = head_hex
    if recorded_with is not None:
        v["recorded_with"] = recorded_with
    write(sc.folder, v)


def write(folder: Path, value: dict) -> Path:
    """Write `value`, checked against the scenario schema, as folder/scenario.json, atomically:
    a reader sees the old file or the new one, never half of one. The path written."""
    p = folder / "scenario.json"
    config.validate("scenario", value, source=str(p))
    files.write_atomic(p, (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    return p


# --- which scenario ran a log -------------------------------------------------------------


def is_fork(sc: Scenario) -> bool:
    return sc.parent is not None


def by_digest(digest: str, *, forks: bool = False) -> Scenario | None:
    """The home's scenario whose runs carry `digest` in their header, or the home's world run.

    A forked scenario is one only with `forks`, and after every scenario that is not a fork.
    """
    found = []
    for name in committed():
        try:
            sc = load(name)
        except VillageError:
            continue
        if sc.header_digest == digest and (forks or not is_fork(sc)):
            found.append(sc)
    found.sort(key=is_fork)
    if found:
        return found[0]
    try:
        w = of_world("world")
    except VillageError:
        return None
    return w if w.header_digest == digest else None
