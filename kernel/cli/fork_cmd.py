"""`village fork RUN.log --at T ... --out NEW.log`: a run that shares RUN's first T ticks.

Thin: kernel.engine.fork resolves the parent's configs, rebuilds the state
at T and runs the fork; this parses, makes the oracles and prints.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import click
from tqdm import tqdm

from kernel import config, files
from kernel.cli import CONTEXT
from kernel.errors import VillageError
from kernel.log import check_new
from kernel.oracle import backends, entry, make


def _bar(total: int):
    return tqdm(total=total, desc="fork", unit="tick", file=sys.stderr, leave=False,
                disable=not sys.stderr.isatty())


def _saveable(name: str, p, run: str, record: bool, exemplars: str | None) -> Path | None:
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


def _save_as(name: str, p, report, recording: Path | None, label: dict | None,
             thought: str | None, world: str | None) -> Path:
    """Write the fork as a scenario of the home: fixtures/NAME, beside its parent, whole or not
    at all (built in a hidden folder beside it and renamed there once every file is durable)."""
    target = config.home() / "fixtures" / name
    with files.new_folder(target, files.Words("saved fork")) as folder:
        _fill(folder, name, p, report, recording, label, thought, world)
    return target


def _fill(folder: Path, name: str, p, report, recording: Path | None, label: dict | None,
          thought: str | None, world: str | None) -> None:
    from kernel.engine import scenario as msc
    from kernel.engine.fork import _world_file

    def copy(src, dest: Path) -> None:
        shutil.copyfile(src, dest)
        files.fsync(dest)

    copy(world if world is not None else _world_file(p.parent), folder / "world.json")
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


@click.command("fork", context_settings=CONTEXT)
@click.argument("run", type=click.Path(dir_okay=False))
@click.option("--at", "at", type=int, required=True,
              help="The first tick run under the fork's settings; ticks before it are RUN's.")
@click.option("--thought", type=click.Path(dir_okay=False), default=None,
              help="The fork's thought config (e.g. another depth cap or retrieval weights).")
@click.option("--world", type=click.Path(dir_okay=False), default=None,
              help="The fork's world config; it may change only policy and food.")
@click.option("--scenario", default=None,
              help="RUN's scenario, when its configs are not found by the digest in its header.")
@click.option("--oracle", "backend", type=click.Choice(backends()), default="replay",
              show_default=True, help="Who answers the fork's calls from T on.")
@click.option("--exemplars", type=click.Path(dir_okay=False), default=None,
              help="With --oracle replay: the recording the fork's calls from T on replay from "
                   "[default: the parent's recording goes on].")
@click.option("--parent-exemplars", type=click.Path(dir_okay=False), default=None,
              help="The parent's recording, for its rounds before T [default: its scenario's, "
                   "when RUN is that scenario's recorded run].")
@click.option("--ticks", type=click.IntRange(min=1), default=None,
              help="Run the fork to this many ticks [default: as many as RUN holds].")
@click.option("--record", is_flag=True,
              help="Record the fork's calls from T on (live backends only): into "
                   "exemplars/NAME.json with --save-as, else beside the new log.")
@click.option("--save-as", "save_as", default=None,
              help="Write the fork as a scenario of the home, fixtures/NAME, with its head hash "
                   "(RUN is a scenario's run; where villagers reflect, with --record or "
                   "--exemplars).")
@click.option("--accept-digest", is_flag=True, help="Run a model whose digest is not the pinned one.")
@click.option("--out", type=click.Path(), required=True, help="The fork's new log.")
def fork_cmd(run: str, at: int, thought: str | None, world: str | None, scenario: str | None,
             backend: str, exemplars: str | None, parent_exemplars: str | None, ticks: int | None,
             record: bool, save_as: str | None, accept_digest: bool, out: str) -> None:
    """Fork RUN.log at tick T into a new log: RUN's first T ticks, byte for byte, then the rest
    of the run under the changed settings (to RUN's last tick, or --ticks).

    The new log's header names the parent (its head hash), the parent's chain
    value at tick T-1, fork_at and the digests of the configs changed.
    """
    from kernel.engine import RunOptions, fork

    live = entry(backend).live
    if record and not live:
        raise click.UsageError("--record needs a live oracle: --oracle llamacpp or ollama")
    if exemplars is not None and live:
        raise click.UsageError("--exemplars is the recording a replay reads: use it with "
                               "--oracle replay")
    if save_as is not None and ("/" in save_as or save_as in ("", ".", "..")):
        raise click.BadParameter(f"a scenario's name is one folder name, not {save_as!r}",
                                 param_hint="--save-as")
    check_new(out, who="a fork")
    p = fork.plan(run, at, thought=thought, world=world, scenario=scenario, ticks=ticks,
                  parent_recording=parent_exemplars)
    recording = None if save_as is None else _saveable(save_as, p, run, record, exemplars)
    prefix = fork.prefix_oracle(p)
    if p.child.world_only:
        oracle = None
    elif not live:
        if exemplars is not None:
            oracle = make(backend, p.child.models, replay_from=exemplars)
        elif prefix is not None and not isinstance(prefix, fork._NoPrefixOracle):
            oracle = prefix       # the parent's recording goes on past T
        else:
            raise VillageError("a replayed fork reads its calls from a recording: give it with "
                               "--exemplars, or the parent's with --parent-exemplars")
    else:
        if record:
            recording = (config.home() / "exemplars" / f"{save_as}.json" if save_as
                         else Path(out).with_suffix(".json"))
            if recording.exists():
                raise VillageError(f"{recording} already exists: a recording is written new")
        oracle = make(backend, p.child.models, record_to=recording, accept_digest=accept_digest)
    changed = fork.overrides(p.parent, p.child)
    click.echo(f"fork of {run} ({p.parent.name}, head {p.parent_head[:16]}) at tick {p.at}, "
               f"to tick {p.ticks - 1}; changed: "
               f"{', '.join(f'{k} {d[:16]}' for k, d in changed) or 'nothing'}; oracle "
               f"{backend if oracle is not None else 'none (nobody reflects)'}"
               f"{' (recording)' if record else ''}")
    try:
        # From here to the saved scenario a fork is one thing: stopped or failed anywhere (a
        # signal too, whose line then says nothing was written), it leaves nothing of itself.
        with _bar(p.ticks) as bar:
            report = fork.run_fork(p.parent, p.child, p.at, out, parent_head=p.parent_head,
                                   prefix_oracle=prefix, oracle=oracle, parent_log=p.parent_log,
                                   options=RunOptions(ticks=p.ticks, progress=bar.update))
        click.echo(f"  ticks 0 to {p.at - 1}: {p.parent.name}'s frames, byte for byte; its chain "
                   f"at tick {p.at - 1} {report.parent_chain[:16]}")
        click.echo(f"  {report.ticks} ticks, {report.events} events, {report.thoughts} thoughts "
                   f"written; head {report.head_hex}")
        label = None
        if record:
            oracle.save()
            label = {"backend": backend, "models": oracle.document()["models"]}
            click.echo(f"  recorded {oracle.calls} calls and {oracle.embeddings} embeddings from "
                       f"tick {p.at} on to {recording}")
        if save_as is not None:
            folder = _save_as(save_as, p, report, recording, label, thought, world)
            click.echo(f"  saved as scenario {save_as}: {folder / 'scenario.json'}")
    except BaseException:
        # a fork that fails leaves nothing it wrote: no log, no recording, no half a scenario
        _undo(out, recording if record else None,
              config.home() / "fixtures" / save_as if save_as else None)
        raise


def _undo(out: str, recording: Path | None, folder: Path | None) -> None:
    Path(out).unlink(missing_ok=True)
    if recording is not None:
        recording.unlink(missing_ok=True)
    if folder is not None and folder.is_dir():
        shutil.rmtree(folder)


COMMANDS = (fork_cmd,)
