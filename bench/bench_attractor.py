"""The attractor document's own experiment as a table: both update rules, four signal patterns.

This module owns that table and nothing else. Each pattern is a fixed sequence
of 20 updates to four basins seeded at 0.5; each is run under the current rules
(`laws.update_basins`) and the proposed single rule
(`laws.update_basins_single`), and the table gives each basin's final
weight, the normalised entropy and the trajectory label. It calls no model,
writes no files and reads nothing of the kernel but `kernel.laws`. There is
nothing to time: the figures are values, the same on every machine.
`python -m bench bench_attractor` prints it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import NamedTuple

from kernel import laws
from kernel.laws import BasinsUpdate, BasinUpdate

LABELS = ("Systems", "Music", "Cooking", "Tides")
UPDATES = 20
RULES: tuple[tuple[str, Callable[..., laws.BasinsState]], ...] = (
    ("current", laws.update_basins),
    ("single", laws.update_basins_single),
)


def _say(*pairs: tuple[str, float]) -> BasinsUpdate:
    return BasinsUpdate(basins=tuple(BasinUpdate(slug, d) for slug, d in pairs))


# name, what the sequence is, and the update it gives at update k (1 to UPDATES)
PATTERNS: tuple[tuple[str, str, Callable[[int], BasinsUpdate]], ...] = (
    ("repeated positive", "systems +0.1 at every update, the others left out",
     lambda k: _say(("systems", 0.1))),
    ("alternating", "systems +0.2 at odd updates and -0.2 at even ones, the others left out",
     lambda k: _say(("systems", 0.2 if k % 2 else -0.2))),
    ("quiet stretch", "systems +0.3 at updates 1 and 2, then 18 updates that say nothing",
     lambda k: _say(("systems", 0.3)) if k <= 2 else BasinsUpdate()),
    ("omitted vs zero", "music listed with delta 0 at every update, the others left out",
     lambda k: _say(("music", 0.0))),
)


class Row(NamedTuple):
    """One rule on one pattern after the last update."""

    rule: str
    pattern: str
    weights: tuple[float, ...]
    entropy: float
    trajectory: str


def table(updates: int = UPDATES) -> list[Row]:
    """Every rule on every pattern, rules outermost, in the order of RULES and PATTERNS."""
    rows = []
    for rule_name, rule in RULES:
        for name, _, update_at in PATTERNS:
            state = laws.seed_basins(LABELS)
            for k in range(1, updates + 1):
                state = rule(state, update_at(k))
            rows.append(Row(rule_name, name, state.weights, laws.entropy(state),
                            laws.trajectory(state)))
    return rows


def run() -> Iterator[str]:
    yield (f"attractor: {len(LABELS)} basins seeded at 0.5, {UPDATES} updates per pattern, "
           "weights after the last update")
    for name, said, _ in PATTERNS:
        yield f"  {name:<18} {said}"
    head = "".join(f"{label.lower():>9}" for label in LABELS)
    yield f"  {'rule':<8} {'pattern':<18}{head} {'entropy':>8}  trajectory"
    for r in table():
        cells = "".join(f"{w:9.4f}" for w in r.weights)
        yield f"  {r.rule:<8} {r.pattern:<18}{cells} {r.entropy:8.4f}  {r.trajectory}"


if __name__ == "__main__":
    for line in run():
        print(line)
