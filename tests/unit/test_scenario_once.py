"""A scenario is resolved once, and every run goes through the engine's one entry.

One `village run` reads each config file, prompt template and schema once
(the counts are of files opened, whichever reader opens them), and
`village index` reads the importance table once; the felt projection and the night
read the scenario's values, never its files; a plain scenario and a forked
one both go through kernel.engine.start, with their options as one value;
and the tick loop does not import the fork. A scenario.json is written
whole or not at all.
"""

from __future__ import annotations

import ast
import builtins
import io
import json
import os
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from kernel import config, engine
from kernel.cli import main
from kernel.engine import scenario as msc
from kernel.engine import start
from kernel.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def _config_files() -> set[Path]:
    """What counts as a config file: the JSON files in the home's configs/ (its schemas among
    them), its prompt templates, and the JSON files in its scenarios' folders. A recording is
    not a config: none is counted here."""
    homes = (config.configs_dir().resolve(), msc.fixtures_dir().resolve())
    return {p.resolve() for d in homes for pattern in ("*.json", "*.tmpl") for p in d.rglob(pattern)}


@pytest.fixture
def opened(monkeypatch):
    """Every path opened while the fixture is live, by resolved path, with how often."""
    seen: Counter = Counter()
    os_open, b_open = os.open, builtins.open

    def count(p) -> None:
        if isinstance(p, str | os.PathLike):
            try:
                seen[Path(os.fsdecode(p)).resolve()] += 1
            except (OSError, ValueError):
                pass

    def via_os(p, *a, **k):
        count(p)
        return os_open(p, *a, **k)

    def via_open(p, *a, **k):
        count(p)
        return b_open(p, *a, **k)

    monkeypatch.setattr(os, "open", via_os)
    monkeypatch.setattr(builtins, "open", via_open)
    monkeypatch.setattr(io, "open", via_open)
    return seen


@pytest.mark.parametrize("name", ["day-of-three", "five-days-of-halla-cap-1"])
def test_one_village_run_reads_each_config_file_once(opened, tmp_path, name):
    config._schema.cache_clear()   # a schema is read once a process: this run is the process
    res = CliRunner().invoke(main, ["run", name, "--oracle", "replay",
                                    "--out", str(tmp_path / "run.log")])
    assert res.exit_code == 0, res.output
    during = dict(opened)          # before this test loads the scenario again, to name its files
    sc = engine.load_scenario(name)
    runs = [sc] + ([engine.load_scenario(sc.parent)] if sc.parent is not None else [])
    files = _config_files()
    read = {p: n for p, n in during.items() if p in files}
    # the run read the configs it runs under (a fork's and its parent's): their own and the home's
    for s in runs:
        for what, path in (("scenario", s.folder / "scenario.json"), *s.files,
                           *((tf.name, tf.path) for tf in s.templates)):
            assert read.get(path.resolve()) == 1, (s.name, what, read)
    schemas = {p for p in read if p.parent == (config.configs_dir() / "schema").resolve()}
    assert {p.stem for p in schemas} >= {"scenario", "world", "importance"}, schemas
    twice = {str(p): n for p, n in read.items() if n > 1}
    assert twice == {}, f"config files, templates or schemas read more than once in one " \
                        f"village run: {twice}"


def test_one_village_index_reads_the_importance_table_once(opened, tmp_path):
    out = tmp_path / "run.log"
    res = CliRunner().invoke(main, ["run", "village-day", "--out", str(out)])
    assert res.exit_code == 0, res.output
    opened.clear()
    res = CliRunner().invoke(main, ["index", str(out), "--out", str(tmp_path / "run.duckdb")])
    assert res.exit_code == 0, res.output
    importance = config.config_file("importance.json").resolve()
    assert opened[importance] == 1, {str(p): n for p, n in opened.items() if p.suffix == ".json"}
    twice = {str(p): n for p, n in opened.items() if n > 1 and p in _config_files()}
    assert twice == {}, f"config files read more than once in one village index: {twice}"


def test_the_felt_memory_and_the_night_of_a_scenario_are_read_when_it_is_loaded(monkeypatch):
    from kernel.engine.felt import felt_of
    from kernel.mind.night import night_of

    sc = engine.load_scenario("day-of-three")
    assert sc.valences is not None and sc.night is not None

    def no_reading(*a, **k):
        raise AssertionError(f"a config was read after the scenario was loaded: {a}")

    monkeypatch.setattr(config, "load", no_reading)
    monkeypatch.setattr(config, "read_json", no_reading)
    felt = felt_of(sc)
    assert felt is not None and felt.valences == sc.valences
    assert night_of(sc) is sc.night


def test_a_world_run_has_no_night_settings_and_its_importance_tables_valences():
    w = msc.of_world("world", ticks=10)
    assert w.night is None and w.settings is None
    assert w.valences == msc.valences(config.load("importance", schema="importance"))


def test_a_forked_scenario_and_a_plain_one_both_go_through_the_engine_start(monkeypatch,
                                                                          tmp_path):
    roads = []
    monkeypatch.setattr(start, "run_loop",
                        lambda sc, oracle, out, options: roads.append(("loop", sc.name, options)))
    monkeypatch.setattr(start.fork, "run_forked_scenario",
                        lambda sc, oracle, out, options: roads.append(("fork", sc.name, options)))
    assert engine.run is start.run
    forked = engine.load_scenario("five-days-of-halla-cap-1")
    plain = engine.load_scenario("village-day")
    assert forked.parent is not None and plain.parent is None
    engine.run(forked, None, tmp_path / "f.log", ticks=5, keep_going=True)
    engine.run(plain, None, tmp_path / "p.log", ticks=7)
    assert [(road, name) for road, name, _ in roads] == [("fork", forked.name),
                                                         ("loop", plain.name)]
    (_, _, a), (_, _, b) = roads
    assert isinstance(a, engine.RunOptions) and a.ticks == 5 and a.keep_going
    assert isinstance(b, engine.RunOptions) and b.ticks == 7 and not b.keep_going


def _imports(path: Path) -> set[str]:
    """Every module a file imports, at its top or inside a function."""
    got = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            got |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            got.add(node.module)
            got |= {f"{node.module}.{a.name}" for a in node.names}
    return got


def test_the_tick_loop_imports_neither_the_fork_nor_the_entry():
    loop = _imports(ROOT / "kernel" / "engine" / "run.py")
    assert not {"kernel.engine.fork", "kernel.engine.start"} & loop, loop
    assert "kernel.engine.start" not in _imports(ROOT / "kernel" / "engine" / "fork.py")
    assert {"kernel.engine.fork", "kernel.engine.run"} <= _imports(
        ROOT / "kernel" / "engine" / "start.py")


def test_a_scenario_file_is_written_whole_or_not_at_all(monkeypatch, tmp_path):
    v = json.loads((ROOT / "fixtures" / "village-day" / "scenario.json").read_text())
    p = msc.write(tmp_path, v)
    assert p == tmp_path / "scenario.json" and json.loads(p.read_text()) == v
    before = p.read_bytes()

    def crash(*a, **k):
        raise OSError("the disk went away")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        msc.write(tmp_path, {**v, "ticks": v["ticks"] + 1})
    assert p.read_bytes() == before


def test_a_scenario_file_that_breaks_its_schema_is_refused_before_it_is_written(tmp_path):
    with pytest.raises(ConfigError, match="scenario"):
        msc.write(tmp_path, {"name": "x"})
    assert not (tmp_path / "scenario.json").exists()


def test_a_replay_oracle_made_without_a_models_config_reads_none(monkeypatch):
    from kernel.oracle import ReplayOracle, make

    sc = engine.load_scenario("day-of-three")

    def no_reading(*a, **k):
        raise AssertionError(f"a config was read to make a replay: {a}")

    monkeypatch.setattr(config, "load", no_reading)
    assert isinstance(make("replay", replay_from=sc.exemplars), ReplayOracle)
