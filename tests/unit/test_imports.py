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


# One interpreter loads every library the kernel imports (numpy, duckdb, click...), then forks a
# child per kernel module, two at a time: each child imports its module first, with no other
# kernel module loaded, so a cycle or a missing import that only works after another kernel
# module is still found; the libraries' own import time is paid once, not once per module.
_FORKED = r"""
import ast, importlib, os, sys, traceback
from pathlib import Path

root, mods = Path(sys.argv[1]), sys.argv[2:]
libs = set()
for p in root.rglob("*.py"):
    for n in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
        names = [a.name for a in n.names] if isinstance(n, ast.Import) else (
            [n.module] if isinstance(n, ast.ImportFrom) and n.level == 0 and n.module else [])
        libs.update(x.split(".")[0] for x in names)
for lib in sorted(libs - {"kernel"}):
    try:
        importlib.import_module(lib)
    except BaseException:
        pass
assert not [m for m in sys.modules if m == "kernel" or m.startswith("kernel.")]


def child(m):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            importlib.import_module(m)
            os._exit(0)
        except BaseException as e:
            os.write(w, f"{m} {type(e).__name__}: {e}".encode())
            os._exit(1)
    os.close(w)
    return pid, r


running, failed = [], []
for m in mods + [None, None]:
    if m is not None:
        running.append(child(m))
    if len(running) >= 2 or (m is None and running):
        pid, r = running.pop(0)
        _, status = os.waitpid(pid, 0)
        said = os.read(r, 65536).decode()
        os.close(r)
        if status:
            failed.append(said or f"exit status {status}")
print("\n".join(failed), end="")
"""


def test_every_kernel_module_imports_first_in_a_fresh_interpreter():
    res = subprocess.run([sys.executable, "-c", _FORKED, str(KERNEL), *_modules()],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    assert res.stdout == "", res.stdout


def test_the_fresh_import_check_finds_a_module_that_only_imports_after_another(tmp_path):
    """The forked check is not fooled by one interpreter: a module that needs another kernel
    module imported first fails on its own, and one that imports what it needs passes."""
    pkg = tmp_path / "kernel"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("import kernel.b\nX = kernel.b.Y\n")
    (pkg / "b.py").write_text("Y = 1\n")
    (pkg / "c.py").write_text("import kernel\nZ = kernel.b.Y\n")   # works only after b
    code = f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n" + _FORKED
    res = subprocess.run([sys.executable, "-c", code, str(pkg), "kernel.a", "kernel.b",
                          "kernel.c"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == ["kernel.c AttributeError: module 'kernel' has no attribute 'b'"]


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
