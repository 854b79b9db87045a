"""A fork saved as a scenario of the home: fixtures/NAME beside its parent, whole or not at all.

`village fork --save-as NAME` comes here twice: before anything is written (`saveable`: could
the fork be saved as a scenario that replays?), and after its run (`save_as`: the folder, its
configs, its scenario.json with the head hash). This module owns what a saved fork's folder
holds; kernel.engine.fork runs the fork, and the command line parses and prints.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from kernel import config, files
from kernel.engine import scenario as msc
from kernel.engine.fork import world_file
from kernel.errors import VillageError


def saveable(name: str, p, run: str, record: bool, exemplars: str | None) -> Path | None:
    """Refuse, before anything is written, a fork `--save-as NAME` could not save as a scenario
    that replays; the recording the saved scenario names when it is not the one --record makes.

    A saved fork replays its parent's recording to T and its own from T: so its parent is a
    scenario of the home, and a fork whose villagers reflect after T names a recording that
    starts at T (--record's, or --exemplars'). The parent's recording read on past T is no
    such file, and naming it would make `village replay` of the home fail.
    """
    folder = config.home() / "fixtures" / name
    files.check_name(folder, files.Words("scenario"), inside=len("/importance.json"))
    if record:
        files.check_name(config.home() / "exemplars" / f"{name}.json", files.Words("recording"))
    if folder.exists():
        raise VillageError(f"{folder} already exists: a fork is saved as a new scenario")
    if p.parent.folder is None:
        raise VillageError(f"--save-as {name}: {run} is a run of the home's own configs, which "
                           f"is no scenario, and a saved fork replays from its parent scenario: "
                           f"fork a scenario's log, or leave out --save-as")
    if record or p.child.world_only:
        return None
    if exemplars is None:
        raise VillageError(f"--save-as {name} without --record: the fork's calls from tick "
                           f"{p.at} on are read off the parent's recording past {p.at}, which a "
                           f"scenario cannot name; record them (--record with a live --oracle), "
                           f"or give the fork's own recording with --exemplars")
    rec = Path(exemplars).resolve()
    if not rec.is_relative_to(config.home().resolve()):
        raise VillageError(f"--save-as {name}: the recording {exemplars} is outside the home "
                           f"{config.home()}, and a scenario names its recording inside it")
    return rec


def save_as(name: str, p, report, recording: Path | None, label: dict | None,
             thought: str | None, world: str | None) -> Path:
    """Write the fork as a scenario of the home: fixtures/NAME, beside its parent, whole or not
    at all (built in a hidden folder beside it and renamed there once every file is durable)."""
    target = config.home() / "fixtures" / name
    with files.new_folder(target, files.Words("saved fork")) as folder:
        _fill(folder, name, p, report, recording, label, thought, world)
    return target


def _fill(folder: Path, name: str, p, report, recording: Path | None, label: dict | None,
          thought: str | None, world: str | None) -> None:
    def copy(src, dest: Path) -> None:
        shutil.copyfile(src, dest)
        files.fsync(dest)

    copy(world if world is not None else world_file(p.parent), folder / "world.json")
    v = {"name": name,
         "description": (f"{p.parent.name} forked at tick {p.at}: its first {p.at} ticks are "
                         f"{p.parent.name}'s, frame for frame; from tick {p.at} on it runs under "
                         f"{'the thought config beside this file' if thought else 'the same configs'}"
                         f"{' and the world config beside this file' if world else ''}."),
         "ticks": p.ticks, "head_sha256": report.head_hex, "parent": p.parent.name,
         "fork_at": p.at}
    v["days"] = max(1, p.parent.world.calendar.days_in(p.ticks))
    named = dict(p.parent.files)
    # The parent's own files (those beside its scenario.json) go beside the fork's too.
    own = {k for k, f in named.items() if p.parent.folder is not None
           and f.resolve().parent == p.parent.folder.resolve() and k != "world"}
    if thought is not None:
        copy(thought, folder / "thought.json")
        v["thought"] = "thought.json"
        own.discard("thought")
    for key in sorted(own & {"thought", "models", "importance"}):
        copy(named[key], folder / f"{key}.json")
        v[key] = f"{key}.json"
    for key in ("thought", "models", "importance"):   # a config of the home the parent names
        if key not in v and key not in own and p.parent.names(key) is not None:
            v[key] = p.parent.names(key)
    if p.parent.template_folder is not None:   # the templates the parent's runs render
        v["templates"] = p.parent.template_folder
    if len(p.parent.reflecting) != len(p.parent.world.people):
        v["reflecting"] = list(p.parent.reflecting)
    if recording is not None:
        v["exemplars"] = str(recording.resolve().relative_to(config.home().resolve()))
    if label is not None:
        v["recorded_with"] = label
    msc.write(folder, v)
