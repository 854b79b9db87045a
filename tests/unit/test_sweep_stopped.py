"""What a sweep a signal stopped leaves: its finished runs, whole, and nothing half-made.

`kernel.sweep.stopped` runs once Ray is gone; these tests lay out by hand
what a stopped sweep can leave (a run's hidden folder half-written, an old
run stepped aside for a new one, the table's temporary file, a run's scratch
folder) and hold the tidying and its line to it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kernel import config, sweep
from kernel.sweep import stopped
from kernel.sweep.runner import key_of
from kernel.sweep.task import scratch_root


@pytest.fixture
def spec(tmp_path):
    """A sweep of four world-only runs in a home of its own (`village init`)."""
    from click.testing import CliRunner

    from kernel.cli import main

    home = tmp_path / "p"
    r = CliRunner().invoke(main, ["init", str(home)])
    assert r.exit_code == 0, r.output
    p = tmp_path / "s.json"
    p.write_text(json.dumps({"name": f"stopped-{tmp_path.name}", "scenarios": ["village-day"],
                             "seeds": [1, 2, 3, 4]}))
    config.set_home(home)
    try:
        s = sweep.load(p)
        yield s
    finally:
        shutil.rmtree(scratch_root(key_of(s)), ignore_errors=True)
        config.set_home(None)


def _run(folder: Path, run_id: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "row.json").write_text(json.dumps({"run": run_id, "status": "ok"}))
    return folder


def test_a_stopped_sweep_keeps_its_finished_runs_and_takes_away_what_was_half_made(spec):
    was = stopped.before(spec)
    ids = [p.id for p in sweep.plans(spec)]
    runs = spec.out / "runs"
    _run(runs / ids[0], ids[0])
    _run(runs / f".{ids[1]}.part", ids[1])                 # being written when the signal came
    _run(runs / f".{ids[2]}.old", ids[2])                  # stepped aside, its new one not in yet
    (spec.out / f".{sweep.TABLE}.tmp").write_bytes(b"half a table")
    scratch = scratch_root(key_of(spec)) / ids[3]
    scratch.mkdir(parents=True)
    line = stopped.left(spec, was, replaying=False)
    assert sorted(p.name for p in runs.iterdir()) == sorted([ids[0], ids[2]])
    assert not (spec.out / f".{sweep.TABLE}.tmp").exists()
    assert not scratch_root(key_of(spec)).exists()
    assert line == f"2 of 4 runs done, in {spec.out}; village sweep {spec.source} makes the other 2"


def test_a_sweep_stopped_before_any_run_finished_takes_away_the_folder_it_made(spec):
    was = stopped.before(spec)
    assert was.made is not None
    (spec.out / "runs").mkdir(parents=True)
    (spec.out / "spec.json").write_text("{}")
    _run(spec.out / "runs" / ".a.part", "a")
    assert stopped.left(spec, was, replaying=False) is None
    assert not was.made.exists()


def test_a_stopped_replay_has_written_nothing_until_its_table_is_in(spec):
    spec.out.mkdir(parents=True)
    was = stopped.before(spec)
    assert stopped.left(spec, was, replaying=True) is None
    (spec.out / sweep.TABLE).write_bytes(b"a table")
    assert stopped.left(spec, was, replaying=True) == f"the replays are written, in {spec.out / sweep.TABLE}"


def test_two_sweeps_of_one_spec_at_once_have_their_own_scratch_folders(spec):
    import subprocess
    import sys
    other = subprocess.run([sys.executable, "-c", "from kernel.sweep import runner; "
                            "print(runner._THIS_SWEEP)"], capture_output=True, text=True,
                           check=True).stdout.strip()
    mine = key_of(spec)
    assert mine.startswith(f"{spec.name}-{spec.digest[:12]}-") and not mine.endswith(other)
    assert key_of(spec, replaying=True) == f"{mine}-replay"
