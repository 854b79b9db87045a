"""`village cluster run`: a scenario run whose model calls are answered by a pool of Ray workers.

Thin: parse, load the scenario, start the pool, run the engine, print.
The run is `village run`'s with one difference: a round's independent
calls go to N workers and come back in the round's order, so the log is
the same bytes for any worker count.
"""

from __future__ import annotations

import time
from pathlib import Path

import click

from kernel import engine
from kernel.cli import CONTEXT
from kernel.cli.mind_cmd import _bar, _cost_lines, _new_run_path, _round_lines, _shown
from kernel.engine import scenario as msc
from kernel.errors import VillageError
from kernel.oracle import backends


@click.group("cluster", context_settings=CONTEXT)
def cluster_group() -> None:
    """Runs whose model calls a pool of Ray workers answers (pip install '.[cluster]')."""


@cluster_group.command("run", context_settings=CONTEXT)
@click.argument("scenario")
@click.option("--oracle", "backend", type=click.Choice(backends(live=True)), default="llamacpp",
              show_default=True, help="The live backend every worker holds its own copy of.")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="A pool of N workers on a local Ray of N CPUs [default with --ray: a worker "
                   "for each CPU of the cluster].")
@click.option("--ray", "address", default=None, metavar="ADDRESS|auto",
              help="Join a running Ray cluster (see `ray start`) instead of starting one.")
@click.option("--record", is_flag=True,
              help="Record every call into the scenario's exemplar file and its head hash into "
                   "its scenario.json.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="Where the run's log goes (default: a new file under the home's runs/).")
@click.option("--cap", type=click.IntRange(min=0), default=None,
              help="Run under this depth cap instead of the scenario's (0: no cap).")
@click.option("--accept-digest", is_flag=True, help="Run a model whose digest is not the pinned one.")
def cluster_run_cmd(scenario: str, backend: str, workers: int | None, address: str | None,
                    record: bool, out: str | None, cap: int | None, accept_digest: bool) -> None:
    """Run SCENARIO with its model calls answered by a pool of Ray workers.

    Before tick 0 every worker is asked for every model's digest, and a pool
    whose workers differ is refused. The log is the same bytes as a run
    with one worker, or with none.
    """
    from kernel import cluster

    if workers is None and address is None:
        raise click.UsageError("give --workers N (a local Ray) or --ray ADDRESS|auto (a cluster)")
    sc = msc.load(scenario)
    if sc.world_only:
        raise VillageError(f"scenario {sc.name} is a world run: nobody reflects, so there are no "
                           f"model calls for a pool to answer; use village run")
    if record and sc.exemplars is None:
        raise VillageError(f"scenario {sc.name} names no exemplar file to record to")
    oracle = cluster.start(backend, sc.models, workers, address=address,
                           accept_digest=accept_digest,
                           record_to=sc.exemplars if record else None)
    try:
        n = len((oracle.inner if record else oracle).workers)
        st = sc.settings if cap is None else sc.settings.with_cap(cap)
        path = Path(out) if out else _new_run_path(sc.name)
        click.echo(f"{sc.name}: {sc.ticks} ticks, {len(sc.world.people)} villagers, oracle "
                   f"{backend} on {n} Ray workers{' (recording)' if record else ''}, log {path}")
        t0 = time.perf_counter()
        with _bar(sc.ticks, sc.name) as bar:
            report = engine.run(sc, oracle, path, settings=st, progress=bar.update,
                                on_round=lambda r: [click.echo(x) for x in _round_lines(r)])
        took = time.perf_counter() - t0
        click.echo(f"  {report.ticks} ticks, {report.events} events, {report.thoughts} thoughts "
                   f"written in {took:.1f}s")
        click.echo(f"  head {report.head_hex}")
        for line in _cost_lines(oracle, sc.world.ticks_per_second):
            click.echo(line)
        if record:
            oracle.save()
            label = {"backend": backend, "models": oracle.document()["models"]}
            msc.write_digest(sc, report.head_hex, recorded_with=label)
            click.echo(f"  recorded {oracle.calls} calls and {oracle.embeddings} embeddings to "
                       f"{_shown(sc.exemplars)}; head hash written to "
                       f"{_shown(sc.folder / 'scenario.json')}")
    finally:
        oracle.close()


COMMANDS = (cluster_group,)
