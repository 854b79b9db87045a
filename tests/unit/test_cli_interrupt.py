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


_HANDLERS = """
import signal, sys
sys.path.insert(0, {root!r})
import kernel.cli
print(*(getattr(h, "__name__", None) or signal.Handlers(h).name
        for h in map(signal.getsignal, (signal.SIGINT, signal.SIGTERM))))
"""


def _handlers_after_loading(tmp_path, name: str) -> list[str]:
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / name
    script.write_text(_HANDLERS.format(root=str(Path(__file__).resolve().parents[2])))
    def as_a_terminal_starts_it() -> None:
        # a background job may start with SIGINT ignored, which Python then leaves ignored
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)

    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         check=True, env={"PATH": "/usr/bin:/bin"}, timeout=120,
                         preexec_fn=as_a_terminal_starts_it)
    return out.stdout.split()


def test_as_the_village_program_a_signal_between_loading_and_the_command_still_gets_the_one_line(
        tmp_path):
    # put back at the package's end, a signal before the command's handler met Python's own
    # and ended in a traceback of that line: the loading handler stays until the command's
    assert _handlers_after_loading(tmp_path, "village") == ["_stop_loading", "_stop_loading"]


def test_imported_by_another_program_the_package_gives_back_the_handlers_it_found(tmp_path):
    assert _handlers_after_loading(tmp_path, "other.py") == ["default_int_handler", "SIG_DFL"]
