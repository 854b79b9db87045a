"""`village sweep`: many runs of many scenarios as Ray tasks, one DuckDB table of them.

Thin: parse, connect to Ray, call kernel.sweep, print the rows; stopped by a
signal, say what the sweep left (kernel.sweep.stopped tidies it).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import click

from kernel.cli import CONTEXT
from kernel.oracle import backends, entry


def _cell(v, width: int, right: bool = False) -> str:
    s = "" if v is None else str(v)
    return s.rjust(width) if right else s.ljust(width)


def row_lines(rows: list[dict], replay: bool) -> list[str]:
    w = max([len(r["run"]) for r in rows] + [3])
    if replay:
        out = [f"  {'run':<{w}} {'status':<8} {'head':<16} {'took':>8}"]
        for r in rows:
            out.append(f"  {r['run']:<{w}} {r['status']:<8} {(r.get('head') or '')[:16]:<16} "
                       f"{r.get('wall_seconds', 0):>7.1f}s" + (f"  {r['reason']}" if r.get("reason") else ""))
        return out
    out = [f"  {'run':<{w}} {'status':<7} {'head':<16} {'ticks':>7} {'thoughts':>8} {'refused':>7} "
           f"{'calls':>6} {'model':>9} {'rows':>7}"]
    for r in rows:
        if r["status"] != "ok":
            out.append(f"  {r['run']:<{w}} {r['status']:<7} {r.get('reason', '')}")
            continue
        out.append(f"  {r['run']:<{w}} {'ok':<7} {r['head'][:16]:<16} {r['ticks']:>7} "
                   f"{r['thoughts']:>8} {sum(r['refusals'].values()):>7} {r['calls']:>6} "
                   f"{r['model_seconds']:>8.1f}s {r['rows']:>7}")
    return out


@click.command("sweep", context_settings=CONTEXT)
@click.argument("spec", type=click.Path(dir_okay=False))
@click.option("--oracle", "backend", type=click.Choice(backends()), default="llamacpp",
              show_default=True,
              help="A live backend makes every run and records it; replay replays a finished "
                   "sweep's runs from their recordings and checks each head.")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Start a local Ray of N CPUs: N runs at a time [default: every CPU].")
@click.option("--ray", "address", default=None, metavar="ADDRESS|auto",
              help="Join a running Ray cluster (see `ray start`) instead of starting one.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="The sweep folder [default: the spec's out, else runs/sweeps/NAME in the home].")
@click.option("--threads", type=click.IntRange(min=1), default=1, show_default=True,
              help="llama.cpp threads of each run (each run holds one Ray CPU).")
@click.option("--fresh", is_flag=True, help="Make every run again, even those the folder holds.")
@click.option("--accept-digest", is_flag=True, help="Run a model whose digest is not the pinned one.")
def sweep_cmd(spec: str, **given) -> None:
    """Run every combination of SPEC's scenarios, world seeds and overrides as a Ray task.

    Each run's log, recording and inputs go under the sweep folder whole (a
    hidden folder, renamed when complete), and sweep.duckdb gets one row a
    run. A run that fails for a reason of its own is a row with that reason;
    a run whose worker dies is run again from the start. With --oracle
    replay, every run of the finished sweep is replayed from its recording
    and its head checked; exit 1 at any difference.
    """
    from kernel import config, sweep
    from kernel.cli import interrupted_in
    from kernel.errors import Interrupted
    from kernel.sweep import stopped

    a = SweepAsked(**given)
    if a.workers is not None and a.address is not None:
        raise click.UsageError("--workers starts a local Ray and --ray joins a running one: "
                               "give one of them")
    replaying = not entry(a.backend).live
    s = sweep.load(spec, out=a.out)
    plans = sweep.plans(s)
    sweep.runnable(plans)
    if not replaying:
        # Every run's worker reads the backend's settings (OLLAMA_HOST, say): a bad one is the
        # sweep's to refuse, once, before Ray starts, not a failed row of every run.
        entry(a.backend).check_settings(config.load("models"))
        sweep.creatable(s)
    was = stopped.before(s)
    try:
        _sweep(s, plans, a, replaying)
    except BaseException as e:
        # Ray is gone by now, and every worker of the sweep with it
        cut = interrupted_in(e) if isinstance(e, Interrupted | KeyboardInterrupt | SystemError) \
            else None
        if cut is None:
            stopped.scratch(s)      # an error of its own: only the runs' scratch is left
            raise
        raise Interrupted(cut.signum, left=stopped.left(s, was, replaying=replaying)) from None


@dataclass(frozen=True)
class SweepAsked:
    """What `village sweep` was asked besides SPEC: its options as given."""

    backend: str
    workers: int | None
    address: str | None
    out: str | None
    threads: int
    fresh: bool
    accept_digest: bool


def _sweep(s, plans, a: SweepAsked, replaying: bool) -> None:
    from kernel import cluster, sweep

    with cluster.session(a.workers, a.address):
        where = f"{cluster.cpus()} Ray CPUs" + (f" at {a.address}" if a.address else "")
        if replaying:
            click.echo(f"sweep {s.name}: replaying the finished runs of its {len(plans)} from "
                       f"their recordings on {where}; folder {s.out}")
            o = sweep.replay(s)
        else:
            click.echo(f"sweep {s.name}: {len(plans)} runs ({len(s.scenarios)} scenarios x "
                       f"{len(s.seeds)} seeds x {len(s.overrides)} overrides), oracle "
                       f"{a.backend}, on {where}; folder {s.out}")
            o = sweep.run(s, backend=a.backend, threads=a.threads, accept_digest=a.accept_digest,
                          fresh=a.fresh)
    for line in row_lines(o.rows, replaying):
        click.echo(line)
    table = s.out / sweep.TABLE
    if replaying:
        bad = o.failed
        if bad:
            click.echo(f"{len(bad)} of {len(o.rows)} runs did not replay to their head, first "
                       f"{bad[0]['run']}: {bad[0].get('reason', '')}", err=True)
            sys.exit(1)
        click.echo(f"{len(o.rows)} runs replayed in {o.seconds:.1f}s, every one to the head it "
                   f"recorded; table replays in {table}")
        return
    kept = f" ({o.kept} already in the folder, kept)" if o.kept else ""
    failed = f"; {len(o.failed)} failed, each with its reason" if o.failed else ""
    click.echo(f"{len(o.rows)} runs in {o.seconds:.1f}s{kept}{failed}; table runs in {table}")


COMMANDS = (sweep_cmd,)
