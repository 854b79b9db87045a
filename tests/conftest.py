"""Test settings shared by every suite.

Hypothesis runs under one profile with no per-example deadline and no
too-slow health check: the machines that run CI are shared and noisy, and a
property test checks a rule, never a speed (speeds are `make bench`'s).
"""

from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("village", deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("village")


@pytest.fixture(scope="session")
def world_run(tmp_path_factory):
    """A log of the shipped world's first 600 ticks, made once per session."""
    from kernel import world

    p = tmp_path_factory.mktemp("world") / "run.log"
    world.run(world.load(), 600, p)
    return p


@pytest.fixture
def log(world_run, tmp_path) -> Path:
    """A copy of `world_run` that a test may index, change or break."""
    p = tmp_path / "run.log"
    p.write_bytes(world_run.read_bytes())
    return p
