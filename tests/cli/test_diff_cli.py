"""`village diff A.log B.log`, through click's CliRunner."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
from click.testing import CliRunner

from kernel import config as configs
from kernel import events as ev
from kernel import log as vlog
from kernel.cli import main
from kernel.engine import scenario as msc
from tests.common import scripted_day_of_three


def _diff(*args):
    return CliRunner().invoke(main, ["diff", *map(str, args)])


def _world(out, ticks, config=None):
    args = ["world", "run", "--ticks", str(ticks), "--out", str(out)]
    if config is not None:
        args += ["--config", str(config)]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Three world runs: 300 ticks, the same 300 under another seed, and its first 120 ticks."""
    d = tmp_path_factory.mktemp("runs")
    world = json.loads((configs.home() / "configs" / "world.json").read_text(encoding="utf-8"))
    other = d / "seed.json"
    other.write_text(json.dumps({**world, "seed": world["seed"] + 1}), encoding="utf-8")
    return {"a": _world(d / "a.log", 300), "seed": _world(d / "seed.log", 300, other),
            "prefix": _world(d / "prefix.log", 120), "seed_value": world["seed"]}


def test_diff_answers_dash_h():
    res = CliRunner().invoke(main, ["diff", "-h"])
    assert res.exit_code == 0 and "Usage:" in res.output and "Exit 0" in res.output


def test_identical_logs_exit_0_and_say_so(runs):
    res = _diff(runs["a"], runs["a"])
    assert res.exit_code == 0, res.output
    assert "identical: every tick frame is the same (300 ticks)" in res.output
    assert "headers   the same" in res.output


def test_two_world_seeds_exit_1_naming_the_first_tick_at_which_they_differ(runs):
    first = next(ta.tick for ta, tb in zip(vlog.read_ticks(runs["a"]), vlog.read_ticks(runs["seed"]),
                                           strict=True) if ta.events != tb.events)
    res = _diff(runs["a"], runs["seed"])
    assert res.exit_code == 1, res.output
    assert f"first difference at tick {first} " in res.output
    s = runs["seed_value"]
    assert re.search(rf"^headers   differ.*seed {s} \(A\), {s + 1} \(B\)", res.output, re.M)
    assert "differing ticks by villager" in res.output
    for name in ("Halla (1)", "Ander (2)", "Mose (3)"):
        assert name in res.output


def test_the_day_of_three_and_a_run_under_other_retrieval_weights_exit_1_at_the_reflection_tick(
        tmp_path):
    sc = msc.load("day-of-three")
    scripted_day_of_three(tmp_path / "a.log")
    other = dataclasses.replace(sc.settings, retrieval=dataclasses.replace(
        sc.settings.retrieval, weights=(1.0, 1.0, 0.0)))
    scripted_day_of_three(tmp_path / "b.log", other)
    res = _diff(tmp_path / "a.log", tmp_path / "b.log")
    assert res.exit_code == 1, res.output
    assert "first difference at tick 1999 " in res.output
    assert "prefix    1,999 tick frames the same" in res.output
    assert re.search(r"^  B  answered +prompt_sha256=[0-9a-f]{16}", res.output, re.M)
    assert res.output.rstrip().endswith("differ: 1 tick")


def test_a_log_against_its_own_prefix_exits_1_naming_the_tick_where_the_shorter_ends(runs):
    res = _diff(runs["a"], runs["prefix"])
    assert res.exit_code == 1, res.output
    assert "B ends at tick 119, and A goes on to tick 299: 180 ticks only A holds" in res.output
    assert "first difference at tick 120 (B holds no frame for it)" in res.output
    back = _diff(runs["prefix"], runs["a"])
    assert back.exit_code == 1 and "A ends at tick 119" in back.output


def test_headers_that_differ_over_equal_ticks_exit_0_with_a_header_line(tmp_path):
    for name, seed, digest in (("a", 5, "ab" * 32), ("b", 6, "cd" * 32)):
        with vlog.LogWriter.create(tmp_path / f"{name}.log", config_digest=digest, seed=seed) as w:
            for t in range(10):
                w.append(t, [ev.Walked(villager=1, from_x=t, from_y=0, to_x=t + 1, to_y=0)])
    res = _diff(tmp_path / "a.log", tmp_path / "b.log")
    assert res.exit_code == 0, res.output
    lines = [x for x in res.output.splitlines() if x.startswith("headers")]
    assert lines == ["headers   differ, and the ticks are compared all the same: config digest "
                     f"{'ab' * 8} (A), {'cd' * 8} (B); seed 5 (A), 6 (B)"]
    assert "identical: every tick frame is the same (10 ticks)" in res.output


def test_bad_input_is_one_line_naming_the_rule_and_the_value_with_exit_2(runs, tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("these are notes, not a log\n")
    bad = tmp_path / "bad.log"
    b = bytearray(runs["a"].read_bytes())
    b[-10] ^= 0x01
    bad.write_bytes(bytes(b))
    for other, says in ((tmp_path / "nope.log", f"no log at {tmp_path / 'nope.log'}"),
                        (tmp_path, f"{tmp_path} is a folder, not a log"),
                        (text, f"{text}: not a village log"),
                        (bad, f"{bad}: frame 300 at byte ")):
        res = _diff(runs["a"], other)
        assert res.exit_code == 2, res.output
        assert not isinstance(res.exception, Exception) or isinstance(res.exception, SystemExit)
        lines = res.output.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"Error: {says}"), res.output
