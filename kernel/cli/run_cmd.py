"""`village run` and `village replay`: run a scenario against a model, replay a recording.

Thin: parse, load the scenario, make the oracle, call kernel.mind, print.
"""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import click

from kernel import config, engine
from kernel.cli import CONTEXT, writes_log
from kernel.cli.shared import ticks_bar, write_index
from kernel.engine import scenario as msc
from kernel.engine.replay import replay
from kernel.errors import ReplayMismatch, VillageError
from kernel.log import check_new
from kernel.mind.reflect import Round
from kernel.oracle import backends, entry


def _round_lines(rnd: Round) -> list[str]:
    return [f"  {r.name:<8} round at tick {rnd.now:>6}: {r.calls} calls, {r.embedded} embeddings, "
            f"{r.thoughts} thoughts written, {r.refusals} statements refused"
            for r in rnd.reflections]


def _night_lines(report) -> list[str]:
    """Each night's lines, in tick order: its consolidation, then its basins and its plans
    where the run has them."""
    from kernel.report.figures import by_night

    lines = [(now, 0, f"  {'all':<8} night at tick {now:>6}: {n['night_plans']} plans asked "
              f"({n['plans_refused']} refused whole), groups {n['groups_accepted']} accepted and "
              f"{n['groups_refused']} refused, rows {n['rows_absorbed']} absorbed and "
              f"{n['rows_forgotten']} forgotten; that day {n['rows_refelt']} rows re-felt, "
              f"{n['recurrences']} recurrences")
             for now, n in by_night(report.rounds, report.nights)]
    for b in report.basins:
        c = b.counts
        lines.append((b.now, 1, f"  {'all':<8} basins at tick {b.now:>5}: {c['asked']} updates "
                      f"asked ({c['refused_whole']} refused whole), {c['moved']} basins moved, "
                      f"{c['born']} new, {c['parts_refused']} parts refused; keywords "
                      f"consolidated {c['consolidated']} of {c['consolidations']}"))
    for p in report.plans:
        c = p.counts
        lines.append((p.now, 2, f"  {'all':<8} plans at tick {p.now:>6}: {c['asked']} plans "
                      f"asked ({c['refused_whole']} refused whole), {c['accepted']} intentions "
                      f"accepted and {c['refused']} refused"))
    for day, c in _talk_days(report):
        lines.append((c["last"], -1, f"  {'all':<8} talk on day {day:>4}: {c['starts']} starts and "
                      f"{c['answers']} answers asked at {c['ticks']} meetings, {c['said']} said, "
                      f"{c['refused']} refused{c['why']}"))
    return [line for _, _, line in sorted(lines)]


def _talk_days(report) -> list[tuple[int, dict]]:
    """Each day's talk in counts, by day: starts and answers asked, said and refused (by check)."""
    from kernel.calendar import Calendar

    days: dict[int, dict] = {}
    cal = Calendar(report.ticks_per_day)
    for t in report.talks:
        day = cal.day_of(t.now)
        c = days.setdefault(day, {"starts": 0, "answers": 0, "said": 0, "refused": 0, "ticks": 0,
                                  "last": cal.last_tick_of_day(t.now), "by": {}})
        c["ticks"] += 1
        for u in t.utterances:
            c["answers" if u.reply else "starts"] += 1
            if u.spoke is not None:
                c["said"] += 1
            else:
                c["refused"] += 1
                if u.refused is not None:
                    c["by"][u.refused.check] = c["by"].get(u.refused.check, 0) + 1
    for c in days.values():
        c["why"] = (" (" + ", ".join(f"{n} {k}" for k, n in sorted(c["by"].items())) + ")"
                    if c["by"] else "")
    return sorted(days.items())


def _cost_lines(oracle, pace: int) -> list[str]:
    out = ["", f"  what the rounds cost, at {pace} ticks a second (measured here; yours will differ)",
           f"  {'':>4} {'call':<26} {'model':<30} {'took':>9} {'ticks':>8} {'tokens in/out':>14}"]
    total = 0
    for i, c in enumerate(oracle.costs, start=1):
        total += c.took_ns
        what = f"{c.kind} {c.purpose}"
        out.append(f"  {i:>4} {what:<26} {c.model:<30} {c.took_ns / 1e9:>8.3f}s "
                   f"{c.took_ns / 1e9 * pace:>8.1f} {c.tokens_in:>7}/{c.tokens_out:<6}")
    out.append(f"  {'':>4} {'all':<26} {'':<30} {total / 1e9:>8.3f}s {total / 1e9 * pace:>8.1f}")
    out.append(f"  {oracle.calls} calls and {oracle.embeddings} embeddings; the resident model "
               f"changed {oracle.model_changes} times")
    return out


@click.command("run", context_settings=CONTEXT)
@click.argument("scenario")
@click.option("--oracle", "backend", type=click.Choice(backends()),
              default="replay", show_default=True,
              help="Who answers the model calls. ollama reaches the servers in $OLLAMA_HOSTS "
                   "(comma-separated), else $OLLAMA_HOST, else configs/models.json's hosts or host; "
                   "openai, a server of the OpenAI protocol at $OPENAI_BASE_URLS, else "
                   "$OPENAI_BASE_URL, else configs/models.json's openai block.")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Answer a round's calls with a pool of N workers on a local Ray of N CPUs "
                   "(--oracle llamacpp; pip install '.[cluster]').")
@click.option("--ray", "address", default=None, metavar="ADDRESS|auto",
              help="Join a running Ray cluster (see `ray start`) and answer with a pool of its "
                   "workers: N with --workers, else one for each CPU of the cluster.")
@click.option("--record", is_flag=True,
              help="Record every call into the scenario's exemplar file and its head hash "
                   "into its scenario.json (live backends only).")
@click.option("--out", type=click.Path(), default=None,
              help="Where the run's log goes (default: a new file under the home's runs/).")
@click.option("--cap", type=click.IntRange(min=0), default=None,
              help="Run under this depth cap instead of the scenario's (0: no cap).")
@click.option("--accept-digest", is_flag=True, help="Run a model whose digest is not the pinned one.")
@click.option("--index", "index", is_flag=True,
              help="Also write the run's DuckDB index (the log with .duckdb), from the rows the "
                   "run folds as it goes: what `village index` would write.")
def run_cmd(scenario: str, **given) -> None:
    """Run SCENARIO (a folder, or a name in the home's fixtures/) for its ticks.

    Villagers reflect where they are due. Before tick 0 a live oracle is asked
    for every model at its pinned digest (every worker, every server), so
    a missing server or model, or a pool whose members differ, stops the run
    at once and writes no log. With --workers or --ray a round's independent
    calls are answered by a pool of Ray workers, gathered in the round's order:
    the log is the same bytes for any worker count.
    """
    from kernel.cluster.oracle import for_run

    a = RunAsked(**given)
    sc = msc.load(scenario)
    if a.record and not entry(a.backend).live:
        raise click.UsageError("--record needs a live oracle: --oracle llamacpp or ollama")
    if a.out is not None:
        check_new(a.out)      # before any model is reached
    oracle = for_run(sc, a.backend, workers=a.workers, address=a.address, record=a.record,
                     accept_digest=a.accept_digest)
    try:
        _run(sc, oracle, a.backend, record=a.record, out=a.out, cap=a.cap, index=a.index)
    finally:
        if oracle is not None:
            oracle.close()


@dataclass(frozen=True)
class RunAsked:
    """What `village run` was asked besides SCENARIO: its options as given."""

    backend: str
    workers: int | None
    address: str | None
    record: bool
    out: str | None
    cap: int | None
    accept_digest: bool
    index: bool


def _run(sc, oracle, backend: str, *, record: bool, out: str | None, cap: int | None,
         index: bool) -> None:
    st = sc.settings if cap is None or sc.settings is None else sc.settings.with_cap(cap)
    path = Path(out) if out else _new_run_path(sc.name)
    with writes_log(path):
        _run_into(sc, oracle, backend, st, path, record=record, index=index)


def _run_into(sc, oracle, backend: str, st, path: Path, *, record: bool, index: bool) -> None:
    from kernel.cluster.oracle import describe

    click.echo(f"{sc.name}: {sc.ticks} ticks, {len(sc.world.people)} villagers, oracle "
               f"{describe(oracle, backend)}{' (recording)' if record else ''}, log {path}")
    idx = None
    if index:
        from kernel.store import run_index  # duckdb, only for a run that writes its index

        idx = run_index(sc, path)
    t0 = time.perf_counter()
    with ticks_bar(sc.ticks, sc.name) as bar:
        # a run under other settings (a cap) heads its log with the digest of those settings
        ran = sc if st is sc.settings else sc.with_settings(st)
        report = engine.run(ran, oracle, path, settings=st, progress=bar.update,
                            on_round=lambda r: [click.echo(x) for x in _round_lines(r)],
                            projections=[idx] if idx else ())
    took = time.perf_counter() - t0
    for line in _night_lines(report):
        click.echo(line)
    click.echo(f"  {report.ticks} ticks, {report.events} events, {report.thoughts} thoughts written "
               f"in {took:.1f}s")
    click.echo(f"  head {report.head_hex}")
    if idx is not None:
        write_index(idx, report)
    if oracle is not None and entry(backend).live:
        for line in _cost_lines(oracle, sc.world.ticks_per_second):
            click.echo(line)
        doc = oracle.document() if record else {"models": {m: {"digest": oracle.digest(m),
                                                                "backend": backend}
                                                            for m in (st.models if st else ())}}
        for line in _price(sc, oracle.costs, doc, "measured here"):
            click.echo(line)
    if record:
        for line in _moved(sc, oracle):
            click.echo(line)
        oracle.save()
        label = {"backend": backend, "models": oracle.document()["models"]}
        msc.write_digest(sc, report.head_hex, recorded_with=label)
        click.echo(f"  recorded {oracle.calls} calls and {oracle.embeddings} embeddings to "
                   f"{_shown(sc.exemplars)}; head hash written to {_shown(sc.folder / 'scenario.json')}")


def _price(sc, costs, doc, measured: str) -> list[str]:
    """The price section of a run or a replay: its rounds' model seconds at the world's pace,
    and who answered: a recording's models and machine (`doc`), else this machine."""
    from kernel.oracle import price

    doc = doc if isinstance(doc, dict) else {}
    on = doc.get("answered_on") if measured != "measured here" else price.machine()
    models = doc.get("models", {})
    every = sc.settings.every if sc.settings is not None else None
    return price.lines(costs, sc.world.ticks_per_second, every, models, on, measured)


def _moved(sc, oracle) -> list[str]:
    """What a re-recording moved, read against the recording it is about to replace."""
    from kernel.oracle import exemplar
    from kernel.oracle.moved import moved

    if sc.exemplars is None or not sc.exemplars.exists():
        return ["  no recording to replace: this is the first"]
    try:
        old = exemplar.load(sc.exemplars)
    except VillageError as e:
        return [f"  the recording it replaces could not be read, so nothing is compared: {e}"]
    return moved(old, oracle.document()).lines()


def _shown(p: Path) -> str:
    try:
        return str(p.resolve().relative_to(config.home().resolve()))
    except ValueError:
        return str(p)


def _new_run_path(name: str) -> Path:
    d = (config.project_home() or Path.cwd()) / "runs"
    try:
        d.mkdir(exist_ok=True)
    except FileExistsError:
        raise VillageError(f"{d} is not a folder: a run's log goes in the runs folder "
                           f"(move it away, or give --out)") from None
    except OSError as e:
        raise VillageError(f"cannot make the runs folder {d}: {e.strerror or e} "
                           f"(give --out)") from None
    stamp = 0
    while (p := d / f"{name}-{stamp}.log").exists():
        stamp += 1
    return p


def replay_one(name: str, where: Path, echo=click.echo) -> bool:
    """Replay one scenario into `where`; print its accounting; True when it reached its head.

    A scenario with a recording replays from it, with no model; a world-only
    scenario (nobody reflects) is run, and its head compared the same way.
    """
    sc = msc.load(name)
    if not sc.world_only and sc.exemplars is None:
        raise VillageError(f"scenario {name} has no recording to replay")
    path = where / f"{sc.name}.log"
    if path.exists():
        path.unlink()
    with ticks_bar(sc.ticks, sc.name) as bar:
        rp = replay(sc, progress=bar.update, out=path)
    report, oracle = rp.report, rp.oracle
    echo(f"{sc.name}: {sc.description}")
    if oracle is None:
        echo(f"  the world alone: {report.ticks} ticks, {report.events} events, "
             f"{sum(report.rows.values())} rows, no model")
    else:
        before = sum(report.rows.values()) - report.thoughts
        after = sum(report.rows.values())
        for rnd in report.rounds:
            for line in _round_lines(rnd):
                echo(line)
        for line in _night_lines(report):
            echo(line)
        echo(f"  {oracle.read} calls read off the recording ({oracle.total} in it), "
             f"{oracle.matched} requests rendered here that were the recorded bytes, "
             f"{report.statements} statements checked, {report.thoughts} thoughts written: "
             f"{before} rows before, {after} after")
        for line in _price(sc, oracle.costs, getattr(oracle, "doc", None),
                           "measured when it was recorded"):
            echo(line)
    if report.stopped is not None:
        what = "replay" if isinstance(report.stopped, ReplayMismatch) else "run"
        echo(f"  DIFFERS: the {what} stopped at tick {report.ticks}: {report.stopped}")
        return False
    if oracle is not None and oracle.unread:
        echo(f"  DIFFERS: {oracle.unread} recorded calls were never asked for")
        return False
    if report.head_hex != sc.head_sha256:
        echo(f"  DIFFERS: head {report.head_hex}, and the committed digest is {sc.head_sha256}")
        return False
    echo(f"  head {report.head_hex}: the committed digest, byte for byte")
    return _interviews(sc, path, echo)


def _interviews(sc, log: Path, echo) -> bool:
    """The scenario's committed interviews, where it has them, asked again of its replayed log
    from their recording; True when they replay byte for byte (or there are none)."""
    from kernel.interview import recording as ir

    path = ir.committed_path(sc)
    if not path.is_file():
        return True
    got = ir.replay(sc, log, path)
    if got.problem is not None:
        echo(f"  DIFFERS: the interviews of {_shown(path)} do not replay: {got.problem}")
        return False
    s = got.session
    echo(f"  interviews: {len(s.asked)} questions put to {len(s.who)} villagers at tick {s.tick} "
         f"under {len(s.variants)} variant(s), {got.oracle.read} calls read off "
         f"{_shown(path)}, transcript sha256 {s.transcript_sha256}: the recorded one, byte for byte")
    return True


@click.command("replay", context_settings=CONTEXT)
@click.argument("scenarios", nargs=-1)
@click.option("--keep", type=click.Path(file_okay=False), default=None,
              help="Keep the replayed logs in this folder (default: a temporary one).")
def replay_cmd(scenarios: tuple[str, ...], keep: str | None) -> None:
    """Replay the home's scenarios (default: every one) and compare each head hash with its digest.

    A recorded scenario replays from its recording with no model; a world-only
    one is run. Exit non-zero at any difference, naming the first one.
    """
    names = list(scenarios) or msc.committed()
    if not names:
        raise click.ClickException(f"no scenario to replay in {msc.fixtures_dir()}")
    failed = []
    with tempfile.TemporaryDirectory(prefix="village-replay-") as tmp:
        where = Path(keep) if keep else Path(tmp)
        where.mkdir(parents=True, exist_ok=True)
        for name in names:
            if not replay_one(name, where):
                failed.append(name)
    if failed:
        click.echo(f"{len(failed)} of {len(names)} scenarios differ from their recording, "
                   f"first {failed[0]}", err=True)
        sys.exit(1)
    click.echo(f"{len(names)} scenarios replayed, every one to its committed head hash")


COMMANDS = (run_cmd, replay_cmd)
