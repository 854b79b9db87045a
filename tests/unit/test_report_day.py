"""The report's data and its page: what `village report` computes from a run, and renders."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from kernel import engine
from kernel.log import read_events
from kernel.report.day import day
from kernel.report.html import render

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def three():
    return day("day-of-three")


@pytest.fixture(scope="module")
def three_log(replayed_log):
    return replayed_log("day-of-three")


def test_a_scenarios_report_is_the_report_of_its_replay(three, three_log):
    from_log = day(three_log)
    assert three.header.head_hex == from_log.header.head_hex
    assert three.header.config_digest == from_log.header.config_digest
    assert len(three.thoughts) == len(from_log.thoughts)
    assert [r.rows for r in three.retrievals] == [r.rows for r in from_log.retrievals]


def test_the_report_has_every_thought_and_refusal_the_log_has(three, three_log):
    kinds = [e.kind for _, e in read_events(three_log)]
    assert len(three.thoughts) == kinds.count("thought")
    assert three.refusal_count == kinds.count("refusal")
    assert three.header.events == len(kinds)


def test_every_villager_has_one_trail_and_one_timeline(three):
    people = [p.id for p in three.header.people]
    assert [t.villager for t in three.map.trails] == people
    assert [t.villager for t in three.timelines] == people
    assert all(t.points and t.points[0][0] == 0 for t in three.map.trails)


def test_the_retrieval_tables_are_the_ones_the_reflect_mode_shows(three):
    from kernel.engine.replay import replay
    rp = replay(engine.load_scenario("day-of-three"))
    shown = [(x.memory.id, x.score) for rnd in rp.report.rounds for r in rnd.reflections
             for s in r.statements for x in s.ranked]
    assert [(x.id, x.score) for s in three.retrievals for x in s.rows] == shown
    assert three.retrieval_note is None


def test_the_cost_of_every_call_is_the_recordings(three):
    from kernel.oracle import exemplar
    doc = exemplar.load(engine.load_scenario("day-of-three").exemplars)
    assert [round(c.took_s * 1e9) for c in three.calls] == [c["took_ns"] for c in doc["calls"]]
    assert sum(r.calls for r in three.rounds) == len(three.calls)


def test_a_log_without_its_recording_says_why_the_retrieval_is_empty(tmp_path):
    p = tmp_path / "world.log"
    engine.run(engine.load_scenario("village-day"), None, p)
    d = day(p)
    assert d.retrievals == () and d.calls == ()
    assert "nobody reflects" in d.retrieval_note
    page = render(d)
    assert "nobody reflects" in page


def test_the_page_holds_one_element_per_thought_and_one_path_per_villager(three):
    page = render(three)
    assert len(re.findall(r'<article class="thought"', page)) == len(three.thoughts)
    assert len(re.findall(r'<path class="trail"', page)) == len(three.header.people)
    assert len(re.findall(r'<tr class="refusal"', page)) == three.refusal_count


def test_the_page_fetches_nothing(three):
    page = render(three)
    assert not re.search(r'(src|href)="(https?:)?//', page)
    assert "@import" not in page and "url(" not in page


def test_the_templates_ship_in_the_wheel_as_package_data():
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())
    data = conf["tool"]["setuptools"]["package-data"]["kernel.report"]
    shipped = {p.name for p in (ROOT / "kernel/report/templates").iterdir()}
    assert shipped == {"day.html.j2", "parts.html.j2", "talk.html.j2", "day.css", "day.js",
                       "bonds.html.j2", "bonds.css", "interview.html.j2"}
    for name in shipped:
        assert any(Path(name).match(pat.split("/")[-1]) for pat in data), name


@pytest.fixture(scope="module")
def week_log(replayed_log):
    return replayed_log("week-of-three")


@pytest.fixture(scope="module")
def week(week_log):
    return day(week_log)


def test_the_felt_sections_nights_add_up_to_what_the_night_mode_counts(week):
    from kernel.report import felt as rf
    c = rf.counts(rf.felt_run(engine.load_scenario("week-of-three")))
    n = week.felt.nights
    assert week.felt.note is None and week.felt.nights_note is None
    assert sum(x.forgotten for x in n) == c["forgotten"] > 0
    assert sum(x.refelt for x in n) == c["refelt"]
    assert sum(x.recurred for x in n) == c["recurred"]
    assert sum(x.absorbed for x in n) == c["absorbed"]
    assert sum(x.accepted for x in n) == c["groups accepted"]
    assert sum(x.refused for x in n) == c["groups refused"]
    assert sum(x.plan != "not asked" for x in n) == c["plans"]
    assert sum(x.plan == "refused whole" for x in n) == c["plans refused"]


def test_the_felt_section_draws_the_strength_series_the_plot_draws(week, week_log):
    from kernel.report import plots
    sc = engine.load_scenario("week-of-three")
    assert week.felt.strengths == plots.strengths(plots.OpenRun(week_log, sc))
    assert [v.name for v in week.felt.strengths] == ["Halla", "Ander", "Mose"]


def test_the_page_draws_one_strength_curve_and_one_key_row_per_plotted_row(week):
    page = render(week)
    assert len(re.findall(r'<path class="strength"', page)) == week.felt.curves > 0
    assert len(re.findall(r'<tr class="curve"', page)) == week.felt.curves
    assert len(re.findall(r'<tr class="night"', page)) == len(week.felt.nights) == 21


def test_a_run_without_felt_memory_says_why_its_felt_section_is_empty(tmp_path):
    p = tmp_path / "world.log"
    engine.run(engine.load_scenario("village-day"), None, p)
    d = day(p)
    assert d.felt.strengths == () and d.felt.nights == ()
    assert "a world run has no felt memory" in d.felt.note
    page = render(d)
    assert "There is no felt strength to show: nobody reflects" in page
    assert '<path class="strength"' not in page


@pytest.fixture
def counted(monkeypatch):
    """How many engines a call makes (one a run) and how many logs it folds from disk."""
    from kernel.engine import projection
    from kernel.engine.run import Engine

    n = {"runs": 0, "folds": 0}
    made, reads = Engine.__init__, projection.read_ticks

    def engine(self, *a, **kw):
        n["runs"] += 1
        made(self, *a, **kw)

    def read_ticks(*a, **kw):
        n["folds"] += 1
        return reads(*a, **kw)

    monkeypatch.setattr(Engine, "__init__", engine)
    monkeypatch.setattr(projection, "read_ticks", read_ticks)
    return n


def _views():
    from kernel import report
    from kernel.cli.run_cmd import replay_one
    from kernel.report import felt as rf
    from kernel.report import plots, scenarios

    sc = engine.load_scenario("day-of-three")
    scenario = plots.OpenRun(None, sc)
    return {
        "the day's report": lambda tmp: day(sc),
        "the felt and night modes": lambda tmp: rf.felt_run(sc, until=1500),
        "the refuse mode": lambda tmp: report.refusals(sc, None),
        "the chain mode": lambda tmp: report.chain(sc, 1),
        "the rows plot": lambda tmp: plots.rows(scenario),
        "the strengths plot": lambda tmp: plots.strengths(scenario),
        "the refusals plot": lambda tmp: plots.refusals(scenario),
        "the scenarios table": lambda tmp: scenarios.row_of(sc),
        "village replay": lambda tmp: replay_one("day-of-three", tmp, echo=lambda *a: None),
    }


@pytest.mark.parametrize("view", list(_views()))
def test_a_view_replays_a_scenario_once_and_folds_its_projections_while_it_runs(view, counted,
                                                                                 tmp_path):
    _views()[view](tmp_path)
    assert counted == {"runs": 1, "folds": 0}


@pytest.mark.slow    # a week replayed and its interviews asked again: about 10 s
def test_a_scenarios_report_with_committed_interviews_replays_it_once_and_asks_them_of_that_log(
        counted):
    d = day(engine.load_scenario("week-of-three"))
    assert counted["runs"] == 1
    assert d.interviews is not None and d.interviews_note is None


def test_a_logs_report_replays_its_recorded_run_once_and_never_folds_the_log(three_log,
                                                                             counted):
    d = day(three_log)
    assert counted == {"runs": 1, "folds": 0}
    assert d.retrieval_note is None and d.map.food


def test_a_log_no_scenario_runs_under_is_folded_once_and_never_replayed(tmp_path, counted):
    from kernel.log import LogWriter, read_ticks
    world = tmp_path / "world.log"
    engine.run(engine.of_world("world", ticks=30), None, world)
    # the same frames under a config digest no scenario of the home has
    odd = tmp_path / "odd.log"
    w = LogWriter.create(odd, config_digest="0" * 64, seed=1, ticks_per_day=2000)
    for t in read_ticks(world):
        w.append(t.tick, t.events)
    w.close()
    counted.update(runs=0, folds=0)
    d = day(odd)
    assert counted == {"runs": 0, "folds": 1}
    assert "no scenario of this home" in d.retrieval_note and len(d.header.people) == 3
