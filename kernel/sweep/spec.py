"""A sweep's spec, read and checked, and each of its runs resolved into the files it reads.

This module owns turning a spec (configs/schema/sweep.json: scenarios x
world seeds x overrides) into `RunPlan`s: one a run, each carrying every file
the run reads as bytes (a small project home of its own: the seeded
world, the thought, models and importance files with the override merged
in, the sentence embedder's config and the templates). A run is then the
same on any machine that has the kernel installed, with no shared folder.
A scenario that cannot be resolved, or an override that does not fit its
file, is a plan with the one line saying why, so the sweep goes on and
records it. The sweep folder is checked here too, before anything runs: a
spec's `out` stays inside the home (after `..` and links), names a folder
or one that can be made, and holds no NUL; a sweep none of whose runs can
start is refused. This module runs nothing and writes nothing.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernel import config
from kernel.engine import scenario as msc
from kernel.errors import ConfigError, VillageError
from kernel.world import config as wconfig

NO_HEAD = "0" * 64
"""The head hash a planned run's scenario.json carries until it has run (the schema asks for one)."""

SCENARIO_DIR = "fixtures/run"


@dataclass(frozen=True)
class Spec:
    name: str
    description: str
    scenarios: tuple[str, ...]
    seeds: tuple[int, ...]
    ticks: int | None
    overrides: tuple[Mapping[str, Any], ...]
    out: Path
    digest: str
    source: Path
    value: dict = field(repr=False, compare=False, default_factory=dict)


@dataclass(frozen=True)
class RunPlan:
    """One run of a sweep: who, which seed, which override, and every file it reads (or why not)."""

    id: str
    scenario: str
    seed: int
    override: str
    overrides_digest: str
    ticks: int
    files: tuple[tuple[str, bytes], ...] = ()   # path in the run's own home -> bytes
    error: str | None = None                    # the one line that stops this run before it starts

    @property
    def key(self) -> dict[str, Any]:
        return {"run": self.id, "scenario": self.scenario, "seed": self.seed,
                "override": self.override, "overrides_digest": self.overrides_digest}


def load(path: str | os.PathLike, *, out: str | os.PathLike | None = None) -> Spec:
    """Read and check a sweep spec; `out` replaces the sweep folder it names."""
    p = Path(path)
    c = config.load(p, schema="sweep")
    v = config.thaw(c.value)
    names = [o["name"] for o in v.get("overrides", ())]
    again = sorted({n for n in names if names.count(n) > 1})
    if again:
        raise ConfigError(f"{p}: override names must differ, and {', '.join(again)} is given twice")
    home = config.home()
    if out is not None:
        where = _folder_ok(str(out), "--out")
    else:
        where = _inside(home, v.get("out", f"runs/sweeps/{v['name']}"), p)
    return Spec(name=v["name"], description=v.get("description", ""),
                scenarios=tuple(v["scenarios"]), seeds=tuple(v["seeds"]), ticks=v.get("ticks"),
                overrides=tuple(v.get("overrides", ({"name": "as-is"},))), out=where,
                digest=c.digest, source=p, value=v)


def _folder_ok(raw: str, what: str, shown: str | None = None) -> Path:
    """`raw` as the sweep folder: no NUL, a folder or not there yet, under a folder it can be made in."""
    if "\0" in raw:
        raise ConfigError(f"{what}: a sweep folder's path holds no NUL byte, and {raw!r} does")
    where, shown = Path(raw), raw if shown is None else shown
    if where.exists() and not where.is_dir():
        raise ConfigError(f"{what}: a sweep's out is a folder, and {shown!r} names an existing file")
    up = _nearest(where)
    if not up.is_dir():
        raise ConfigError(f"{what}: a sweep's out must be a folder that can be made, and {shown!r} "
                          f"cannot be (its nearest existing part {up} is not a folder)")
    return where


def _nearest(where: Path) -> Path:
    up = where.absolute()
    while not up.exists() and up != up.parent:
        up = up.parent
    return up


def creatable(spec: Spec) -> None:
    """Refuse a sweep folder this user cannot make or write in, before anything runs."""
    up = _nearest(spec.out)
    if not os.access(up, os.W_OK | os.X_OK):
        raise ConfigError(f"a sweep's out must be a folder that can be made, and {str(spec.out)!r} "
                          f"cannot be ({up} is not a folder this user may write in)")


def _inside(home: Path, raw: str, source: Path) -> Path:
    """A spec's `out`, inside the home once `..` and links are resolved, and a folder it can make."""
    what = f"{source}: out"
    if "\0" in raw:
        raise ConfigError(f"{what}: a sweep folder's path holds no NUL byte, and {raw!r} does")
    where = home / raw
    real, root = Path(os.path.realpath(where)), Path(os.path.realpath(home))
    if real != root and root not in real.parents:
        raise ConfigError(f"{what}: a sweep's out stays inside the home {root}, and {raw!r} "
                          f"resolves to {real}")
    return _folder_ok(str(where), what, raw)


def runnable(plans: list[RunPlan]) -> None:
    """Refuse a sweep with nothing to run: every one of its runs stopped before it starts."""
    if plans and any(p.error is None for p in plans):
        return
    why = f"; the first: {plans[0].error}" if plans else ""
    raise ConfigError(f"the sweep has nothing to run: none of its {len(plans)} runs can start{why}")


def merge(base: Any, patch: Any) -> Any:
    """`patch` merged into `base`: an object into an object key by key; any other value replaces."""
    if isinstance(base, dict) and isinstance(patch, dict):
        out = dict(base)
        for k, v in patch.items():
            out[k] = merge(base.get(k), v) if k in base else v
        return out
    return patch


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", s).strip("-") or "scenario"


def _json(v: Any) -> bytes:
    return (json.dumps(v, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


def _find(name: str, spec: Spec) -> Path:
    # A folder beside the spec first, then a name in the home's fixtures/.
    near = spec.source.parent / name
    return msc.find(near if (near / "scenario.json").is_file() else name)


def plans(spec: Spec) -> list[RunPlan]:
    """Every run of the sweep, in a fixed order: scenario, then seed, then override."""
    out: list[RunPlan] = []
    for name in spec.scenarios:
        try:
            base = _resolve(name, spec)
            err = None
        except VillageError as e:
            base, err = None, " ".join(str(e).split())
        for seed in spec.seeds:
            for o in spec.overrides:
                patch = {k: v for k, v in o.items() if k != "name"}
                od = config.digest(patch)
                rid = f"{_slug(name)}.s{seed}.{o['name']}"
                ticks = spec.ticks if spec.ticks is not None else (base["ticks"] if base else 0)
                if base is None:
                    out.append(RunPlan(rid, name, seed, o["name"], od, ticks, error=err))
                    continue
                try:
                    files = _files(base, seed, patch, ticks) + _interview(spec, base)
                    error = None
                except VillageError as e:
                    files, error = (), " ".join(str(e).split())
                out.append(RunPlan(rid, name, seed, o["name"], od, ticks, files=files, error=error))
    return out


INTERVIEW = "interview.json"
"""Where a run's home says which of its battery's variants to ask (`{"variants": [...]}`),
beside the battery (configs/interview.json) and the interview template."""


def _interview(spec: Spec, base: dict[str, Any]) -> tuple[tuple[str, bytes], ...]:
    """The files a run that is interviewed after it runs reads: the battery, its template, and
    the variants to ask; none where the spec has no interview block or nobody reflects."""
    block = spec.value.get("interview")
    if block is None:
        return ()
    if "thought" not in base:
        raise ConfigError(f"scenario {base['raw']['name']} is a world run (nobody reflects), and "
                          f"the spec interviews it: an interview reads thought settings")
    from kernel.interview import battery as ib
    from kernel.seam import template_file
    from kernel.seam.interview import INTERVIEW as TEMPLATE

    near = spec.source.parent / block["battery"]
    path = near if near.is_file() else config.home() / block["battery"]
    b = ib.load(path)
    variants = block.get("variants", ["full"])
    for v in variants:
        if v != "full":
            b.variant(v)
    return (("configs/interview.json", path.read_bytes()),
            (f"configs/{TEMPLATE}", template_file(TEMPLATE).bytes),
            (INTERVIEW, _json({"variants": variants})))


def _resolve(name: str, spec: Spec) -> dict[str, Any]:
    """The values a scenario's runs start from: the files the scenario read and checked when
    it was loaded (its configs and templates), none read again."""
    sc = msc.load(_find(name, spec))
    got = {k: config.thaw(c.value) for k, c in sc.configs}
    value = {"raw": got["scenario"], "ticks": sc.ticks, "world": got["world"],
             "importance": got["importance"]}
    if not sc.world_only:
        value["thought"] = got["thought"]
        value["models"] = got["models"]
        # the sentence embedder's config: a run's home carries it
        value["embedder"] = got["embedder"]
        value["templates"] = {tf.name: tf.bytes for tf in sc.templates}
    return value


def _files(base: dict[str, Any], seed: int, patch: Mapping[str, Any], ticks: int
           ) -> tuple[tuple[str, bytes], ...]:
    world = merge(base["world"], patch.get("world", {}))
    world["seed"] = seed
    importance = merge(base["importance"], patch.get("importance", {}))
    raw = {k: v for k, v in base["raw"].items()
           if k not in ("exemplars", "recorded_with", "thought", "models", "importance")}
    raw.update(ticks=ticks, head_sha256=NO_HEAD, importance="importance.json")
    files: dict[str, bytes] = {"configs/world.json": _json(world),
                               f"{SCENARIO_DIR}/world.json": _json(world),
                               f"{SCENARIO_DIR}/importance.json": _json(importance)}
    config.validate("world", world, source="the run's world.json (the override merged in)")
    config.validate("importance", importance, source="the run's importance.json (the override merged in)")
    if "thought" in base:
        thought = merge(base["thought"], patch.get("thought", {}))
        config.validate("thought", thought, source="the run's thought.json (the override merged in)")
        # what the run's loader refuses before tick 0 is refused here, as its plan is made
        msc.weighs(raw["name"], "the run's importance.json (the override merged in)", importance,
                   wconfig.from_value(config.freeze(world), digest=config.digest(world),
                                      source="the run's world.json (the override merged in)"),
                   talks="talk" in thought)
        raw.update(thought="thought.json", models="models.json")
        files[f"{SCENARIO_DIR}/thought.json"] = _json(thought)
        files[f"{SCENARIO_DIR}/models.json"] = _json(base["models"])
        if "embedder" in base:
            files["configs/embedder.json"] = _json(base["embedder"])
        for n, b in base["templates"].items():
            files[f"configs/{n}"] = b
    elif "thought" in patch:
        raise ConfigError(f"scenario {raw['name']} is a world run (nobody reflects), and the "
                          f"override changes thought.json, which it never reads")
    config.validate("scenario", raw, source="the run's scenario.json")
    files[f"{SCENARIO_DIR}/scenario.json"] = _json(raw)
    return tuple(sorted(files.items()))
