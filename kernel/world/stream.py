"""Memory streams from a log: the edge that reads a run and folds perception over it.

This module owns `memory_of` (every villager's rows, rebuilt from the log
alone) and loading the importance table from configs/importance.json. The
fold itself is kernel.laws.perception's; nothing here decides what a row
says or weighs. It must not write anything: memory is never stored where
the log cannot rebuild it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from kernel import config as configs
from kernel.laws.importance import Importance
from kernel.laws.memory import Memory
from kernel.laws.perception import Perception, perceive, start
from kernel.log import read_ticks


def load_rules(name_or_path: str | os.PathLike = "importance") -> Importance:
    """The importance table (and run lengths) from configs/importance.json, checked."""
    c = configs.load(name_or_path, schema="importance")
    return Importance.from_value(c.value)


def rules_digest(name_or_path: str | os.PathLike = "importance") -> str:
    return configs.load(name_or_path, schema="importance").digest


@dataclass(frozen=True, slots=True)
class MemoryState:
    """Every row of a run, in id order, the perception state after the last frame, and the head."""

    rows: tuple[Memory, ...]
    perception: Perception
    head_hex: str
    last_tick: int | None

    def of(self, villager: int) -> tuple[Memory, ...]:
        return tuple(m for m in self.rows if m.villager == villager)

    def up_to(self, tick: int) -> tuple[Memory, ...]:
        return tuple(m for m in self.rows if m.tick <= tick)

    @property
    def next_id(self) -> int:
        return self.perception.next_id


def memory_of(log_path: str | os.PathLike, *, rules: Importance | None = None,
              until: int | None = None) -> MemoryState:
    """Fold a log into memory: every frame (up to tick `until`, if given) through `perceive`."""
    rules = load_rules() if rules is None else rules
    state = start(rules)
    rows: list[Memory] = []
    head = ""
    last = None
    for t in read_ticks(log_path):
        if until is not None and t.tick > until:
            break
        state, got = perceive(state, t.tick, t.events)
        rows.extend(got)
        head = t.chain.hex()
        last = t.tick
    return MemoryState(rows=tuple(rows), perception=state, head_hex=head, last_tick=last)
