"""The bad-input suite's shared parts: the tally it reports, a small log, a fake Ollama.

Every input the suite tries is counted under one outcome: a clean refusal or
correct result, a traceback, a silent wrong result, or data lost. The counts
are printed at the end of the run, so the numbers the hardening promised
(0 tracebacks, 0 silent wrong results, 0 data lost) are read off every run
of `make test`, not remembered.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from kernel.testing import serve_json

OUTCOMES = ("clean", "traceback", "silent", "lost")
TALLY: Counter = Counter()


def record(outcome: str, n: int = 1) -> None:
    """Count `n` inputs under `outcome`, one of OUTCOMES."""
    assert outcome in OUTCOMES, outcome
    TALLY[outcome] += n


def pytest_terminal_summary(terminalreporter) -> None:
    if not TALLY:
        return
    tried = sum(TALLY.values())
    terminalreporter.write_line(
        f"hostile inputs: {tried:,} tried, {TALLY['clean']:,} clean errors or correct results, "
        f"{TALLY['traceback']} tracebacks, {TALLY['silent']} silent wrong results, "
        f"{TALLY['lost']} data lost")


@pytest.fixture(scope="session")
def small_world_log(tmp_path_factory) -> Path:
    """A log of the shipped world's first 60 ticks, made once, by the command a user runs."""
    from click.testing import CliRunner

    from kernel.cli import main

    p = tmp_path_factory.mktemp("hostile") / "run.log"
    r = CliRunner().invoke(main, ["world", "run", "--ticks", "60", "--out", str(p)])
    assert r.exit_code == 0, r.output
    return p


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
