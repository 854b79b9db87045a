"""The basins section of the HTML report in headless Chromium, for a run with basins and plans.

The run is the small scenario of tests/basins_scenario.py, recorded against its scripted
oracle. The page must draw one line a basin each villager holds, one row a night each was
asked to update its basins and one row an accepted plan, hold the effect's totals by act,
and log no console error; its screenshot must not be blank.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from kernel import events as ev
from kernel.cli import main
from kernel.laws.basins import slugify
from kernel.log import read_ticks
from tests.basins_scenario import BASINS, make, record
from tests.browser.test_report_browser import colours

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def browser():
    from tests.browser.cdp import Browser
    with Browser(width=1280, height=900) as b:
        yield b


def test_the_basins_section_of_a_run_with_basins_reads_in_chromium(browser, tmp_path):
    sc = record(make(tmp_path / "three-basins"), tmp_path / "rec.json", tmp_path / "run.log")
    page = tmp_path / "three-basins.html"
    r = CliRunner().invoke(main, ["report", str(sc.folder), "--out", str(page)])
    assert r.exit_code == 0, r.output
    events = [(t.tick, e) for t in read_ticks(tmp_path / "run.log") for e in t.events]
    asked = {f"{t}:{e.villager}" for t, e in events
             if isinstance(e, ev.Answered) and e.purpose == "basins"}
    planned = sum(1 for _, e in events if isinstance(e, ev.Planned))

    browser.open(page)
    assert browser.js("document.querySelectorAll('section#basins').length") == 1
    assert browser.js("document.querySelectorAll('#basins details.basins').length") == len(BASINS)
    drawn = browser.js("Array.from(document.querySelectorAll('#basins path.basin'))"
                       ".map(p => p.dataset.villager + ':' + p.dataset.basin)")
    held = {p.id: p.basins for p in sc.world.people}
    assert sorted(drawn) == sorted(f"{v}:{slugify(b)}" for v, bs in held.items() for b in bs)
    nights = browser.js("Array.from(document.querySelectorAll('#basins tr.basin-night'))"
                        ".map(r => r.dataset.tick + ':' + r.dataset.villager)")
    assert sorted(nights) == sorted(asked)
    assert browser.js("document.querySelectorAll('#basins tr.basin-night"
                      "[data-outcome=\"refused whole\"]').length") == 1
    assert browser.js("document.querySelectorAll('#basins tr.intention').length") == planned
    acts = browser.js("Array.from(document.querySelectorAll('#basins table.effect tr.effect'))"
                      ".map(r => r.dataset.act)")
    assert acts == ["seek", "home"]
    assert "times as many ticks in sight" in browser.js(
        "document.querySelector('#basins p.figure').textContent")
    # the section's lines are drawn inside its figure, not off it
    box = browser.js("(() => { const s = document.querySelector('#basins svg.basins')"
                     ".getBoundingClientRect(); return [s.width, s.height]; })()")
    assert box[0] > 500 and box[1] > 100
    assert browser.errors == [], browser.errors

    browser.js("document.getElementById('basins').scrollIntoView()")
    shot = browser.screenshot(tmp_path / "basins.png", full=False)
    assert colours(shot) > 50, "the screenshot is blank"
