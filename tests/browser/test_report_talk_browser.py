"""The conversations, bonds and news of the committed talking village in headless Chromium.

The report is `village report village-of-eight`, replayed from its recording. The page must
show one row an utterance the log holds (its words, who heard them and what they drew on), a
bond graph for each day with an edge per ordered pair whose bond ended the day other than 0,
and the news's curve and tree with one holder a villager that came to hold it; and log no
console error. Its screenshot of the bonds must not be blank.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from kernel import engine
from kernel import events as ev
from kernel.cli import main
from kernel.engine import scenario as msc
from kernel.engine.projection import MemoryProjection
from kernel.log import read_ticks
from kernel.mind.bonds import BondBook
from kernel.oracle import make
from kernel.report.talk import diffusion_of
from tests.browser.test_report_browser import colours

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def browser():
    from tests.browser.cdp import Browser
    with Browser(width=1280, height=900) as b:
        yield b


@pytest.fixture(scope="module")
def replayed(tmp_path_factory):
    d = tmp_path_factory.mktemp("eight")
    sc = msc.load("village-of-eight")
    log = d / "eight.log"
    engine.run(sc, make("replay", replay_from=sc.exemplars), log)
    page = d / "eight.html"
    r = CliRunner().invoke(main, ["report", "village-of-eight", "--out", str(page)])
    assert r.exit_code == 0, r.output
    return sc, log, page


def test_every_utterance_of_the_talking_village_is_a_row_with_its_words_in_chromium(browser,
                                                                                  replayed):
    sc, log, page = replayed
    spoke = [(t.tick, e) for t in read_ticks(log) for e in t.events if isinstance(e, ev.Spoke)]
    browser.open(page)
    assert browser.js("document.querySelectorAll('section#conversations').length") == 1
    rows = browser.js("Array.from(document.querySelectorAll('#conversations tr.said'))"
                      ".map(r => [Number(r.dataset.tick), Number(r.dataset.speaker), "
                      "Number(r.dataset.listener), r.dataset.reply === 'yes'])")
    assert rows == [[t, e.speaker, e.listener, e.reply] for t, e in spoke]
    words = browser.js("Array.from(document.querySelectorAll('#conversations tr.said'))"
                       ".map(r => r.textContent)")
    assert all(e.text in w for (_, e), w in zip(spoke, words, strict=True))
    assert browser.errors == [], browser.errors


def test_the_bond_graph_of_each_day_draws_each_bond_the_book_holds_in_chromium(browser, replayed):
    sc, log, page = replayed
    mem = MemoryProjection(sc.rules)
    book = BondBook(sc.valences, sc.world.ticks_per_day).follow(mem)
    engine.fold(log, [mem, book])
    ended = {(d.day, d.villager, d.other) for d in book.days() if d.end}
    browser.open(page)
    drawn = browser.js("Array.from(document.querySelectorAll('#bonds figure.bondday'))"
                       ".flatMap(f => Array.from(f.querySelectorAll('g.bond'))"
                       ".map(g => [Number(f.dataset.day), Number(g.dataset.from), "
                       "Number(g.dataset.to)]))")
    assert ended and {(day - 1, a, b) for day, a, b in drawn} == ended
    assert browser.errors == [], browser.errors
    browser.js("document.getElementById('bonds').scrollIntoView()")
    shot = browser.screenshot(page.with_suffix(".png"), full=False)
    assert colours(shot) > 50, "the screenshot is blank"


def test_the_news_curve_and_tree_show_every_holder_of_the_news_in_chromium(browser, replayed):
    sc, log, page = replayed
    d, _ = diffusion_of(log)
    (spread,) = d.news
    browser.open(page)
    assert browser.js("document.querySelectorAll('section#news svg.news-curve').length") == 1
    per_day = browser.js("Array.from(document.querySelectorAll('#news svg.news-curve circle'))"
                         ".map(c => Number(c.dataset.holders))")
    assert per_day == list(spread.per_day)
    held = browser.js("Array.from(document.querySelectorAll('#news ul.telling li'))"
                      ".map(li => Number(li.dataset.villager))")
    assert sorted(held) == sorted(h.villager for h in spread.holders)
    assert browser.errors == [], browser.errors
