"""`sweep.duckdb`: one row a run, rebuilt whole from the rows the sweep folder holds.

This module owns the sweep table's shape and writing it: `runs` (one row a
run: scenario, seed, override and its digest, status and reason, head hash,
ticks, thoughts, refusals, calls, embeddings, model seconds, rows, and the
felt figures: night plans asked and refused whole, groups accepted and
refused, rows absorbed, forgotten and re-felt, and recurrences; and the
measure of the minds, kernel.report.minds' MINDS: answers and those that
degenerate, questions and those parroting the template, questions calls and
those refused, statements and those kept as thoughts or recurrences, night
plans with an accepted group, the mean cosine of a thought to its citations,
near-restatements and how alike one villager's thoughts are),
`refusals` (run, check, count), `basin_nights` (run, and each night a
villager's basins moved: kernel.store.basins' columns, so a sweep over
`thought.attractor.rule` compares entropy and trajectory night by night) and
`interviews` (run, and per variant, villager and category of a battery asked at the run's
last tick where the spec interviews its runs: asked, said, answered, known, correct, the mean
cosine and the chance) and `replays` (a replay's head beside the recorded one). Like every DuckDB file
of the kernel it is derived: written to a temporary file and renamed, so a
reader sees the old table or the new one. It must not run anything.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb

from kernel import files
from kernel.errors import ClusterError
from kernel.report.figures import FELT
from kernel.report.minds import MINDS
from kernel.store.basins import NIGHT_COLUMNS

TABLE = "sweep.duckdb"

RUNS_DDL = """CREATE TABLE runs (
    run VARCHAR PRIMARY KEY, scenario VARCHAR NOT NULL, seed UBIGINT NOT NULL,
    override VARCHAR NOT NULL, overrides_digest VARCHAR NOT NULL, status VARCHAR NOT NULL,
    reason VARCHAR NOT NULL, head VARCHAR, ticks BIGINT, events BIGINT, thoughts INTEGER,
    refusals INTEGER, refusals_by_check JSON, calls INTEGER, embeddings INTEGER,
    model_seconds DOUBLE, "rows" BIGINT, log_bytes BIGINT, wall_seconds DOUBLE, host VARCHAR,
    night_plans INTEGER, plans_refused INTEGER, groups_accepted INTEGER, groups_refused INTEGER,
    rows_absorbed BIGINT, rows_forgotten BIGINT, rows_refelt BIGINT, recurrences INTEGER,
    answers INTEGER, answers_degenerate INTEGER, questions INTEGER, questions_parroting INTEGER,
    question_calls INTEGER, question_calls_refused INTEGER, statements INTEGER,
    statements_kept INTEGER, plans_with_group INTEGER, thought_grounding DOUBLE,
    near_restatements INTEGER, thoughts_alike DOUBLE)"""

REFUSALS_DDL = """CREATE TABLE refusals (run VARCHAR NOT NULL, "check" VARCHAR NOT NULL,
    count INTEGER NOT NULL)"""

NIGHTS_DDL = """CREATE TABLE basin_nights (run VARCHAR NOT NULL, villager INTEGER NOT NULL,
    name VARCHAR NOT NULL, tick BIGINT NOT NULL, day INTEGER NOT NULL, entropy DOUBLE NOT NULL,
    trajectory VARCHAR NOT NULL, basins INTEGER NOT NULL, phase INTEGER NOT NULL)"""

INTERVIEWS_DDL = """CREATE TABLE interviews (run VARCHAR NOT NULL, tick BIGINT NOT NULL,
    variant VARCHAR NOT NULL, villager VARCHAR NOT NULL, category VARCHAR NOT NULL,
    asked INTEGER NOT NULL, said INTEGER NOT NULL, answered INTEGER NOT NULL,
    known INTEGER NOT NULL, correct INTEGER NOT NULL, cosine DOUBLE, chance DOUBLE)"""

INTERVIEW_COLUMNS = ("tick", "variant", "villager", "category", "asked", "said", "answered",
                     "known", "correct", "cosine", "chance")

REPLAYS_DDL = """CREATE TABLE replays (
    run VARCHAR PRIMARY KEY, status VARCHAR NOT NULL, reason VARCHAR NOT NULL, head VARCHAR,
    recorded_head VARCHAR, ticks BIGINT, calls INTEGER, wall_seconds DOUBLE)"""

COLUMNS = ("run", "scenario", "seed", "override", "overrides_digest", "status", "reason", "head",
           "ticks", "events", "thoughts", "refusals", "refusals_by_check", "calls", "embeddings",
           "model_seconds", "rows", "log_bytes", "wall_seconds", "host", *FELT, *MINDS)


def _runs_row(r: dict[str, Any]) -> tuple[Any, ...]:
    by = r.get("refusals")
    v = dict(r, refusals=None if by is None else sum(by.values()),
             refusals_by_check=None if by is None else json.dumps(by, sort_keys=True))
    return tuple(v.get(c) if c != "reason" else (v.get("reason") or "") for c in COLUMNS)


_WORDS = files.Words("sweep table", ClusterError)


def _write(folder: Path, fill) -> Path:
    target = folder / TABLE
    keep = target if target.exists() else None
    out = files.Output(target, _WORDS, kind=files.INDEX)
    try:
        # Built by DuckDB beside it (it writes its own file), then put at its path whole.
        with out.replacing(fresh=True, leftovers=(".wal",)) as tmp:
            con = duckdb.connect(str(tmp))
            try:
                if keep is not None:
                    con.execute(f"ATTACH '{keep}' AS old (READ_ONLY)")
                fill(con, keep is not None)
                if keep is not None:
                    con.execute("DETACH old")
            finally:
                con.close()
    except duckdb.Error as e:
        raise ClusterError(f"cannot write the sweep table {target}: "
                           f"{str(e).splitlines()[0]}") from None
    return target


def _nights(rows: Sequence[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """Every run's basin nights as `basin_nights` rows: the run, then the night's columns."""
    return [(r["run"], *(n[c] for c in NIGHT_COLUMNS))
            for r in rows for n in r.get("basin_nights") or ()]


def _tables(con) -> None:
    for ddl in (RUNS_DDL, REFUSALS_DDL, NIGHTS_DDL, INTERVIEWS_DDL, REPLAYS_DDL):
        con.execute(ddl)


def build(folder: Path, rows: Sequence[dict[str, Any]]) -> Path:
    """`runs`, `refusals` and `basin_nights` from the rows; a `replays` table already there
    is kept."""

    def fill(con, has_old: bool) -> None:
        _tables(con)
        if rows:
            con.executemany(f"INSERT INTO runs VALUES ({', '.join('?' * len(COLUMNS))})",
                            [_runs_row(r) for r in rows])
        ref = [(r["run"], k, n) for r in rows for k, n in sorted((r.get("refusals") or {}).items())]
        if ref:
            con.executemany("INSERT INTO refusals VALUES (?, ?, ?)", ref)
        nights = _nights(rows)
        if nights:
            con.executemany(f"INSERT INTO basin_nights VALUES ({', '.join('?' * 9)})", nights)
        asked = [(r["run"], *(x[c] for c in INTERVIEW_COLUMNS))
                 for r in rows for x in r.get("interviews") or ()]
        if asked:
            con.executemany(f"INSERT INTO interviews VALUES ({', '.join('?' * 12)})", asked)
        if has_old and _has(con, "old", "replays"):
            con.execute("INSERT INTO replays SELECT * FROM old.replays "
                        "WHERE run IN (SELECT run FROM runs)")

    return _write(folder, fill)


def build_replays(folder: Path, rows: Sequence[dict[str, Any]]) -> Path:
    """The `replays` table from a replay's rows; the runs' tables already there are kept."""

    def fill(con, has_old: bool) -> None:
        _tables(con)
        if has_old and _has(con, "old", "runs"):
            # by name: a table written before a column was added keeps its rows, the new
            # columns empty (NULL), as a row.json without them gives
            con.execute("INSERT INTO runs BY NAME SELECT * FROM old.runs")
            con.execute("INSERT INTO refusals SELECT * FROM old.refusals")
        if has_old and _has(con, "old", "basin_nights"):
            con.execute("INSERT INTO basin_nights SELECT * FROM old.basin_nights")
        if has_old and _has(con, "old", "interviews"):
            con.execute("INSERT INTO interviews SELECT * FROM old.interviews")
        if rows:
            con.executemany("INSERT INTO replays VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                            [(r["run"], r["status"], r.get("reason") or "", r.get("head"),
                              r.get("recorded_head"), r.get("ticks"), r.get("calls"),
                              r.get("wall_seconds")) for r in rows])

    return _write(folder, fill)


def _has(con, db: str, name: str) -> bool:
    return bool(con.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = ? "
                            "AND table_name = ?", [db, name]).fetchone()[0])
