"""`village fork RUN.log --at T ... --out NEW.log`: a run that shares RUN's first T ticks.

Thin: kernel.engine.fork resolves the parent's configs, rebuilds the state
at T and runs the fork; this parses, makes the oracles and prints.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import click

from kernel import config
from kernel.cli import CONTEXT
from kernel.cli.shared import ticks_bar
from kernel.errors import VillageError
from kernel.log import check_new
from kernel.oracle import backends, entry, make


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
def fork_cmd(run: str, at: int, out: str, **given) -> None:
    """Fork RUN.log at tick T into a new log: RUN's first T ticks, byte for byte, then the rest
    of the run under the changed settings (to RUN's last tick, or --ticks).

    The new log's header names the parent (its head hash), the parent's chain
    value at tick T-1, fork_at and the digests of the configs changed.
    """
    from kernel.engine import fork, saved

    a = ForkAsked(**given)
    live = a.checked()
    check_new(out, who="a fork")
    p = fork.plan(run, at, thought=a.thought, world=a.world, scenario=a.scenario, ticks=a.ticks,
                  parent_recording=a.parent_exemplars)
    recording = (None if a.save_as is None
                 else saved.saveable(a.save_as, p, run, a.record, a.exemplars))
    prefix = fork.prefix_oracle(p)
    oracle, recording = _oracle(a, p, prefix, live, out, recording)
    changed = fork.overrides(p.parent, p.child)
    click.echo(f"fork of {run} ({p.parent.name}, head {p.parent_head[:16]}) at tick {p.at}, "
               f"to tick {p.ticks - 1}; changed: "
               f"{', '.join(f'{k} {d[:16]}' for k, d in changed) or 'nothing'}; oracle "
               f"{a.backend if oracle is not None else 'none (nobody reflects)'}"
               f"{' (recording)' if a.record else ''}")
    try:
        # From here to the saved scenario a fork is one thing: stopped or failed anywhere (a
        # signal too, whose line then says nothing was written), it leaves nothing of itself.
        _forked(a, p, prefix, oracle, out, recording)
    except BaseException:
        # a fork that fails leaves nothing it wrote: no log, no recording, no half a scenario
        _undo(out, recording if a.record else None,
              config.home() / "fixtures" / a.save_as if a.save_as else None)
        raise


@dataclass(frozen=True)
class ForkAsked:
    """What `village fork` was asked besides RUN, T and the new log: its options as given."""

    thought: str | None
    world: str | None
    scenario: str | None
    backend: str
    exemplars: str | None
    parent_exemplars: str | None
    ticks: int | None
    record: bool
    save_as: str | None
    accept_digest: bool

    def checked(self) -> bool:
        """Refuse options that cannot go together; whether the oracle is a live one."""
        live = entry(self.backend).live
        if self.record and not live:
            raise click.UsageError("--record needs a live oracle: --oracle llamacpp or ollama")
        if self.exemplars is not None and live:
            raise click.UsageError("--exemplars is the recording a replay reads: use it with "
                                   "--oracle replay")
        if self.save_as is not None and ("/" in self.save_as or self.save_as in ("", ".", "..")):
            raise click.BadParameter(f"a scenario's name is one folder name, not {self.save_as!r}",
                                     param_hint="--save-as")
        return live


def _oracle(a: ForkAsked, p, prefix, live: bool, out: str, recording: Path | None):
    """Who answers the fork's calls from T on, and the recording the run writes or names."""
    from kernel.engine import fork

    if p.child.world_only:
        return None, recording
    if not live:
        if a.exemplars is not None:
            return make(a.backend, p.child.models, replay_from=a.exemplars), recording
        if fork.recorded(prefix):
            return prefix, recording       # the parent's recording goes on past T
        raise VillageError("a replayed fork reads its calls from a recording: give it with "
                           "--exemplars, or the parent's with --parent-exemplars")
    if a.record:
        recording = (config.home() / "exemplars" / f"{a.save_as}.json" if a.save_as
                     else Path(out).with_suffix(".json"))
        if recording.exists():
            raise VillageError(f"{recording} already exists: a recording is written new")
    return (make(a.backend, p.child.models, record_to=recording, accept_digest=a.accept_digest),
            recording)


def _forked(a: ForkAsked, p, prefix, oracle, out: str, recording: Path | None) -> None:
    """Run the fork, say what it wrote, save its recording and, with --save-as, its scenario."""
    from kernel.engine import RunOptions, fork, saved

    with ticks_bar(p.ticks, "fork") as bar:
        report = fork.run_fork(fork.ForkedFrom(p.parent, p.parent_head, prefix, p.parent_log),
                               p.child, p.at, out, oracle=oracle,
                               options=RunOptions(ticks=p.ticks, progress=bar.update))
    click.echo(f"  ticks 0 to {p.at - 1}: {p.parent.name}'s frames, byte for byte; its chain "
               f"at tick {p.at - 1} {report.parent_chain[:16]}")
    click.echo(f"  {report.ticks} ticks, {report.events} events, {report.thoughts} thoughts "
               f"written; head {report.head_hex}")
    label = None
    if a.record:
        oracle.save()
        label = {"backend": a.backend, "models": oracle.document()["models"]}
        click.echo(f"  recorded {oracle.calls} calls and {oracle.embeddings} embeddings from "
                   f"tick {p.at} on to {recording}")
    if a.save_as is not None:
        folder = saved.save_as(a.save_as, p, report, recording, label, a.thought, a.world)
        click.echo(f"  saved as scenario {a.save_as}: {folder / 'scenario.json'}")


def _undo(out: str, recording: Path | None, folder: Path | None) -> None:
    Path(out).unlink(missing_ok=True)
    if recording is not None:
        recording.unlink(missing_ok=True)
    if folder is not None and folder.is_dir():
        shutil.rmtree(folder)


COMMANDS = (fork_cmd,)
