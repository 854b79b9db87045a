"""`village minds`: the measure of a run's minds as tables, one line a run for several, and one
line for each bad input; and its section of `village report`."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kernel.cli import main


def _minds(*args: str):
    return CliRunner().invoke(main, ["minds", *args])


def test_the_minds_of_a_scenario_are_its_figures_per_purpose_and_villager_and_its_worst_answers():
    r = _minds("day-of-three")
    assert r.exit_code == 0, r.output
    out = r.output
    assert out.startswith("day-of-three: 12 answers (3 questions, 6 statements, 3 night plans) "
                          "and 5 thoughts; vectors: the recording's")
    for line in ("answers that degenerate                          0 of 12     0%",
                 "questions parroting the template                  0 of 6     0%",
                 "statements that became thoughts or recurrences    5 of 6    83%"):
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
    assert table[2].split()[:16] == ["day-of-three", "0%", "0%", "0", "of", "3", "83%", "3",
                                     "of", "3", "12", "0.75", "1", "of", "5", "0.20"]
    assert table[3].split()[:3] == ["five-days-of-halla", "0%", "10%"]


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


@pytest.mark.words
def test_the_minds_of_a_scenario_are_read_as_a_reader_reads_what_its_villagers_said():
    out = _minds("day-of-three").output
    assert "  as a reader reads it (real words by /usr/share/dict/american-english (Debian's " \
        "wamerican, " in out
    row = next(x for x in out.splitlines() if x.startswith("  thoughts "))
    assert row.split() == ["thoughts", "5", "57", "of", "57,", "100%", "5", "of", "5,", "100%",
                           "1", "of", "5,", "20%", "0", "4", "of", "4,", "100%"]
    assert "words run together:" not in out          # none ran together
    assert "  as a reader reads it, per villager (every kind said)" in out
    table = _minds("day-of-three", "five-days-of-halla").output.split("\nrun ", 1)[1]
    assert table.splitlines()[0].split()[-8:] == ["real", "words", "sentences", "copies", "run",
                                                  "together", "named", "grounded"]


@pytest.mark.words
def test_the_minds_of_a_scenario_with_interviews_read_its_answers_and_how_many_differ():
    out = _minds("week-of-three").output
    assert "interviews: exemplars/interviews/week-of-three.json, variant full, at tick 13999" in out
    rows = {x.split()[0]: x.split() for x in out.split("distinct interview answers\n", 1)[1]
            .splitlines()[1:4]}
    assert [rows[n][-4:] for n in ("Halla", "Ander", "Mose")] == [
        ["4", "of", "7,", "57%"], ["5", "of", "8,", "62%"], ["3", "of", "10,", "30%"]]


def test_the_minds_in_json_are_one_object_holding_every_figure_old_and_new():
    r = _minds("day-of-three", "five-days-of-halla", "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert [m["run"] for m in doc["runs"]] == ["day-of-three", "five-days-of-halla"]
    m = doc["runs"][0]
    assert (m["all"]["answers"], m["all"]["degenerate"], m["all"]["kept"]) == (12, 0, 5)
    assert round(m["all"]["grounding"], 2) == 0.75
    assert m["all"]["refusals"] == {"claimed": 2, "living": 1, "stronger": 1, "ungrounded": 1}
    assert set(m["purposes"]) == {"questions", "statement", "night"}
    assert [v["name"] for v in m["villagers"]] == ["Halla", "Ander", "Mose"]
    assert m["worst"] == []
    if m["reader"] is not None:                 # the word list is installed
        said = m["reader"]["said"]["thought"]
        assert (said["texts"], said["words"], said["real"]) == (5, 57, 57)
        assert said["run_together_words"] == {}
        assert len(m["reader"]["readings"]) == 5


def test_the_minds_without_the_word_list_say_so_in_one_line_and_print_the_rest(monkeypatch,
                                                                             tmp_path):
    from kernel.report import words

    gone = tmp_path / "american-english"
    monkeypatch.setattr(words, "LIST", gone)
    r = _minds("day-of-three")
    assert r.exit_code == 0, r.output
    notes = [x for x in r.output.splitlines() if "word list" in x]
    assert notes == [f"  note: no word list at {gone}: the reader's measures need it (install "
                     f"the Debian package wamerican: apt-get install wamerican)"]
    assert "as a reader reads it" not in r.output
    assert "answers that degenerate                          0 of 12     0%" in r.output
    assert json.loads(_minds("day-of-three", "--json").output)["runs"][0]["reader"] is None


@pytest.mark.words
def test_the_reports_minds_section_reads_what_the_villagers_said_beside_the_figures(tmp_path):
    out = tmp_path / "day.html"
    r = CliRunner().invoke(main, ["report", "week-of-three", "--out", str(out)])
    assert r.exit_code == 0, r.output
    section = out.read_text(encoding="utf-8").split('data-section="minds"', 1)[1]
    section = section.split("</section>", 1)[0]
    assert "<h3>As a reader reads it</h3>" in section
    assert [x.split('"', 1)[0] for x in section.split('class="minds-read" data-said="')[1:]] == \
        ["thought", "interview"]
    assert section.count('class="minds-reader-villager"') == 3
    assert 'data-run-together=' not in section      # no words of theirs ran together


def test_the_worlds_places_are_read_where_a_world_names_them_and_none_where_it_does_not():
    from types import SimpleNamespace as Ns

    from kernel.report.minds import places_of

    assert places_of(None) == () and places_of(Ns(world=Ns())) == ()
    assert places_of(Ns(world=Ns(places=()))) == ()
    named = Ns(world=Ns(places=(Ns(name="the mill field"), Ns(name="Hvalsey"))))
    assert places_of(named) == ("the mill field", "Hvalsey")
