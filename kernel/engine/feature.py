"""What a feature of the engine is: a name, whether a run's settings turn it on, the books it
folds, and the phase it runs at each tick; and what the phases of one tick share.

A feature (kernel.engine.features holds the shipped ones, in their order) is one value: its
`phase` is a function of what it reads of the engine (`EngineState`), the tick's state its
earlier phases handed on (`TickState`) and the tick's events so far, and returns the events it
adds. What a phase makes (a round, a night, a talk) it keeps in `TickState.made` under its
feature's name, for the phases after it and the engine's fold; the run's report keeps each
tick's under the same name (`RunReport.made`): that is a feature's part of the report. The
books a feature folds (`books`) are made by the engine where the feature asks for them, and
dropped where a fork's settings no longer do.

This module names those shapes only: it runs no phase and keeps no book.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from kernel import events as ev
from kernel.engine.cast import Cast
from kernel.engine.projection import MemoryProjection, Projection, VectorsProjection
from kernel.engine.scenario import Scenario
from kernel.engine.view import TickView
from kernel.laws.memory import Memory
from kernel.mind.reflect import Due
from kernel.mind.settings import NightSettings, Settings
from kernel.world.step import World


class BooksByName(Protocol):
    """The books the engine folds beside memory and its vectors, by name (kernel.engine.run
    keeps them): "felt" where the importance table has valences, and each feature's own."""

    def get(self, name: str) -> Any: ...

    def __getitem__(self, name: str) -> Any: ...


class EngineState(Protocol):
    """What a phase reads of the engine between ticks (kernel.engine.run.Engine holds it):
    the scenario and its settings, who answers, the world, the books folded from the log
    (`books`, by name), who the villagers are (`cast`), and who is due at a tick. A phase
    changes only `world` (the world's step); the books change by the engine's fold of the
    appended frame, never in a phase."""

    scenario: Scenario
    settings: Settings | None
    night: NightSettings | None
    oracle: Any
    world: World
    memory: MemoryProjection
    vectors: VectorsProjection
    books: BooksByName
    cast: Cast

    def plans(self, tick: int) -> Any: ...

    def due(self, tick: int) -> list[Due]: ...

    def nightly(self, tick: int) -> list[Due]: ...


@dataclass
class TickState:
    """What the phases of one tick hand on to each other, besides its events: the tick's view
    (its events perceived once, kernel.engine.view), the rows the world's events give before
    the mind's (`seen`), and what each feature's phase made, under the feature's name."""

    tick: int
    view: TickView
    seen: tuple[Memory, ...] = ()
    made: dict[str, Any] = field(default_factory=dict)


Phase = Callable[[EngineState, TickState, Sequence[ev.Event]], Sequence[ev.Event]]

Makers = Mapping[str, Callable[[Scenario, MemoryProjection], Projection]]
"""The books a feature asks for, by name, each with how to make it from the scenario and the
engine's memory (a book that follows the memory's rows is made following it)."""


def _always(settings: Settings | None) -> bool:
    return True


def _no_books(sc: Scenario, settings: Settings | None) -> Makers:
    return {}


@dataclass(frozen=True)
class Feature:
    """One feature of the engine: its `name` (the key of what its phase makes, in a tick's
    state and a run's report), whether a run's thought settings turn it on (`on`; its phase
    runs only where they do), the books it folds under those settings (`books`: a fork's
    settings may ask for others), and its `phase`."""

    name: str
    phase: Phase
    on: Callable[[Settings | None], bool] = _always
    books: Callable[[Scenario, Settings | None], Makers] = _no_books

    @classmethod
    def of(cls, f: Feature | tuple[str, Phase]) -> Feature:
        """A feature as given, or a bare phase given as (name, function): one with no books,
        always on (a view's phase that only watches the run, a test's)."""
        if isinstance(f, Feature):
            return f
        name, phase = f
        return cls(name, phase)
