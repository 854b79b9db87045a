"""`village report`: one HTML file from a scenario or a log, and one line for each bad input."""

from __future__ import annotations

from click.testing import CliRunner

from kernel.cli import main


def test_the_report_of_a_scenario_is_one_file(tmp_path):
    out = tmp_path / "day.html"
    r = CliRunner().invoke(main, ["report", "day-of-three", "--out", str(out)])
    assert r.exit_code == 0, r.output
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert 'data-section="map"' in page and 'data-section="retrieval"' in page
    assert r.output.startswith(f"{out}: ")


def test_the_report_of_a_world_log_says_why_its_retrieval_is_empty(world_run, tmp_path):
    out = tmp_path / "w.html"
    r = CliRunner().invoke(main, ["report", str(world_run), "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "note:" in r.output
    assert "class=\"empty\"" in out.read_text()


def test_a_report_into_a_missing_folder_is_one_line(tmp_path):
    r = CliRunner().invoke(main, ["report", "day-of-three", "--out",
                                  str(tmp_path / "nope" / "d.html")])
    assert r.exit_code == 1 and r.output.startswith("Error: cannot write")
    assert r.output.count("\n") == 1


def test_a_report_of_nothing_is_one_line(tmp_path):
    r = CliRunner().invoke(main, ["report", str(tmp_path / "missing.log")])
    assert r.exit_code == 1 and r.output.startswith("Error: no scenario")


def test_a_recording_that_is_not_a_file_is_one_line(tmp_path):
    r = CliRunner().invoke(main, ["report", "day-of-three", "--exemplars", str(tmp_path / "x.json"),
                                  "--out", str(tmp_path / "d.html")])
    assert r.exit_code == 1 and "is not a file" in r.output
