"""Basins and plans seen: the index's tables, the report's section and `village plot --what basins`,
each of a small run with basins and plans recorded against a scripted oracle
(tests/basins_scenario.py), and of runs with none."""

from __future__ import annotations

import re

import duckdb
import pytest
from click.testing import CliRunner

from kernel import engine, store
from kernel import events as ev
from kernel.cli import main
from kernel.log import read_ticks
from kernel.mind.basins import BasinBook
from kernel.mind.plans import PlanBook
from kernel.report.day import day
from kernel.report.html import render
from kernel.report.plans import effect
from tests.basins_scenario import BASINS, REFUSED, make, record
from tests.unit.test_plot import HEIGHT, WIDTH, png_size


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The basins scenario recorded: (scenario, its log)."""
    d = tmp_path_factory.mktemp("basins")
    sc = record(make(d / "three-basins"), d / "three-basins.json", d / "three-basins.log")
    return sc, d / "three-basins.log"


def _build(sc, log, db):
    return store.build(log, db, rules=sc.rules, rules_digest=sc.rules_digest,
                       ticks_per_day=sc.world.ticks_per_day).db_path


def _rows(db, sql):
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def _books(log):
    book, plans = BasinBook(), PlanBook()
    engine.fold(log, [book, plans])
    return book, plans


# --- the index ----------------------------------------------------------------------------------

def test_the_index_holds_each_nights_entropy_and_trajectory_as_the_book_of_basins_folds_them(
        run, tmp_path):
    sc, log = run
    db = _build(sc, log, tmp_path / "i.duckdb")
    book, _ = _books(log)
    tpd = sc.world.ticks_per_day
    want = sorted((v, r.tick, r.tick // tpd, r.entropy, r.trajectory, len(r.weights))
                  for v, rs in book.readings.items() for r in rs)
    got = _rows(db, "SELECT villager, tick, day, entropy, trajectory, basins FROM basin_nights "
                    "ORDER BY villager, tick")
    assert want and got == want
    names = dict(_rows(db, "SELECT id, name FROM villagers"))
    assert {(v, n) for v, n in _rows(db, "SELECT villager, name FROM basin_nights")} <= set(
        names.items())
    # one night refused whole: nothing moved, so it has no row
    assert (3, 399) not in {(v, t) for v, t, *_ in got} and REFUSED == ("Mose", 2)


def test_the_index_holds_every_basins_weight_after_each_night_it_moved(run, tmp_path):
    sc, log = run
    db = _build(sc, log, tmp_path / "i.duckdb")
    book, _ = _books(log)
    want = sorted((v, r.tick, slug, w) for v, rs in book.readings.items() for r in rs
                  for slug, w in r.weights)
    got = _rows(db, "SELECT villager, tick, slug, weight FROM basins ORDER BY ALL")
    assert got == want
    labels = {lab for labs in BASINS.values() for lab in labs}
    assert {lab for (lab,) in _rows(db, "SELECT DISTINCT label FROM basins")} <= labels
    assert all(0.05 <= w <= 1.0 for *_, w in got)


def test_the_index_holds_every_accepted_plan_with_whom_or_where_it_names(run, tmp_path):
    sc, log = run
    db = _build(sc, log, tmp_path / "i.duckdb")
    names = {p.id: p.name for p in sc.world.people}
    want = [(t.tick, e.villager, names[e.villager], e.day, e.index, e.act, e.whom,
             names.get(e.whom), e.x, e.y)
            for t in read_ticks(log) for e in t.events if isinstance(e, ev.Planned)]
    got = _rows(db, "SELECT tick, villager, name, day, index, act, whom, whom_name, x, y "
                    "FROM intentions ORDER BY tick, villager, index")
    assert want and got == want


def test_a_runs_index_and_village_index_write_the_same_basins_tables(run, tmp_path):
    from kernel.oracle import make as make_oracle
    sc, log = run
    out = tmp_path / "again.log"
    idx = store.run_index(sc, out)
    rep = engine.run(sc, make_oracle("replay", replay_from=sc.exemplars), out, projections=[idx])
    assert rep.head_hex == sc.head_sha256
    idx.write(out, head_hex=rep.head_hex, ticks=rep.ticks)
    built = _build(sc, log, tmp_path / "b.duckdb")
    for t in ("basins", "basin_nights", "intentions"):
        assert _rows(out.with_suffix(".duckdb"), f"SELECT * FROM {t} ORDER BY ALL") == \
            _rows(built, f"SELECT * FROM {t} ORDER BY ALL"), t


def test_a_run_without_basins_has_the_basins_tables_and_they_are_empty(log):
    db = store.build(log, rules=engine.load_rules(), rules_digest=engine.rules_digest()).db_path
    for t in ("basins", "basin_nights", "intentions"):
        assert _rows(db, f"SELECT count(*) FROM {t}") == [(0,)], t


def test_a_basins_event_the_basins_laws_refuse_is_left_out_of_the_tables_not_the_events():
    from kernel.store.index import IndexProjection

    idx = IndexProjection()
    odd = ev.BasinsMoved(villager=1, rule="", basins=(), deltas=(), added=(), removed=(),
                         born="", born_keywords=(), linked_from=(), linked_to=(), emerging=(),
                         phase_shift=False)
    idx.apply(0, [ev.BasinsSeeded(villager=1, labels=("?",)), odd])
    assert idx.kind == ["basins_seeded", "basins_moved"]
    assert {k: t.num_rows for k, t in idx.mind_tables().items()} == {
        "basins": 0, "basin_nights": 0, "intentions": 0}


def test_sql_reads_the_basins_tables(run, tmp_path):
    sc, log = run
    copy = tmp_path / "run.log"
    copy.write_bytes(log.read_bytes())
    r = CliRunner().invoke(main, ["sql", str(copy), "--importance", str(dict(sc.files)["importance"]),
                                  "SELECT name, count(*) AS nights FROM basin_nights "
                                  "GROUP BY name ORDER BY name"])
    assert r.exit_code == 0, r.output
    assert re.search(r"Ander\s+3\b", r.output) and re.search(r"Mose\s+2\b", r.output)


# --- the report ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def seen(run):
    sc, log = run
    return day(sc.folder)


def test_the_report_shows_each_villagers_basins_as_the_book_of_basins_holds_them(run, seen):
    sc, log = run
    book, _ = _books(log)
    b = seen.basins
    assert b is not None and [v.name for v in b.villagers] == ["Halla", "Ander", "Mose"]
    for v in b.villagers:
        assert [ln.label for ln in v.lines] == BASINS[v.name]
        assert v.seeded == 0 and all(ln.x[0] == 0 and ln.y[0] == 0.5 for ln in v.lines)
        last = book.readings[v.villager][-1]
        assert [(ln.slug, ln.y[-1]) for ln in v.lines] == list(last.weights)
        moved = [n for n in v.nights if n.outcome == "moved"]
        assert [(n.tick, n.entropy, n.trajectory) for n in moved] == [
            (r.tick, r.entropy, r.trajectory) for r in book.readings[v.villager]]


def test_a_night_refused_whole_says_why_and_moves_nothing(seen):
    mose = next(v for v in seen.basins.villagers if v.name == REFUSED[0])
    (n,) = [n for n in mose.nights if n.outcome == "refused whole"]
    assert n.day == REFUSED[1] and n.entropy is None and n.moved == ()
    assert n.refused and n.refused[0].startswith("shaped: ")
    assert all(n.tick not in ln.x for ln in mose.lines)


def test_each_plan_shows_what_became_of_it_as_the_ablation_measures(run, seen):
    sc, log = run
    e = effect(sc, log, from_day=1)
    shown = [(v.villager, p.day - 1, i.act, i.target, i.kept, i.ignored)
             for v in seen.basins.villagers for p in v.plan_days for i in p.plans
             if i.kept is not None]
    assert sorted(shown) == sorted((o.villager, o.day, o.act, o.target, o.kept, o.ignored)
                                   for o in e.outcomes)
    assert [(t.act, t.plans, t.kept, t.ignored) for t in seen.basins.totals] == [
        (a, n, k, i) for a, _, n, k, i in e.totals()]
    # the last night's plan is for a day the run never reached
    last = [p for v in seen.basins.villagers for p in v.plan_days if p.day == 4]
    assert last and all(i.kept is None for p in last for i in p.plans)


def test_the_page_draws_a_line_a_basin_a_row_a_night_and_a_row_a_plan(seen):
    page = render(seen)
    b = seen.basins
    assert page.count('<section id="basins"') == 1 and 'href="#basins"' in page
    assert len(re.findall(r'<path class="basin"', page)) == sum(len(v.lines) for v in b.villagers)
    assert len(re.findall(r'<tr class="basin-night"', page)) == sum(len(v.nights)
                                                                    for v in b.villagers)
    assert len(re.findall(r'<tr class="intention"', page)) == b.plans > 0
    assert len(re.findall(r'<tr class="effect"', page)) == len(b.totals) > 0
    seek = next(t for t in b.totals if t.act == "seek")
    assert f"spent {seek.ratio:.2f} times as many ticks in sight" in page


def test_a_run_without_basins_or_plans_has_no_basins_section(world_run):
    d = day(world_run)
    assert d.basins is None
    page = render(d)
    assert 'id="basins"' not in page and "svg.basins" not in page


def test_a_log_whose_scenario_is_not_in_the_home_shows_its_basins_and_says_plans_went_unmeasured(
        run):
    _, log = run
    b = day(log).basins
    assert b is not None and [len(v.lines) for v in b.villagers] == [2, 3, 2]
    assert b.totals == () and "scenario was not found" in b.note


# --- the plot -----------------------------------------------------------------------------------

def test_a_basins_figure_is_a_valid_png_of_the_expected_size(run, tmp_path):
    sc, _ = run
    out = tmp_path / "b.png"
    r = CliRunner().invoke(main, ["plot", str(sc.folder), "--what", "basins", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert png_size(out.read_bytes()) == (WIDTH, HEIGHT)
    assert "7 basins of 3 villagers" in r.output
    r = CliRunner().invoke(main, ["plot", str(sc.folder), "--what", "basins", "--who", "ander",
                                  "--out", str(tmp_path / "a.png")])
    assert r.exit_code == 0 and "3 basins of Ander" in r.output, r.output


def test_basins_of_a_run_where_nobody_holds_basins_are_one_line_saying_why(world_run, tmp_path):
    out = tmp_path / "b.png"
    r = CliRunner().invoke(main, ["plot", str(world_run), "--what", "basins", "--out", str(out)])
    assert r.exit_code == 1 and "no basins to plot" in r.output
    assert len(r.output.strip().splitlines()) == 1 and not out.exists()


def test_basins_of_a_villager_who_holds_none_are_one_line_naming_who_does(run, tmp_path):
    sc, _ = run
    r = CliRunner().invoke(main, ["plot", str(sc.folder), "--what", "basins", "--who", "Nobody",
                                  "--out", str(tmp_path / "n.png")])
    assert r.exit_code == 1 and "'Nobody' is none of Halla, Ander, Mose" in r.output
