"""The tally counts only inputs run through the real `village` program, never one tried in process."""

from __future__ import annotations

import pytest

from tests import process

from . import conftest
from .conftest import record

pytestmark = pytest.mark.slow   # a real process, server, model or browser each test


def test_an_input_tried_without_a_village_process_is_refused_by_the_tally_and_not_counted():
    before = dict(conftest.TALLY)
    with pytest.raises(AssertionError, match="the tally counts inputs run through tests/process.py"):
        record("clean")
    assert dict(conftest.TALLY) == before


def test_each_counted_input_takes_a_village_process_of_its_own():
    r = process.village("-h")
    assert r.returncode == 0 and "Usage:" in r.stdout, r.stderr
    record("clean")
    with pytest.raises(AssertionError, match="only 0 village process"):
        record("clean")
