"""`village` starts at once: a command's module is imported only when that command runs, and
nothing heavy is imported to parse the command line or print its help."""

from __future__ import annotations

import inspect
import subprocess
import sys

import click
import pytest

from kernel.cli import COMMANDS, main

HEAVY = ("numpy", "jsonschema", "onnxruntime", "duckdb", "ray", "llama_cpp", "jinja2",
         "matplotlib", "pyarrow", "tqdm", "ollama", "openai", "tokenizers")

_PROBE = """
import sys
from kernel.cli import main
try:
    main(args=sys.argv[1:], prog_name="village")
except SystemExit:
    pass
print("LOADED", *sorted(m for m in sys.modules if m.startswith("kernel.cli.") or
                        m.split(".")[0] in {heavy!r}), file=sys.stderr)
"""


def _loaded(*args: str) -> set[str]:
    code = _PROBE.format(heavy=set(HEAVY))
    r = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return set(r.stderr.splitlines()[-1].split()[1:])


def test_the_programs_help_imports_no_command_module_and_nothing_heavy():
    assert _loaded("-h") == set()


def test_a_commands_help_imports_that_commands_module_alone():
    got = {m for m in _loaded("log", "-h") if m.startswith("kernel.cli.")}
    assert got == {"kernel.cli.log_cmd"}


def test_an_unknown_command_is_refused_without_importing_any_command():
    assert _loaded("nope") == set()


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_commands_line_in_the_help_is_the_first_paragraph_of_its_own_help(name: str):
    cmd = main.get_command(click.Context(main), name)
    assert cmd is not None and cmd.name == name
    own = cmd.short_help or inspect.cleandoc(cmd.help or "").split("\n\n")[0]
    assert COMMANDS[name][1] == " ".join(own.split())


def test_every_command_a_module_offers_is_named_in_the_table():
    import importlib

    offered = set()
    for module in {m for m, _ in COMMANDS.values()}:
        offered |= {c.name for c in importlib.import_module(f"kernel.cli.{module}").COMMANDS}
    assert offered == set(COMMANDS)
