"""Every name a benchmark imports from the kernel exists: `make bench` runs its suites long
after they are written, and an import inside a function (most of bench/ imports where it
measures) fails only when that suite runs, so each is checked here, the day the kernel moves."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _imports(path: Path) -> list[tuple[int, str, str | None]]:
    """(line, module, name) for each `from kernel... import name` and `import kernel...` of a file,
    at any depth."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "kernel":
            out += [(node.lineno, node.module, a.name) for a in node.names]
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name, None) for a in node.names
                    if a.name.split(".")[0] == "kernel"]
    return out


@pytest.mark.parametrize("path", sorted(BENCH.glob("*.py")), ids=lambda p: p.name)
def test_every_kernel_name_a_benchmark_imports_exists(path):
    missing = []
    for line, module, name in _imports(path):
        try:
            mod = importlib.import_module(module)
        except ImportError as e:
            missing.append(f"{path.name}:{line}: {module} ({e})")
            continue
        if name is not None and not hasattr(mod, name):
            try:
                importlib.import_module(f"{module}.{name}")
            except ImportError:
                missing.append(f"{path.name}:{line}: {module} has no {name}")
    assert not missing, "; ".join(missing)
