"""The laws stay pure: no module in kernel/laws/ imports the log, the store,
the oracle, the world, the command line, a network client, a model backend,
or anything that reads the clock or draws at random.

Every module in the package directory is read, including modules other
engineers add later, so a new import is caught the day it is written.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import kernel.laws

FORBIDDEN = (
    "kernel.log",
    "kernel.oracle",
    "kernel.store",
    "kernel.cli",
    "kernel.world",
    "click",
    "duckdb",
    "ollama",
    "llama_cpp",
    "socket",
    "http",
    "urllib",
    "requests",
    "httpx",
    "random",
    "time",
    "datetime",
)

PACKAGE = Path(kernel.laws.__file__).resolve().parent
MODULES = sorted(PACKAGE.rglob("*.py"))


def _imported(tree: ast.AST, module_name: str) -> list[str]:
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                # a relative import is resolved against this module's package
                base = module_name.rsplit(".", node.level)[0]
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            names.append(module)
            # `from kernel import log` imports kernel.log
            names.extend(f"{module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call):
            func = node.func
            called = getattr(func, "attr", None) or getattr(func, "id", None)
            if called in {"import_module", "__import__"} and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    names.append(first.value)
    return names


def _forbidden(name: str) -> str | None:
    for banned in FORBIDDEN:
        if name == banned or name.startswith(banned + "."):
            return banned
    return None


def test_the_package_has_modules_to_read():
    assert (PACKAGE / "__init__.py") in MODULES
    assert len(MODULES) >= 2


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_law_imports_io_a_clock_a_random_draw_or_a_model(path: Path):
    relative = path.relative_to(PACKAGE).with_suffix("")
    module_name = ".".join(("kernel", "laws", *relative.parts))
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=path.name)
    broken = sorted({name for name in _imported(tree, module_name) if _forbidden(name)})
    assert not broken, f"{path.name} imports {broken}, which the laws must not"


def test_the_checker_catches_each_way_of_importing_a_forbidden_module():
    source = "\n".join(
        [
            "import time",
            "from datetime import datetime",
            "from kernel import log",
            "from ..oracle import x",
            "import importlib; importlib.import_module('socket')",
        ]
    )
    found = {_forbidden(n) for n in _imported(ast.parse(source), "kernel.laws.x")} - {None}
    assert found == {"time", "datetime", "kernel.log", "kernel.oracle", "socket"}
