"""Who a run's villagers are, as the engine's phases read them: one value made from a
scenario's people, where the engine once held each of its parts as an attribute of its own.

Values only; it folds nothing and asks nothing. A fork's scenario makes its own (the same
people, perhaps other settings), so a `Cast` is made again wherever the scenario changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kernel.engine.scenario import Scenario
from kernel.world.config import GivenRow, Person


@dataclass(frozen=True, slots=True)
class Cast:
    """A scenario's villagers: each one's name (`names`) and the set of them the grounded seam
    holds names to (`village`); the tick each is founded at; the rows each is given at its
    founding; the basins each reflecting villager is seeded with (`seeds`); and
    the reflecting villagers, as ids (`talkers`: who may talk) and as people, in the config's
    order (`reflecting`)."""

    names: Mapping[int, str]
    village: frozenset[str]
    founded: Mapping[int, int]
    given: Mapping[int, tuple[GivenRow, ...]]
    seeds: Mapping[int, tuple[str, ...]]
    talkers: frozenset[int]
    reflecting: tuple[Person, ...]

    @classmethod
    def of(cls, sc: Scenario) -> Cast:
        people = sc.world.people
        names = {p.id: p.name for p in people}
        minds = set(sc.reflecting)
        reflecting = tuple(p for p in people if p.name in minds)
        return cls(names=names, village=frozenset(names.values()),
                   founded={p.id: p.founded for p in people},
                   given={p.id: p.given for p in people if p.given},
                   seeds={p.id: p.basins for p in reflecting if p.basins},
                   talkers=frozenset(p.id for p in reflecting), reflecting=reflecting)
