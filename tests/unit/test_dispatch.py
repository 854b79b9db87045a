"""Events are handled by their type, looked up in a table, never by comparing kind strings."""

from __future__ import annotations

import re
from pathlib import Path

from kernel import events as ev
from kernel.mind import felt

KERNEL = Path(__file__).resolve().parents[2] / "kernel"
# `e.kind == "..."`, `e.kind in (...)`, or `k = e.kind` (the start of a ladder on its value).
ON_KIND = re.compile(r"\b(e|ev|event)\.kind\s*(==|!=|in\b|not in\b)|\b\w+\s*=\s*(e|ev|event)\.kind\s*$")


def test_no_module_dispatches_on_an_events_kind_string():
    found = [f"{p.relative_to(KERNEL)}:{i}: {line.strip()}" for p in sorted(KERNEL.rglob("*.py"))
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if ON_KIND.search(line)]
    assert found == []


def test_the_felt_folds_are_keyed_by_the_types_of_the_felt_kinds():
    assert felt.FELT == {"refelt", "recurred", "forgotten", "absorbed"}
    assert {t.kind for t in felt._FOLDS} == felt.FELT
    assert all(ev.KINDS[t.kind] is t for t in felt._FOLDS)
