"""`village scenarios`: the table of what each committed recording did, counted off its replay."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kernel import config
from kernel.cli import main
from kernel.events import Answered, Refusal, Thought
from kernel.report.scenarios import count

CHECKOUT = Path(__file__).resolve().parents[2]


def _row(output: str, name: str) -> list[str]:
    line = next(x for x in output.splitlines() if x.startswith(f"| {name} |"))
    return [c.strip() for c in line.strip("|").split("|")]


def test_the_table_is_counted_off_day_of_threes_replay():
    res = CliRunner().invoke(main, ["scenarios", "--markdown", "day-of-three", "village-day"])
    assert res.exit_code == 0, res.output
    # day-of-three as recorded: 12 generate and 2 embed calls; 3 questions calls, none refused;
    # 6 statements, 5 accepted and 1 refused; 5 thoughts; 3 night plans, 5 groups accepted and
    # 4 refused; 14 rows re-felt
    assert _row(res.output, "day-of-three") == [
        "day-of-three", "3", "2,000", "1", "3", "12 / 2", "3 (0)", "5 / 1", "5 (0)", "3 (0)",
        "5 / 4", "14", "0", "dca2cde6bf5a"]
    assert _row(res.output, "village-day")[4:6] == ["0", "-"]
    assert "| day-of-three | night group | claimed | 2 |" in res.output


def test_the_text_table_has_aligned_columns_and_a_legend():
    res = CliRunner().invoke(main, ["scenarios", "day-of-three"])
    assert res.exit_code == 0, res.output
    head, rule, row = res.output.splitlines()[:3]
    assert head.split()[:3] == ["scenario", "villagers", "ticks"]
    assert set(rule) == {"-", " "} and row.startswith("day-of-three")
    # numbers end under their header's last letter
    assert head.index("ticks") + len("ticks") == row.index("2,000") + len("2,000")
    assert "statements: accepted / refused" in " ".join(res.output.split())


def test_the_table_writes_nothing_in_the_project(tmp_path, monkeypatch):
    monkeypatch.delenv("VILLAGE_HOME", raising=False)
    config.set_home(None)
    try:
        assert CliRunner().invoke(main, ["init", str(tmp_path / "p")]).exit_code == 0
        before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
        monkeypatch.chdir(tmp_path / "p")
        res = CliRunner().invoke(main, ["scenarios"])
        assert res.exit_code == 0, res.output
        assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    finally:
        config.set_home(None)


def test_an_unknown_scenario_is_one_line():
    res = CliRunner().invoke(main, ["scenarios", "no-such-day"])
    assert res.exit_code == 1 and res.output.startswith("Error: no scenario 'no-such-day'")
    assert res.output.count("\n") == 1


def test_a_night_groups_refusal_is_counted_apart_from_a_plan_refused_whole():
    events = [Answered(villager=1, purpose="night", index=0, model="m", digest="d", seed=1,
                       prompt_sha256="0" * 64, text="{}", done_reason="stop"),
              Refusal(villager=1, purpose="night", index=0, check="shaped", reason="r"),
              Refusal(villager=1, purpose="night", index=1, check="shown", reason="r"),
              Thought(id=9, villager=1, text="t", weight=3, depth=1, about=(1,), drawn_from=(1,))]
    counts, by = count(events)
    assert counts["night_plans"] == 1 and counts["plans_refused"] == 1
    assert counts["groups_refused"] == 1 and counts["thoughts"] == 1
    assert by == (("night group", "shown", 1), ("night plan", "shaped", 1))


@pytest.mark.slow
def test_docs_scenarios_md_holds_what_village_scenarios_prints_today():
    res = CliRunner().invoke(main, ["scenarios", "--markdown"])
    assert res.exit_code == 0, res.output
    page = (CHECKOUT / "docs" / "scenarios.md").read_text(encoding="utf-8")
    assert page.endswith(res.output), "docs/scenarios.md is stale: run `make docs`"


def test_a_rows_counts_folded_as_its_replay_runs_are_those_of_its_rounds_and_nights():
    from kernel.engine.replay import replay
    from kernel.engine.scenario import load
    from kernel.report.scenarios import row_of

    sc = load("day-of-three")
    report = replay(sc).report
    row = row_of(sc)
    assert (row.counts, row.refused) == count([*(e for r in report.rounds for e in r.events),
                                               *(e for n in report.nights for e in n.events)])
    assert row.days == 1 and row.differs is None
