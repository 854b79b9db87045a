"""The engine's tick loop: one driver that runs a scenario tick by tick through ordered phases.

Each tick runs the phase of each feature of kernel.engine.features in order (world step, given
rows, talk, perceive, reflect, night, basins, plan) where the run's settings turn it on, each
returning the events it adds; the engine keeps the books each feature asks for. The driver
appends the tick's events as one frame, then applies the frame to every projection, so the
state a later tick reads is the log's fold and nothing else. A world run is the same driver
with nobody due in the reflect phase.

Everything a run reads is checked before its log is created (the scenario resolves its files
when loaded; a live oracle is asked for every model's digest here, before tick 0). An error
in any phase stops the run before its tick is appended, so the log ends at the last whole
tick; a run that fails before its first tick leaves no file at all.

This module owns the engine's state between ticks, the loop, a run's options and its report;
the rules belong to kernel.laws, the world's step to kernel.world, a round to kernel.mind, and
the state to the projections. It must not know about forks: kernel.engine.fork builds on this
loop, and kernel.engine.start chooses between the two.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from kernel import events as ev
from kernel import laws
from kernel.calendar import DAY
from kernel.engine.books import Books
from kernel.engine.cast import Cast
from kernel.engine.feature import Feature, Phase, TickState
from kernel.engine.features import FEATURES
from kernel.engine.felt import felt_of
from kernel.engine.projection import MemoryProjection, Projection, VectorsProjection
from kernel.engine.scenario import Scenario
from kernel.engine.view import TickView
from kernel.errors import VillageError
from kernel.log import LogWriter
from kernel.mind.night import night_of
from kernel.mind.reflect import Due, Round
from kernel.mind.settings import NightSettings, Settings
from kernel.world.step import World, initial


class Engine:
    """A scenario's state between ticks: the world, the projections, and who answers the mind."""

    def __init__(self, sc: Scenario, oracle=None, *, settings: Settings | None = None,
                 projections: Sequence[Projection] = (),
                 features: Sequence[Feature | tuple[str, Phase]] = FEATURES):
        self.scenario = sc
        self.settings = settings or sc.settings
        if self.settings is not None:     # the prompts tell rows' times where the world is in words
            self.settings = self.settings.worded(sc.world.in_words)
        self.oracle = oracle
        if sc.reflecting and (self.settings is None or oracle is None):
            raise VillageError(f"scenario {sc.name} has villagers who reflect, and a reflection "
                               f"needs thought settings and an oracle to answer it")
        self.world: World = initial(sc.world)
        self.memory = MemoryProjection(sc.rules)
        self.vectors = VectorsProjection().follow(self.memory)
        self.projections: list[Projection] = [self.memory, self.vectors]
        # felt memory where the importance table has its valences
        felt = felt_of(sc)
        self.books = Books(felt)
        if felt is not None:
            felt.follow(self.memory)
            self.projections.append(felt)
        self.projections.extend(projections)
        # An extra projection that needs the rows (and felt state) the engine folds anyway (a
        # projection.Follower) takes the engine's own, applied before it, rather than folding
        # perception again.
        for p in projections:
            follow = getattr(p, "follow_engine", None)
            if follow is not None:
                follow(self.memory, felt)
        self.features = tuple(Feature.of(f) for f in features)
        self.cast = Cast.of(sc)
        self.books.keep(self.features, sc, self.settings, self.memory, self.projections)
        # nights where the thought settings have a night block, and then only for villagers who reflect
        self.night: NightSettings | None = night_of(sc)
        if self.night is not None and felt is None:
            raise VillageError(f"scenario {sc.name} has a night block, and a night needs the "
                               f"importance table's valence table, which it does not have")
        self._quiet = (0, 0, 0)  # ticks [from, until) at which nobody is due, and the `every`
        #                          they were worked out with

    def plans(self, tick: int):
        """The plans the world carries out at `tick`: its day's, where the settings have
        a plan block that carries plans out; else None (the world as it always was)."""
        st = self.settings
        book = self.books.get("plans")
        if st is None or st.plan is None or not st.plan.carry_out or book is None or not book.days:
            return None
        return book.of_day(self.scenario.world.calendar.day_of(tick)) or None

    def due(self, tick: int) -> list[Due]:
        """Who reflects at `tick`. Asked at every tick, and nobody is due at most of them:
        once a tick finds nobody, ticks before the first next due (laws.next_due) are
        known to find nobody too."""
        if not self.cast.reflecting:
            return []
        every = self.settings.every  # a fork may change the settings mid-run
        start, until, known_every = self._quiet
        if known_every == every and start <= tick < until:
            return []
        got = [Due(p.id, p.name, self.cast.village) for p in self.cast.reflecting
               if p.founded <= tick and laws.due(p.founded, tick, every)]
        if not got:
            self._quiet = (tick, min(laws.next_due(p.founded, tick, every)
                                     for p in self.cast.reflecting), every)
        return got

    def nightly(self, tick: int) -> list[Due]:
        """Who has a night at `tick`: at a day's last tick, every villager who reflects and
        has been founded, where the thought settings have a night block."""
        if self.night is None or not self.scenario.world.calendar.is_last_tick_of_day(tick):
            return []
        return [Due(p.id, p.name) for p in self.cast.reflecting if p.founded <= tick]

    def preflight(self, oracle) -> None:
        """Before tick 0: every model the run will ask for is there, at its pinned digest, in
        `oracle` (the engine's own, or a fork's, which answers only from the fork's tick on)."""
        if self.cast.reflecting and oracle is not None:
            for model in self.settings.models:
                oracle.digest(model)

    def go_on(self, sc: Scenario, settings: Settings | None, oracle) -> None:
        """From a fork's tick on: its scenario, its settings and its oracle, and its world
        config where it changes one (a fork keeps the world's state, villagers and grid)."""
        if sc.world.digest != self.scenario.world.digest:
            self.world = replace(self.world, config=sc.world)
        self.scenario = sc
        # a fork's thought file, read apart from its world, tells rows' times as the run's did
        self.settings = settings.worded(sc.world.in_words) if settings is not None else None
        self.night = night_of(sc)     # a fork's thought file may change or drop the night
        self.cast = Cast.of(sc)
        self.books.keep(self.features, sc, settings, self.memory, self.projections)
        self.oracle = oracle

    def tick(self, tick: int) -> tuple[tuple[ev.Event, ...], TickState]:
        """Run one tick's phases; the events to append, and what the phases handed on."""
        ts = TickState(tick, TickView(tick, self.memory))
        events: list[ev.Event] = []
        for f in self.features:
            if f.on(self.settings):
                events.extend(f.phase(self, ts, tuple(events)))
        return tuple(events), ts

    def apply(self, tick: int, events: Sequence[ev.Event], ts: TickState) -> None:
        """Fold an appended frame into every projection."""
        for made in ts.made.values():     # the words said and thought this tick, embedded
            vectors = getattr(made, "vectors", None)
            if vectors is not None:
                self.vectors.add(vectors)
        memory = self.memory
        memory.take(tick, ts.view.end(events))      # the tick's frame, perceived once
        for p in self.projections:
            if p is not memory:
                p.apply(tick, events)


def _made(feature: str) -> property:
    """A report's property: what the feature named `feature` made, a tick at a time (`of`)."""
    return property(lambda self: self.of(feature),
                    doc=f"What the {feature!r} feature made, a tick at a time (none: []).")


@dataclass
class RunReport:
    """What a run did: its ticks, events and log, and what each feature's phase made, by the
    feature's name, one entry a tick it made something (`made`: "reflect" the rounds, "night"
    the nights, "basins" the basins' updates, "plan" the plans, "talk" the talk)."""

    scenario: str
    path: Path
    ticks: int = 0
    events: int = 0
    made: dict[str, list] = field(default_factory=dict)
    ticks_per_day: int = DAY
    rows: dict[int, int] = field(default_factory=dict)   # villager -> rows at the end
    head_hex: str = ""
    bytes: int = 0
    stopped: BaseException | None = None                  # the error that stopped the run, if any

    def of(self, feature: str) -> list:
        """What the feature named `feature` made, a tick at a time (none: [])."""
        return self.made.get(feature, [])

    rounds = _made("reflect")
    nights = _made("night")
    basins = _made("basins")
    plans = _made("plan")
    talks = _made("talk")

    @property
    def thoughts(self) -> int:
        return sum(len(r.thoughts) for r in self.rounds)

    @property
    def statements(self) -> int:
        return sum(len(x.statements) for r in self.rounds for x in r.reflections)


@dataclass(frozen=True)
class RunOptions:
    """How a run goes, whichever road it takes (a run from tick 0 or a fork): one value handed
    from `kernel.engine.start` down to the loop, not the same keywords passed on by hand.

    `settings` replaces the scenario's thought settings (a fork's: from its tick on); `ticks`
    its length; `progress` is told of every tick appended and `on_round` of every round;
    with `keep_going` an error in a phase ends the run quietly and is kept in the report;
    `projections` are folded alongside the engine's own; `phases` replaces the tick's features
    (kernel.engine.features; a bare phase is given as (name, function));
    `commit_every` is the log writer's.
    """

    settings: Settings | None = None
    ticks: int | None = None
    progress: Callable[[int], None] | None = None
    on_round: Callable[[Round], None] | None = None
    keep_going: bool = False
    projections: tuple[Projection, ...] = ()
    phases: tuple[Feature | tuple[str, Phase], ...] = FEATURES
    commit_every: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "projections", tuple(self.projections))
        object.__setattr__(self, "phases", tuple(self.phases))

    def engine(self, sc: Scenario, oracle) -> Engine:
        """The engine that runs `sc` under these options, with `oracle` answering."""
        return Engine(sc, oracle, settings=self.settings, projections=self.projections,
                      features=self.phases)


DEFAULTS = RunOptions()
"""A run as its scenario says: its settings and ticks, the shipped phases, nothing told."""


def account(report: RunReport, events: Sequence[ev.Event], ts: TickState,
            options: RunOptions) -> None:
    """Count one appended tick into the report: its events, its round and its night."""
    report.ticks += 1
    report.events += len(events)
    for name, made in ts.made.items():
        report.made.setdefault(name, []).append(made)
    rnd = ts.made.get("reflect")
    if rnd is not None and options.on_round is not None:
        options.on_round(rnd)
    if options.progress is not None:
        options.progress(1)


def drive(en: Engine, log: LogWriter, ticks: range, report: RunReport,
          options: RunOptions) -> None:
    """The one tick loop: run each tick's phases, append its frame, fold it, count it.

    An error in a phase stops the loop before its tick is appended; with
    `options.keep_going` it is kept in the report, without it is raised.
    """
    for t in ticks:
        try:
            events, ts = en.tick(t)
        except Exception as e:
            if not options.keep_going:
                raise
            report.stopped = e
            break
        log.append(t, events)
        en.apply(t, events, ts)
        account(report, events, ts, options)


def run_loop(sc: Scenario, oracle, out: str | os.PathLike,
             options: RunOptions = DEFAULTS) -> RunReport:
    """Run `sc` from tick 0 into a new log at `out`, with `oracle` answering every model call.

    A forked scenario does not come here: kernel.engine.start hands it to the fork.
    """
    n = sc.ticks if options.ticks is None else options.ticks
    if type(n) is not int or n < 0:
        raise VillageError(f"a run is a whole number of ticks >= 0, not ticks={n!r}")
    en = options.engine(sc, oracle)
    en.preflight(oracle)
    report = RunReport(scenario=sc.name, path=Path(out),
                       ticks_per_day=sc.world.ticks_per_day)
    log = LogWriter.create(out, config_digest=sc.header_digest, seed=sc.world.seed,
                           ticks_per_day=sc.world.ticks_per_day,
                           commit_every=options.commit_every)
    with writing(log, out, report):
        drive(en, log, range(n), report, options)
        report.head_hex = log.head.hex()
    if report.ticks == 0 and n > 0:
        _remove(Path(out))
    else:
        report.bytes = Path(out).stat().st_size
    report.rows = {p.id: 0 for p in sc.world.people} | en.memory.counts()
    return report


@contextmanager
def writing(log: LogWriter, out: str | os.PathLike, report: RunReport) -> Iterator[LogWriter]:
    """A run's new log while its ticks are written, closed at the end. On an error it is
    closed as far as it goes, and removed when no tick reached it; the error is raised as it
    came. A run that stops quietly before its first tick (`keep_going`) raises nothing, so
    `run_loop`, which knows how many ticks it meant to write, removes that file itself."""
    try:
        yield log
    except BaseException:
        try:
            log.close()
        except OSError:
            pass            # the error that stopped the run is the one to report
        if report.ticks == 0:
            _remove(Path(out))
        raise
    log.close()


def _remove(p: Path) -> None:
    try:
        p.unlink()
    except FileNotFoundError:
        pass
