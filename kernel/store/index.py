"""Building the DuckDB projection of one log: read once, fold perception, load in bulk, rename.

The index is a cache of the log and nothing more: it is written whole to a
temporary file beside the target and renamed over it, so a reader sees
the old index or the new one and never half of one. `meta` records the
log's head hash and the importance table's digest, which is how `ensure`
knows an index is stale. The same index is a projection a run folds as it
goes (`RunIndex`); `run_index` makes it for a run of a scenario, from what
the scenario resolved, so no caller assembles it from engine parts. The
tables of basins and plans are kernel.store.basins', folded beside the events, and so is
the table of news (kernel.store.news); the table of bonds is kernel.store.bonds', folded
beside the memory rows.
"""

from __future__ import annotations

import json
import os
import typing
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain
from json.encoder import encode_basestring
from operator import itemgetter
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa

from kernel import events as ev
from kernel.calendar import DAY
from kernel.engine.felt import FeltProjection, felt_of
from kernel.engine.projection import Columns, MemoryProjection, fold
from kernel.errors import StoreError
from kernel.laws.felt import Valences
from kernel.laws.importance import Importance
from kernel.laws.memory import Memory
from kernel.log import encode, verify
from kernel.store import basins as sb
from kernel.store import bonds as sbo
from kernel.store import news as sn
from kernel.store.paths import check_index_path, output

if typing.TYPE_CHECKING:
    from kernel.engine.scenario import Scenario

INDEX_FORMAT = 4
"""Bumped when the tables' shape changes, so an old index reads as stale."""

MEMORY_DDL = """CREATE TABLE memory (
    id BIGINT PRIMARY KEY, villager INTEGER NOT NULL, tick BIGINT NOT NULL,
    kind VARCHAR NOT NULL, event VARCHAR NOT NULL, text VARCHAR NOT NULL,
    weight INTEGER NOT NULL, about INTEGER[] NOT NULL, drawn_from INTEGER[] NOT NULL)"""

EVENTS_DDL = """CREATE TABLE events (
    tick BIGINT NOT NULL, seq INTEGER NOT NULL, kind VARCHAR NOT NULL,
    villager INTEGER, other INTEGER, milligrams BIGINT, fields JSON NOT NULL)"""

FELT_DDL = """CREATE TABLE felt_state (
    id BIGINT PRIMARY KEY, intensity INTEGER NOT NULL, valence INTEGER NOT NULL,
    stored INTEGER NOT NULL, last_felt BIGINT NOT NULL, felt_now INTEGER NOT NULL,
    forgotten_at BIGINT, absorbed_into BIGINT, refelt_count INTEGER NOT NULL)"""

# Strengths and valences are thousandths in the log and in felt_state; the view shows them
# as the numbers a reader knows (0.400, -0.300), exactly, as DECIMAL(5, 3).
FELT_VIEW = """CREATE VIEW felt AS SELECT m.villager, m.id, m.tick, m.kind, m.text,
    (f.intensity / 1000)::DECIMAL(5, 3) AS intensity, (f.valence / 1000)::DECIMAL(5, 3) AS valence,
    (f.stored / 1000)::DECIMAL(5, 3) AS stored, f.last_felt,
    (f.felt_now / 1000)::DECIMAL(5, 3) AS felt_now, f.forgotten_at, f.absorbed_into,
    f.refelt_count
    FROM memory m JOIN felt_state f USING (id)"""


def felt_table(felt, now: int | None) -> pa.Table:
    """Every row's felt state, felt now taken at tick `now` (the log's last)."""
    rows = list(felt.rows.values()) if felt is not None else []
    at = now or 0
    return pa.table({
        "id": pa.array([r.id for r in rows], pa.int64()),
        "intensity": pa.array([r.intensity for r in rows], pa.int32()),
        "valence": pa.array([r.valence for r in rows], pa.int32()),
        "stored": pa.array([r.stored for r in rows], pa.int32()),
        "last_felt": pa.array([r.last_felt for r in rows], pa.int64()),
        "felt_now": pa.array([felt.felt_now(r, max(at, r.last_felt)) for r in rows], pa.int32()),
        "forgotten_at": pa.array([r.forgotten_at for r in rows], pa.int64()),
        "absorbed_into": pa.array([r.absorbed_into for r in rows], pa.int64()),
        "refelt_count": pa.array([r.refelt for r in rows], pa.int32()),
    })


_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
"""An event's fields as the `events` table holds them: sorted keys, no spaces, text as it is."""


@dataclass(frozen=True, slots=True)
class IndexResult:
    db_path: Path
    head_hex: str
    memory_rows: int
    events: int
    ticks: int
    villagers: int
    bytes: int


@dataclass(frozen=True, slots=True)
class IndexState:
    """Whether an index matches its log: `fresh`, `missing` or `stale` (and why)."""

    status: str
    reason: str
    log_head: str
    db_head: str | None


def db_path_for(log_path: str | os.PathLike) -> Path:
    """`RUN.log` -> `RUN.duckdb`, beside it."""
    return Path(log_path).with_suffix(".duckdb")


def _lists(values: Sequence[tuple[int, ...]]) -> pa.Array:
    """Tuples of ids as an Arrow list<int32> column, built from flat offsets and values."""
    lengths = np.fromiter(map(len, values), dtype=np.int32, count=len(values))
    offsets = np.zeros(len(values) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    flat = np.fromiter(chain.from_iterable(values), dtype=np.int32, count=int(offsets[-1]))
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(flat))


def memory_table(rows: Sequence[Memory], columns: Columns | None = None) -> pa.Table:
    """Memory rows as an Arrow table with the `memory` table's columns, column by column.

    `columns`, the same rows' numpy columns (`MemoryProjection.columns()`),
    gives ids, villagers, ticks and weights without reading them off the rows.
    """
    def column(name: str):
        # a row is a typed tuple: a column is one position of every row
        return map(itemgetter(Memory._fields.index(name)), rows)

    if columns is None or len(columns) != len(rows):
        columns = Columns(*(np.fromiter(column(f), dtype=np.int64, count=len(rows))
                            for f in ("id", "villager", "tick", "weight")))
    return pa.table({
        "id": pa.array(columns.ids, pa.int64()),
        "villager": pa.array(columns.villagers.astype(np.int32), pa.int32()),
        "tick": pa.array(columns.ticks, pa.int64()),
        "kind": pa.array(list(column("kind")), pa.string()),
        "event": pa.array(list(column("event")), pa.string()),
        "text": pa.array(list(column("text")), pa.string()),
        "weight": pa.array(columns.weights.astype(np.int32), pa.int32()),
        "about": _lists(list(column("about"))),
        "drawn_from": _lists(list(column("drawn_from"))),
    })


@dataclass(frozen=True, slots=True)
class _Writer:
    """How the events table writes one plain kind: its layout, where its concerned villagers
    and milligrams fall among its fields, and its fields as the JSON `_JSON` would write."""

    layout: encode.Plain
    who: int | None
    other: int | None
    mg: int | None
    json: typing.Callable[[tuple], str]


def _json_of(p: encode.Plain) -> typing.Callable[[tuple], str]:
    """`_JSON.encode` of a plain kind's fields (values as `encode.values` gives them), by a
    format string: ints as `%d` writes them, text as json's own string encoder, tuples of
    ints as a bracketed list."""
    fmt = "{" + ",".join(f'"{n}":{"%d" if t is int else "%s"}'
                         for n, t in zip(p.fields, p.types, strict=True)) + "}"
    texts = tuple(i for i, t in enumerate(p.types) if t is str)
    lists = tuple(i for i, t in enumerate(p.types) if t is tuple)
    if not texts and not lists:
        return fmt.__mod__
    quote = encode_basestring

    def write(vals: tuple) -> str:
        vs = list(vals)
        for i in texts:
            vs[i] = quote(vs[i])
        for i in lists:
            vs[i] = "[" + ",".join(map(str, vs[i])) + "]"
        return fmt % tuple(vs)
    return write


def _writer(cls: type) -> _Writer | None:
    p = encode.PLAIN.get(cls)
    if p is None or any(t not in (int, str, tuple) for t in p.types):
        return None     # a kind of the night's, with texts, flags or none: written the long way
    who, other = cls.concerns
    at = {n: i for i, n in enumerate(p.fields)}
    return _Writer(p, at.get(who) if who else None, at.get(other) if other else None,
                   at.get("milligrams"), _json_of(p))


_WRITERS: dict[type, _Writer | None] = {cls: _writer(cls) for cls in ev.KINDS.values()}


class IndexProjection:
    """The `events` and `villagers` tables' columns, a projection of the log like any other.

    The `memory` table is the memory projection's rows; this one keeps, for
    every event, the villager it concerns and the other party, as each event
    kind says (`Event.concerns`), and every villager's founding; and, in
    `minds`, the rows of the basins and intentions tables (days of `ticks_per_day`).
    """

    def __init__(self, ticks_per_day: int = DAY) -> None:
        self.minds = sb.MindTables(ticks_per_day)
        self.news = sn.NewsFold(ticks_per_day)
        self.start()

    def start(self) -> None:
        self.tick: list[int] = []
        self.seq: list[int] = []
        self.kind: list[str] = []
        self.who: list[int | None] = []
        self.other: list[int | None] = []
        self.mg: list[int | None] = []
        self.fields: list[str] = []
        self.names: dict[int, tuple[str, int, int, int]] = {}
        self.minds.start()
        self.news.start()

    def apply(self, tick: int, events: Iterable[ev.Event]) -> None:
        if not isinstance(events, Sequence):     # read twice: here, then by the basins' tables
            events = tuple(events)
        dumps = _JSON.encode
        writers = _WRITERS
        for seq, e in enumerate(events):
            cls = type(e)
            w = writers.get(cls)
            vals = encode.values(w.layout, e) if w is not None else None
            if vals is not None:
                # what ev.to_map gives, without "kind", read by position
                self.kind.append(w.layout.kind)
                self.who.append(None if w.who is None else vals[w.who])
                self.other.append(None if w.other is None else vals[w.other])
                self.mg.append(None if w.mg is None else vals[w.mg])
                self.fields.append(w.json(vals))
            else:
                m = ev.to_map(e)
                self.kind.append(m.pop("kind"))
                who, other = cls.concerns
                self.who.append(m.get(who) if who else None)
                self.other.append(m.get(other) if other else None)
                self.mg.append(m.get("milligrams"))
                self.fields.append(dumps(m))
            self.tick.append(tick)
            self.seq.append(seq)
            if cls is ev.Founded:
                self.names.setdefault(e.villager, (e.name, tick, e.x, e.y))
        self.minds.apply(tick, events)
        self.news.apply(tick, events)

    def table(self) -> pa.Table:
        return pa.table({
            "tick": pa.array(self.tick, pa.int64()), "seq": pa.array(self.seq, pa.int32()),
            "kind": pa.array(self.kind, pa.string()), "villager": pa.array(self.who, pa.int32()),
            "other": pa.array(self.other, pa.int32()), "milligrams": pa.array(self.mg, pa.int64()),
            "fields": pa.array(self.fields, pa.string()),
        })

    def villagers(self) -> pa.Table:
        ids = sorted(self.names)
        return pa.table({
            "id": pa.array(ids, pa.int32()),
            "name": pa.array([self.names[i][0] for i in ids], pa.string()),
            "founded": pa.array([self.names[i][1] for i in ids], pa.int64()),
            "x": pa.array([self.names[i][2] for i in ids], pa.int32()),
            "y": pa.array([self.names[i][3] for i in ids], pa.int32()),
        })

    def mind_tables(self) -> dict[str, pa.Table]:
        """`basins`, `basin_nights` and `intentions`, each villager named as it was founded."""
        return self.minds.tables({v: n[0] for v, n in self.names.items()})


def build(log_path: str | os.PathLike, db_path: str | os.PathLike | None = None, *,
          rules: Importance, rules_digest: str = "", valences: Valences | None = None,
          ticks_per_day: int = DAY, temperaments: dict | None = None) -> IndexResult:
    """Rebuild the index of a log from the log alone; the old index, if any, is replaced whole.

    With the importance table's `valences` (and the world's day, and its villagers'
    temperaments), the `felt` view holds every row's felt state; without, it is empty.
    """
    check_index_path(log_path, db_path)
    run = RunIndex(rules, rules_digest=rules_digest, valences=valences,
                   ticks_per_day=ticks_per_day, temperaments=temperaments)
    done = fold(log_path, [run])
    return run.write(log_path, db_path, head_hex=done.head_hex, ticks=done.ticks)


class RunIndex:
    """Everything the index holds, as one projection: memory, events, villagers, felt state.

    `build` folds it over a log; a run folds it alongside its own projections
    (`village run --index`) and calls `write` when its last frame is
    appended, so the index costs the run only its bulk load. Either way the
    file is the same: the same tables and the same `meta`, so `ensure` and
    `village sql` take it as fresh.
    """

    def __init__(self, rules: Importance, *, rules_digest: str = "",
                 valences: Valences | None = None, ticks_per_day: int = DAY,
                 temperaments: dict | None = None):
        self.rules_digest = rules_digest
        self.memory = MemoryProjection(rules)
        self.events = IndexProjection(ticks_per_day)
        self.felt = (None if valences is None
                     else FeltProjection(valences, ticks_per_day,
                                         temperaments=temperaments).follow(self.memory))
        self.bonds = sbo.BondTables(valences, ticks_per_day).follow(self.memory)
        self.parts: list = ([self.memory, self.events] + ([self.felt] if self.felt else [])
                            + [self.bonds])
        self.ticks = 0

    def follow_engine(self, memory: MemoryProjection, felt: FeltProjection | None) -> None:
        """Take a run's own memory projection, and its felt projection where it is this
        index's (the same valences and day), instead of folding perception a second time:
        the engine applies them before this one and folds only the events here. A run
        perceiving under other importance rules than this index's is not taken: the index
        folds its own rows, as its `rules_digest` says."""
        if memory.rules != self.memory.rules:
            return
        self.memory = memory
        self.bonds.follow(memory)
        own = self.felt
        if own is not None and felt is not None and (
                (felt.valences, felt.ticks_per_day, felt.laws, felt.temperaments)
                == (own.valences, own.ticks_per_day, own.laws, own.temperaments)):
            self.felt = felt
            self.parts = [self.events, self.bonds]
        else:
            self.parts = ([self.events] + ([own.follow(memory)] if own is not None else [])
                          + [self.bonds])

    def start(self) -> None:
        for p in self.parts:
            p.start()
        self.ticks = 0

    def apply(self, tick: int, events: Sequence[ev.Event]) -> None:
        for p in self.parts:
            p.apply(tick, events)
        self.ticks += 1

    def write(self, log_path: str | os.PathLike, db_path: str | os.PathLike | None = None, *,
              head_hex: str, ticks: int | None = None) -> IndexResult:
        """Write the index of `log_path`, whose head is `head_hex`, from what was folded."""
        check_index_path(log_path, db_path)
        log_path = Path(log_path)
        db = Path(db_path) if db_path is not None else db_path_for(log_path)
        mem, idx, felt = self.memory, self.events, self.felt
        ticks = self.ticks if ticks is None else ticks
        rows = mem.rows
        mem_table = memory_table(rows, mem.columns())
        events = idx.table()
        people = idx.villagers()
        meta = pa.table({
            "key": ["log_head", "rules_digest", "index_format", "log_file", "ticks"],
            "value": [head_hex, self.rules_digest, str(INDEX_FORMAT), log_path.name, str(ticks)],
        })
        try:
            # built by DuckDB at a temporary path beside it, then renamed over it whole
            with output(log_path, db).replacing(fresh=True, leftovers=(".wal",)) as tmp:
                _fill(tmp, {"memory": mem_table, "events": events, "villagers": people,
                            "meta": meta, "felt_state": felt_table(felt, mem.last_tick),
                            **idx.mind_tables(), **idx.news.tables(rows),
                            **self.bonds.tables({v: n[0] for v, n in idx.names.items()})})
        except duckdb.Error as e:
            raise StoreError(f"could not build the index {db}: {str(e).splitlines()[0]}") from None
        return IndexResult(db_path=db, head_hex=head_hex, memory_rows=len(rows),
                           events=len(idx.tick), ticks=ticks, villagers=len(idx.names),
                           bytes=db.stat().st_size)


VILLAGERS_DDL = """CREATE TABLE villagers (id INTEGER PRIMARY KEY, name VARCHAR NOT NULL,
    founded BIGINT NOT NULL, x INTEGER NOT NULL, y INTEGER NOT NULL)"""

META_DDL = "CREATE TABLE meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)"

DDL = {"memory": MEMORY_DDL, "events": EVENTS_DDL, "villagers": VILLAGERS_DDL, "meta": META_DDL,
       "felt_state": FELT_DDL, **sb.DDL, **sbo.DDL, **sn.DDL}
"""Every table of the index, by name, in the order written."""


def _fill(tmp: Path, tables: dict[str, pa.Table]) -> None:
    """Write the index's tables (each of `DDL`, by name) into a new DuckDB file at `tmp`,
    with the `felt` view, checkpointed and closed."""
    con = duckdb.connect(str(tmp))
    try:
        for ddl in DDL.values():
            con.execute(ddl)
        con.execute(FELT_VIEW)
        for name in DDL:
            tab = tables[name]
            con.register("incoming", tab)
            con.execute(f"INSERT INTO {name} SELECT * FROM incoming")
            con.unregister("incoming")
        con.execute("CHECKPOINT")
    finally:
        con.close()


def run_index(sc: Scenario, out: str | os.PathLike) -> RunIndex:
    """The index projection a run of scenario `sc` into `out` folds beside its own, for
    `out`'s index (refused first where that index may not be written): the scenario's
    importance table and its digest, and its valences and day for the felt view."""
    check_index_path(out, None)
    felt = felt_of(sc)
    return RunIndex(sc.rules, rules_digest=sc.rules_digest,
                    valences=felt.valences if felt is not None else None,
                    ticks_per_day=sc.world.ticks_per_day,
                    temperaments=felt.temperaments if felt is not None else None)


def _meta(db: Path) -> dict[str, str] | None:
    try:
        con = duckdb.connect(str(db), read_only=True)
    except duckdb.Error:
        return None
    try:
        return dict(con.execute("SELECT key, value FROM meta").fetchall())
    except duckdb.Error:
        return None
    finally:
        con.close()


def state_of(log_path: str | os.PathLike, db_path: str | os.PathLike | None = None, *,
             rules_digest: str = "") -> IndexState:
    """Compare an index's meta with its log's head hash (read by verifying the log)."""
    db = Path(db_path) if db_path is not None else db_path_for(log_path)
    head = verify(log_path).head_hex
    if not db.exists():
        return IndexState("missing", f"no index at {db}", head, None)
    meta = _meta(db)
    if meta is None:
        return IndexState("stale", f"{db} is not an index this kernel can read", head, None)
    have = meta.get("log_head")
    if meta.get("index_format") != str(INDEX_FORMAT):
        return IndexState("stale", f"index format {meta.get('index_format')}, and this kernel "
                                   f"writes {INDEX_FORMAT}", head, have)
    if have != head:
        return IndexState("stale", f"the index is of head {str(have)[:16]}, and the log's head "
                                   f"is {head[:16]}", head, have)
    if rules_digest and meta.get("rules_digest") != rules_digest:
        return IndexState("stale", "the importance table changed since the index was built",
                          head, have)
    return IndexState("fresh", "the index is of the log's head", head, have)


def ensure(log_path: str | os.PathLike, db_path: str | os.PathLike | None = None, *,
           rules: Importance, rules_digest: str = "", valences: Valences | None = None,
           ticks_per_day: int = DAY,
           temperaments: dict | None = None) -> tuple[Path, IndexState, IndexResult | None]:
    """The index of a log, rebuilt first if it is missing or stale."""
    check_index_path(log_path, db_path)
    db = Path(db_path) if db_path is not None else db_path_for(log_path)
    st = state_of(log_path, db, rules_digest=rules_digest)
    if st.status == "fresh":
        return db, st, None
    return db, st, build(log_path, db, rules=rules, rules_digest=rules_digest,
                         valences=valences, ticks_per_day=ticks_per_day,
                         temperaments=temperaments)
