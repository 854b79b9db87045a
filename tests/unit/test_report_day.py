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
def three_log(tmp_path_factory):
    from kernel.oracle import make
    sc = engine.load_scenario("day-of-three")
    p = tmp_path_factory.mktemp("three") / "three.log"
    engine.run(sc, make("replay", replay_from=sc.exemplars), p)
    return p


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
    from kernel import report
    rp = report.replay(engine.load_scenario("day-of-three"))
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
    assert shipped == {"day.html.j2", "parts.html.j2", "day.css", "day.js"}
    for name in shipped:
        assert any(Path(name).match(pat.split("/")[-1]) for pat in data), name
