"""A villager's temperament in a run: each of its rows is born with its valence and strength
bent by the laws (EmoStack row 60), thoughts included, in the projection, in a round's scratch
book and in the index alike; a neutral temperament, or none, is born as today."""

from __future__ import annotations

import json

import pytest
from felt_scenario import answer, make

from kernel import engine
from kernel import events as ev
from kernel.engine import scenario as msc
from kernel.engine.felt import FeltProjection, felt_of, temperaments_of
from kernel.errors import VillageError
from kernel.laws import felt as lf
from kernel.log import read_ticks
from kernel.mind.felt import FeltBook
from kernel.testing import ScriptedOracle
from kernel.world.config import Temperament

# Halla leans bright and feels strongly, Ander leans dark and feels faintly, Mose has none.
TEMPERS = {"Halla": {"valence_bias": 0.6, "intensity_amplification": 2.0},
           "Ander": {"valence_bias": -0.4, "intensity_amplification": 0.5}}
BENT = {1: Temperament(600, 2000), 2: Temperament(-400, 500)}


def tempered(folder, tempers=TEMPERS):
    """The small felt scenario with these temperaments (by name) written into its world."""
    make(folder, days=2)
    world = json.loads((folder / "world.json").read_text())
    for v in world["villagers"]:
        if v["name"] in tempers:
            v["temperament"] = tempers[v["name"]]
    (folder / "world.json").write_text(json.dumps(world))
    return msc.load(folder)


def run(sc, log):
    engine.run(sc, ScriptedOracle([answer] * 10_000, dim=64), log, projections=[])
    mem = engine.MemoryProjection(sc.rules)
    felt = felt_of(sc).follow(mem)
    engine.fold(log, [mem, felt])
    return mem, felt


@pytest.fixture(scope="module")
def bent_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("temper")
    sc = tempered(d / "temper")
    mem, felt = run(sc, d / "temper.log")
    return sc, mem, felt, d / "temper.log"


def born_as(sc, mem, temperaments):
    """Each row's (intensity, valence) at birth, by the laws, in id order."""
    out: dict[int, tuple[int, int]] = {}
    for m in mem.rows:
        if m.kind == "thought":
            val = lf.mean_valence(out[c][1] for c in m.drawn_from)
        else:
            val = sc.valences.of_row(m.villager, m.kind, m.event, m.about)
        intensity = m.weight * 100
        t = temperaments.get(m.villager)
        if t is not None:
            val = lf.bent_valence(val, t.valence_bias)
            intensity = lf.bent_strength(intensity, t.intensity_amplification)
        out[m.id] = (intensity, val)
    return out


def test_the_world_configs_temperaments_reach_the_felt_projection_only_where_not_neutral(
        bent_run):
    sc, _, felt, _ = bent_run
    assert temperaments_of(sc.world) == BENT
    assert felt.temperaments == BENT


def test_a_villager_with_a_temperament_is_born_with_its_rows_bent_thoughts_included(bent_run):
    sc, mem, felt, _ = bent_run
    want = born_as(sc, mem, BENT)
    got = {i: (r.intensity, r.valence) for i, r in felt.rows.items()}
    assert got == want
    kinds = {(m.villager, m.kind) for m in mem.rows}
    assert {(1, "thought"), (2, "thought"), (3, "thought")} <= kinds
    plain = born_as(sc, mem, {})
    # Halla's rows are born stronger and brighter, Ander's fainter and darker, Mose's as today
    for m in mem.rows:
        (ti, tv), (pi, pv) = want[m.id], plain[m.id]
        if m.villager == 1 and m.kind != "thought":
            assert ti >= pi and tv >= pv
        elif m.villager == 2 and m.kind != "thought":
            assert ti <= pi and tv <= pv
        elif m.villager == 3:
            assert (ti, tv) == (pi, pv)
    assert any(want[m.id] != plain[m.id] for m in mem.rows if m.villager == 1)
    assert any(want[m.id] != plain[m.id] for m in mem.rows if m.villager == 2)


def test_a_thoughts_valence_is_the_mean_of_its_citations_bent_once_at_its_birth(bent_run):
    _, mem, felt, _ = bent_run
    thoughts = [m for m in mem.rows if m.kind == "thought" and m.villager in BENT]
    assert thoughts
    for m in thoughts:
        t = BENT[m.villager]
        mean = lf.mean_valence(felt.rows[c].valence for c in m.drawn_from)
        assert felt.rows[m.id].valence == lf.bent_valence(mean, t.valence_bias)
        assert felt.rows[m.id].intensity == lf.bent_strength(m.weight * 100,
                                                             t.intensity_amplification)


def test_a_rounds_scratch_book_bears_each_row_as_the_projection_does(bent_run):
    sc, mem, felt, _ = bent_run
    empty = FeltProjection(sc.valences, sc.world.ticks_per_day, temperaments=BENT)
    book = empty.scratch([1, 2, 3], 0, seen=mem.rows)
    assert book.temperaments == BENT
    assert ({i: (r.intensity, r.valence) for i, r in book.rows.items()}
            == {i: (r.intensity, r.valence) for i, r in felt.rows.items()})


def test_a_re_felt_row_closes_toward_its_thoughts_bent_intensity(bent_run):
    _, mem, felt, log = bent_run
    refelt = [e for t in read_ticks(log) for e in t.events if isinstance(e, ev.Refelt)]
    assert any(e.villager in BENT for e in refelt)
    for e in refelt:
        assert e.stored == lf.reconsolidate(e.fallen, felt.rows[e.by].intensity)


def test_folding_a_tempered_log_again_gives_the_felt_state_the_live_run_held(tmp_path):
    sc = tempered(tmp_path / "live")
    held = {}

    def grab(en, ts, so_far):
        held.setdefault("engine", en)
        return ()

    engine.run(sc, ScriptedOracle([answer] * 10_000, dim=64), tmp_path / "live.log",
               phases=(("grab", grab), *engine.FEATURES))
    mem = engine.MemoryProjection(sc.rules)
    felt = felt_of(sc).follow(mem)
    engine.fold(tmp_path / "live.log", [mem, felt])
    assert felt.snapshot() == held["engine"].books["felt"].snapshot()


def test_a_neutral_temperament_gives_the_same_events_and_felt_state_as_none(tmp_path):
    neutral = {n: {"valence_bias": 0, "intensity_amplification": 1}
               for n in ("Halla", "Ander", "Mose")}
    sc_n = tempered(tmp_path / "neutral", neutral)
    sc_0 = tempered(tmp_path / "none", {})
    assert [p.temperament.neutral for p in sc_n.world.people] == [True, True, True]
    assert temperaments_of(sc_n.world) == {}
    _, felt_n = run(sc_n, tmp_path / "neutral.log")
    _, felt_0 = run(sc_0, tmp_path / "none.log")
    frames = [[(t.tick, t.events) for t in read_ticks(tmp_path / f"{n}.log")]
              for n in ("neutral", "none")]
    assert frames[0] == frames[1]
    assert felt_n.snapshot() == felt_0.snapshot()


def test_a_neutral_temperament_handed_to_a_book_is_left_out_and_changes_no_birth(bent_run):
    sc, mem, _, _ = bent_run
    book = FeltBook(sc.valences, sc.world.ticks_per_day,
                    temperaments={1: Temperament(), 2: Temperament(0, 1000)})
    assert book.temperaments == {}
    for m in mem.rows:
        book.born(m)
    assert ({i: (r.intensity, r.valence) for i, r in book.rows.items()}
            == born_as(sc, mem, {}))


@pytest.mark.parametrize(("temper", "named"), [
    (Temperament(valence_bias=lf.BIAS_MOST + 1), "villager 1's valence_bias"),
    (Temperament(intensity_amplification=0), "villager 1's intensity_amplification"),
])
def test_a_temperament_out_of_the_laws_range_is_refused_when_the_book_is_made(bent_run, temper,
                                                                              named):
    sc = bent_run[0]
    with pytest.raises(VillageError, match=named):
        FeltBook(sc.valences, sc.world.ticks_per_day, temperaments={1: temper})


def test_the_index_rebuilt_from_a_tempered_log_holds_the_bent_births(bent_run, tmp_path):
    from kernel import store

    sc, _, felt, log = bent_run
    res = store.build(log, tmp_path / "i.duckdb", rules=sc.rules, valences=sc.valences,
                      ticks_per_day=sc.world.ticks_per_day, temperaments=temperaments_of(sc.world))
    q = store.query(res.db_path, "SELECT id, intensity, valence FROM felt ORDER BY id")
    got = {int(i): (round(float(s) * 1000), round(float(v) * 1000)) for i, s, v in q.rows}
    assert got == {i: (r.intensity, r.valence) for i, r in felt.rows.items()}
