"""`village run --cap` heads its log with the digest of the settings the run really ran under:
a cap other than the scenario's own names another config, the scenario's own cap names its own."""

from __future__ import annotations

from click.testing import CliRunner

from kernel.cli import main
from kernel.engine import scenario as msc
from kernel.log import read_header


def _digest(tmp_path, name: str, *cap: str) -> str:
    out = tmp_path / name
    r = CliRunner().invoke(main, ["run", "day-of-three", "--oracle", "replay", *cap,
                                  "--out", str(out)])
    assert r.exit_code == 0, r.output
    return read_header(out).config_digest


def test_a_run_under_another_cap_heads_its_log_with_another_config_digest(tmp_path):
    sc = msc.load("day-of-three")
    assert sc.settings.cap != 1
    capped, plain = _digest(tmp_path, "a.log", "--cap", "1"), _digest(tmp_path, "b.log")
    assert plain == sc.header_digest
    assert capped != plain
    # no committed scenario claims the capped run's config
    assert msc.by_digest(capped, forks=True) is None


def test_a_run_under_the_scenarios_own_cap_heads_its_log_as_a_run_without_the_flag(tmp_path):
    own = str(msc.load("day-of-three").settings.cap)
    assert _digest(tmp_path, "own.log", "--cap", own) == _digest(tmp_path, "b.log")
    assert msc.by_digest(_digest(tmp_path, "c.log")).name == "day-of-three"
