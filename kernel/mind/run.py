"""Running a scenario: the world tick by tick, a reflection round where villagers are due.

This module is the driver's loop. Each tick it steps the world, folds the
tick's events into memory, runs one reflection round for every villager
due at that tick, and appends one frame holding the world's events and
the round's (answers, refusals, thoughts). A round that fails stops the
run before its tick is appended, so the log ends at the last whole tick
and stays valid. It owns the loop and the accounting; the rules belong to
kernel.laws, the bytes a model sees to kernel.seam, the calls to the
oracle it is handed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kernel import laws, world
from kernel.errors import VillageError
from kernel.laws.perception import perceive, start
from kernel.log import LogWriter
from kernel.mind.reflect import Due, Round, reflect_round
from kernel.mind.scenario import Scenario
from kernel.mind.settings import Settings


@dataclass
class RunReport:
    scenario: str
    path: Path
    ticks: int = 0
    events: int = 0
    rounds: list[Round] = field(default_factory=list)
    rows: dict[int, int] = field(default_factory=dict)   # villager -> rows at the end
    head_hex: str = ""
    stopped: BaseException | None = None                  # the error that stopped the run, if any

    @property
    def thoughts(self) -> int:
        return sum(len(r.thoughts) for r in self.rounds)

    @property
    def statements(self) -> int:
        return sum(len(x.statements) for r in self.rounds for x in r.reflections)


def run(sc: Scenario, oracle, out: str | os.PathLike, *, st: Settings | None = None,
        ticks: int | None = None, progress: Callable[[int], None] | None = None,
        on_round: Callable[[Round], None] | None = None, keep_going: bool = False) -> RunReport:
    """Run scenario `sc` into a new log at `out` with `oracle` answering every model call.

    With `keep_going`, an error from the oracle ends the run quietly (the
    log holds every tick before the failing one) and is kept in the
    report; without, it is raised.
    """
    st = st or sc.settings
    cfg = sc.world
    ticks = sc.ticks if ticks is None else ticks
    rules = world.load_rules(sc.raw["importance"]) if "importance" in sc.raw else world.load_rules()
    reflecting = set(sc.raw.get("reflecting", [p.name for p in cfg.people]))
    unknown = reflecting - {p.name for p in cfg.people}
    if unknown:
        raise VillageError(f"scenario {sc.name} names reflecting villagers its world does not have: "
                           f"{', '.join(sorted(unknown))}")
    state = start(rules)
    streams: dict[int, list[laws.Memory]] = {p.id: [] for p in cfg.people}
    vectors: dict[int, np.ndarray] = {}
    report = RunReport(scenario=sc.name, path=Path(out))
    with LogWriter.create(out, config_digest=sc.digest, seed=cfg.seed,
                          ticks_per_day=cfg.ticks_per_day) as log:
        for fr in world.frames(cfg, ticks):
            t = fr.tick
            due = [Due(p.id, p.name) for p in cfg.people
                   if p.name in reflecting and p.founded <= t and laws.due(p.founded, t, st.every)]
            mind: tuple = ()
            rnd = None
            if due:
                # The rows this tick's world events give, seen before the round: perception
                # is pure, so the same fold is done again below with the round's events added.
                _, seen = perceive(state, t, fr.events)
                now_streams = {v: tuple(rows) + tuple(m for m in seen if m.villager == v)
                               for v, rows in streams.items()}
                try:
                    rnd = reflect_round(t, due, now_streams, vectors, oracle, st,
                                        next_id=state.next_id + len(seen))
                except Exception as e:
                    if keep_going:
                        report.stopped = e
                        break
                    raise
                mind = rnd.events
            state, rows = perceive(state, t, fr.events + mind)
            for m in rows:
                streams[m.villager].append(m)
            log.append(t, fr.events + mind)
            report.ticks += 1
            report.events += len(fr.events) + len(mind)
            if rnd is not None:
                vectors.update(rnd.vectors)
                report.rounds.append(rnd)
                if on_round is not None:
                    on_round(rnd)
            if progress is not None:
                progress(1)
        report.head_hex = log.head.hex()
    report.rows = {v: len(rows) for v, rows in streams.items()}
    return report
