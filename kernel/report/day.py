"""A day of a run, laid out as data for the HTML report and the plots.

`day(source, exemplars=None)` reads a run (a log, or a scenario, which is
replayed into a temporary log first) and returns a `Day`: the header, the
map (grid, food over the day, each villager's path), a timeline per
villager, every thought with its citation tree, every refusal grouped by
check, the retrieval table of every statement, and the cost of every
call, and felt memory: each villager's strongest rows as felt-strength
curves over the days (the series `village plot --what strengths` draws, from
kernel.report.plots) and, per night and villager, the plan's groups accepted
and refused and the rows absorbed, forgotten and re-felt. Everything but
the retrieval tables and the cost comes from the log alone (felt memory with
the valence table of the scenario the log ran under). Those two need the run's recording (vectors and durations are not
in the log), so they come from a replay of the run under its configs
(found by the digest in the log's header) and its recording; where either
is missing, or the replay does not give the log's head, the `Day` says why
in `retrieval_note` and `cost_note`; a run with no felt memory says why in
its `FeltView`'s `note`.

This module computes and returns values; it renders nothing (the
templates do) and writes nothing but temporary logs.
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kernel import engine
from kernel import events as ev
from kernel.engine.scenario import Scenario
from kernel.errors import VillageError
from kernel.laws.memory import Memory
from kernel.log import read_header, verify
from kernel.mind.night import FEWEST_FELT, night_of
from kernel.mind.reflect import Round
from kernel.report import felt as rf
from kernel.report import plots

SNAPSHOTS = 60            # food snapshots over a run, for the map's slider
BINS = 400                # a timeline lane is drawn in at most this many bins

# The timeline's lanes, in the order drawn: (key, label).
LANES = (
    ("meals", "meals"), ("gathers", "gathers"), ("gave", "gifts given"),
    ("got", "gifts received"), ("took", "takes made"), ("lost", "taken from"),
    ("pleas", "pleas"), ("came", "came into sight"), ("went", "went out of sight"),
    ("rounds", "reflection rounds"), ("thoughts", "thoughts"), ("refusals", "refusals"),
)


@dataclass(frozen=True, slots=True)
class Person:
    id: int
    name: str
    founded: int | None          # the tick of its `founded` event; None: not founded in the run


@dataclass(frozen=True, slots=True)
class Answerer:
    model: str
    digest: str
    answers: int                 # answered events in the log by this model at this digest


@dataclass(frozen=True)
class Header:
    title: str
    scenario: str | None
    log: str
    config_digest: str
    head_hex: str
    ticks: int
    first_tick: int | None
    last_tick: int | None
    ticks_per_day: int | None
    events: int
    people: tuple[Person, ...]
    answerers: tuple[Answerer, ...]
    fork: dict | None            # the header's fork record, when the run is a fork
    stopped: str | None          # the replay of a scenario stopped here, and why


@dataclass(frozen=True, slots=True)
class Trail:
    villager: int
    name: str
    points: tuple[tuple[int, int, int], ...]   # (tick, x, y): where it was from that tick on


@dataclass(frozen=True)
class Map:
    width: int | None
    height: int | None
    food_max_grams: float | None
    food: tuple[tuple[int, tuple[int, ...]], ...]   # (tick, whole grams per cell, row-major)
    trails: tuple[Trail, ...]
    note: str | None = None


@dataclass(frozen=True, slots=True)
class Lane:
    key: str
    label: str
    total: int
    bins: tuple[tuple[int, int], ...]          # (bin index, count), only bins with a count


@dataclass(frozen=True)
class Timeline:
    villager: int
    name: str
    bin_ticks: int
    lanes: tuple[Lane, ...]


@dataclass(frozen=True)
class Node:
    """A cited row in a citation tree; a thought's node holds the rows it cites in turn."""

    id: int
    tick: int | None
    kind: str
    text: str
    weight: int | None
    children: tuple[Node, ...] = ()
    cut: bool = False            # a thought whose citations lie below the tree's depth


@dataclass(frozen=True)
class ThoughtView:
    id: int
    villager: int
    name: str
    tick: int
    text: str
    weight: int
    depth: int
    about: tuple[str, ...]
    cites: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class RefusalView:
    tick: int
    villager: int
    name: str
    purpose: str
    index: int
    reason: str


@dataclass(frozen=True, slots=True)
class RankedRow:
    rank: int
    id: int
    tick: int
    kind: str
    text: str
    weight: int
    recency: float
    importance: float
    relevance: float
    score: float
    cited: bool


@dataclass(frozen=True)
class Retrieval:
    tick: int
    villager: int
    name: str
    index: int
    question: str
    statement: str | None
    outcome: str                 # "accepted at depth 1", "refused by cites: ...", ...
    accepted: bool
    rows: tuple[RankedRow, ...]


@dataclass(frozen=True, slots=True)
class Call:
    n: int
    tick: int | None             # the round it belongs to
    kind: str
    purpose: str
    model: str
    took_s: float
    tokens_in: int
    tokens_out: int


@dataclass(frozen=True)
class RoundCost:
    tick: int
    calls: int
    took_s: float
    models: tuple[str, ...]      # the models in call order, each run of one model once
    changes: int                 # times the resident model changed within the round


@dataclass(frozen=True, slots=True)
class NightRow:
    """One villager's night: its plan call, the groups judged, and what the day did to its rows."""

    tick: int
    day: int
    villager: int
    name: str
    plan: str                    # "asked", "refused whole" or "not asked"
    reason: str                  # why a plan was refused whole or not asked
    accepted: int                # groups accepted (each an `absorbed` event)
    refused: int                 # groups refused, each with its reason as a refusal
    absorbed: int                # rows absorbed into an anchor
    forgotten: int
    refelt: int                  # rows re-felt by a thought over the day this night ends
    recurred: int                # thoughts recurring over that day


@dataclass(frozen=True)
class FeltView:
    """Felt memory in the report: strength curves, and each night's tally; or why there are none."""

    strengths: tuple[plots.Strengths, ...] = ()
    nights: tuple[NightRow, ...] = ()
    note: str | None = None      # why the run has no felt strength to show
    nights_note: str | None = None

    @property
    def curves(self) -> int:
        return sum(len(v.curves) for v in self.strengths)


@dataclass(frozen=True)
class Day:
    header: Header
    map: Map
    timelines: tuple[Timeline, ...]
    thoughts: tuple[ThoughtView, ...]
    refusals: tuple[tuple[str, tuple[RefusalView, ...]], ...]    # by check, in check order
    retrievals: tuple[Retrieval, ...]
    retrieval_note: str | None
    calls: tuple[Call, ...]
    rounds: tuple[RoundCost, ...]
    cost_note: str | None
    rows: dict[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    """Per villager, (tick, rows so far) at each tick its row count changed."""
    weights: tuple[float, float, float] | None = None   # recency, importance, relevance
    felt: FeltView = field(default_factory=FeltView)

    @property
    def refusal_count(self) -> int:
        return sum(len(x) for _, x in self.refusals)


# --- a replay of the run, for what the log alone cannot give ---------------------------


@dataclass
class _Rerun:
    """What a run of the scenario gave besides its log: rounds, food, and calls per round."""

    rounds: list[Round] = field(default_factory=list)
    food: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)
    cuts: list[tuple[int, int]] = field(default_factory=list)   # (round tick, calls so far)
    costs: list = field(default_factory=list)
    head_hex: str = ""
    stopped: str | None = None


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


def _rerun(sc: Scenario, out: Path, exemplars: Path | None) -> _Rerun:
    from kernel.oracle import make

    got = _Rerun()
    oracle = None
    if not sc.world_only:
        oracle = make("replay", replay_from=exemplars)
    every = max(1, sc.ticks // SNAPSHOTS)
    phases = (*engine.PHASES, ("report-food", _food_phase(every, sc.ticks - 1, got.food)))

    def on_round(rnd: Round) -> None:
        got.rounds.append(rnd)
        got.cuts.append((rnd.now, len(oracle.costs)))

    report = engine.run(sc, oracle, out, keep_going=True, phases=phases, on_round=on_round)
    got.head_hex = report.head_hex
    if report.stopped is not None:
        got.stopped = f"the replay stopped at tick {report.ticks}: {report.stopped}"
    if oracle is not None:
        got.costs = list(oracle.costs)
    return got


# --- the parts of a day ----------------------------------------------------------------


def _people(sc: Scenario | None, founded: dict[int, tuple[str, int]]) -> tuple[Person, ...]:
    if sc is not None:
        return tuple(Person(p.id, p.name, founded.get(p.id, (p.name, None))[1])
                     for p in sc.world.people)
    return tuple(Person(v, name, t) for v, (name, t) in sorted(founded.items()))


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


def _retrievals(rounds: Sequence[Round]) -> tuple[Retrieval, ...]:
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
                out.append(Retrieval(rnd.now, r.villager, r.name, s.index, s.question, s.statement,
                                     what, ok, rows))
    return tuple(out)


def _costs(rerun: _Rerun) -> tuple[tuple[Call, ...], tuple[RoundCost, ...]]:
    calls: list[Call] = []
    rounds: list[RoundCost] = []
    start = 0
    for tick, end in rerun.cuts:
        mine = rerun.costs[start:end]
        for c in mine:
            calls.append(Call(len(calls) + 1, tick, c.kind, c.purpose, c.model, c.took_ns / 1e9,
                              c.tokens_in, c.tokens_out))
        runs = [c.model for i, c in enumerate(mine) if i == 0 or mine[i - 1].model != c.model]
        rounds.append(RoundCost(tick, len(mine), sum(c.took_ns for c in mine) / 1e9, tuple(runs),
                                max(0, len(runs) - 1)))
        start = end
    return tuple(calls), tuple(rounds)


def scenario_for(digest: str) -> Scenario | None:
    """The home's scenario whose runs' headers carry `digest`, or None."""
    from kernel.engine.fork import by_digest
    return by_digest(digest, forks=True)


def day(source: str | os.PathLike | Scenario, *, exemplars: str | os.PathLike | None = None) -> Day:
    """The day of a run: `source` is a log, a scenario (replayed first), or a scenario's name."""
    from kernel.engine import scenario as msc

    sc: Scenario | None = None
    if isinstance(source, Scenario):
        sc = source
    else:
        p = Path(source)
        if not p.is_file():
            sc = msc.load(source)
    with tempfile.TemporaryDirectory(prefix="village-report-") as d:
        if sc is not None:
            # A scenario: its run is its replay, so the log and the rerun are one.
            if exemplars is not None:
                sc = _with_recording(sc, Path(exemplars))
            if not sc.world_only and sc.exemplars is None:
                raise VillageError(f"scenario {sc.name} has no recording to replay, so there is no "
                                   f"run to report: run it (village run), then report its log")
            log = Path(d) / f"{sc.name}.log"
            rerun = _rerun(sc, log, sc.exemplars)
            if not log.is_file():
                raise VillageError(f"scenario {sc.name} did not replay a single tick: {rerun.stopped}")
            return _build(log, sc, rerun, None, shown=sc.name)
        log = Path(source)
        head = read_header(log)
        sc = scenario_for(head.config_digest)
        note = None
        rerun = None
        if sc is None:
            note = (f"no scenario of this home runs under the log's config digest "
                    f"{head.config_digest[:16]}, so the run cannot be replayed")
        else:
            if exemplars is not None:
                sc = _with_recording(sc, Path(exemplars))
            if not sc.world_only and sc.exemplars is None:
                note = (f"the log runs under scenario {sc.name}'s configs, which has no recording: "
                        f"give the run's recording with --exemplars")
            elif not sc.world_only and exemplars is None and sc.head_sha256 != verify(log).head_hex:
                note = (f"the log runs under scenario {sc.name}'s configs but is not its recorded "
                        f"run: give the run's own recording with --exemplars")
            else:
                s = verify(log)
                sc = _with_ticks(sc, (s.last_tick + 1) if s.last_tick is not None else 0)
                rerun = _rerun(sc, Path(d) / "rerun.log", sc.exemplars)
                if rerun.head_hex != s.head_hex:
                    why = rerun.stopped or f"it ends at head {rerun.head_hex[:16]}"
                    note = (f"the replay of scenario {sc.name} does not give this log ({why}; "
                            f"the log's head is {s.head_hex[:16]})")
                    rerun = None
        return _build(log, sc, rerun, note, shown=log.name)


def _with_recording(sc: Scenario, exemplars: Path) -> Scenario:
    from dataclasses import replace
    if not exemplars.is_file():
        raise VillageError(f"--exemplars names a recording, and {exemplars} is not a file")
    return replace(sc, exemplars=exemplars)


def _with_ticks(sc: Scenario, ticks: int) -> Scenario:
    from dataclasses import replace
    return replace(sc, ticks=ticks)


class _Gather:
    """A projection of the log for the report: paths, timeline marks, answerers, thoughts, refusals.

    It follows a MemoryProjection (applied before it in the same fold) to count each
    villager's rows as they grow.
    """

    def __init__(self, mem: engine.MemoryProjection, names: dict[int, str]):
        self.mem = mem
        self.names = names
        self.start()

    def start(self) -> None:
        self.founded: dict[int, tuple[str, int]] = {}
        self.points: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
        self.marks: dict[int, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
        self.answerers: Counter = Counter()
        self.thoughts: list[tuple[int, ev.Thought]] = []
        self.refusals: dict[str, list[RefusalView]] = defaultdict(list)
        self.rounds_at: dict[int, set[int]] = defaultdict(set)
        self.counts: dict[int, list[tuple[int, int]]] = defaultdict(list)
        self.plans: set[tuple[int, int]] = set()       # (tick, villager) of each night plan call
        self._rows = 0

    def name(self, v: int) -> str:
        return self.names.get(v, f"villager {v}")

    def apply(self, tick: int, events: Sequence[ev.Event]) -> None:
        marks, points = self.marks, self.points
        for e in events:
            k = e.kind
            if k == "founded":
                self.founded[e.villager] = (e.name, tick)
                self.names.setdefault(e.villager, e.name)
                points[e.villager].append((tick, e.x, e.y))
            elif k == "walked":
                points[e.villager].append((tick, e.to_x, e.to_y))
            elif k == "ate":
                marks[e.villager]["meals"].append(tick)
            elif k == "gathered":
                marks[e.villager]["gathers"].append(tick)
            elif k == "gave":
                marks[e.giver]["gave"].append(tick)
                marks[e.receiver]["got"].append(tick)
            elif k == "took":
                marks[e.taker]["took"].append(tick)
                marks[e.owner]["lost"].append(tick)
            elif k == "begged":
                marks[e.villager]["pleas"].append(tick)
            elif k == "came_into_sight":
                marks[e.viewer]["came"].append(tick)
            elif k == "went_out_of_sight":
                marks[e.viewer]["went"].append(tick)
            elif k == "answered":
                self.answerers[(e.model, e.digest)] += 1
                if e.purpose == "night":
                    self.plans.add((tick, e.villager))
                if e.purpose == "questions" and tick not in self.rounds_at[e.villager]:
                    self.rounds_at[e.villager].add(tick)
                    marks[e.villager]["rounds"].append(tick)
            elif k == "refusal":
                marks[e.villager]["refusals"].append(tick)
                self.refusals[e.check].append(RefusalView(tick, e.villager, self.name(e.villager),
                                                          e.purpose, e.index, e.reason))
            elif k == "thought":
                marks[e.villager]["thoughts"].append(tick)
                self.thoughts.append((tick, e))
        got = self.mem.rows[self._rows:]
        self._rows = len(self.mem.rows)
        for v in sorted({m.villager for m in got}):
            self.counts[v].append((tick, len(self.mem.streams[v])))


def _build(log: Path, sc: Scenario | None, rerun: _Rerun | None, note: str | None, *,
           shown: str) -> Day:
    s = verify(log)
    names: dict[int, str] = {p.id: p.name for p in sc.world.people} if sc is not None else {}
    # Without the run's configs the home's importance table stands in: it changes a row's
    # weight, never how many rows an event gives.
    rules = sc.rules if sc is not None else engine.load_rules()
    mem = engine.MemoryProjection(rules)
    g = _Gather(mem, names)
    head = read_header(log)
    why = rf.why_not_felt(sc, head.config_digest)
    journal = rf.journal_of(sc, mem) if why is None else None
    engine.fold(log, [mem, g] if journal is None else [mem, g, journal])
    founded, points, marks, answerers = g.founded, g.points, g.marks, g.answerers
    thoughts_raw, refusals, counts = g.thoughts, g.refusals, g.counts
    name = g.name

    people = _people(sc, founded)
    for p in people:
        names.setdefault(p.id, p.name)
    ticks_per_day = sc.world.ticks_per_day if sc is not None else None
    header = Header(
        title=shown, scenario=sc.name if sc is not None else None, log=log.name,
        config_digest=head.config_digest, head_hex=s.head_hex, ticks=s.ticks,
        first_tick=s.first_tick, last_tick=s.last_tick, ticks_per_day=ticks_per_day,
        events=s.events, people=people,
        answerers=tuple(Answerer(m, d, n) for (m, d), n in sorted(answerers.items())),
        fork=head.fork_record(),
        stopped=rerun.stopped if rerun is not None else None)

    # The map.
    trails = tuple(Trail(p.id, p.name, tuple(points.get(p.id, ()))) for p in people)
    if sc is not None:
        w = sc.world
        food = tuple(rerun.food) if rerun is not None else ()
        the_map = Map(w.width, w.height, w.food_max / 1000, food, trails,
                      None if rerun is not None else "food is not shown: the run was not replayed")
    else:
        xs = [x for tr in trails for _, x, _ in tr.points] or [0]
        ys = [y for tr in trails for _, _, y in tr.points] or [0]
        the_map = Map(max(xs) + 1, max(ys) + 1, None, (), trails,
                      "food is not shown: the run's world config was not found")

    # The timelines.
    last = s.last_tick if s.last_tick is not None else 0
    width = max(1, -(-(last + 1) // BINS))
    timelines = tuple(
        Timeline(p.id, p.name, width,
                 tuple(Lane(k, label, len(marks[p.id][k]), _binned(marks[p.id][k], width))
                       for k, label in LANES))
        for p in people)

    # The thoughts, with citation trees read off the folded rows.
    by_id = {m.id: m for m in mem.rows}
    thoughts = []
    for tick, e in thoughts_raw:
        cites = tuple(_tree(by_id.get(c), c, by_id, max(0, e.depth - 1)) for c in e.drawn_from)
        thoughts.append(ThoughtView(e.id, e.villager, name(e.villager), tick, e.text, e.weight,
                                    e.depth, tuple(name(a) for a in e.about), cites))

    # What needs the recording.
    if rerun is not None and rerun.rounds:
        retrievals = _retrievals(rerun.rounds)
        rnote = None if retrievals else "no statement was asked for in this run"
        calls, rounds = _costs(rerun)
        cnote = None if calls else "no model was called in this run"
        if sc is not None and sc.parent is not None:
            cnote = (f"the rounds before tick {sc.fork_at} are {sc.parent}'s, answered from its "
                     f"recording: their calls are in its report, and show no calls here")
    else:
        retrievals, calls, rounds = (), (), ()
        if note is not None:
            rnote = cnote = note
        elif sc is not None and sc.world_only:
            rnote = cnote = "nobody reflects in this run, so nothing was retrieved and no model called"
        else:
            rnote = cnote = "no reflection round in this run"
    if journal is None:
        felt = FeltView(note=why)
    else:
        strengths = plots.curves(journal, {m.id: m.text for m in mem.rows}, names, last)
        nights, nnote = _nights(sc, journal, g, last)
        felt = FeltView(strengths, nights, None, nnote)
    return Day(header=header, map=the_map, timelines=timelines, thoughts=tuple(thoughts),
               refusals=tuple((k, tuple(v)) for k, v in sorted(refusals.items())),
               retrievals=retrievals, retrieval_note=rnote, calls=calls, rounds=rounds,
               cost_note=cnote, rows={v: tuple(x) for v, x in counts.items()},
               weights=(tuple(sc.settings.retrieval.weights)
                        if sc is not None and sc.settings is not None else None),
               felt=felt)


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
            if r.purpose == "night":
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
