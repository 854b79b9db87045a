"""A fork: its parent's first T tick frames byte for byte, then its own settings; its header."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from kernel import engine
from kernel import events as ev
from kernel.cli import main
from kernel.engine import fork
from kernel.engine.scenario import Forked
from kernel.errors import LogCorrupt, VillageError
from kernel.log import FORMAT, Header, LogWriter, read_header
from kernel.log.frame import MAGIC, ZERO, frame_bytes, scan_raw
from kernel.testing import ScriptedOracle

ROOT = Path(__file__).resolve().parents[2]


def frames(path) -> list[tuple[bytes, bytes]]:
    """(payload, chain) of every frame of a log, the header first."""
    with open(path, "rb") as fh:
        return [(f[2], f[3]) for f in scan_raw(fh)]


def answer(ask) -> str:
    """A scripted model: two questions, then a statement citing the first row it was shown."""
    if ask.purpose == "questions":
        return json.dumps({"questions": ["What did the day hold for me?",
                                         "Whom did I meet along the way?"]})
    ids = [int(x) for x in re.findall(r"\[(\d+)\]", ask.prompt_text)]
    return json.dumps({"answer": "The long day taught me patience with hunger and friends.",
                       "numbers": ids[:1]})


def scripted() -> ScriptedOracle:
    return ScriptedOracle([answer] * 10_000)


@pytest.fixture(scope="module")
def often():
    """day-of-three with everybody reflecting every 500 ticks: rounds on both sides of a fork."""
    sc = engine.load_scenario("day-of-three")
    st = sc.settings
    st = type(st)(**{**{f: getattr(st, f) for f in st.__slots__}, "every": 500})
    return sc.with_settings(st)


@pytest.fixture(scope="module")
def parent_log(often, tmp_path_factory):
    p = tmp_path_factory.mktemp("parent") / "parent.log"
    r = engine.run(often, scripted(), p)
    assert r.thoughts > 0 and len(r.rounds) == 4
    return p


def fork_of(often, parent_log, at, out, child=None, oracle=None):
    source = fork.ForkedFrom(often, frames(parent_log)[-1][1].hex(), scripted(), parent_log)
    return fork.run_fork(source, child or replace(often, forked=Forked(often.name, at)), at, out,
                         oracle=oracle or scripted())


def test_the_header_of_a_run_that_is_not_a_fork_is_the_same_bytes_as_before(tmp_path):
    w = LogWriter.create(tmp_path / "a.log", config_digest="ab" * 32, seed=7)
    w.close()
    old = ev.pack({"config_digest": "ab" * 32, "format": FORMAT, "seed": 7})
    data, _ = frame_bytes(ZERO, old)
    assert (tmp_path / "a.log").read_bytes() == MAGIC + data
    assert read_header(tmp_path / "a.log").fork_record() is None


def test_a_fork_header_names_its_parent_its_chain_at_t_minus_1_fork_at_and_overrides(tmp_path):
    h = Header(FORMAT, "ab" * 32, 7, fork_at=40, parent="cd" * 32, parent_chain="ef" * 32,
               overrides=(("thought", "12" * 32),))
    LogWriter.create(tmp_path / "f.log", config_digest="ab" * 32, seed=7, fork=h).close()
    got = read_header(tmp_path / "f.log")
    assert got == h
    assert got.fork_record() == {"fork_at": 40, "parent": "cd" * 32, "parent_chain": "ef" * 32,
                                 "overrides": {"thought": "12" * 32}}


def test_a_header_with_half_a_fork_record_is_refused(tmp_path):
    bad = ev.pack({"config_digest": "ab" * 32, "format": FORMAT, "seed": 7, "fork_at": 3})
    data, _ = frame_bytes(ZERO, bad)
    (tmp_path / "x.log").write_bytes(MAGIC + data)
    with pytest.raises(LogCorrupt, match="not a log header"):
        read_header(tmp_path / "x.log")


def test_the_forks_first_t_frames_are_the_parents_byte_for_byte(often, parent_log, tmp_path):
    at = 1200
    r = fork_of(often, parent_log, at, tmp_path / "fork.log")
    mine, theirs = frames(tmp_path / "fork.log"), frames(parent_log)
    assert [p for p, _ in mine[1:at + 1]] == [p for p, _ in theirs[1:at + 1]]
    h = read_header(tmp_path / "fork.log")
    assert h.fork_at == at and h.parent == theirs[-1][1].hex()
    assert h.parent_chain == theirs[at][1].hex() == r.parent_chain     # frame `at` holds tick at-1
    assert h.overrides == ()


def test_a_fork_with_no_change_has_every_tick_frame_of_its_parent(often, parent_log, tmp_path):
    fork_of(often, parent_log, 1200, tmp_path / "same.log")
    r = CliRunner().invoke(main, ["diff", str(parent_log), str(tmp_path / "same.log")])
    assert r.exit_code == 0, r.output
    assert "identical" in r.output and "fork at" in r.output


def test_a_fork_under_another_depth_cap_names_its_thought_config_and_parts_after_t(
        often, parent_log, tmp_path):
    child = replace(often, settings=replace(often.settings, cap=1, digests=tuple(
        (k, "00" * 32 if k == "thought" else d) for k, d in often.settings.digests)),
        forked=Forked(often.name, 700))

    def deeper(ask):
        # cite the newest thought shown, so depth grows past the cap of 1
        if ask.purpose == "statement":
            ids = [int(x) for x in re.findall(r"\[(\d+)\]", ask.prompt_text)]
            return json.dumps({"answer": "Thinking again about what I already thought today.",
                               "numbers": [max(ids)]})
        return answer(ask)

    fork.run_fork(fork.ForkedFrom(often, frames(parent_log)[-1][1].hex(), scripted(), parent_log),
                  child, 700, tmp_path / "capped.log", oracle=ScriptedOracle([deeper] * 10_000))
    assert dict(read_header(tmp_path / "capped.log").overrides) == {"thought": "00" * 32}
    mine, theirs = frames(tmp_path / "capped.log"), frames(parent_log)
    assert [p for p, _ in mine[1:701]] == [p for p, _ in theirs[1:701]]
    assert any(a != b for (a, _), (b, _) in zip(mine[701:], theirs[701:], strict=True))


def test_a_parent_log_the_configs_do_not_give_is_refused(often, parent_log, tmp_path):
    other = tmp_path / "other.log"
    engine.run(often, ScriptedOracle([lambda a: '{"questions": ["x", "y"]}' if a.purpose ==
                                      "questions" else answer(a)] * 10_000), other)
    with pytest.raises(fork.ForkError, match="do not give"):
        fork_of(often, other, 1200, tmp_path / "f.log")
    assert not (tmp_path / "f.log").exists()


def test_a_fork_that_fails_after_its_first_ticks_are_written_leaves_no_log(
        often, parent_log, tmp_path):
    from kernel.errors import OracleError
    out = tmp_path / "f.log"
    with pytest.raises(OracleError, match="the script has 0 answers"):
        fork_of(often, parent_log, 1200, out, oracle=ScriptedOracle([]))
    assert not out.exists()


@pytest.fixture(scope="module")
def world_log(tmp_path_factory):
    p = tmp_path_factory.mktemp("world") / "vd.log"
    engine.run(engine.load_scenario("village-day"), None, p)
    return p


def test_a_forks_world_may_change_only_policy_and_food(world_log, tmp_path):
    w = json.loads((ROOT / "fixtures/village-day/world.json").read_text())
    w["policy"]["chances_in_10000"]["give"] = 3000
    w["food"]["regrow_milligrams_per_tick"] = 20
    (tmp_path / "ok.json").write_text(json.dumps(w))
    p = fork.plan(world_log, 500, world=tmp_path / "ok.json")
    assert [k for k, _ in fork.overrides(p.parent, p.child)] == ["world"]
    w["grid"]["width"] += 1
    (tmp_path / "bad.json").write_text(json.dumps(w))
    with pytest.raises(fork.ForkError, match="may change only policy and food.*grid"):
        fork.plan(world_log, 500, world=tmp_path / "bad.json")


def test_a_forks_parent_configs_must_have_the_digest_its_header_says(world_log):
    assert fork.plan(world_log, 10).parent.name == "village-day"
    with pytest.raises(fork.ForkError, match="not the configs it ran"):
        fork.plan(world_log, 10, scenario="day-of-three")


@pytest.mark.parametrize("at", [0, -1, 2001])
def test_a_fork_is_at_a_tick_the_parent_holds(world_log, at):
    with pytest.raises(VillageError, match="between 1 and 2000"):
        fork.plan(world_log, at)


def test_a_fork_of_a_world_run_from_the_command_line_diffs_from_its_first_changed_tick(
        world_log, tmp_path):
    w = json.loads((ROOT / "fixtures/village-day/world.json").read_text())
    w["policy"]["chances_in_10000"]["give"] = 5000
    (tmp_path / "w.json").write_text(json.dumps(w))
    out = tmp_path / "f.log"
    r = CliRunner().invoke(main, ["fork", str(world_log), "--at", "700", "--world",
                                  str(tmp_path / "w.json"), "--out", str(out)])
    assert r.exit_code == 0, r.output
    d = CliRunner().invoke(main, ["diff", str(world_log), str(out)])
    assert d.exit_code == 1
    first = int(re.search(r"first difference at tick (\d+)", d.output).group(1))
    assert first >= 700
    again = CliRunner().invoke(main, ["fork", str(world_log), "--at", "700", "--out", str(out)])
    assert again.exit_code == 1 and "already exists" in again.output


def test_a_fork_of_a_fork_log_is_refused_in_one_line(world_log, tmp_path):
    out = tmp_path / "f.log"
    assert CliRunner().invoke(main, ["fork", str(world_log), "--at", "5", "--out",
                                     str(out)]).exit_code == 0
    r = CliRunner().invoke(main, ["fork", str(out), "--at", "3", "--out", str(tmp_path / "g.log")])
    assert r.exit_code == 1 and "is itself a fork" in r.output


def test_a_forked_scenario_replays_from_its_parents_recording_and_its_own(tmp_path):
    parent = engine.load_scenario("day-of-three")
    folder = tmp_path / "day-of-three-fork"
    folder.mkdir()
    (folder / "world.json").write_text((ROOT / "fixtures/day-of-three/world.json").read_text())
    v = {"name": "day-of-three-fork", "description": "a test fork", "ticks": 2000,
         "head_sha256": "0" * 64, "parent": "day-of-three", "fork_at": 1000,
         "exemplars": str(parent.exemplars)}      # under the configs the parent names: the home's
    (folder / "scenario.json").write_text(json.dumps(v))
    sc = engine.load_scenario(folder)
    from kernel.oracle import make
    r = engine.run(sc, make("replay", replay_from=sc.exemplars), tmp_path / "a.log")
    assert r.stopped is None and r.ticks == 2000
    v["head_sha256"] = r.head_hex
    (folder / "scenario.json").write_text(json.dumps(v))
    got = CliRunner().invoke(main, ["replay", str(folder)])
    assert got.exit_code == 0, got.output
    assert read_header(tmp_path / "a.log").fork_at == 1000


def _committed_forks() -> list[str]:
    from kernel.engine import scenario as msc
    return [n for n in msc.committed() if msc.load(n).parent is not None]


def test_every_committed_fork_replays_and_shares_its_parents_first_ticks_frame_for_frame(tmp_path):
    from kernel.oracle import make
    for name in _committed_forks():
        sc = engine.load_scenario(name)
        parent = engine.load_scenario(sc.parent)
        mine, theirs = tmp_path / f"{name}.log", tmp_path / f"{parent.name}.log"
        oracle = make("replay", replay_from=sc.exemplars)
        r = engine.run(sc, oracle, mine)
        assert r.head_hex == sc.head_sha256 and oracle.unread == 0, name
        engine.run(parent, None if parent.world_only else make("replay", replay_from=parent.exemplars),
                   theirs)
        a, b = frames(mine), frames(theirs)
        assert [p for p, _ in a[1:sc.fork_at + 1]] == [p for p, _ in b[1:sc.fork_at + 1]], name
        h = read_header(mine)
        assert (h.fork_at, h.parent, h.parent_chain) == (sc.fork_at, parent.head_sha256,
                                                         b[sc.fork_at][1].hex()), name
