"""The kernel works from a wheel installed anywhere, not only from this checkout.

Builds the wheel, installs it (no embedded extra) into a fresh virtual
environment, and runs `village init`, `village world run`, `village log
verify` and `village sql` in a temporary folder outside the checkout, then
replays and reports the scenario with minds in it that `init` wrote
(day-of-three, from the recording the wheel carries).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
CHECKOUT = Path(__file__).resolve().parents[2]


def _run(cmd, cwd, env=None, timeout=600):
    res = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert res.returncode == 0, f"{cmd}\n{res.stdout}\n{res.stderr}"
    return res


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    wheels = tmp_path_factory.mktemp("wheels")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(CHECKOUT)],
         cwd=wheels)
    (whl,) = wheels.glob("village_kernel-*.whl")
    env_dir = tmp_path_factory.mktemp("venv")
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    _run([str(py), "-m", "pip", "install", "-q", str(whl)], cwd=env_dir)
    return env_dir / "bin" / "village"


def test_a_wheel_installed_into_a_fresh_venv_runs_init_world_run_verify_and_sql(installed, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "VILLAGE_HOME"}
    work = tmp_path / "elsewhere"
    work.mkdir()
    # Outside any project, the shipped configs run a world.
    out = _run([str(installed), "world", "run", "--ticks", "50", "--out", "bare.log"], work, env)
    assert "head" in out.stdout
    _run([str(installed), "init", "proj"], work, env)
    proj = work / "proj"
    assert (proj / "village.toml").is_file() and (proj / "configs" / "world.json").is_file()
    res = _run([str(installed), "-v", "world", "run", "--out", "day.log"], proj, env)
    assert f"home: {proj.resolve()}" in res.stderr
    head = res.stdout.split("head ")[-1].strip()
    v = _run([str(installed), "log", "verify", "day.log"], proj, env)
    assert head in v.stdout and "intact" in v.stdout
    q = _run([str(installed), "sql", "day.log", "SELECT count(*) AS n FROM memory"], proj, env)
    assert "(1 row)" in q.stdout
    r = _run([str(installed), "replay"], proj, env)
    assert "every one to its committed head hash" in r.stdout
    # The project's own files win over the shipped ones.
    w = proj / "configs" / "world.json"
    w.write_text(w.read_text().replace('"seed": ', '"seed": 1', 1))
    res2 = _run([str(installed), "world", "run", "--out", "other.log"], proj, env)
    assert res2.stdout.split("head ")[-1].strip() != head


def test_a_project_made_from_the_wheel_replays_day_of_three_and_reports_its_thoughts(installed,
                                                                                    tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "VILLAGE_HOME"}
    _run([str(installed), "init", "minds"], tmp_path, env)
    proj = tmp_path / "minds"
    head = json.loads((CHECKOUT / "fixtures/day-of-three/scenario.json").read_text())["head_sha256"]
    r = _run([str(installed), "replay", "day-of-three"], proj, env)
    assert f"head {head}: the committed digest, byte for byte" in r.stdout
    rep = _run([str(installed), "report", "day-of-three", "--out", "day.html"], proj, env)
    assert int(re.search(r"(\d+) thoughts", rep.stdout).group(1)) >= 1
