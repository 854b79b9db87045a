"""`village run` prints one line a night, as it prints a line a villager's round: the night's
plans and groups, the rows it absorbed and forgot, and that day's re-felt rows and recurrences."""

from __future__ import annotations

import re

from click.testing import CliRunner

from kernel.cli import main

NIGHT = re.compile(r"^  all +night at tick +(\d+): (\d+) plans asked \((\d+) refused whole\), "
                   r"groups (\d+) accepted and (\d+) refused, rows (\d+) absorbed and (\d+) "
                   r"forgotten; that day (\d+) rows re-felt, (\d+) recurrences$")


def test_a_run_prints_one_line_a_night_and_the_lines_add_up_to_the_recorded_week(tmp_path):
    r = CliRunner().invoke(main, ["run", "week-of-three", "--out", str(tmp_path / "week.log")])
    assert r.exit_code == 0, r.output
    nights = [tuple(map(int, m.groups())) for line in r.output.splitlines()
              if (m := NIGHT.match(line))]
    assert [n[0] for n in nights] == [1999, 3999, 5999, 7999, 9999, 11999, 13999]
    totals = [sum(n[i] for n in nights) for i in range(1, 9)]
    # the recorded week: 21 plans (one a villager-night), none refused whole, 32 groups
    # accepted, 21 refused, 70 rows absorbed, 235 forgotten, 44 re-felt, 12 recurrences
    assert totals == [21, 0, 32, 21, 70, 235, 44, 12]
    # and after each night's consolidation, its basins and its plans, one line each
    out = r.output.splitlines()
    for now in (1999, 13999):
        at = [x.split()[1] for x in out if x.startswith("  all ")
              and (f"at tick {now:>5}:" in x or f"at tick {now:>6}:" in x)]
        assert at == ["night", "basins", "plans"]
    assert "  all      plans at tick  13999: 3 plans asked (0 refused whole), 3 intentions " \
           "accepted and 0 refused" in out


def test_a_run_without_nights_prints_no_night_line(tmp_path):
    # day-of-three with no night block: its round's prompts are the recorded ones (the round
    # comes before the night), so the recording answers it, and no night is asked for
    from kernel.testing import variant
    day = variant("day-of-three", tmp_path / "day", thought=lambda doc: doc.pop("night"))
    r = CliRunner().invoke(main, ["run", str(day), "--out", str(tmp_path / "day.log")])
    assert r.exit_code == 0, r.output
    assert "round at tick   1999" in r.output
    assert "night at tick" not in r.output


def test_a_replay_prints_the_same_night_lines_as_the_run(tmp_path):
    # make replay's accounting shows each night: the forgotten rows need no model, the plan
    # calls are read off the recording
    run = CliRunner().invoke(main, ["run", "week-of-three", "--out", str(tmp_path / "w.log")])
    replay = CliRunner().invoke(main, ["replay", "week-of-three", "--keep", str(tmp_path)])
    assert run.exit_code == 0 and replay.exit_code == 0, replay.output
    lines = [[x for x in r.output.splitlines() if NIGHT.match(x)] for r in (run, replay)]
    assert len(lines[0]) == 7 and lines[0] == lines[1]
