"""A recording has one writer at a time, and is never replaced by one that does not read back.

Two `village` processes that record to one file used to both exit 0, the file
holding whichever wrote last. Here the first process to start recording holds
the file until it has written it: a second one, started meanwhile, is refused
at once in one line naming the file and the holder, writes nothing, and the
file ends up the first one's. The first is held inside its first model call
by a stand-in Ollama that answers only when the test lets it, so the overlap
is certain, not a race of timings. Each path that records is tried: `run
--record` and `interview --record`.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from kernel.testing import serve_json
from tests import process
from tests.process import env, one_error_line, village

from .conftest import FakeOllama, record

pytestmark = pytest.mark.slow   # a real process, server, model or browser each test


class HeldOllama:
    """A stand-in Ollama whose generate calls wait until `go` is set; every call is answered
    with an answer no seam takes (so a run goes on, refusing it)."""

    def __init__(self):
        self.go = threading.Event()
        self.asked = threading.Event()
        tags = {"models": [{"name": n, "model": n, "size": 1, "digest": FakeOllama.DIGEST}
                           for n in FakeOllama.names()]}

        def handle(method, path, request):
            if path == "/api/tags":
                return 200, tags
            if path == "/api/generate":
                self.asked.set()
                self.go.wait(120)
                return 200, {"model": FakeOllama.NAME, "response": "{}", "done": True,
                             "done_reason": "stop", "prompt_eval_count": 1, "eval_count": 1}
            if path == "/api/embed":
                n = len(request.get("input", [])) if isinstance(request, dict) else 1
                return 200, {"model": FakeOllama.NAME, "embeddings": [[1.0] + [0.0] * 383] * n,
                             "prompt_eval_count": 1}
            return 200, {}

        self.server, self.host = serve_json(handle)

    def close(self) -> None:
        self.go.set()
        self.server.shutdown()
        self.server.server_close()


def _two_writers(home: Path, first: list[str], second: list[str], target: Path) -> None:
    fake = HeldOllama()
    environ = env(drop=("VILLAGE_HOME",), OLLAMA_HOST=fake.host)
    before = target.read_bytes() if target.exists() else None
    try:
        a = process.start(*first, cwd=home, environ=environ)
        assert fake.asked.wait(90), "the first writer reached its first model call"
        r = village(*second, cwd=home, environ=environ, timeout=60)
        line = one_error_line(r)
        assert str(target.name) in line and "one writer at a time" in line, line
        assert f"pid {a.pid}" in line, line
        assert (target.read_bytes() if target.exists() else None) == before, \
            "the second writer wrote nothing"
        fake.go.set()
        out, err = a.communicate(timeout=300)
        assert a.returncode == 0, err[-2000:]
    finally:
        fake.close()
    doc = json.loads(target.read_text())
    assert doc["calls"], "the file is the first writer's recording"
    assert not list(home.rglob(".*.lock")), "no lock file is left"
    record("clean")


def test_a_second_run_recording_to_the_same_file_is_refused_while_the_first_runs(project):
    cmd = ["run", "day-of-three", "--oracle", "ollama", "--record", "--accept-digest"]
    _two_writers(project, [*cmd, "--out", "a.log"], [*cmd, "--out", "b.log"],
                 project / "exemplars" / "day-of-three.json")
    assert not (project / "b.log").exists(), "the refused run left no log"


def test_a_second_interview_recording_to_the_same_file_is_refused_while_the_first_asks(project):
    r = village("run", "day-of-three", "--out", "base.log", cwd=project, environ=env(drop=("VILLAGE_HOME",)))
    assert r.returncode == 0, r.stderr
    cmd = ["interview", "base.log", "What did you eat today?", "--who", "Halla", "--oracle", "ollama",
           "--accept-digest", "--record", "asked.json"]
    _two_writers(project, cmd, cmd, project / "asked.json")


def test_a_lock_left_by_a_killed_recorder_is_taken_over(project):
    (project / "exemplars" / ".day-of-three.json.lock").write_text("999999")
    time.sleep(0)   # a stale lock file no process holds
    fake = FakeOllama('{"questions": ["What did I eat?"]}')
    try:
        r = village("run", "day-of-three", "--oracle", "ollama", "--record", "--accept-digest",
                    "--out", "r.log", cwd=project, environ=env(drop=("VILLAGE_HOME",), OLLAMA_HOST=fake.host))
    finally:
        fake.close()
    assert r.returncode == 0, r.stderr[-2000:]
    assert not (project / "exemplars" / ".day-of-three.json.lock").exists()
    record("clean")
