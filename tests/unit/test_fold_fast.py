"""The fast fold against the fold it replaced: the same rows, row for row, and the same refusals.

The reference is tests/unit/perception_reference.py, a copy of the
perception fold as it stood before it was rewritten for speed, read with
the codec's general reader (`events.from_map`). Held to it: every
committed scenario's log, random worlds, and random event lists that no
world would make (a villager seeing itself, gifts to oneself, sight lost
that was never had). Also here: the log's fast event reader against the
codec, the memory columns against the rows, the vector matrix against the
vectors, and an index written by a run (`--index`) against `village index`.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import duckdb
import msgpack
import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernel import engine, store
from kernel import events as ev
from kernel.cli import main as cli
from kernel.engine import scenario as msc
from kernel.errors import VillageError
from kernel.laws import perception
from kernel.laws.memory import Memory
from kernel.log import read_ticks
from kernel.log.decode import events_of
from tests.strategies import examples, world_events, worlds
from tests.strategies import importance_tables as tables


def _reference():
    path = Path(__file__).with_name("perception_reference.py")
    spec = importlib.util.spec_from_file_location("_perception_reference", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


REF = _reference()
RULES = engine.load_rules()
TOWN_TICKS = 400
"""town-of-1536 is held to the reference over its first ticks: founding, the calm and the
first wave of hunger. The whole day takes the reference minutes; its head hash is
`village replay`'s to check."""


def _columns(m: Memory) -> tuple:
    return tuple(getattr(m, f) for f in m.__slots__)


def _both(frames, rules=RULES):
    """Rows of the reference fold and of the kernel's, frame by frame; a refusal as its text."""
    out = []
    for mod in (REF, perception):
        state, rows = mod.start(rules), []
        try:
            for tick, events in frames:
                state, got = mod.perceive(state, tick, events)
                rows.extend(got)
        except Exception as e:  # the refusal itself is compared
            rows.append(f"{type(e).__name__}: {e}")
        out.append(rows)
    return out


@pytest.fixture(scope="module")
def scenario_logs(replayed_log):
    """Every committed scenario run into a log (town-of-1536 for its first ticks), shared with
    every other test of the session that reads the same replay."""
    logs = {}
    for name in msc.committed():
        sc = msc.load(name)
        if not sc.world_only and sc.exemplars is None:
            continue
        ticks = TOWN_TICKS if len(sc.world.people) > 1000 else None
        logs[name] = (sc, replayed_log(name, ticks))
    return logs


def test_every_committed_scenario_folds_to_the_reference_rows_row_for_row(scenario_logs):
    assert {"day-of-three", "day-of-twenty-four", "village-day"} <= set(scenario_logs)
    held = 0
    for name, (sc, log) in scenario_logs.items():
        frames = [(t.tick, t.events) for t in read_ticks(log)]
        want, got = _both(frames, sc.rules)
        if sc.world.places:
            # the reference fold words no places (tests/unit/test_world_places.py holds a world
            # in words case by case): the log's fold is held to the kernel's frame by frame
            want = got
        else:
            held += 1
            assert want and [_columns(m) for m in got] == [_columns(m) for m in want], name
        folded = engine.memory_of(log, rules=sc.rules)
        assert want and list(folded.rows) == want, name
    assert held >= 2          # village-day and town-of-1536 name no places


def test_the_log_reads_every_frame_to_the_events_the_codec_reads(scenario_logs):
    from kernel.log.frame import scan
    from kernel.log.log import _open_read

    for name, (_, log) in scenario_logs.items():
        with _open_read(log) as fh:
            for fr in scan(fh):
                if fr.index == 0:
                    continue
                maps = msgpack.unpackb(fr.payload, raw=False)[1]
                fast = events_of(maps)
                slow = tuple(ev.from_map(m) for m in maps)
                assert fast == slow, (name, fr.index)
                assert [type(e) for e in fast] == [type(e) for e in slow]


def _refusal(f, maps):
    try:
        return ("ok", f(maps))
    except Exception as e:  # the refusal itself is compared
        return (type(e).__name__, str(e))


ATE = {"kind": "ate", "villager": 1, "x": 2, "y": 3, "mouthfuls": 4, "milligrams": 500}
THOUGHT = {"kind": "thought", "villager": 1, "id": 9, "text": "so it goes", "weight": 4,
           "about": [1, 2], "drawn_from": [3, 4], "depth": 1}


@pytest.mark.parametrize("bad", [
    dict(ATE, x=True), dict(ATE, x=1.5), dict(ATE, x="2"), dict(ATE, extra=1),
    {k: v for k, v in ATE.items() if k != "x"},
    {**{k: v for k, v in ATE.items() if k != "x"}, "z": 1},
    dict(ATE, kind="eaten"), dict(ATE, kind=["ate"]), dict(ATE, kind=None), ["ate"], "ate", 7,
    dict(THOUGHT, about=[1, True]), dict(THOUGHT, about=(1, 2)), dict(THOUGHT, about="12"),
    dict(THOUGHT, drawn_from=[3, 4.0]), {b"kind": "ate"},
])
def test_a_map_the_fast_reader_does_not_take_is_read_or_refused_as_the_codec_does(bad):
    for maps in ([bad], [ATE, bad], [bad, THOUGHT]):
        want = _refusal(lambda ms: tuple(ev.from_map(m) for m in ms), maps)
        assert _refusal(events_of, maps) == want


def test_the_fast_reader_gives_the_codecs_events_for_every_kind():
    samples = [ATE, THOUGHT, {"kind": "founded", "villager": 3, "name": "Mose", "x": 1, "y": 2},
               {"kind": "walked", "villager": 3, "from_x": 1, "from_y": 2, "to_x": 2, "to_y": 2}]
    assert events_of(samples) == tuple(ev.from_map(m) for m in samples)
    e = events_of([THOUGHT])[0]
    assert e.about == (1, 2) and type(e.about) is tuple and hash(e) == hash(ev.from_map(THOUGHT))




@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(worlds(6), tables)
def test_on_random_worlds_and_tables_the_fast_fold_gives_the_reference_rows(cfg, table):
    frames = [(f.tick, f.events) for f in engine.world_frames(cfg, 300)]
    want, got = _both(frames, table)
    assert [_columns(m) for m in got] == [_columns(m) for m in want]


any_event = world_events()   # every world kind: Founded, sightings, Gave ... Walked


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.lists(any_event, max_size=6)), max_size=25))
def test_on_any_events_the_fast_fold_gives_the_reference_rows_or_the_same_refusal(steps):
    frames, tick = [], 0
    for gap, events in steps:
        tick += gap  # a gap of 0 repeats a tick, which both must refuse alike
        frames.append((tick, events))
    want, got = _both(frames)
    assert [m if isinstance(m, str) else _columns(m) for m in got] == \
        [m if isinstance(m, str) else _columns(m) for m in want]


def test_a_preview_leaves_the_state_as_it_was_and_gives_the_rows_applying_gives(scenario_logs):
    sc, log = scenario_logs["day-of-three"]
    frames = [(t.tick, t.events) for t in read_ticks(log)]
    mem = engine.MemoryProjection(sc.rules)
    for tick, events in frames:
        before = mem.state
        shown = mem.preview(tick, events)
        ahead = mem.preview(tick + 1, events)  # a frame previewed and not applied changes nothing
        assert mem.state is before
        assert mem.apply(tick, events) == shown
        del ahead
    assert mem.rows == list(engine.memory_of(log, rules=sc.rules).rows)


def test_the_memory_columns_are_the_rows_columns_whole_and_per_villager(scenario_logs):
    sc, log = scenario_logs["day-of-twenty-four"]
    mem = engine.MemoryProjection(sc.rules)
    frames = [(t.tick, t.events) for t in read_ticks(log)]
    for i, (tick, events) in enumerate(frames):
        mem.apply(tick, events)
        if i in (0, 700, 701):  # asked part way: the columns catch up in blocks
            assert len(mem.columns()) == len(mem.rows)
        if i in (300, 1200):    # and a villager's positions are placed in blocks of their own
            mem.columns_of(1)
    c = mem.columns()
    assert c.ids.tolist() == [m.id for m in mem.rows]
    assert c.villagers.tolist() == [m.villager for m in mem.rows]
    assert c.ticks.tolist() == [m.tick for m in mem.rows]
    assert c.weights.tolist() == [m.weight for m in mem.rows]
    for v, rows in mem.streams.items():
        cv = mem.columns_of(v)
        assert cv.ids.tolist() == [m.id for m in rows]
        assert cv.ticks.tolist() == [m.tick for m in rows]
        assert cv.weights.tolist() == [m.weight for m in rows]
    assert len(mem.columns_of(10**6)) == 0


def test_the_vector_matrix_holds_every_vector_bit_for_bit():
    rng = np.random.default_rng(5)
    vecs = {i: rng.standard_normal(8).astype(np.float32) for i in range(1, 3000)}
    vm = engine.VectorsProjection().by_id
    vm.update({i: vecs[i] for i in range(1, 10)})
    for i in range(10, 3000):
        vm[i] = vecs[i]
    odd = np.arange(3, dtype=np.float64)
    vm[5000] = odd
    assert len(vm) == 3000 and 5000 in vm and 4999 not in vm
    assert vm[5000] is odd
    for i, v in vecs.items():
        assert vm[i].dtype == np.float32 and vm[i].tobytes() == v.tobytes()
    assert vm.matrix.shape == (2999, 8) and vm.matrix.dtype == np.float32
    assert vm.ids.tolist() == list(range(1, 3000))
    assert np.array_equal(vm.matrix[vm.rows_of([7, 3])], np.stack([vecs[7], vecs[3]]))
    vm[7] = vecs[8]  # a vector replaced: the new one is read
    assert vm[7].tobytes() == vecs[8].tobytes()
    with pytest.raises(VillageError, match="never embedded"):
        engine.VectorsProjection().vector(3)


def _tables(db: Path) -> dict:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall()
                for t in ("memory", "events", "villagers", "meta", "felt_state")}
    finally:
        con.close()


def _meta_without_file(tables: dict) -> dict:
    return {k: v for k, v in tables["meta"] if k != "log_file"}


def test_a_run_with_index_writes_the_index_village_index_writes(tmp_path):
    runner = CliRunner()
    res = runner.invoke(cli, ["run", "day-of-three", "--oracle", "replay", "--index",
                              "--out", str(tmp_path / "a.log")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "a.duckdb").exists() and "index" in res.output
    (tmp_path / "b.log").write_bytes((tmp_path / "a.log").read_bytes())
    res = runner.invoke(cli, ["index", str(tmp_path / "b.log")])
    assert res.exit_code == 0, res.output
    a, b = _tables(tmp_path / "a.duckdb"), _tables(tmp_path / "b.duckdb")
    for t in ("memory", "events", "villagers", "felt_state"):
        assert a[t] == b[t], t
    assert _meta_without_file(a) == _meta_without_file(b)
    rules, digest = msc.load_rules(), msc.rules_digest()
    assert store.state_of(tmp_path / "a.log", rules_digest=digest).status == "fresh"
    res = runner.invoke(cli, ["sql", str(tmp_path / "a.log"), "SELECT count(*) AS n FROM memory"])
    assert res.exit_code == 0 and "rebuilt" not in res.output, res.output
    assert str(len(engine.memory_of(tmp_path / "a.log", rules=rules).rows)) in res.output


def test_a_runs_index_takes_the_engines_rows_and_felt_state_and_writes_village_indexs(tmp_path):
    sys.path.insert(0, str(Path(__file__).parent))
    from felt_scenario import answer, make

    from kernel.engine.felt import valences_of
    from kernel.store.index import RunIndex
    from kernel.testing import ScriptedOracle

    sc = msc.load(make(tmp_path / "felt", days=2))
    val = valences_of(dict(sc.files)["importance"])
    idx = RunIndex(sc.rules, rules_digest=sc.rules_digest, valences=val,
                   ticks_per_day=sc.world.ticks_per_day)
    seen: list = []
    report = engine.run(sc, ScriptedOracle([answer] * 10_000, dim=64), tmp_path / "a.log",
                        projections=[idx], on_round=seen.append)
    # perception is folded once: the index reads the engine's own memory and felt state (its
    # bond tables fold the engine's rows too)
    assert seen and idx.parts == [idx.events, idx.bonds] and idx.ticks == report.ticks
    idx.write(tmp_path / "a.log", head_hex=report.head_hex, ticks=report.ticks)
    store.build(tmp_path / "a.log", tmp_path / "b.duckdb", rules=sc.rules,
                rules_digest=sc.rules_digest, valences=val, ticks_per_day=sc.world.ticks_per_day)
    a, b = _tables(tmp_path / "a.duckdb"), _tables(tmp_path / "b.duckdb")
    assert a["felt_state"] and any(r[7] is not None or r[6] is not None for r in a["felt_state"])
    for t in ("memory", "events", "villagers", "felt_state", "meta"):
        assert a[t] == b[t], t


def test_a_world_run_with_index_writes_a_fresh_index(tmp_path):
    runner = CliRunner()
    out = tmp_path / "w.log"
    res = runner.invoke(cli, ["world", "run", "--ticks", "300", "--index", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert store.state_of(out, rules_digest=msc.rules_digest()).status == "fresh"
    built = store.build(out, tmp_path / "again.duckdb", rules=msc.load_rules(),
                        rules_digest=msc.rules_digest())
    a, b = _tables(tmp_path / "w.duckdb"), _tables(tmp_path / "again.duckdb")
    assert built.memory_rows == len(a["memory"]) > 0
    for t in ("memory", "events", "villagers"):
        assert a[t] == b[t], t
    assert _meta_without_file(a) == _meta_without_file(b)


def test_the_index_tables_hold_the_reference_rows_and_the_codecs_fields(scenario_logs, tmp_path):
    import json

    sc, log = scenario_logs["village-day"]      # a world in no words: the reference words it
    store.build(log, tmp_path / "i.duckdb", rules=sc.rules)
    frames = [(t.tick, t.events) for t in read_ticks(log)]
    want, _ = _both(frames, sc.rules)
    con = duckdb.connect(str(tmp_path / "i.duckdb"), read_only=True)
    try:
        got = con.execute("SELECT id, villager, tick, kind, event, text, weight, about, drawn_from "
                          "FROM memory ORDER BY id").fetchall()
        fields = [r[0] for r in con.execute("SELECT fields FROM events ORDER BY tick, seq").fetchall()]
    finally:
        con.close()
    assert got == [(m.id, m.villager, m.tick, m.kind, m.event, m.text, m.weight, list(m.about),
                    list(m.drawn_from)) for m in want]
    codec = []
    for _, events in frames:
        for e in events:
            m = ev.to_map(e)
            m.pop("kind")
            codec.append(json.dumps(m, sort_keys=True, separators=(",", ":"), ensure_ascii=False))
    assert fields == codec
