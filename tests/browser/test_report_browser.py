"""The HTML report in a real browser: headless Chromium opens the report of every committed
scenario, from three villagers to the town of 1,536, forks and world runs included.

For each scenario the page must hold one thought element per thought in
the log and one map path per villager, log no console error or uncaught
exception (the slider is moved too, so its script runs), and screenshot
to something that is not blank. Its felt section must draw one curve per
row the strength series plots (or say why the run has none), and hold a
row for every night plan the log asked for; its minds section must be there.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kernel.cli import main
from kernel.engine.scenario import committed
from kernel.log import read_events

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SCENARIOS = tuple(committed())


@pytest.fixture(scope="module")
def browser():
    from tests.browser.cdp import Browser
    with Browser(width=1280, height=900) as b:
        yield b


def colours(png: Path) -> int:
    """How many distinct colours a screenshot holds (a blank page holds one)."""
    from PIL import Image
    with Image.open(png) as im:
        im = im.convert("RGB")
        return len(im.getcolors(maxcolors=1 << 20) or ())


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_report_of_a_scenario_reads_in_chromium(name, browser, tmp_path):
    page, log = tmp_path / f"{name}.html", tmp_path / f"{name}.log"
    r = CliRunner().invoke(main, ["report", name, "--out", str(page)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["replay", name, "--keep", str(tmp_path)])
    assert log.is_file(), r.output
    kinds = [e.kind for _, e in read_events(log)]
    people = {e.villager for _, e in read_events(log) if e.kind == "founded"}

    browser.open(page)
    assert browser.js("document.querySelectorAll('article.thought').length") == kinds.count("thought")
    assert browser.js("document.querySelectorAll('svg.map path.trail').length") == len(people)
    assert browser.js("document.querySelectorAll('details.timeline').length") == len(people)
    # the measure of the minds: a section of its own, a worst answer for each it quotes
    assert browser.js("document.querySelectorAll('section#minds').length") == 1
    assert browser.js("document.querySelectorAll('section#minds div.worst').length") <= 5
    # the slider's script runs without an error, and moves the villagers
    before = browser.js("Array.from(document.querySelectorAll('svg.map g.at'))"
                        ".map(g => g.getAttribute('transform')).join('|')")
    browser.js("(() => { const s = document.getElementById('tick'); s.value = 300;"
               " s.dispatchEvent(new Event('input')); })()")
    assert browser.js("document.getElementById('tick-now').textContent") == "300"
    after = browser.js("Array.from(document.querySelectorAll('svg.map g.at'))"
                       ".map(g => g.getAttribute('transform')).join('|')")
    assert before != after
    assert browser.errors == [], browser.errors

    felt_section_draws_one_curve_per_plotted_row(name, log, browser)

    shot = browser.screenshot(tmp_path / f"{name}.png")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert colours(shot) > 50, "the screenshot is blank"


def felt_section_draws_one_curve_per_plotted_row(name: str, log: Path, browser) -> None:
    from kernel import engine
    from kernel.log import read_header
    from kernel.report import plots
    from kernel.report.felt import why_not_felt

    sc = engine.load_scenario(name)
    drawn = browser.js("Array.from(document.querySelectorAll('#felt path.strength'))"
                       ".map(p => p.dataset.villager + ':' + p.dataset.row)")
    keyed = browser.js("document.querySelectorAll('#felt tr.curve').length")
    why = why_not_felt(sc, read_header(log).config_digest)
    if why is not None:
        assert drawn == [] and keyed == 0
        assert why in browser.js("document.getElementById('felt').textContent")
        return
    plotted = [f"{v.villager}:{c.id}" for v in plots.strengths(plots.OpenRun(log, sc))
               for c in v.curves]
    assert plotted and sorted(drawn) == sorted(plotted) and keyed == len(plotted)
    nights = {f"{t}:{e.villager}" for t, e in read_events(log)
              if e.kind == "answered" and e.purpose == "night"}
    rows = browser.js("Array.from(document.querySelectorAll('#felt tr.night'))"
                      ".map(r => r.dataset.tick + ':' + r.dataset.villager)")
    assert nights <= set(rows) and len(rows) == len(set(rows))
