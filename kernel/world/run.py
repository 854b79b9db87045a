"""Running the world into a log: one frame per tick, from tick 0, header first.

This module owns the edge between the pure `step` and the log file: it
creates the log with the world config's digest and seed in its header,
iterates the world tick by tick, and appends every tick's frame, an empty
one included. `frames` is the generator form, so a driver (reflection) can
add its own events to a tick's frame before appending it; `run` is the
plain form the CLI uses. It must not compute memory rows itself beyond
folding perception to count them, and must not touch the store.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from kernel import events as ev
from kernel.errors import VillageError
from kernel.laws.importance import Importance
from kernel.laws.perception import perceive, start
from kernel.log import LogWriter
from kernel.world.config import WorldConfig
from kernel.world.step import World, initial, step


@dataclass(frozen=True, slots=True)
class Frame:
    """One tick of the world: its events, and the world after it."""

    tick: int
    events: tuple[ev.Event, ...]
    world: World


@dataclass(frozen=True, slots=True)
class RunResult:
    """What a run wrote: where, how many ticks and events, the head hash, rows per villager."""

    path: Path
    ticks: int
    events: int
    head_hex: str
    rows: tuple[tuple[int, str, int], ...]   # (villager id, name, memory rows)
    bytes: int


def frames(config: WorldConfig, ticks: int, *, world: World | None = None) -> Iterator[Frame]:
    """The world's ticks as frames, from `world` (default: the config's initial world) on."""
    if type(ticks) is not int or ticks < 0:
        raise VillageError(f"a run is a whole number of ticks >= 0, not ticks={ticks!r}")
    w = initial(config) if world is None else world
    for _ in range(ticks):
        t = w.tick
        w, events = step(w, t)
        yield Frame(tick=t, events=events, world=w)


def create_log(config: WorldConfig, out_path: str | os.PathLike, *, commit_every: int = 0) -> LogWriter:
    """A new log for a run of this world: the header holds the config's digest and seed."""
    return LogWriter.create(out_path, config_digest=config.digest, seed=config.seed,
                            commit_every=commit_every, ticks_per_day=config.ticks_per_day)


def run(config: WorldConfig, ticks: int, out_path: str | os.PathLike, *,
        rules: Importance | None = None,
        progress: Callable[[int], None] | None = None) -> RunResult:
    """Run the world for `ticks` ticks into a new log at `out_path`.

    `progress(n)` is called with the number of ticks just done (for a
    progress bar). With `rules`, perception is folded alongside so the
    result can say how many memory rows each villager has; without, the
    counts are zero.
    """
    perception = start(rules) if rules is not None else None
    counts: dict[int, int] = {p.id: 0 for p in config.people}
    n_events = 0
    with create_log(config, out_path) as log:
        done = 0
        for fr in frames(config, ticks):
            log.append(fr.tick, fr.events)
            n_events += len(fr.events)
            if perception is not None:
                perception, rows = perceive(perception, fr.tick, fr.events)
                for m in rows:
                    counts[m.villager] = counts.get(m.villager, 0) + 1
            done += 1
            if progress is not None and (done % 100 == 0 or done == ticks):
                progress(100 if done % 100 == 0 else done % 100)
        head = log.head.hex()
    size = Path(out_path).stat().st_size
    return RunResult(path=Path(out_path), ticks=ticks, events=n_events, head_hex=head,
                     rows=tuple((p.id, p.name, counts[p.id]) for p in config.people), bytes=size)
