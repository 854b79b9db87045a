"""`village world run`, through click's CliRunner."""

from __future__ import annotations

import json

from click.testing import CliRunner

from kernel import config as configs
from kernel import log as vlog
from kernel.cli import main


def test_every_world_command_answers_dash_h():
    for args in (["world", "-h"], ["world", "run", "-h"], ["world", "run", "--help"]):
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 0 and "Usage:" in res.output, args


def test_a_run_prints_rows_per_villager_and_the_head_hash(tmp_path):
    out = tmp_path / "run.log"
    res = CliRunner().invoke(main, ["world", "run", "--ticks", "300", "--out", str(out)])
    assert res.exit_code == 0, res.output
    head = vlog.verify(out).head_hex
    assert f"head {head}" in res.output
    for name in ("Halla", "Ander", "Mose"):
        assert name in res.output
    assert "ran 300 ticks" in res.output and "10 ticks a second" in res.output


def test_a_run_defaults_to_one_day_of_the_config(tmp_path):
    out = tmp_path / "day.log"
    day = configs.home() / "fixtures" / "village-day"
    res = CliRunner().invoke(main, ["world", "run", "--config", str(day / "world.json"),
                                    "--out", str(out)])
    assert res.exit_code == 0, res.output
    want = json.loads((day / "scenario.json").read_text())["head_sha256"]
    assert vlog.verify(out).ticks == 2000 and want in res.output


def test_a_run_onto_an_existing_log_is_one_line_of_error(tmp_path):
    out = tmp_path / "run.log"
    out.write_bytes(b"")
    res = CliRunner().invoke(main, ["world", "run", "--ticks", "5", "--out", str(out)])
    assert res.exit_code == 1
    assert res.output.startswith("Error: ") and "already exists" in res.output
    assert len(res.output.strip().splitlines()) == 1


def test_a_bad_config_is_one_line_naming_the_path_in_it(tmp_path):
    bad = tmp_path / "world.json"
    bad.write_text(json.dumps({"seed": "x"}))
    res = CliRunner().invoke(main, ["world", "run", "--config", str(bad), "--out",
                                    str(tmp_path / "r.log")])
    assert res.exit_code == 1 and "$.seed" in res.output
    assert len(res.output.strip().splitlines()) == 1


def test_ticks_must_be_positive(tmp_path):
    res = CliRunner().invoke(main, ["world", "run", "--ticks", "0", "--out", str(tmp_path / "r.log")])
    assert res.exit_code == 2 and "--ticks" in res.output
