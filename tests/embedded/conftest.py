"""The embedded backend's fixtures: the models config and one oracle a module (loading is cached)."""

from __future__ import annotations

import os

import pytest

from kernel import config
from kernel.errors import OracleError
from kernel.oracle import make


@pytest.fixture(scope="module")
def cfg():
    """SmolLM2: the small model the recordings were made with, named explicitly (the default,
    Qwen2.5-Coder-1.5B, is ten times slower a call)."""
    return config.load("models-smollm2", schema="models")


@pytest.fixture(scope="module")
def oracle(cfg):
    try:
        return make("llamacpp", cfg)
    except OracleError as e:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and the embedded backend cannot be made: {e}", pytrace=False)
        pytest.skip(str(e))
