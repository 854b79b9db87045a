"""The project home: found from the working folder upward, overridden by --home and VILLAGE_HOME,
with the shipped configs where a project has none of its own."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kernel import config
from kernel.cli import main
from kernel.errors import ConfigError

CHECKOUT = Path(__file__).resolve().parents[2]


@pytest.fixture
def clean(monkeypatch):
    monkeypatch.delenv("VILLAGE_HOME", raising=False)
    config.set_home(None)
    yield
    config.set_home(None)


def test_the_home_is_the_nearest_folder_up_holding_a_village_toml(tmp_path, monkeypatch, clean):
    (tmp_path / "village.toml").write_text("")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    assert config.project_home() == tmp_path.resolve()


def test_a_folder_with_configs_world_json_is_a_home_too(tmp_path, monkeypatch, clean):
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "world.json").write_text("{}")
    monkeypatch.chdir(tmp_path)
    assert config.project_home() == tmp_path.resolve()


def test_village_home_and_then_home_override_the_search(tmp_path, monkeypatch, clean):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    monkeypatch.setenv("VILLAGE_HOME", str(a))
    assert config.project_home() == a.resolve()
    config.set_home(b)
    assert config.project_home() == b.resolve()


def test_without_a_project_the_shipped_configs_are_used(tmp_path, monkeypatch, clean):
    monkeypatch.chdir(tmp_path)
    assert config.project_home() is None
    assert config.config_file("world.json").is_file()
    assert config.load("world").digest == config.load(CHECKOUT / "configs" / "world.json").digest


def test_home_names_a_folder_or_is_refused(tmp_path, clean):
    with pytest.raises(ConfigError, match="is not a folder"):
        config.set_home(tmp_path / "none")


def test_the_projects_own_template_wins_over_the_checkouts(tmp_path, monkeypatch, clean):
    for d in ("configs", "fixtures", "exemplars"):
        shutil.copytree(CHECKOUT / d, tmp_path / d)
    t = tmp_path / "configs" / "reflect-questions.tmpl"      # the one day-of-three renders
    t.write_bytes(t.read_bytes().replace(b"village", b"Village", 1))
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["replay", "day-of-three"])
    assert res.exit_code == 1 and "DIFFERS" in res.output


def test_a_scenario_renders_the_templates_of_the_folder_it_names_and_configs_own_are_free(
        tmp_path, monkeypatch, clean):
    for d in ("configs", "bench"):
        shutil.copytree(CHECKOUT / d, tmp_path / d)
    t = tmp_path / "configs" / "reflect-questions.tmpl"
    t.write_bytes(t.read_bytes().replace(b"village", b"Village", 1))
    monkeypatch.chdir(tmp_path)
    # the held-out bench day names configs/smollm2/, the templates SmolLM2 was recorded with
    res = CliRunner().invoke(main, ["replay", "bench/worlds/day-of-six"])
    assert "26 calls read off the recording (26 in it), 26 requests rendered here that were the " \
           "recorded bytes" in res.output, res.output


@pytest.mark.parametrize("folder", ["none-such", "../configs", "Smollm2"])
def test_a_scenario_naming_a_folder_of_templates_that_is_not_one_is_refused_in_one_line(
        tmp_path, monkeypatch, clean, folder):
    d = tmp_path / "mine"
    shutil.copytree(CHECKOUT / "fixtures" / "day-of-three", d)
    v = json.loads((d / "scenario.json").read_text())
    v["templates"] = folder
    v["exemplars"] = str(CHECKOUT / v["exemplars"])
    (d / "scenario.json").write_text(json.dumps(v))
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["--home", str(CHECKOUT), "run", str(d), "--out", "r.log"])
    assert res.exit_code != 0 and res.exception is None or isinstance(res.exception, SystemExit)
    last = res.output.strip().splitlines()[-1]
    assert "Traceback" not in res.output and ("templates" in last or "template" in last), last
    assert not (tmp_path / "r.log").exists()


def test_a_scenario_with_its_own_importance_json_runs(tmp_path, monkeypatch, clean):
    src = CHECKOUT / "fixtures" / "day-of-three"
    d = tmp_path / "mine"
    shutil.copytree(src, d)
    shutil.copy(CHECKOUT / "configs" / "importance.json", d / "importance.json")
    v = json.loads((d / "scenario.json").read_text())
    v["importance"] = "importance.json"
    v["exemplars"] = str(CHECKOUT / v["exemplars"])
    (d / "scenario.json").write_text(json.dumps(v))
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["--home", str(CHECKOUT), "run", str(d), "--out", "r.log"])
    assert res.exit_code == 0, res.output
    assert f"head {v['head_sha256']}" in res.output


def test_init_writes_a_project_that_runs_and_replays(tmp_path, monkeypatch, clean):
    res = CliRunner().invoke(main, ["init", str(tmp_path / "p")])
    assert res.exit_code == 0, res.output
    monkeypatch.chdir(tmp_path / "p")
    res = CliRunner().invoke(main, ["-v", "replay"])
    assert res.exit_code == 0, res.output
    assert "every one to its committed head hash" in res.output
    assert f"home: {(tmp_path / 'p').resolve()}" in res.output


def test_init_refuses_a_folder_that_is_not_empty(tmp_path, clean):
    (tmp_path / "x").write_text("")
    res = CliRunner().invoke(main, ["init", str(tmp_path)])
    assert res.exit_code == 1 and "not an empty folder" in res.output
