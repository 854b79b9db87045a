"""`village log verify` and `village log show`, through click's CliRunner."""

from __future__ import annotations

from click.testing import CliRunner

from kernel import events as ev
from kernel import log as vlog
from kernel.cli import main


def _log(path, ticks=3):
    with vlog.LogWriter.create(path, config_digest="ab" * 32, seed=5) as w:
        for t in range(ticks):
            w.append(t, [ev.Walked(villager=1, from_x=t, from_y=0, to_x=t + 1, to_y=0)])
    return vlog.verify(path)


def test_every_command_answers_dash_h():
    r = CliRunner()
    for args in (["-h"], ["log", "-h"], ["log", "verify", "-h"], ["log", "show", "-h"]):
        res = r.invoke(main, args)
        assert res.exit_code == 0 and "Usage:" in res.output, args


def test_verify_prints_what_the_log_holds_and_exits_0_when_intact(tmp_path):
    p = tmp_path / "run.log"
    s = _log(p)
    res = CliRunner().invoke(main, ["log", "verify", str(p)])
    assert res.exit_code == 0, res.output
    for want in ("frames     4 (1 header + 3 ticks)", "events     3", s.head_hex, f"bytes      {s.bytes:,}"):
        assert want in res.output


def test_the_fast_verify_counts_the_same(tmp_path):
    p = tmp_path / "run.log"
    s = _log(p)
    res = CliRunner().invoke(main, ["log", "verify", "--fast", str(p)])
    assert res.exit_code == 0 and s.head_hex in res.output and "events     3" in res.output


def test_verify_exits_1_naming_the_frame_and_offset_of_damage(tmp_path):
    p = tmp_path / "run.log"
    _log(p)
    b = bytearray(p.read_bytes())
    b[-5] ^= 0x10
    p.write_bytes(bytes(b))
    res = CliRunner().invoke(main, ["log", "verify", str(p)])
    assert res.exit_code == 1
    assert "damaged at frame 3, byte" in res.output


def test_verify_reports_a_torn_tail_and_changes_nothing_and_repair_cuts_it(tmp_path):
    p = tmp_path / "run.log"
    _log(p)
    with open(p, "ab") as f:
        f.write(b"\x05\x00")
    before = p.read_bytes()
    res = CliRunner().invoke(main, ["log", "verify", str(p)])
    assert res.exit_code == 1 and "torn tail of 2 bytes" in res.output
    assert p.read_bytes() == before, "verify reads and never changes a file"
    res = CliRunner().invoke(main, ["log", "repair", str(p)])
    assert res.exit_code == 0 and "cut back" in res.output
    assert p.read_bytes() == before[:-2]
    res = CliRunner().invoke(main, ["log", "verify", "--repair", str(p)])
    assert res.exit_code == 2, "verify has no --repair: repair is its own command"


def test_show_prints_one_readable_event_per_line_from_a_tick(tmp_path):
    p = tmp_path / "run.log"
    _log(p, ticks=5)
    res = CliRunner().invoke(main, ["log", "show", str(p), "--from-tick", "2", "--limit", "2"])
    assert res.exit_code == 0
    lines = res.output.strip().splitlines()
    assert len(lines) == 2 and lines[0].split()[:2] == ["2", "walked"]
    assert "from_x=2" in lines[0]


def test_a_missing_log_is_one_line(tmp_path):
    res = CliRunner().invoke(main, ["log", "show", str(tmp_path / "nope.log")])
    assert res.exit_code == 1 and res.output.strip().count("\n") == 0 and "no log at" in res.output
