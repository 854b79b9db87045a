"""A committed scenario: a folder in fixtures/ holding a world, its settings and its digest.

`fixtures/NAME/scenario.json` (checked against configs/schema/scenario.json)
names the ticks to run, the head hash the run's log must have, and where
the rest is: `world.json` beside it; `thought`, `models` and `importance`
files if the scenario has its own (else the shipped ones in configs/); and
the exemplar file its model calls were recorded in. This module owns
reading that folder and writing the digest back after a recording; it runs
nothing.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from kernel import config, world
from kernel.errors import ConfigError
from kernel.mind import settings as msettings


@dataclass(frozen=True)
class Scenario:
    name: str
    folder: Path
    description: str
    ticks: int
    head_sha256: str
    world: world.WorldConfig
    settings: msettings.Settings
    exemplars: Path | None
    recorded_with: dict
    raw: dict

    @property
    def digest(self) -> str:
        """The run's config digest, as the log header records it: every file the run reads."""
        return config.digest({"world": self.world.digest, **dict(self.settings.digests)})


def fixtures_dir() -> Path:
    return config.home() / "fixtures"


def find(name_or_path: str | os.PathLike) -> Path:
    p = Path(name_or_path)
    if p.is_dir():
        return p
    q = fixtures_dir() / str(name_or_path)
    if q.is_dir():
        return q
    names = ", ".join(sorted(x.name for x in fixtures_dir().iterdir() if (x / "scenario.json").exists()))
    raise ConfigError(f"no scenario {str(name_or_path)!r}: the committed ones are {names}")


def committed() -> list[str]:
    return sorted(x.name for x in fixtures_dir().iterdir()
                  if (x / "scenario.json").exists() and "exemplars" in
                  json.loads((x / "scenario.json").read_text(encoding="utf-8")))


def load(name_or_path: str | os.PathLike) -> Scenario:
    folder = find(name_or_path)
    sc = config.load(folder / "scenario.json", schema="scenario")
    v = config.thaw(sc.value)

    def own(key: str, default: str) -> str:
        return str(folder / v[key]) if key in v else default

    st = msettings.load(thought=own("thought", "thought"), models=own("models", "models"),
                        importance=own("importance", "importance"))
    ex = v.get("exemplars")
    return Scenario(
        name=v["name"], folder=folder, description=v["description"], ticks=v["ticks"],
        head_sha256=v["head_sha256"], world=world.load(folder / "world.json"), settings=st,
        exemplars=(config.home() / ex) if ex else None, recorded_with=v.get("recorded_with", {}),
        raw=v,
    )


def write_digest(sc: Scenario, head_hex: str, recorded_with: dict | None = None) -> None:
    """Record the head hash (and what recorded it) in the scenario file, atomically."""
    v = dict(sc.raw)
    v["head_sha256"] = head_hex
    if recorded_with is not None:
        v["recorded_with"] = recorded_with
    config.validate("scenario", v, source=str(sc.folder / "scenario.json"))
    p = sc.folder / "scenario.json"
    tmp = p.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(v, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, p)
