"""`village index` and `village sql`: the DuckDB projection of a run. Thin: parse, call kernel.store, print."""

from __future__ import annotations

import time
from pathlib import Path

import click

from kernel.cli import CONTEXT

_LOG = click.Path(exists=True, dir_okay=False, path_type=Path)


_IMPORTANCE = click.option(
    "--importance", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
    help="The importance table the run was made with, for its weights and valences "
         "[default: that of the home's scenario that ran LOG, else the home's].")


def _run_values(importance: Path | None = None, sc=None) -> dict:
    """What an index is built under: the importance table (its weights, its digest and its
    valences), the world's day and its villagers' temperaments: those of `sc` where given,
    else of the home's world run under the importance table given, each file read once."""
    from kernel.engine import scenario
    from kernel.engine.felt import temperaments_of

    if sc is None:
        sc = scenario.of_world(importance=importance or "importance")
    return {"rules": sc.rules, "rules_digest": sc.rules_digest, "valences": sc.valences,
            "ticks_per_day": sc.world.ticks_per_day, "temperaments": temperaments_of(sc.world)}


def _under(log: Path, importance: Path | None, build):
    """`build(values)` under the home's table (or the one given); where no table is given and
    the home's cannot weigh the log's rows (a scenario with a table of its own, say), again
    under the table of the home's scenario that ran it, found by the log's header digest."""
    from kernel.laws import LawError

    try:
        return build(_run_values(importance))
    except LawError:
        sc = _scenario_of(log) if importance is None else None
        if sc is None:
            raise
        return build(_run_values(sc=sc))


def _scenario_of(log: Path):
    """The home's scenario that ran `log`, by its header's digest; None where none did or the
    file has no header to read (the index then says what is wrong with it)."""
    from kernel.errors import VillageError
    from kernel.log import read_header
    from kernel.report.source import scenario_for

    try:
        return scenario_for(read_header(log).config_digest)
    except (VillageError, OSError):
        return None


@click.command("index", context_settings=CONTEXT)
@click.argument("log", type=_LOG)
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Where to write the index [default: LOG with .duckdb in place of its suffix].")
@_IMPORTANCE
def index_cmd(log: Path, out: Path | None, importance: Path | None) -> None:
    """Rebuild LOG's DuckDB index (tables memory, events, villagers, meta, felt_state, basins,
    basin_nights, intentions, bonds, news; view felt) from the log alone."""
    from kernel import store

    started = time.perf_counter()
    res = _under(log, importance, lambda values: store.build(log, out, **values))
    took = time.perf_counter() - started
    click.echo(f"indexed {log}: {res.ticks} ticks, {res.events} events, {res.memory_rows} memory rows, "
               f"{res.villagers} villagers, head {res.head_hex[:16]}")
    click.echo(f"wrote {res.db_path}, {res.bytes} bytes, in {took:.2f}s")


@click.command("sql", context_settings=CONTEXT)
@click.argument("log", type=_LOG)
@click.argument("query")
@_IMPORTANCE
def sql_cmd(log: Path, query: str, importance: Path | None) -> None:
    """Run one SQL QUERY over LOG's index (rebuilt first if missing or stale) and print it aligned.

    Tables: memory(id, villager, tick, kind, event, text, weight, about, drawn_from),
    events(tick, seq, kind, villager, other, milligrams, fields), villagers(id, name,
    founded, x, y), meta(key, value), and the view felt(villager, id, tick, kind, text,
    intensity, valence, stored, last_felt, felt_now, forgotten_at, absorbed_into, refelt_count);
    basins(villager, name, tick, day, slug, label, weight, keywords), basin_nights(villager,
    name, tick, day, entropy, trajectory, basins, phase) and intentions(villager, name, tick,
    day, index, act, whom, whom_name, x, y), empty in a run without basins or plans.
    bonds(villager, name, other, other_name, day, bond, bond_at_start, gave, got, took, lost,
    pleas, said, heard): each villager's bond to another per day, -1 to 1, and what passed.
    news(news, villager, name, tick, day, teller, teller_name, "by"), one row a holder of a
    piece of news, empty in a run without news.
    """
    from kernel import store
    from kernel.store.query import reads

    reads(query)     # a statement that is not a read is refused before the index is built
    db, state, built = _under(log, importance, lambda values: store.ensure(log, **values))
    if built is not None:
        click.echo(f"index {state.status} ({state.reason}); rebuilt {db}: "
                   f"{built.memory_rows} memory rows", err=True)
    click.echo(store.table(store.query(db, query)))


COMMANDS = (index_cmd, sql_cmd)
