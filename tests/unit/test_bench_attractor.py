"""The attractor experiment's table (bench/bench_attractor.py): one row per rule and pattern,
and the rows say what each rule does with each pattern. No model is asked, nothing is timed."""

from __future__ import annotations

import pytest

from bench import bench_attractor as ba
from kernel import laws

OMITTED = 0.3 + 0.2 * 0.95**20


def _rows():
    return {(r.rule, r.pattern): r for r in ba.table()}


def test_the_table_has_one_row_for_each_of_both_rules_and_the_four_signal_patterns():
    rows = ba.table()
    assert [(r.rule, r.pattern) for r in rows] == [
        (rule, pattern)
        for rule in ("current", "single")
        for pattern in ("repeated positive", "alternating", "quiet stretch", "omitted vs zero")
    ]
    for r in rows:
        assert len(r.weights) == 4 and all(0.05 <= w <= 1.0 for w in r.weights)
        assert 0.0 <= r.entropy <= 1.0
        assert r.trajectory in (laws.CONVERGING, laws.RESTRUCTURING, laws.DIVERGING, laws.STABLE)


def test_the_table_shows_a_zero_delta_holding_under_the_current_rules_and_relaxing_under_the_single_rule():
    rows = _rows()
    assert rows["current", "omitted vs zero"].weights == pytest.approx((OMITTED, 0.5, OMITTED, OMITTED))
    assert rows["single", "omitted vs zero"].weights == pytest.approx((OMITTED,) * 4)
    assert rows["single", "omitted vs zero"].entropy == pytest.approx(1.0)


def test_the_table_shows_alternating_signals_holding_their_band_under_the_current_rules_and_falling_toward_0_3_under_the_single_rule():
    rows = _rows()
    assert rows["current", "alternating"].weights[0] == pytest.approx(0.5)
    low = 0.3 - 0.2 / 1.95
    assert rows["single", "alternating"].weights[0] == pytest.approx(
        low + (0.5 - low) * 0.95**20
    )


def test_the_table_shows_repeated_positive_signals_at_the_ceiling_and_a_quiet_stretch_at_0_95_to_the_n_under_both_rules():
    rows = _rows()
    for rule in ("current", "single"):
        assert rows[rule, "repeated positive"].weights[0] == 1.0
        assert rows[rule, "quiet stretch"].weights[0] == pytest.approx(0.3 + 0.7 * 0.95**18)


def test_the_bench_prints_a_heading_each_pattern_s_sequence_and_a_line_per_row():
    lines = list(ba.run())
    assert len(lines) == 1 + 4 + 1 + 8
    for line, r in zip(lines[6:], ba.table(), strict=True):
        assert line.split()[:1] == [r.rule] and r.pattern in line
        assert f"{r.entropy:.4f}" in line and line.endswith(r.trajectory)
