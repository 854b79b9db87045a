"""The docs say what the code is: every kernel path they name exists, every command they show
is one the command line has, and the architecture page's layers are test_structure's.

The pages are read as text: `kernel/...` paths and `kernel.x.y` names anywhere in README.md and
docs/*.md, the architecture page's package tree and module table, the `village ...` lines of
their shell and console blocks (and the inline ones), and the layer table. Nothing is run but
click's own tree of commands, so a renamed module, command or option fails here the day it is
renamed. This file owns no page; it must not run a command or a model.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import click
import pytest

from kernel.cli import main
from kernel.cli.reflect_cmd import mode_alias
from tests.unit.test_structure import LAYERS

CHECKOUT = Path(__file__).resolve().parents[2]
README = CHECKOUT / "README.md"
PAGES = sorted((CHECKOUT / "docs").glob("*.md"))
ARCHITECTURE = CHECKOUT / "docs" / "architecture.md"

# A path under kernel/ (not the tail of another word, as in share/village-kernel/models).
PATH = re.compile(r"(?<![\w./-])kernel/[\w./]*[\w/]")
# A placeholder in a path the docs write as a pattern (kernel/cli/NAME_cmd.py).
PLACEHOLDER = re.compile(r"[A-Z]{2,}")
# A group's option routed to a subcommand: `village reflect --mode X` (an alias for one release).
ROUTED = {("reflect", "--mode"): mode_alias}
COMMANDS = main.every_command()
# A dotted name under kernel (kernel.engine.replay.replay, kernel.testing.ScriptedOracle).
DOTTED = re.compile(r"(?<![\w./-])kernel(?:\.\w+)+")


def _text(p: Path) -> str:
    return p.read_text(encoding="utf-8")


def _named(pattern: re.Pattern) -> list[tuple[str, str]]:
    return sorted({(p.relative_to(CHECKOUT).as_posix(), m.rstrip("."))
                   for p in (README, *PAGES) for m in pattern.findall(_text(p))})


def _resolves(dotted: str) -> bool:
    """A module, or a name a module holds (kernel.x.y.Name), importable as written."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


def test_every_kernel_path_the_docs_and_the_readme_name_exists():
    named = _named(PATH)
    missing = [f"{page}: {path}" for page, path in named
               if not any(CHECKOUT.glob(PLACEHOLDER.sub("*", path)))]
    assert named and not missing, "these pages name kernel paths that do not exist:\n" + \
        "\n".join(missing)


def test_every_kernel_name_the_docs_and_the_readme_write_with_dots_imports():
    named = _named(DOTTED)
    missing = [f"{page}: {name}" for page, name in named if not _resolves(name)]
    assert named and not missing, "these pages name kernel modules or names that do not " \
        "import:\n" + "\n".join(missing)


def _block(text: str, heading: str) -> str:
    return text.split(heading, 1)[1].split("\n## ", 1)[0]


def _tree() -> list[str]:
    """The architecture page's package tree: each line under kernel/ as a path under kernel/."""
    tree = re.search(r"^```\nkernel/\n(.*?)^```$", _text(ARCHITECTURE), flags=re.S | re.M)
    assert tree, "the architecture page has no package tree starting at kernel/"
    return [line.split()[0] for line in tree.group(1).splitlines() if line.startswith("  ")]


def test_every_package_and_module_in_the_architecture_tree_exists():
    names = _tree()
    missing = [n for n in names if not (CHECKOUT / "kernel" / n).exists()]
    assert names and not missing, f"the architecture page's tree names what kernel/ lacks: {missing}"


def test_the_architecture_tree_has_a_line_for_every_package_of_the_kernel():
    listed = {n.rstrip("/").removesuffix(".py") for n in _tree()}
    rooms = {".".join(r.split(".")[1:2]) for r in LAYERS}
    assert rooms <= listed, f"the architecture page's tree leaves out {sorted(rooms - listed)}"


def test_every_module_in_the_architecture_table_exists():
    table = _block(_text(ARCHITECTURE), "## The packages")
    names = re.findall(r"^\| `([\w/]+\.py)` \|", table, flags=re.M)
    missing = [n for n in names if not (CHECKOUT / "kernel" / n).is_file()]
    assert names and not missing, f"the architecture page's table names missing modules: {missing}"


def _layers_on_the_page() -> dict[str, int]:
    table = _block(_text(ARCHITECTURE), "## The layers")
    out: dict[str, int] = {}
    for layer, packages in re.findall(r"^\|\s*(\d+)\s*\|([^|]*)\|", table, flags=re.M):
        for name in re.findall(r"`(\w+)`", packages):
            assert f"kernel.{name}" not in out, f"{name} has two lines on the architecture page"
            out[f"kernel.{name}"] = int(layer)
    return out


def test_the_architecture_pages_layers_are_the_structure_tests_layer_table():
    assert _layers_on_the_page() == LAYERS


# --- the commands the pages show -------------------------------------------------------------------

def _command_lines(page: Path = README) -> list[str]:
    """Every `village ...` line a page shows: in its sh and console blocks, and inline."""
    text = _text(page)
    lines = []
    for lang, body in re.findall(r"^```(sh|console)\n(.*?)^```$", text, flags=re.S | re.M):
        for line in body.splitlines():
            line = line.strip()
            line = line.removeprefix("$ ") if lang == "console" else line
            if line.startswith("village "):
                lines.append(line)
    lines += re.findall(r"`(village [^`]+)`", text)
    return [re.split(r"\s+#\s", line)[0].split(" && ")[0] for line in lines]


def _shown() -> list[tuple[str, str]]:
    return [(p.relative_to(CHECKOUT).as_posix(), line)
            for p in (README, *PAGES) for line in dict.fromkeys(_command_lines(p))]


def _options(cmd: click.Command) -> set[str]:
    return {o for p in cmd.params for o in (*p.opts, *p.secondary_opts)}


def _commands_of(line: str) -> tuple[list[click.Command], str]:
    """The commands a README line names (one for each of `a|b|c`), or a line saying why none."""
    words = line.split()[1:]
    if words and words[0].startswith("-"):   # `village -h`, `village --home H ...`: the group's own
        return [main], ""
    if not words or words[0] not in COMMANDS:
        return [], f"{line!r}: no command {words[:1]}"
    cmd = COMMANDS[words[0]]
    if not isinstance(cmd, click.Group):
        return [cmd], ""
    if len(words) < 2:
        return [cmd], ""
    if (words[0], words[1]) in ROUTED:
        return [ROUTED[words[0], words[1]]], ""
    if PLACEHOLDER.fullmatch(words[1]):   # `village reflect VIEW`: any of its subcommands
        return list(cmd.commands.values()), ""
    subs = words[1].split("|")
    unknown = [s for s in subs if s not in cmd.commands]
    if unknown:
        return [], f"{line!r}: {words[0]} has no subcommand {unknown}"
    return [cmd.commands[s] for s in subs], ""


@pytest.mark.parametrize("page, line", _shown())
def test_every_village_command_the_docs_show_is_a_real_command_with_real_options(page: str,
                                                                                 line: str):
    cmds, why = _commands_of(line)
    assert cmds, f"{page}: {why}"
    known = set().union(*(_options(c) for c in cmds)) | {"-h", "--help"}
    shown = set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", line))
    assert shown <= known, f"{page}: {line!r} shows options its command lacks: " \
                           f"{sorted(shown - known)}"


def test_the_readme_shows_every_command_the_command_line_has():
    shown = {line.split()[1] for line in _command_lines() if len(line.split()) > 1}
    assert set(COMMANDS) <= shown, f"the README never shows {sorted(set(COMMANDS) - shown)}"
