"""The committed interviews of week-of-three in headless Chromium.

The report is `village report week-of-three`, replayed from its recording, its interviews asked
again from theirs. The page must show one row an interview of the first variant (its question,
what it brought to mind, its answer and its citations), every scored one marked correct or
incorrect as the session scored it, and one comparison row a variant; and log no console error.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from kernel.cli import main
from kernel.engine import scenario as msc
from kernel.engine.replay import replay
from kernel.interview import recording as ir

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def browser():
    from tests.browser.cdp import Browser
    with Browser(width=1280, height=900) as b:
        yield b


@pytest.fixture(scope="module")
def interviewed(tmp_path_factory):
    d = tmp_path_factory.mktemp("week")
    sc = msc.load("week-of-three")
    log = d / "week.log"
    replay(sc, out=log)
    got = ir.replay(sc, log, ir.committed_path(sc))
    assert got.problem is None, got.problem
    page = d / "week.html"
    r = CliRunner().invoke(main, ["report", "week-of-three", "--out", str(page)])
    assert r.exit_code == 0, r.output
    return got.session, page


def test_every_interview_is_a_row_with_its_question_answer_and_score_in_chromium(browser,
                                                                               interviewed):
    s, page = interviewed
    browser.open(page)
    assert browser.js("document.querySelectorAll('section#interviews').length") == 1
    first = [x for x in s.asked if x.variant == s.variants[0]]
    assert browser.js("document.querySelectorAll('#interviews tr.asked').length") == len(first)
    by = {}
    for x in first:
        by.setdefault(x.interview.name, []).append(x)
    got = browser.js("Array.from(document.querySelectorAll('#interviews article.interviewed'))"
                     ".map(a => [a.querySelector('h3').textContent.trim(), "
                     "Array.from(a.querySelectorAll('tr.asked')).map(r => "
                     "[r.dataset.question, r.dataset.score, r.textContent])])")
    assert sorted(n for n, _ in got) == sorted(by)
    for name, trs in got:
        want = by[name]
        assert [q for q, _, _ in trs] == [x.question.id for x in want]
        for x, (_, score, text) in zip(want, trs, strict=True):
            assert score == ("unscored" if x.correct is None else
                             "correct" if x.correct else "wrong")
            assert x.text in text
            if x.interview.accepted:
                assert x.interview.answer in text
                assert all(f"[{c}]" in text for c in x.interview.cites)


def test_the_variants_are_compared_one_row_each_and_the_page_logs_no_error(browser, interviewed):
    s, page = interviewed
    browser.open(page)
    variants = browser.js("Array.from(document.querySelectorAll('#interviews table.compare "
                          "tr[data-variant]')).map(r => r.dataset.variant)")
    assert variants == list(s.variants)
    assert browser.errors == [], browser.errors
