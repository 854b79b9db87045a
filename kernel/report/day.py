"""A day of a run, laid out as data for the HTML report and the plots.

`day(source, exemplars=None)` reads a run (a log, or a scenario, which is
replayed) and returns a `Day`: the header, the map (grid, food over the day,
each villager's path), a timeline per villager, every thought with its
citation tree, every refusal grouped by check, the retrieval table of every
statement, and the cost of every call, and felt memory: each villager's
strongest rows as felt-strength curves over the days (the series `village
plot --what strengths` draws, from kernel.report.plots) and, per night and
villager, the plan's groups accepted and refused and the rows absorbed,
forgotten and re-felt; the measure of the minds (kernel.report.minds: how many answers
degenerate, parrot or are refused, how many become thoughts, how grounded those are, and the
worst answers); and, for a run with basins or plans, each villager's basins over the nights,
each night's update and each day's plan with what became of it (kernel.report.basins,
measured against the world told to ignore plans, from the run's log); and, for a run
whose villagers talk or are given news, each utterance and each piece of news's spread
(kernel.report.talk). The report's
projections (`_Views`) are folded once:
over a scenario's replay as it runs, or, for a log, over the replay of the
run under its configs (found by the digest in the log's header) and its
recording when that replay gives the log's head, and over the log itself
when it cannot. The retrieval tables and the cost need that replay
(vectors and durations are not in the log); where it is missing or gives
another head, the `Day` says why in `retrieval_note` and `cost_note`; a run
with no felt memory says why in its `FeltView`'s `note`.

This module computes and returns values (their shapes are
kernel.report.views'); it renders nothing (the templates do) and writes
nothing but the replay's temporary log.
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path

import numpy as np

from kernel import events as ev
from kernel.calendar import DAY
from kernel.engine.features import FEATURES
from kernel.engine.projection import MemoryFollower, MemoryProjection
from kernel.engine.replay import follow, recorded_oracle, replay
from kernel.engine.scenario import Scenario, load_rules
from kernel.errors import VillageError
from kernel.events import Purpose
from kernel.laws.memory import Memory
from kernel.log import read_header, verify
from kernel.mind.night import FEWEST_FELT, night_of
from kernel.mind.reflect import Round
from kernel.report import basins as rba
from kernel.report import bonds as rbo
from kernel.report import felt as rf
from kernel.report import interviews as rint
from kernel.report import minds as rm
from kernel.report import plots, source
from kernel.report import talk as rt
from kernel.report.views import (
    Answerer,
    CallView,
    Day,
    FeltView,
    HeaderView,
    Lane,
    Map,
    NightRow,
    Node,
    PersonView,
    RankedRow,
    RefusalView,
    RetrievalView,
    RoundCost,
    ThoughtView,
    Timeline,
    Trail,
)

SNAPSHOTS = 60            # food snapshots over a run, for the map's slider
BINS = 400                # a timeline lane is drawn in at most this many bins

# The timeline's lanes, in the order drawn: (key, label).
LANES = (
    ("meals", "meals"), ("gathers", "gathers"), ("gave", "gifts given"),
    ("got", "gifts received"), ("took", "takes made"), ("lost", "taken from"),
    ("pleas", "pleas"), ("came", "came into sight"), ("went", "went out of sight"),
    ("rounds", "reflection rounds"), ("thoughts", "thoughts"), ("refusals", "refusals"),
)


# --- the report's projections of a run -------------------------------------------------


class _Gather(MemoryFollower):
    """A projection of the log for the report: paths, timeline marks, answerers, thoughts, refusals.

    It follows a memory projection (a replay's own, or the one a fold of a log hands
    it) to count each villager's rows as they grow. Each event is handled by its type,
    through `_ON`, resolved once.
    """

    def __init__(self, names: dict[int, str]):
        self.names = names
        super().__init__()

    def start(self) -> None:
        super().start()
        self.founded: dict[int, tuple[str, int]] = {}
        self.points: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
        self.marks: dict[int, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
        self.answerers: Counter = Counter()
        self.thoughts: list[tuple[int, ev.Thought]] = []
        self.refusals: dict[str, list[RefusalView]] = defaultdict(list)
        self.rounds_at: dict[int, set[int]] = defaultdict(set)
        self.counts: dict[int, list[tuple[int, int]]] = defaultdict(list)
        self.plans: set[tuple[int, int]] = set()       # (tick, villager) of each night plan call

    def name(self, v: int) -> str:
        return self.names.get(v, f"villager {v}")

    def apply(self, tick: int, events: Sequence[ev.Event]) -> None:
        ev.by_kind(_ON, self, tick, events)
        for v in self.grown():
            self.counts[v].append((tick, len(self.memory.streams[v])))

    def _founded(self, tick: int, e: ev.Founded) -> None:
        self.founded[e.villager] = (e.name, tick)
        self.names.setdefault(e.villager, e.name)
        self.points[e.villager].append((tick, e.x, e.y))

    def _walked(self, tick: int, e: ev.Walked) -> None:
        self.points[e.villager].append((tick, e.to_x, e.to_y))

    def _answered(self, tick: int, e: ev.Answered) -> None:
        self.answerers[(e.model, e.digest)] += 1
        if e.purpose == Purpose.NIGHT:
            self.plans.add((tick, e.villager))
        if e.purpose == Purpose.QUESTIONS and tick not in self.rounds_at[e.villager]:
            self.rounds_at[e.villager].add(tick)
            self.marks[e.villager]["rounds"].append(tick)

    def _refusal(self, tick: int, e: ev.Refusal) -> None:
        self.marks[e.villager]["refusals"].append(tick)
        self.refusals[e.check].append(RefusalView(tick, e.villager, self.name(e.villager),
                                                  e.purpose, e.index, e.reason))

    def _thought(self, tick: int, e: ev.Thought) -> None:
        self.marks[e.villager]["thoughts"].append(tick)
        self.thoughts.append((tick, e))


def _marks(*lanes: tuple[str, str]) -> Callable[[_Gather, int, ev.Event], None]:
    """A handler that marks the tick in each (field, lane): the villager the field names."""
    at = tuple((attrgetter(f), lane) for f, lane in lanes)

    def mark(g: _Gather, tick: int, e: ev.Event) -> None:
        for who, lane in at:
            g.marks[who(e)][lane].append(tick)
    return mark


_ON: dict[type, Callable[[_Gather, int, ev.Event], None]] = {
    ev.Founded: _Gather._founded, ev.Walked: _Gather._walked,
    ev.Ate: _marks(("villager", "meals")), ev.Gathered: _marks(("villager", "gathers")),
    ev.Gave: _marks(("giver", "gave"), ("receiver", "got")),
    ev.Took: _marks(("taker", "took"), ("owner", "lost")),
    ev.Begged: _marks(("villager", "pleas")),
    ev.CameIntoSight: _marks(("viewer", "came")), ev.WentOutOfSight: _marks(("viewer", "went")),
    ev.Answered: _Gather._answered, ev.Refusal: _Gather._refusal, ev.Thought: _Gather._thought,
}
"""What the report gathers of each event type; a type it lacks (felt events) adds nothing."""


class _Views:
    """The report's projections of one run, folded once: the gathering, and the felt journal
    where the run has felt memory (`why` says why not), and the memory they followed."""

    def __init__(self, sc: Scenario | None, digest: str):
        self.gather = _Gather({p.id: p.name for p in sc.world.people} if sc is not None else {})
        self.why = rf.why_not_felt(sc, digest)
        self.journal = rf.journal_of(sc) if self.why is None else None
        self.minds = rm.MindsGather()
        self.basins = rba.BasinsGather()
        self.bonds, self.bonds_note = _bonds_of(sc)
        self.talk = rt.NewsFold(sc.world.ticks_per_day if sc is not None else DAY)
        self.memory: MemoryProjection | None = None

    @property
    def parts(self) -> list:
        return ([self.gather, self.minds, self.basins, self.talk]
                + ([self.journal] if self.journal is not None else [])
                + ([self.bonds] if self.bonds is not None else []))

    def fold(self, log: Path, sc: Scenario | None) -> None:
        """Fold the log itself: a run with no replay that gives it."""
        # Without the run's configs the home's importance table stands in: it changes a row's
        # weight, never how many rows an event gives.
        rules = sc.rules if sc is not None else load_rules()
        self.memory = follow(log, self.parts, rules=rules)[0]


@dataclass(frozen=True)
class _Log:
    """What the page's header says of the run's log: read off it, or off the replay that wrote it."""

    name: str
    config_digest: str
    fork: dict | None
    head_hex: str
    ticks: int
    events: int
    first_tick: int | None
    last_tick: int | None

    @classmethod
    def read(cls, log: Path) -> _Log:
        head, s = read_header(log), verify(log)
        return cls(log.name, head.config_digest, head.fork_record(), s.head_hex, s.ticks,
                   s.events, s.first_tick, s.last_tick)


# --- a replay of the run, for what the log alone cannot give ---------------------------


@dataclass
class _Rerun:
    """What a replay of the scenario gave besides its log: rounds, food, and calls per round."""

    rounds: list[Round] = field(default_factory=list)
    talks: list = field(default_factory=list)      # the replay's talk (kernel.mind.talk.Talk)
    food: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)
    cuts: list[tuple[int, int]] = field(default_factory=list)   # (round tick, calls so far)
    costs: list = field(default_factory=list)
    head_hex: str = ""
    stopped: str | None = None
    log: _Log | None = None      # the log it wrote; None when no tick reached it
    measured: tuple = (None, None)   # what became of the plans, read off that log
    interviews: tuple = (None, None)  # the committed interviews asked again of that log


def _talk_cuts(oracle, cuts: list):
    """A phase that cuts the calls at a tick of talk with no round, so the cost section shows
    the talk's calls at their own tick (a tick with a round is cut by the round)."""

    def phase(en, ts, so_far):
        if "talk" in ts.made and "reflect" not in ts.made and oracle is not None:
            cuts.append((ts.tick, len(oracle.costs)))
        return ()

    return phase


def _food_phase(every: int, last: int, into: list):
    """A phase that keeps the food on every cell at every `every`-th tick (and the last)."""

    def phase(en, ts, so_far):
        t = ts.tick
        if t % every == 0 or t == last:
            w = en.world
            cfg = w.config
            mg = np.frombuffer(w.food_mg, dtype=np.int64)
            since = np.frombuffer(w.grown_at, dtype=np.int64)
            now = np.minimum(cfg.food_max, mg + cfg.regrow * (w.tick - since))
            into.append((t, tuple(int(g) // 1000 for g in now.tolist())))
        return ()

    return phase


def _replayed(sc: Scenario, views: _Views, *, measure: bool = False) -> _Rerun:
    """Replay `sc` once, with the report's projections folded and the food kept as it runs;
    with `measure`, what became of its plans, and its committed interviews asked again,
    are read off the replay's log before it goes."""
    got = _Rerun()
    oracle = recorded_oracle(sc)
    every = max(1, sc.ticks // SNAPSHOTS)
    phases = (*FEATURES, ("report-food", _food_phase(every, sc.ticks - 1, got.food)),
              ("report-talk", _talk_cuts(oracle, got.cuts)))

    def on_round(rnd: Round) -> None:
        got.cuts.append((rnd.now, len(oracle.costs)))

    with tempfile.TemporaryDirectory(prefix="village-report-") as d:
        out = Path(d) / f"{sc.name}.log"
        rp = replay(sc, projections=views.parts, oracle=oracle, phases=phases,
                    on_round=on_round, out=out)
        if measure and rp.header is not None:
            got.measured = rba.measured(views.basins, sc, out)
            # the committed interviews are asked of this replay's log, not of a second replay
            got.interviews = (rint.of(sc, out) if rp.stopped is None
                              else rint.not_replayed(sc, rp.stopped))
    views.memory = rp.memory
    report = rp.report
    got.rounds = list(report.rounds)
    got.talks = list(report.talks)
    got.head_hex = report.head_hex
    if report.stopped is not None:
        got.stopped = f"the replay stopped at tick {report.ticks}: {report.stopped}"
    if oracle is not None:
        got.costs = list(oracle.costs)
    if rp.header is not None:
        n = report.ticks
        got.log = _Log(f"{sc.name}.log", rp.header.config_digest, rp.header.fork_record(),
                       report.head_hex, n, report.events, 0 if n else None, n - 1 if n else None)
    return got


# --- the parts of a day ----------------------------------------------------------------


def _people(sc: Scenario | None, founded: dict[int, tuple[str, int]]) -> tuple[PersonView, ...]:
    if sc is not None:
        return tuple(PersonView(p.id, p.name, founded.get(p.id, (p.name, None))[1])
                     for p in sc.world.people)
    return tuple(PersonView(v, name, t) for v, (name, t) in sorted(founded.items()))


def _binned(ticks: Sequence[int], width: int) -> tuple[tuple[int, int], ...]:
    c = Counter(t // width for t in ticks)
    return tuple(sorted(c.items()))


def _tree(row: Memory | None, rid: int, by_id: dict[int, Memory], depth: int) -> Node:
    if row is None:
        return Node(rid, None, "missing", "no row with this id in the run", None)
    if row.kind != "thought" or not row.drawn_from:
        return Node(row.id, row.tick, row.kind, row.text, row.weight)
    if depth <= 0:
        return Node(row.id, row.tick, row.kind, row.text, row.weight, cut=True)
    kids = tuple(_tree(by_id.get(c), c, by_id, depth - 1) for c in row.drawn_from)
    return Node(row.id, row.tick, row.kind, row.text, row.weight, kids)


def _outcome(s) -> tuple[str, bool]:
    v = s.verdict
    if s.row is not None and v is not None:
        return f"accepted at depth {v.depth}, written as row {s.row.id}", True
    if v is not None and not v.ok:
        return f"refused by {v.check}: {v.reason}", False
    if s.refused:
        return f"refused by {s.refused}", False
    return "not judged", False


def _retrievals(rounds: Sequence[Round]) -> tuple[RetrievalView, ...]:
    out = []
    for rnd in rounds:
        for r in rnd.reflections:
            for s in r.statements:
                cited = set(s.cites)
                rows = tuple(RankedRow(i, x.memory.id, x.memory.tick, x.memory.kind, x.memory.text,
                                       x.memory.weight, x.recency, x.importance, x.relevance,
                                       x.score, x.memory.id in cited)
                             for i, x in enumerate(s.ranked, start=1))
                what, ok = _outcome(s)
                out.append(RetrievalView(rnd.now, r.villager, r.name, s.index, s.question, s.statement,
                                     what, ok, rows))
    return tuple(out)


def _costs(rerun: _Rerun) -> tuple[tuple[CallView, ...], tuple[RoundCost, ...]]:
    calls: list[CallView] = []
    rounds: list[RoundCost] = []
    start = 0
    for tick, end in rerun.cuts:
        mine = rerun.costs[start:end]
        for c in mine:
            calls.append(CallView(len(calls) + 1, tick, c.kind, c.purpose, c.model, c.took_ns / 1e9,
                              c.tokens_in, c.tokens_out))
        runs = [c.model for i, c in enumerate(mine) if i == 0 or mine[i - 1].model != c.model]
        rounds.append(RoundCost(tick, len(mine), sum(c.took_ns for c in mine) / 1e9, tuple(runs),
                                max(0, len(runs) - 1)))
        start = end
    return tuple(calls), tuple(rounds)


def day(source: str | os.PathLike | Scenario, *, exemplars: str | os.PathLike | None = None) -> Day:
    """The day of a run: `source` is a log, a scenario (replayed), or a scenario's name."""
    from kernel.engine import scenario as msc

    if isinstance(source, Scenario):
        return _of_scenario(source, exemplars)
    if not Path(source).is_file():
        return _of_scenario(msc.load(source), exemplars)
    return _of_log(Path(source), exemplars)


def _of_scenario(sc: Scenario, exemplars: str | os.PathLike | None) -> Day:
    """A scenario's day: its run is its replay, so the log and the replay are one."""
    if exemplars is not None:
        sc = source.with_recording(sc, exemplars)
    if not sc.world_only and sc.exemplars is None:
        raise VillageError(f"scenario {sc.name} has no recording to replay, so there is no "
                           f"run to report: run it (village run), then report its log")
    views = _Views(sc, sc.header_digest)
    rerun = _replayed(sc, views, measure=True)
    if rerun.log is None:
        raise VillageError(f"scenario {sc.name} did not replay a single tick: {rerun.stopped}")
    return _build(rerun.log, sc, views, rerun, None, shown=sc.name, measured=rerun.measured,
                  interviews=rerun.interviews)


def _of_log(log: Path, exemplars: str | os.PathLike | None) -> Day:
    """A log's day: the replay of its scenario where that gives the log, else the log folded."""
    lg = _Log.read(log)
    sc, note = source.of_log(lg.config_digest, lg.head_hex, exemplars)
    views = _Views(sc, lg.config_digest)
    rerun = None
    if note is None:
        sc = source.with_ticks(sc, (lg.last_tick + 1) if lg.last_tick is not None else 0)
        rerun = _replayed(sc, views)
        if rerun.head_hex != lg.head_hex:
            why = rerun.stopped or f"it ends at head {rerun.head_hex[:16]}"
            note = (f"the replay of scenario {sc.name} does not give this log ({why}; "
                    f"the log's head is {lg.head_hex[:16]})")
            rerun = None
            views = _Views(sc, lg.config_digest)    # what that replay folded is not this log's
    if rerun is None:
        views.fold(log, sc)
    return _build(lg, sc, views, rerun, note, shown=log.name,
                  measured=rba.measured(views.basins, sc, log),
                  interviews=rint.of(sc, log) if rerun is not None else (None, None))


def _build(lg: _Log, sc: Scenario | None, views: _Views, rerun: _Rerun | None,
           note: str | None, *, shown: str, measured: tuple = (None, None),
           interviews: tuple = (None, None)) -> Day:
    """The day, from what the run's projections folded and what its replay gave; `measured`
    is what became of its plans (kernel.report.basins.measured)."""
    g = views.gather
    people = _people(sc, g.founded)
    for p in people:
        g.names.setdefault(p.id, p.name)
    last = lg.last_tick if lg.last_tick is not None else 0
    retrievals, rnote, calls, rounds, cnote = _recorded(sc, rerun, note)
    said, news = rt.of(views.talk, views.memory.rows)
    return Day(header=_header(lg, sc, g, people, rerun, shown), map=_map(sc, g, people, rerun),
               timelines=_timelines(g, people, last),
               thoughts=_thoughts(g, {m.id: m for m in views.memory.rows}),
               refusals=tuple((k, tuple(v)) for k, v in sorted(g.refusals.items())),
               retrievals=retrievals, retrieval_note=rnote, calls=calls, rounds=rounds,
               cost_note=cnote, rows={v: tuple(x) for v, x in g.counts.items()},
               weights=(tuple(sc.settings.retrieval.weights)
                        if sc is not None and sc.settings is not None else None),
               felt=_felt(sc, views, last), minds=_minds(sc, views, rerun, note, shown, interviews),
               basins=rba.view(views.basins, [(p.id, p.name) for p in people],
                              # a log with no scenario found is counted in the log's own
                              # default days
                              sc.world.ticks_per_day if sc is not None else DAY, *measured),
               bonds=rbo.view(views.bonds, [(p.id, p.name) for p in people],
                              note=views.bonds_note),
               conversations=said, news=news, interviews=interviews[0],
               interviews_note=interviews[1])


def _bonds_of(sc: Scenario | None) -> tuple[rbo.BondsGather | None, str | None]:
    """The report's bond book, valued by the scenario's valence table (None: it has none), or
    for a log no scenario runs under by the home's, which the section then says."""
    if sc is not None:
        return rbo.gather_of(sc.valences, sc.world.ticks_per_day), None
    from kernel.engine.felt import valences_of
    return (rbo.gather_of(valences_of(), DAY),
            "no scenario of this home runs under the log's configs, so the passings are valued "
            f"by the home's valence table, in days of {DAY} ticks")


def _minds(sc: Scenario | None, views: _Views, rerun: _Rerun | None, note: str | None,
           shown: str, interviews: tuple = (None, None)):
    """The measure of the run's minds: with the replay's rounds, the recording and the
    committed interviews where the replay gave the log, else from the log alone (saying why)."""
    if rerun is not None:
        return rm.measure(views.minds, rm.inputs_of(sc, rerun.rounds, interviews=interviews,
                                                    talks=rerun.talks), run=shown)
    return rm.measure(views.minds, rm.inputs_of(sc, None, ()), run=shown,
                      notes=[note] if note else [])


def _header(lg: _Log, sc: Scenario | None, g: _Gather, people: tuple[PersonView, ...],
            rerun: _Rerun | None, shown: str) -> HeaderView:
    return HeaderView(
        title=shown, scenario=sc.name if sc is not None else None, log=lg.name,
        config_digest=lg.config_digest, head_hex=lg.head_hex, ticks=lg.ticks,
        first_tick=lg.first_tick, last_tick=lg.last_tick,
        ticks_per_day=sc.world.ticks_per_day if sc is not None else None,
        events=lg.events, people=people,
        answerers=tuple(Answerer(m, d, n) for (m, d), n in sorted(g.answerers.items())),
        fork=lg.fork, stopped=rerun.stopped if rerun is not None else None)


def _map(sc: Scenario | None, g: _Gather, people: tuple[PersonView, ...],
         rerun: _Rerun | None) -> Map:
    trails = tuple(Trail(p.id, p.name, tuple(g.points.get(p.id, ()))) for p in people)
    if sc is not None:
        w = sc.world
        food = tuple(rerun.food) if rerun is not None else ()
        return Map(w.width, w.height, w.food_max / 1000, food, trails,
                   None if rerun is not None else "food is not shown: the run was not replayed")
    xs = [x for tr in trails for _, x, _ in tr.points] or [0]
    ys = [y for tr in trails for _, _, y in tr.points] or [0]
    return Map(max(xs) + 1, max(ys) + 1, None, (), trails,
               "food is not shown: the run's world config was not found")


def _timelines(g: _Gather, people: tuple[PersonView, ...], last: int) -> tuple[Timeline, ...]:
    width = max(1, -(-(last + 1) // BINS))
    marks = g.marks
    return tuple(
        Timeline(p.id, p.name, width,
                 tuple(Lane(k, label, len(marks[p.id][k]), _binned(marks[p.id][k], width))
                       for k, label in LANES))
        for p in people)


def _thoughts(g: _Gather, by_id: dict[int, Memory]) -> tuple[ThoughtView, ...]:
    """The thoughts, with citation trees read off the folded rows."""
    name = g.name
    out = []
    for tick, e in g.thoughts:
        cites = tuple(_tree(by_id.get(c), c, by_id, max(0, e.depth - 1)) for c in e.drawn_from)
        out.append(ThoughtView(e.id, e.villager, name(e.villager), tick, e.text, e.weight,
                               e.depth, tuple(name(a) for a in e.about), cites))
    return tuple(out)


def _recorded(sc: Scenario | None, rerun: _Rerun | None, note: str | None):
    """What needs the recording: (retrievals, their note, calls, round costs, their note)."""
    if rerun is not None and rerun.rounds:
        retrievals = _retrievals(rerun.rounds)
        rnote = None if retrievals else "no statement was asked for in this run"
        calls, rounds = _costs(rerun)
        cnote = None if calls else "no model was called in this run"
        if sc is not None and sc.parent is not None:
            cnote = (f"the rounds before tick {sc.fork_at} are {sc.parent}'s, answered from its "
                     f"recording: their calls are in its report, and show no calls here")
        return retrievals, rnote, calls, rounds, cnote
    if note is not None:
        why = note
    elif sc is not None and sc.world_only:
        why = "nobody reflects in this run, so nothing was retrieved and no model called"
    else:
        why = "no reflection round in this run"
    return (), why, (), (), why


def _felt(sc: Scenario | None, views: _Views, last: int) -> FeltView:
    journal = views.journal
    if journal is None:
        return FeltView(note=views.why)
    g = views.gather
    strengths = plots.curves(journal, {m.id: m.text for m in views.memory.rows}, g.names, last)
    nights, nnote = _nights(sc, journal, g, last)
    return FeltView(strengths, nights, None, nnote)


def _nights(sc: Scenario, journal: rf.Journal, g: _Gather,
            last: int) -> tuple[tuple[NightRow, ...], str | None]:
    """Each night of the run, per villager who has one: what its plan and the day did to its rows.

    A night falls at each day's last tick for every villager who reflects and has
    been founded, where the thought settings have a night block (as the engine
    runs it); its tally is read off the log's events at that tick, and the rows
    re-felt over the day it ends.
    """
    if night_of(sc) is None:
        return (), (f"{sc.name}'s thought settings have no night block, so no night fell: "
                    f"no plan was asked for and no row was absorbed or forgotten")
    days = sc.world.calendar
    by: Counter = Counter()
    for c in journal.changes:
        night = days.last_tick_of_day(c.tick)      # the night that ends the change's day
        by[(night, c.villager, c.kind)] += 1
    refused: dict[tuple[int, int], list[RefusalView]] = defaultdict(list)
    for views in g.refusals.values():
        for r in views:
            if r.purpose == Purpose.NIGHT:
                refused[(r.tick, r.villager)].append(r)
    out = []
    people = [p for p in sc.world.people if p.name in sc.reflecting]
    for night in days.nights_up_to(last):
        for p in people:
            if p.founded > night:
                continue
            whole = [r for r in refused[(night, p.id)] if r.index == 0]
            if whole:
                plan, reason = "refused whole", whole[0].reason
            elif (night, p.id) in g.plans:
                plan, reason = "asked", ""
            else:
                plan, reason = "not asked", f"fewer than {FEWEST_FELT} rows felt since the last night"
            k = (night, p.id)
            out.append(NightRow(night, days.day_number(night), p.id, p.name, plan, reason,
                                by[(*k, "anchor")],
                                sum(1 for r in refused[k] if r.index > 0),
                                by[(*k, "absorbed")], by[(*k, "forgotten")], by[(*k, "refelt")],
                                by[(*k, "recurred")]))
    return tuple(out), None
