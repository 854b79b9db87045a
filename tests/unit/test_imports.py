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
