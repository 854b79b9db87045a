"""`village cluster run`: its arguments checked before any Ray is started, one line each."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from kernel.cli import main

pytestmark = pytest.mark.cluster


def test_a_pooled_run_names_where_its_workers_are():
    r = CliRunner().invoke(main, ["cluster", "run", "day-of-three"])
    assert r.exit_code == 2 and "--workers N" in r.output and "--ray" in r.output


def test_a_world_run_has_no_calls_for_a_pool_and_says_so_in_one_line():
    r = CliRunner().invoke(main, ["cluster", "run", "village-day", "--workers", "1"])
    assert r.exit_code == 1
    assert r.output.startswith("Error: ") and "nobody reflects" in r.output
    assert r.output.count("\n") == 1


def test_the_cluster_commands_answer_help():
    for args in (["cluster", "-h"], ["cluster", "run", "-h"], ["sweep", "-h"]):
        r = CliRunner().invoke(main, args)
        assert r.exit_code == 0 and "Usage:" in r.output
