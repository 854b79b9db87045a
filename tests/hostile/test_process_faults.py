"""Faults only a real `village` process shows: each is one line, or the work done, never a traceback.

Every row runs the installed `village` program as its own process (through
`tests/process.py`), in a project home `village init` made, and checks what a
user would see: the exit code, stderr as printed, and the files on disk
before and after. The faults here passed when the suite ran in process and
failed in the real one: a bad OLLAMA_HOST raised from inside the `ollama`
client as it was first imported.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.process import env, one_error_line, sha256_of, village

from .conftest import record

BAD_HOSTS = ("http://[::1", "http://127.0.0.1:99999", "http://127.0.0.1:0")
RULE = "an Ollama host is [http[s]://]host[:port] with a port from 1 to 65535"


def _files(root: Path) -> dict[str, str]:
    """Every file under `root`, by path, with its sha256: what a command must leave as it was."""
    return {p.relative_to(root).as_posix(): sha256_of(p) for p in sorted(root.rglob("*"))
            if p.is_file()}


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    """A project home of `village init`, with a replayed day-of-three log beside it to fork."""
    root = tmp_path_factory.mktemp("faults")
    r = village("init", "p", cwd=root, environ=env(drop=("VILLAGE_HOME",)))
    assert r.returncode == 0, r.stderr
    r = village("run", "day-of-three", "--out", str(root / "d3.log"), cwd=root / "p",
                environ=env(drop=("VILLAGE_HOME",)))
    assert r.returncode == 0, r.stderr
    (root / "spec.json").write_text(json.dumps({"name": "s", "scenarios": ["day-of-three"],
                                                "seeds": [1]}))
    return root / "p"


def _refused_in_one_line(home: Path, args: list[str], **environ: str) -> str:
    """`village ARGS` under `environ`: exit 1, one line, and not a file written or changed."""
    root = home.parent
    before = _files(root)
    r = village(*args, cwd=home, environ=env(drop=("VILLAGE_HOME", "OLLAMA_HOST", "OLLAMA_HOSTS"),
                                             **environ), timeout=60)
    if "Traceback" in r.stderr:
        record("traceback")
    line = one_error_line(r)
    if _files(root) != before:
        record("silent")
    assert _files(root) == before, "no log, recording, sweep folder or other file is written"
    record("clean")
    return line


def _ollama(*extra: str) -> list[str]:
    return ["run", "day-of-three", "--oracle", "ollama", "--out", "r.log", *extra]


LIVE_ROWS = {
    "run": _ollama(),
    "run --accept-digest": _ollama("--accept-digest"),
    "run --record": _ollama("--record"),
    "run --record --accept-digest": _ollama("--record", "--accept-digest"),
    "fork": ["fork", "../d3.log", "--at", "1000", "--oracle", "ollama", "--out", "f.log"],
    "fork --record": ["fork", "../d3.log", "--at", "1000", "--oracle", "ollama", "--record",
                      "--accept-digest", "--out", "f.log"],
    "sweep": ["sweep", "../spec.json", "--oracle", "ollama"],
    "sweep --workers 2 --accept-digest": ["sweep", "../spec.json", "--oracle", "ollama",
                                          "--workers", "2", "--accept-digest"],
    "embed": ["embed", "--oracle", "ollama"],
}


@pytest.mark.parametrize("host", BAD_HOSTS)
@pytest.mark.parametrize("row", sorted(LIVE_ROWS))
def test_an_OLLAMA_HOST_the_client_cannot_parse_is_one_line_naming_it_and_the_rule(home, row, host):
    line = _refused_in_one_line(home, LIVE_ROWS[row], OLLAMA_HOST=host)
    assert line.startswith(f"Error: OLLAMA_HOST {host!r} is not a URL this client can reach ("), line
    assert RULE in line, line


@pytest.mark.parametrize("host", BAD_HOSTS)
@pytest.mark.parametrize("row", ["run", "sweep --workers 2 --accept-digest"])
def test_a_host_of_OLLAMA_HOSTS_the_client_cannot_parse_is_one_line_naming_it_and_the_rule(
        home, row, host):
    line = _refused_in_one_line(home, LIVE_ROWS[row], OLLAMA_HOSTS=f"http://127.0.0.1:1,{host}")
    assert line.startswith(f"Error: a host of OLLAMA_HOSTS {host!r} is not a URL"), line
    assert RULE in line, line


@pytest.mark.parametrize("host", BAD_HOSTS)
def test_ray_workers_for_ollama_are_refused_in_one_line_whatever_OLLAMA_HOST_holds(home, host):
    # The pool of an Ollama run is its hosts: --workers is refused for that, before any host is read.
    line = _refused_in_one_line(home, _ollama("--workers", "2"), OLLAMA_HOST=host)
    assert "OLLAMA_HOSTS" in line and "drop --workers" in line, line


# -- a crowd on one cell ------------------------------------------------------------------------

def _crowd_config(home: Path, n: int) -> Path:
    """The home's world with `n` villagers, every one founded at tick 0 on cell 3,3."""
    value = json.loads((home / "configs" / "world.json").read_text())
    letters = "abcdefghijklmnopqrstuvwxyz"
    value["villagers"] = [{"id": i + 1, "name": "V" + letters[i // 676 % 26] + letters[i // 26 % 26]
                           + letters[i % 26] + "x" * (i // 17576), "founded": 0, "x": 3, "y": 3}
                          for i in range(n)]
    p = home.parent / f"crowd-{n}.json"
    p.write_text(json.dumps(value))
    return p


def _limited_to_two_gib() -> None:
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def test_a_crowd_of_two_thousand_on_one_cell_runs_its_ticks_in_two_gib_of_memory(home):
    import subprocess

    from tests.process import command

    cfg, log = _crowd_config(home, 2000), home.parent / "crowd.log"
    r = subprocess.run(command() + ["world", "run", "--config", str(cfg), "--ticks", "2",
                                    "--out", str(log)], cwd=home, env=env(drop=("VILLAGE_HOME",)),
                       capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                       preexec_fn=_limited_to_two_gib)
    if "Traceback" in r.stderr:
        record("traceback")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr[-2000:]
    got = village("log", "verify", str(log), environ=env(drop=("VILLAGE_HOME",)))
    assert got.returncode == 0 and "intact" in got.stdout, got.stdout + got.stderr
    record("clean")


def test_the_events_of_a_crowd_on_one_cell_grow_with_its_villagers_not_their_square(home):
    counts = {}
    for n in (300, 600):
        r = village("world", "run", "--config", str(_crowd_config(home, n)), "--ticks", "1",
                    "--out", str(home.parent / f"crowd-{n}.log"), cwd=home,
                    environ=env(drop=("VILLAGE_HOME",)))
        assert r.returncode == 0, r.stderr
        counts[n] = int(re.search(r": ([\d,]+) events", r.stdout)[1].replace(",", ""))
    if counts[600] > 2.2 * counts[300]:
        record("silent")
    assert counts[600] <= 2.2 * counts[300], counts
    record("clean")
