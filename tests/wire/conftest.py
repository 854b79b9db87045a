"""The wire suite's fixtures: fake Ollama servers (`fake_ollama.FakeOllama`), closed after each test."""

from __future__ import annotations

import pytest
from fake_ollama import FakeOllama


@pytest.fixture
def fake():
    f = FakeOllama()
    yield f
    f.close()


@pytest.fixture
def fakes():
    """A maker of fake Ollama servers, every one closed at the end of the test."""
    made: list[FakeOllama] = []

    def make(n: int = 1) -> list[FakeOllama]:
        made.extend(FakeOllama() for _ in range(n))
        return made[-n:]

    yield make
    for f in made:
        f.close()
