"""The report's bond graph per day: an inline SVG for a run where something passed between
villagers, and no section at all for one where nothing did."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from kernel import config
from kernel.report.day import day
from kernel.report.html import render
from tests import bonds_log as bl
from tests.bonds_log import ANDER, KNUT, MOSE

DAY = 2000


@pytest.fixture
def home(tmp_path):
    """A home whose importance table has the talk rows, and no scenario of the logs' digest: the
    report then counts the log in days of 2000 ticks."""
    h = tmp_path / "home"
    (h / "configs").mkdir(parents=True)
    (h / "village.toml").write_text("")
    (h / "configs" / "importance.json").write_text(json.dumps(bl.importance_value()))
    config.set_home(h)
    yield h
    config.set_home(None)


def test_a_log_with_a_gift_and_words_has_a_bond_graph_per_day(home, tmp_path):
    d = day(bl.write(tmp_path / "run.log", bl.frames(DAY), tpd=DAY))
    assert d.bonds is not None
    assert [g.day for g in d.bonds.graphs] == [1, 2, 3]
    first = {(e.villager, e.other): e for e in d.bonds.graphs[0].edges}
    assert set(first) == {(ANDER, KNUT), (KNUT, ANDER), (ANDER, MOSE), (KNUT, MOSE), (MOSE, KNUT)}
    assert first[(ANDER, KNUT)].label == "+0.23" and first[(KNUT, MOSE)].label == "-0.33"
    assert first[(KNUT, ANDER)].colour != first[(KNUT, MOSE)].colour
    assert float(first[(KNUT, ANDER)].width) > float(first[(MOSE, KNUT)].width)
    assert "gave 1, said 1, heard 1" in first[(ANDER, KNUT)].title
    page = render(d)
    assert page.count('<svg class="bonds"') == 3
    section = page[page.index('<section id="bonds"'):]
    section = section[:section.index("</section>")]
    assert re.search(r'<g class="bond" data-from="1" data-to="2" data-bond="227"><title>', section)
    assert section.count('<g class="node"') == 9 and '>Mose</text>' in section
    assert '<a href="#bonds">bonds (3 days)</a>' in page
    assert "valued by the home" in section


def test_a_log_where_nothing_passes_has_no_bond_section_and_the_page_is_as_before(home, tmp_path):
    d = day(bl.write(tmp_path / "quiet.log", bl.quiet_frames()))
    assert d.bonds is None
    page = render(d)
    assert "bond" not in page


def test_without_its_bonds_a_page_is_the_page_with_no_trace_of_them(home, tmp_path):
    d = day(bl.write(tmp_path / "run.log", bl.frames(DAY), tpd=DAY))
    page = render(dataclasses.replace(d, bonds=None))
    assert "bond" not in page and page.count("<svg") == render(d).count("<svg") - 3
