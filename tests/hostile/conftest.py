"""The bad-input suite's shared parts: the tally it reports, a small log, a fake Ollama.

Every input the suite tries is run through the real `village` program, a
process of its own started by `tests/process.py`, and counted under one
outcome: a clean refusal or correct result, a traceback, a silent wrong
result, or data lost. Only such inputs count: `record` refuses to count an
input for which the test, while it ran, started no `village` process (a
fixture's setup does not count). The counts are printed at the end of the
run (summed over pytest-xdist's workers), so the numbers the hardening promised (0 tracebacks, 0 silent wrong
results, 0 data lost) are read off every run of `make test`, not remembered.
"""

from __future__ import annotations

import os
import shutil
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from kernel.testing import serve_json
from tests import process

OUTCOMES = ("clean", "traceback", "silent", "lost")
TALLY: Counter = Counter()
_uncounted: int | None = None     # village processes the running test started and no input has used
_mark = 0


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item) -> Iterator[None]:
    global _uncounted, _mark
    _uncounted, _mark = 0, process.started()
    try:
        yield
    finally:
        _uncounted = None


def record(outcome: str, n: int = 1) -> None:
    """Count `n` inputs under `outcome`, one of OUTCOMES: each run by a `village` process of its own.

    The test must have started, while it ran, at least one process through tests/process.py
    for each input it counts; an input tried in process is not a row of the command."""
    global _uncounted, _mark
    assert outcome in OUTCOMES, outcome
    if _uncounted is None:
        raise AssertionError("record counts an input only from inside a hostile test's run")
    _uncounted += process.started() - _mark
    _mark = process.started()
    if _uncounted < n:
        raise AssertionError(f"{n} input(s) counted, but only {_uncounted} village process(es) ran "
                             f"for them: the tally counts inputs run through tests/process.py")
    _uncounted -= n
    TALLY[outcome] += n


@contextmanager
def row() -> Iterator[None]:
    """Count the one input the block runs through `village`: clean when every check in it holds;
    a traceback when one fails on a traceback, else a silent wrong result."""
    try:
        yield
    except AssertionError as e:
        record("traceback" if "Traceback (most recent call last)" in str(e) else "silent")
        raise
    record("clean")


def pytest_sessionfinish(session) -> None:
    """Hand this process's tally on: to the controller where pytest-xdist runs the suite in
    workers (which sums them, in tests/conftest.py), else straight to the summary."""
    if not TALLY:
        return
    mine = {"tally": dict(TALLY), "started": process.started()}
    out = getattr(session.config, "workeroutput", None)
    if out is not None:
        out["hostile"] = mine
    else:
        session.config.hostile_tally = [mine]


@pytest.fixture(scope="session")
def small_world_log(tmp_path_factory) -> Path:
    """A log of the shipped world's first 60 ticks, made once, by the command a user runs."""
    folder = tmp_path_factory.mktemp("hostile")
    r = process.village("world", "run", "--ticks", "60", "--out", "run.log", cwd=folder,
                        environ=process.env(drop=("VILLAGE_HOME",)))
    assert r.returncode == 0, r.stderr
    return folder / "run.log"


@pytest.fixture(scope="session")
def made_project(tmp_path_factory) -> Path:
    """A project `village init` made, once: copy it (`project`) rather than change it."""
    folder = tmp_path_factory.mktemp("made")
    r = process.village("init", "p", cwd=folder, environ=process.env(drop=("VILLAGE_HOME",)))
    assert r.returncode == 0, r.stderr
    return folder / "p"


@pytest.fixture
def project(made_project, tmp_path) -> Path:
    """This test's own copy of a project `village init` made, at tmp_path/p."""
    return Path(shutil.copytree(made_project, tmp_path / "p", symlinks=True))


def tree(root: Path) -> dict[str, str]:
    """Every file under `root` by its sha256, and every folder and link by its kind: what a
    command that must change nothing must leave as it found."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_symlink():
            out[rel] = f"link to {os.readlink(p)}"
        elif p.is_dir():
            out[rel] = "folder"
        elif p.is_file():
            out[rel] = process.sha256_of(p)
        else:
            out[rel] = "other"
    return out


class FakeOllama:
    """Just enough of an Ollama server: one model listed at a digest, every generate answered `text`."""

    NAME = "village-smollm2:135m-instruct-q4_1"
    DIGEST = "ab" * 32

    def __init__(self, text: str, *, digest: str | None = DIGEST):
        self.text = text
        self.generated = 0
        tags = {"models": [{"name": n, "model": n, "size": 1, **({"digest": digest} if digest else {})}
                           for n in self.names()]}

        def handle(method, path, request):
            if path == "/api/tags":
                return 200, tags
            if path == "/api/generate":
                self.generated += 1
                return 200, {"model": self.NAME, "response": self.text, "done": True,
                             "done_reason": "stop", "prompt_eval_count": 1, "eval_count": 1}
            if path == "/api/embed":
                return 200, {"model": self.NAME, "embeddings": [[1.0, 0.0]], "prompt_eval_count": 1}
            return 200, {}

        self.server, self.host = serve_json(handle)

    @classmethod
    def names(cls) -> list[str]:
        """Every Ollama name the models config in use maps a model to: the server has them all."""
        from kernel import config

        o = config.load("models")["ollama"]["models"]
        return sorted({cls.NAME, *(m["name"] for m in o.values())})

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
