"""What a reflection runs under, read from the config files and frozen.

This module owns turning configs/thought.json, configs/models.json and the
importance table's thought row into one `Settings` value the driver reads.
It does no reflecting and calls no model.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from kernel import config, laws
from kernel.laws.importance import Importance


@dataclass(frozen=True, slots=True)
class Settings:
    every: int
    recent: int
    questions: int
    cap: int
    limit: int
    retrieval: laws.Retrieval
    thought: laws.ThoughtWeight
    generate_model: str
    embed_model: str
    context: int
    temperature: float
    digests: tuple[tuple[str, str], ...]   # config digests of the files read, by name

    def with_cap(self, cap: int) -> Settings:
        return Settings(**{**{f: getattr(self, f) for f in self.__slots__}, "cap": cap})


def load(thought: str | os.PathLike = "thought", models: str | os.PathLike = "models",
         importance: str | os.PathLike = "importance") -> Settings:
    t = config.load(thought, schema="thought")
    m = config.load(models, schema="models")
    imp = config.load(importance, schema="importance")
    r = t.value.reflection
    table = Importance.from_value(imp.value)
    return Settings(
        every=r.every, recent=r.recent, questions=r.questions, cap=r.depth, limit=r.limit,
        retrieval=laws.Retrieval.of(config.thaw(t.value.retrieval)),
        thought=laws.ThoughtWeight(base=dict(table.base)[("thought", "reflection")],
                                   first_bonus=table.first_bonus),
        generate_model=m.value.generate, embed_model=m.value.embed, context=m.value.context,
        temperature=0.0,
        digests=(("importance", imp.digest), ("models", m.digest), ("thought", t.digest)),
    )
