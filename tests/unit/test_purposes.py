"""What a generation call is for is one closed set, kernel.events.Purpose, compared by member."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from kernel.events import Purpose

ROOT = Path(__file__).resolve().parents[2]


def test_every_generation_call_a_committed_recording_holds_is_for_a_purpose_of_the_closed_set():
    seen = set()
    for f in sorted((ROOT / "exemplars").rglob("*.json")):
        calls = json.loads(f.read_text(encoding="utf-8"))["calls"]
        seen |= {c["purpose"] for c in calls if c["kind"] == "generate"}
    assert seen and seen <= {p.value for p in Purpose}, seen - {p.value for p in Purpose}


def test_a_purpose_member_is_its_text_in_the_logs_bytes_and_compares_equal_to_it():
    for p in Purpose:
        assert p == p.value and hash(p) == hash(p.value) and str(p) == p.value
        assert {p.value: 1}[p] == 1


def _literal_purposes(tree: ast.AST) -> list[int]:
    """Lines where a `purpose` is compared with a text of the set rather than its member."""
    texts = {p.value for p in Purpose}

    def named_purpose(n):
        return (isinstance(n, ast.Attribute) and n.attr == "purpose") or (
            isinstance(n, ast.Name) and n.id == "purpose")

    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Compare) and len(n.comparators) == 1:
            a, b = n.left, n.comparators[0]
            if any(named_purpose(x) for x in (a, b)) and any(
                    isinstance(x, ast.Constant) and x.value in texts for x in (a, b)):
                out.append(n.lineno)
    return out


def test_no_kernel_module_compares_a_purpose_with_its_text():
    found = {}
    for f in sorted((ROOT / "kernel").rglob("*.py")):
        lines = _literal_purposes(ast.parse(f.read_text(encoding="utf-8")))
        if lines:
            found[f.relative_to(ROOT).as_posix()] = lines
    assert not found, found
