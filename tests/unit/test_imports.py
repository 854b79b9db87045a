"""Every module of the kernel imports on its own, in a fresh interpreter: no import cycle hides
behind the order in which a test session happened to import them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import kernel

KERNEL = Path(kernel.__file__).parent


def _modules() -> list[str]:
    out = []
    for p in sorted(KERNEL.rglob("*.py")):
        rel = p.relative_to(KERNEL.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out.append(".".join(parts))
    return out


def test_every_kernel_module_imports_first_in_a_fresh_interpreter():
    code = ("import importlib, sys\n"
            "for m in sys.argv[1:]:\n"
            "    r = __import__('subprocess').run([sys.executable, '-c', f'import {m}'],"
            " capture_output=True, text=True)\n"
            "    if r.returncode: print(m, r.stderr.strip().splitlines()[-1])\n")
    res = subprocess.run([sys.executable, "-c", code, *_modules()], capture_output=True, text=True,
                         timeout=600)
    assert res.stdout == "", res.stdout


def _error_classes() -> dict[str, type]:
    """Every VillageError kind a kernel module holds as a public name, by where it lives."""
    import importlib

    from kernel.errors import VillageError

    found: dict[str, type] = {}
    for m in _modules():
        mod = importlib.import_module(m)
        for name, v in vars(mod).items():
            if isinstance(v, type) and issubclass(v, VillageError) and not name.startswith("_"):
                found[f"{m}.{name}"] = v
    return found


def test_every_error_the_kernel_raises_is_defined_in_kernel_errors():
    elsewhere = {k: v.__module__ for k, v in _error_classes().items()
                 if v.__module__ != "kernel.errors"}
    assert elsewhere == {}, elsewhere


def test_kernel_errors_imports_nothing_and_its_docstring_names_every_kind():
    import ast

    from kernel import errors

    tree = ast.parse(Path(errors.__file__).read_text(encoding="utf-8"))
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
    kinds = {n for n, v in vars(errors).items() if isinstance(v, type) and issubclass(v, Exception)}
    listed = set(errors.__doc__.split())
    assert kinds - listed == set(), kinds - listed


def test_every_mistake_of_a_caller_is_a_usage_error_and_old_names_still_import():
    from kernel import errors, laws, oracle, seam, store, world
    from kernel.cluster import ClusterError
    from kernel.engine.fork import ForkError
    from kernel.laws.perception import PerceptionError
    from kernel.store.paths import IndexPathError
    from kernel.store.query import QueryError

    for e in (laws.LawError, PerceptionError, seam.SeamError, seam.TemplateError,
              oracle.OracleUsageError, world.WorldError, ForkError, IndexPathError):
        assert issubclass(e, errors.UsageError), e
    assert issubclass(laws.LawError, ValueError)
    for e in (errors.ConfigError, errors.LogError, errors.OracleError, errors.Refused,
              store.StoreError, QueryError, ClusterError, oracle.ReplayStopped):
        assert issubclass(e, errors.VillageError) and not issubclass(e, errors.UsageError), e
