"""A signal a library turns into an error of its own still stops a command with the one line.

A signal that lands in compiled code can come out as that code's error with no trace of
the handler's `Interrupted` (pydantic, building a model while the Ollama client is
imported, says "'cls' must be valid as the first argument to 'isinstance'"). The real
race is a matter of microseconds; here a command turns the signal into such an error
itself, so the rule is tried every time.
"""

from __future__ import annotations

import signal

import click
from click.testing import CliRunner

from kernel.cli import VillageGroup, one_line
from kernel.errors import Interrupted


@click.group(cls=VillageGroup)
def village() -> None:
    """A command line with the program's own group."""


@village.command()
def mangled() -> None:
    lost = None
    try:
        signal.raise_signal(signal.SIGTERM)
    except BaseException:
        lost = ValueError("'cls' must be valid as the first argument to 'isinstance'")
    raise lost    # raised outside the handler: no cause, no context, as compiled code gives it


@village.command()
def failing() -> None:
    raise ValueError("an error of its own")


def test_an_error_a_command_ends_with_after_a_signal_is_the_signals_one_line_and_exit_code():
    r = CliRunner().invoke(village, ["mangled"])
    assert r.exit_code == 143
    assert r.output.strip() == one_line(Interrupted(signal.SIGTERM))
    assert "Traceback" not in r.output and "isinstance" not in r.output


def test_an_error_with_no_signal_before_it_is_not_taken_for_one_even_after_an_interrupted_command():
    CliRunner().invoke(village, ["mangled"])
    r = CliRunner().invoke(village, ["failing"])
    assert isinstance(r.exception, ValueError) and r.exit_code == 1
