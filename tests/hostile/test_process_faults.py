"""Faults only a real `village` process shows: each is one line, or the work done, never a traceback.

Every row runs the installed `village` program as its own process (through
`tests/process.py`), in a project home `village init` made, and checks what a
user would see: the exit code, stderr as printed, and the files on disk
before and after. The faults here passed when the suite ran in process and
failed in the real one: a bad OLLAMA_HOST raised from inside the `ollama`
client as it was first imported.
"""

from __future__ import annotations

import importlib.util
import json
import re
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from tests import process
from tests.process import env, one_error_line, sha256_of, village

from .conftest import record

pytestmark = pytest.mark.slow   # a real process, server, model or browser each test

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


def _refused_in_one_line(home: Path, args: list[str], *, said: str = "", **environ: str) -> str:
    """`village ARGS` under `environ`: exit 1, one line, and not a file written or changed."""
    root = home.parent
    before = _files(root)
    r = village(*args, cwd=home, environ=env(drop=("VILLAGE_HOME", "OLLAMA_HOST", "OLLAMA_HOSTS",
                                                   "OPENAI_BASE_URL", "OPENAI_BASE_URLS"),
                                             **environ), timeout=60)
    if "Traceback" in r.stderr:
        record("traceback")
    # `said` starts what a command may print before the model is reached (a fork its header)
    line = one_error_line(r, printed=r.stdout if said and r.stdout.startswith(said) else "")
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


# -- the OpenAI protocol: every live row, a base URL no client can reach, or no server at all ---

BAD_URLS = ("http://[::1", "http://127.0.0.1:99999", "http://127.0.0.1:0/v1", "127.0.0.1:8000")
URL_RULE = "a base URL is http[s]://host[:port][/path] with a port from 1 to 65535"
OPENAI_ROWS = {k: [("openai" if a == "ollama" else a) for a in v] for k, v in LIVE_ROWS.items()}


@pytest.mark.parametrize("url", BAD_URLS)
@pytest.mark.parametrize("row", sorted(OPENAI_ROWS))
def test_an_OPENAI_BASE_URL_the_client_cannot_reach_is_one_line_naming_it_and_the_rule(
        home, row, url):
    line = _refused_in_one_line(home, OPENAI_ROWS[row], OPENAI_BASE_URL=url)
    assert line.startswith(f"Error: OPENAI_BASE_URL {url!r} is not a URL this client can "
                           f"reach ("), line
    assert URL_RULE in line, line


@pytest.mark.parametrize("url", BAD_URLS)
@pytest.mark.parametrize("row", ["run", "run --record", "sweep --workers 2 --accept-digest"])
def test_a_url_of_OPENAI_BASE_URLS_the_client_cannot_reach_is_one_line_naming_it(home, row, url):
    line = _refused_in_one_line(home, OPENAI_ROWS[row],
                                OPENAI_BASE_URLS=f"http://127.0.0.1:1/v1,{url}")
    assert line.startswith(f"Error: a URL of OPENAI_BASE_URLS {url!r} is not a URL"), line
    assert URL_RULE in line, line


@pytest.mark.parametrize("url", BAD_URLS[:2])
@pytest.mark.parametrize("flags", [(), ("--accept-digest",), ("--record",)])
def test_ray_workers_for_openai_are_refused_in_one_line_naming_where_its_servers_are_listed(
        home, url, flags):
    line = _refused_in_one_line(home, ["run", "day-of-three", "--oracle", "openai", "--workers",
                                       "2", *flags, "--out", "r.log"], OPENAI_BASE_URL=url)
    assert "with --oracle openai the pool is its servers, not Ray workers: drop --workers" in line
    assert "OPENAI_BASE_URLS" in line, line


@pytest.mark.parametrize("row", ["run", "run --accept-digest", "run --record",
                                 "run --record --accept-digest", "fork", "fork --record"])
@pytest.mark.parametrize("pool", [False, True])
def test_no_server_at_the_base_url_is_one_line_before_tick_0_and_nothing_is_written(
        home, row, pool):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    environ = ({"OPENAI_BASE_URLS": f"{url},http://127.0.0.1:{port}/w/v1"} if pool
               else {"OPENAI_BASE_URL": url})
    said = "fork of ../d3.log" if row.startswith("fork") else ""
    line = _refused_in_one_line(home, OPENAI_ROWS[row], said=said, **environ)
    assert line.startswith(f"Error: no server at {url} answered the list models call to "
                           "qwen2.5-coder-1.5b"
                           ), line


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
    cfg, log = _crowd_config(home, 2000), home.parent / "crowd.log"
    r = village("world", "run", "--config", str(cfg), "--ticks", "2", "--out", str(log),
                cwd=home, environ=env(drop=("VILLAGE_HOME",)), preexec_fn=_limited_to_two_gib)
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


# -- signals during a fork and a sweep --------------------------------------------------------

CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}
SIGNALS = pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
NOTHING = "interrupted; nothing written"
LIMIT = 120.0


def _as_a_terminal_starts_it() -> None:
    # A test run as a background job inherits SIGINT ignored, and the program keeps a signal it
    # was started ignoring: each child starts with both at their defaults, as from a terminal.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _start(home: Path, *args: str) -> subprocess.Popen:
    return process.start(*args, cwd=home,
                         environ=env(drop=("VILLAGE_HOME", "OLLAMA_HOST", "OLLAMA_HOSTS")),
                         preexec_fn=_as_a_terminal_starts_it)




def _stopped_by(proc: subprocess.Popen, sig: int) -> tuple[int, str]:
    """Send `sig`; the exit code and the program's own last line (Ray may say things first)."""
    _, err = process.signalled(proc, sig, limit=LIMIT)
    if "Traceback" in err or "SIGTERM received" in err:
        record("traceback")
    assert "Traceback" not in err and "SIGTERM received" not in err, err
    if proc.returncode == 0:
        return 0, ""
    assert proc.returncode == CODES[sig], (proc.returncode, err)
    lines = err.strip().splitlines()
    assert [x for x in lines if x.startswith("interrupted")] == lines[-1:], err
    return proc.returncode, lines[-1]


@pytest.fixture(scope="module")
def long_world(home) -> Path:
    """A world run of the home's own configs, long enough that a fork of it takes a while."""
    log = home.parent / "long.log"
    r = village("world", "run", "--ticks", "60000", "--out", str(log), cwd=home,
                environ=env(drop=("VILLAGE_HOME",)), timeout=LIMIT)
    assert r.returncode == 0, r.stderr
    return log


def _ready(when: str, proc: subprocess.Popen, out: Path):
    """When to send the signal: once the program's handler is in (the fork rebuilds the
    parent's ticks then), or once the fork's log has frames in it."""
    if when == "rebuilding":
        return lambda: process.handles_sigterm(proc)
    return lambda: out.exists() and out.stat().st_size > 4096


@SIGNALS
@pytest.mark.parametrize("when", ["rebuilding", "writing"])
def test_a_signal_during_a_fork_says_nothing_was_written_and_leaves_no_fork(
        home, long_world, sig, when, tmp_path):
    before = sha256_of(long_world)
    for attempt in range(3):     # a fork that ended before the signal is tried again
        out = tmp_path / f"fork-{attempt}.log"
        proc = _start(home, "fork", str(long_world), "--at", "30000", "--out", str(out))
        if not process.wait_for(proc, limit=LIMIT, ready=_ready(when, proc, out)):
            proc.kill()
            proc.communicate()
            continue
        code, line = _stopped_by(proc, sig)
        if code == 0:
            continue
        assert line == NOTHING
        assert list(tmp_path.iterdir()) == [], "no fork log, whole or cut, and no temporary file"
        assert sha256_of(long_world) == before
        record("clean")
        return
    pytest.fail("the fork ended each time before it could be interrupted")


def _sweep_spec(home: Path, name: str, seeds: int) -> Path:
    p = home.parent / f"{name}.json"
    p.write_text(json.dumps({"name": name, "scenarios": ["village-day"],
                             "seeds": list(range(1, seeds + 1))}))
    return p


def _scratch_left(name: str) -> list[str]:
    from kernel.sweep.task import SCRATCH
    root = Path(tempfile.gettempdir()) / SCRATCH
    return [p.name for p in root.glob(f"{name}-*")] if root.is_dir() else []


needs_ray = pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="needs Ray")


@needs_ray
@SIGNALS
def test_a_signal_mid_sweep_says_how_many_runs_are_done_and_leaves_each_whole(home, sig):
    name = f"mid-{sig.name.lower()}"
    spec = _sweep_spec(home, name, 40)
    runs = home / "runs" / "sweeps" / name / "runs"
    proc = _start(home, "sweep", str(spec), "--oracle", "ollama", "--workers", "1")
    def two_done() -> bool:
        return runs.is_dir() and sum(not p.name.startswith(".") for p in runs.iterdir()) >= 2

    assert process.wait_for(proc, limit=LIMIT, ready=two_done), proc.communicate()
    code, line = _stopped_by(proc, sig)
    assert code, "the sweep of 40 runs ended before the signal"
    m = re.fullmatch(r"interrupted; (\d+) of 40 runs done, in (.+); village sweep (.+) makes the "
                     r"other (\d+)", line)
    assert m, line
    kept = sorted(runs.iterdir())
    assert [p.name for p in kept if p.name.startswith(".")] == [], "no .part folder is left"
    assert len(kept) == int(m[1]) and int(m[1]) + int(m[4]) == 40, line
    assert Path(m[2]) == runs.parent
    for p in kept:
        assert (p / "row.json").is_file()
        got = village("log", "verify", str(p / "run.log"), environ=env(drop=("VILLAGE_HOME",)))
        assert got.returncode == 0 and "intact" in got.stdout, got.stdout + got.stderr
    assert _scratch_left(name) == [], "no run's scratch folder is left"
    record("clean")


@needs_ray
@SIGNALS
def test_a_signal_as_a_sweep_starts_says_nothing_was_written_and_leaves_no_folder(home, sig):
    name = f"start-{sig.name.lower()}"
    spec = _sweep_spec(home, name, 40)
    before = _files(home.parent)
    proc = _start(home, "sweep", str(spec), "--oracle", "ollama", "--workers", "1")
    handles = process.wait_for(proc, limit=LIMIT, ready=lambda: process.handles_sigterm(proc))
    assert handles, proc.communicate()
    time.sleep(1.0)         # into Ray's start, most times; any moment before a run ends must do
    code, line = _stopped_by(proc, sig)
    assert (code, line) == (CODES[sig], NOTHING)
    assert not (home / "runs" / "sweeps" / name).exists()
    assert _files(home.parent) == before
    assert _scratch_left(name) == []
    record("clean")
