"""`village minds`: the measure of a run's minds as tables, one line a run for several, and one
line for each bad input; and its section of `village report`."""

from __future__ import annotations

from click.testing import CliRunner

from kernel.cli import main


def _minds(*args: str):
    return CliRunner().invoke(main, ["minds", *args])


def test_the_minds_of_a_scenario_are_its_figures_per_purpose_and_villager_and_its_worst_answers():
    r = _minds("day-of-three")
    assert r.exit_code == 0, r.output
    out = r.output
    assert out.startswith("day-of-three: 12 answers (3 questions, 6 statements, 3 night plans) "
                          "and 6 thoughts; vectors: the recording's")
    for line in ("answers that degenerate                          0 of 12     0%",
                 "questions parroting the template                  0 of 6     0%",
                 "statements that became thoughts or recurrences    6 of 6   100%"):
        assert line in out
    assert "  per purpose" in out and "  per villager" in out
    assert "the worst answers" not in out     # none degenerated
    assert "\nrun " not in out     # one run: no table of runs



def test_the_minds_of_a_run_whose_answers_degenerate_quote_its_worst_answers(tmp_path):
    from tests.common import looping_day_of_three
    log = tmp_path / "looping.log"
    looping_day_of_three(log)
    out = _minds(str(log)).output
    assert "  the worst answers (the most reasons, then the longest loop, then the most digits):" \
        in out
    assert 'Halla at tick 1999, night (loop): {"groups": [{"anchor": ' in out


def test_the_minds_of_several_runs_end_in_one_line_a_run():
    r = _minds("day-of-three", "five-days-of-halla")
    assert r.exit_code == 0, r.output
    table = r.output.split("\nrun ", 1)[1].splitlines()
    assert table[2].split() == ["day-of-three", "0%", "0%", "0", "of", "3", "100%", "3", "of",
                                "3", "10", "0.53", "0", "of", "6", "0.31"]
    assert table[3].split()[:3] == ["five-days-of-halla", "0%", "0%"]


def test_the_minds_of_a_log_are_its_scenarios(tmp_path):
    log = tmp_path / "day.log"
    r = CliRunner().invoke(main, ["run", "day-of-three", "--oracle", "replay", "--out", str(log)])
    assert r.exit_code == 0, r.output
    of_log, of_scenario = _minds(str(log)), _minds("day-of-three")
    assert of_log.exit_code == 0, of_log.output
    assert of_log.output.replace("day.log:", "day-of-three:", 1) == of_scenario.output


def test_a_recording_for_two_runs_is_one_line():
    r = _minds("day-of-three", "week-of-three", "--exemplars", "exemplars/day-of-three.json")
    assert r.exit_code == 2 and "--exemplars is one run's recording, and 2 runs are named" in r.output


def test_the_minds_of_nothing_is_one_line(tmp_path):
    r = _minds(str(tmp_path / "missing.log"))
    assert r.exit_code == 1 and r.output.startswith("Error: no scenario")
    assert r.output.count("\n") == 1


def test_the_report_of_a_scenario_has_a_section_on_its_minds_with_its_worst_answers(tmp_path):
    out = tmp_path / "day.html"
    r = CliRunner().invoke(main, ["report", "day-of-three", "--out", str(out)])
    assert r.exit_code == 0, r.output
    page = out.read_text(encoding="utf-8")
    section = page.split('data-section="minds"', 1)[1].split("</section>", 1)[0]
    assert 'data-figure="degenerate"><td>answers that degenerate</td><td class="num">0 of 12' in section
    assert section.count('class="worst"') == 0 and "No answer degenerated in this run." in section
    assert section.count('class="minds-villager"') == 3
    from tests.common import looping_day_of_three
    log, looping = tmp_path / "looping.log", tmp_path / "looping.html"
    looping_day_of_three(log)
    r = CliRunner().invoke(main, ["report", str(log), "--out", str(looping)])
    assert r.exit_code == 0, r.output
    section = looping.read_text(encoding="utf-8").split('data-section="minds"', 1)[1]
    assert section.split("</section>", 1)[0].count('class="worst"') == 3


def test_the_report_of_a_world_run_says_no_mind_answered(world_run, tmp_path):
    out = tmp_path / "w.html"
    r = CliRunner().invoke(main, ["report", str(world_run), "--out", str(out)])
    assert r.exit_code == 0, r.output
    section = out.read_text().split('data-section="minds"', 1)[1].split("</section>", 1)[0]
    assert "No model answered in this run" in section
