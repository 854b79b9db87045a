"""The books the engine folds beside memory and its vectors, by name: one value the engine
holds, where it once held each book as an attribute of its own.

"felt" is the engine's own (felt memory, where the importance table has valences); every other
book is a feature's (kernel.engine.feature: `Feature.books`), made where the feature asks for
it under a run's settings, kept as it is while it still does (a fork's settings keep the
parent's book), and dropped where it no longer does. A book is a projection the engine folds every frame into.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kernel.engine.feature import Feature
from kernel.engine.projection import MemoryProjection, Projection
from kernel.engine.scenario import Scenario
from kernel.mind.settings import Settings


class Books:
    """The books of a run, by name, each with the feature it belongs to ("" for felt)."""

    __slots__ = ("_books", "_owner")

    def __init__(self, felt: Projection | None):
        self._books: dict[str, Projection] = {}
        self._owner: dict[str, str] = {}
        if felt is not None:
            self._books["felt"], self._owner["felt"] = felt, ""

    def get(self, name: str) -> Any:
        """The book `name`, or None where the run keeps no such book."""
        return self._books.get(name)

    def __getitem__(self, name: str) -> Any:
        return self._books[name]

    def __contains__(self, name: str) -> bool:
        return name in self._books

    def keep(self, features: Sequence[Feature], sc: Scenario, settings: Settings | None,
             memory: MemoryProjection, folded: list[Projection]) -> None:
        """The books `features` ask for under `settings`: each one made where it is missing
        and put last among the projections the engine folds (`folded`), kept where it is
        there, and every book of theirs no longer asked for dropped from both."""
        for f in features:
            wanted = f.books(sc, settings)
            for name in [n for n, o in self._owner.items() if o == f.name and n not in wanted]:
                folded.remove(self._books.pop(name))
                del self._owner[name]
            for name, make in wanted.items():
                if name not in self._books:
                    book = self._books[name] = make(sc, memory)
                    self._owner[name] = f.name
                    folded.append(book)
