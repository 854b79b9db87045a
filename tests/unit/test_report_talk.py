"""The report's conversations and news: every utterance with its words, who heard them and the
lines they drew on, and each piece of news's curve, tree and attendance; a run with no words
and no given news shows neither section."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from kernel import config, engine
from kernel.report.day import day
from kernel.report.html import render
from tests.news_logs import founded, importance_file, meet, news, perceived, say, walk, write_log

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def talk_home(tmp_path, monkeypatch):
    """A project home whose importance table weighs words and given rows (the shipped one does not)."""
    home = tmp_path / "home"
    (home / "configs").mkdir(parents=True)
    shutil.copyfile(REPO / "configs" / "world.json", home / "configs" / "world.json")
    shutil.copyfile(importance_file(tmp_path), home / "configs" / "importance.json")
    monkeypatch.setenv("VILLAGE_HOME", str(home))
    config.set_home(None)
    yield home
    config.set_home(None)


def _frames():
    frames = [(0, [*founded((0, 0), (1, 0), (2, 0)), news(1, x=3, y=3, day=1), *meet(1, 2),
                   *meet(2, 3)])]
    given_row = next(m.id for m in perceived(frames) if m.kind == "given")
    return frames + [
        (5, [say(1, 2, "come to the mill tomorrow", (given_row,)),
             say(2, 1, "I will come", (), True)]),
        (9, [say(1, 3, "a feast!")]),                       # Knut is not in Ander's sight
        (2100, [say(2, 3, "there is a FEAST at 3,3", (9999,))]),
        (2300, [walk(3, 3, 3)]),
    ]


@pytest.fixture
def talk_day(talk_home, tmp_path):
    return day(write_log(tmp_path / "talk.log", _frames()))


def test_the_report_shows_every_utterance_with_who_heard_it_and_what_it_drew_on(talk_day):
    said = talk_day.conversations
    assert [(u.tick, u.speaker_name, u.listener_name, u.reply, u.heard) for u in said] == [
        (5, "Ander", "Brita", False, True), (5, "Brita", "Ander", True, True),
        (9, "Ander", "Knut", False, False), (2100, "Brita", "Knut", False, True)]
    assert [(r.id, r.text) for r in said[0].drawn] == [(said[0].drawn[0].id, "there is a feast")]
    assert [(r.id, r.text) for r in said[3].drawn] == [(9999, None)]
    assert said[0].news == ("feast",) and said[1].news == ()


def test_the_report_shows_each_news_curve_tree_and_attendance(talk_day):
    (n,) = talk_day.news
    assert (n.news, n.per_day, n.villagers, n.holders, n.unheld) == ("feast", (2, 3), 3, 3, 0)
    (root,) = n.tree
    assert (root.name, root.by) == ("Ander", "given")
    assert [(k.name, k.by, k.day) for k in root.told] == [("Brita", "cited", 1)]
    assert [(k.name, k.by, k.day) for k in root.told[0].told] == [("Knut", "words", 2)]
    assert (n.place, n.reached, n.there_holding, n.there_not) == ("3,3 on day 2", True,
                                                                  ("Knut",), ())


def test_the_page_draws_the_conversations_and_the_news(talk_day):
    page = render(talk_day)
    assert 'id="conversations"' in page and 'id="news"' in page
    assert len(re.findall(r'<tr class="said', page)) == 4
    assert len(re.findall(r'<tr class="said unheard"', page)) == 1
    assert "no row with this id in the run" in page
    assert '<svg class="news-curve"' in page
    assert len(re.findall(r'<circle data-day="\d+" data-holders="\d+"', page)) == 2
    assert len(re.findall(r'<li data-villager="\d+" data-by="', page)) == 3
    assert "At 3,3 on day 2: 1 villager stood there" in page
    assert 'href="#conversations"' in page and 'href="#news"' in page


def test_a_run_without_words_or_news_shows_neither_section(tmp_path):
    p = tmp_path / "world.log"
    engine.run(engine.load_scenario("village-day"), None, p)
    d = day(p)
    assert d.conversations == () and d.news == ()
    page = render(d)
    for gone in ('id="conversations"', 'id="news"', "news-curve", "table.said", 'href="#news"'):
        assert gone not in page
