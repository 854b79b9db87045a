"""The values the report's views return: what a reader looks at, as frozen data.

The reflect modes' settings, refusals and chain; felt memory's changes,
replayed run and nights; the plots' series and felt-strength curves; the
measure of a run's minds; basins and plans (basins over the
nights, each night's entropy and trajectory, each day's plan and what
became of it); conversations and the spread of news; and a day of a run for the HTML page, down to
each timeline lane, citation tree and retrieval table. kernel.report's modules compute these and the CLI and
the templates render them; this module holds only their shapes, with the
few sums a renderer asks of them. It must not compute a view, read a log
or a file, or import a module of kernel.report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kernel.engine.run import RunReport
    from kernel.engine.scenario import Scenario
    from kernel.laws.memory import Memory
    from kernel.laws.minds import AnswerRead, Reading, ReadTally, Tally, ThoughtMark
    from kernel.laws.reflection import Verdict
    from kernel.mind.felt import FeltState
    from kernel.mind.night import Night
    from kernel.mind.reflect import Reflection, Statement
    from kernel.mind.settings import NightSettings, Settings
    from kernel.seam import TemplateFile


# --- the reflect modes (kernel.report.reflection) --------------------------------------


@dataclass(frozen=True)
class SettingsView:
    """What a scenario's reflections and nights run under: the thought settings, the backend,
    each model's pin, each template, and the home the files were read from."""

    settings: Settings
    backend: str
    digest: str                              # the generation model's pin
    templates: tuple[TemplateFile, ...]      # the questions and statement templates, then the night's
    home: str
    embed_digest: str = ""                   # the embedding model's pin
    valences: bool = False                   # the importance table has valences: rows are felt
    night: NightSettings | None = None       # None: the thought settings have no night block


@dataclass(frozen=True)
class Case:
    """One broken copy of a statement, as it is put to the seam, and the seam's verdict."""

    what: str
    cites: tuple[int, ...]
    now: int
    verdict: Verdict


@dataclass(frozen=True)
class Refusals:
    """An accepted statement, and the seam's verdict on three broken copies of it."""

    reflection: Reflection
    statement: Statement
    rows_before: int
    cases: tuple[Case, ...]

    @property
    def accepted(self) -> int:
        return sum(1 for c in self.cases if c.verdict.ok)


@dataclass(frozen=True)
class ChainStep:
    """One question of one round of a chain: its window, retrieval, citations and verdict."""

    step: int
    tick: int
    window_world: int
    window_thoughts: int
    refused: str | None                   # refused before the seam, for a questions call
    ranked_world: int | None = None
    ranked_thoughts: int | None = None
    cited_world: int | None = None
    cited_thoughts: int | None = None
    verdict: Verdict | None = None
    statement_refused: str | None = None


@dataclass(frozen=True, slots=True)
class Cut:
    """One statement the recording let stand that a cap refuses for depth: who said it, at
    which tick and question, what it said and cited, its depth and the cap."""

    tick: int
    name: str
    index: int
    depth: int
    cap: int
    statement: str
    cites: tuple[int, ...]


@dataclass(frozen=True)
class Chain:
    """A recording replayed under a depth cap: each step, and where (and why) it stopped.

    `rounds`, `thoughts` and `refused_depth` count the rounds replayed whole, never the one
    a replay stopped in; `cuts` are the statements of the first round the recording holds
    deeper than the cap (where the replay stopped, the cut it stopped at), () where none is."""

    recorded_cap: int
    cap: int
    steps: tuple[ChainStep, ...]
    rounds: int
    thoughts: int
    refused_depth: int
    stopped_at: int | None                 # the tick the replay stopped at, if it did
    stopped: str | None
    left: int                              # recorded calls never replayed
    deepest: int
    cuts: tuple[Cut, ...] = ()

    @property
    def stopped_at_the_cut(self) -> bool:
        """The replay stopped in the round the cap cut: the cut is why it stopped."""
        return bool(self.cuts) and self.stopped_at == self.cuts[0].tick


# --- felt memory and the nights (kernel.report.felt) -----------------------------------


@dataclass(frozen=True, slots=True)
class FeltChange:
    """One felt event about one row: the strength before it and after it."""

    tick: int
    kind: str               # refelt, recurred, absorbed (an anchor), absorbed-into, forgotten
    villager: int
    id: int
    before: int
    after: int
    by: int | None = None   # the thought that re-felt it, or the anchor it went into


@dataclass(frozen=True)
class FeltRun:
    """A replayed run with its felt fold up to tick `at`: the report, every row, each row's
    felt state and what it is felt at then, and the journal of changes."""

    scenario: Scenario
    report: RunReport
    rows: dict[int, Memory]
    felt: dict[int, FeltState]
    changes: tuple[FeltChange, ...]
    felt_now: dict[int, int]
    at: int
    names: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class NightView:
    """One night of one scenario: the night's own record and the day's felt changes."""

    day: int
    night: Night
    changes: tuple[FeltChange, ...]


# --- the plots' series (kernel.report.plots) -------------------------------------------


@dataclass(frozen=True)
class Series:
    label: str
    x: tuple[int, ...]
    y: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class CallTime:
    n: int
    kind: str
    purpose: str
    model: str
    seconds: float


@dataclass(frozen=True, slots=True)
class Curve:
    """One row's felt strength over ticks, in thousandths, from its birth to its end.

    Between two events it is `laws.felt.felt_now` of the stored strength and the
    last felt tick then in force; at a `refelt`, `recurred` or `absorbed` (the
    anchor's new strength) it jumps, as two points at one tick, before and
    after. It ends at the tick the row is forgotten or absorbed into another,
    or at the run's last tick.
    """

    villager: int
    id: int
    kind: str
    text: str
    born: int
    x: tuple[int, ...]
    y: tuple[int, ...]           # thousandths: 1000 is a strength of 1
    end: str | None              # "forgotten", "absorbed", or None: living at the last tick
    end_tick: int
    into: int | None             # the anchor an absorbed row went into
    jumps: int                   # times re-felt, recurring or strengthened as an anchor
    felt: int                    # the area under the curve, in thousandth-ticks: the ranking's key

    @property
    def peak(self) -> int:
        return max(self.y)


@dataclass(frozen=True)
class Strengths:
    """A villager's strongest rows: the curves with the largest area under felt-now."""

    villager: int
    name: str
    rows: int                    # rows of this villager with a felt state in the run
    curves: tuple[Curve, ...]    # strongest first


# --- the measure of the minds (kernel.report.minds) -------------------------------------


@dataclass(frozen=True)
class Minds:
    """How much of what a run's minds said means something: every answer and thought marked,
    the sums per purpose, per villager and in all, and the worst answers to quote.

    `vectors` says where the vectors came from ("the recording", "embedded here"), or, starting
    "none", why there are none; `notes` what else the measure could not read."""

    run: str
    answers: tuple[AnswerRead, ...]
    thoughts: tuple[ThoughtMark, ...]
    all: Tally
    purposes: tuple[tuple[str, Tally], ...]
    villagers: tuple[tuple[int, str, Tally], ...]
    worst: tuple[AnswerRead, ...]
    vectors: str
    notes: tuple[str, ...] = ()
    reader: Reader | None = None
    """What was said as a reader reads it (None: the word list is missing, and a note says so)."""


@dataclass(frozen=True)
class Reader:
    """What a run's villagers said, as a reader reads it (kernel.laws.minds: `read`): each text
    read; the sums of each kind said (of READS, the thoughts always, the others where the run
    has any); the sums per villager over every kind; and per villager with interview answers,
    (villager, name, distinct answers, answers). `words` says which word list read them, and
    `interviews` which interviews were read (None: the run has none)."""

    words: str
    readings: tuple[Reading, ...]
    of: tuple[tuple[str, ReadTally], ...]
    villagers: tuple[tuple[int, str, ReadTally], ...]
    distinct: tuple[tuple[int, str, int, int], ...]
    interviews: str | None = None


# --- basins and plans (kernel.report.basins) -----------------------------------------


@dataclass(frozen=True, slots=True)
class BasinLine:
    """One basin's weight over the run: at its seeding (or the night it was born) and after
    every night the villager's basins moved; it holds between two points."""

    slug: str
    label: str
    x: tuple[int, ...]           # ticks
    y: tuple[float, ...]         # weights, 0.05 to 1
    keywords: tuple[str, ...]    # as the run left them


@dataclass(frozen=True, slots=True)
class BasinNightView:
    """One villager's basins update at one night: what it moved and what the basins came to."""

    tick: int
    day: int                     # the day the night ends, from 1
    outcome: str                 # "moved" or "refused whole"
    moved: tuple[tuple[str, int], ...]    # (label, delta in thousandths), as accepted
    born: str                    # a new basin's label, "" for none
    refused: tuple[str, ...]     # each refusal: "check: reason" (the whole answer's, or a part's)
    entropy: float | None        # None: refused whole, so nothing moved
    trajectory: str | None
    basins: int
    phase: int


@dataclass(frozen=True, slots=True)
class PlanView:
    """One accepted plan and what became of it (kept in the run, ignored in the ablation)."""

    act: str
    target: str                  # the villager's name, the cell as "x,y", or "home"
    measure: str
    kept: int | None             # None: not measured (its day is past the run's end, or see the note)
    ignored: int | None


@dataclass(frozen=True)
class PlanDay:
    """One villager's plans for one day: asked at the night before it, its plans, its refusals."""

    tick: int                    # the night it was made
    day: int                     # the day it is for, from 1
    plans: tuple[PlanView, ...]
    refused: tuple[str, ...]     # each refusal: "check: reason"


@dataclass(frozen=True)
class VillagerBasins:
    """A villager's basins over the run, each night's update and each day's plan."""

    villager: int
    name: str
    seeded: int | None           # the tick its basins were seeded at; None: it has none
    lines: tuple[BasinLine, ...]
    nights: tuple[BasinNightView, ...]
    plan_days: tuple[PlanDay, ...]


@dataclass(frozen=True, slots=True)
class EffectTotal:
    """One act's plans in all: the measure kept in the run and in the ablation."""

    act: str
    measure: str
    plans: int
    kept: int
    ignored: int

    @property
    def ratio(self) -> float | None:
        return self.kept / self.ignored if self.ignored else None


@dataclass(frozen=True)
class BasinsView:
    """Basins and plans in the report: each villager's, the effect's totals by act
    (from day `from_day`, from 1), and why the plans were not measured where they were not."""

    villagers: tuple[VillagerBasins, ...] = ()
    totals: tuple[EffectTotal, ...] = ()
    from_day: int = 2
    note: str | None = None
    rules: tuple[str, ...] = ()  # the update rules the log's nights moved basins by

    @property
    def plans(self) -> int:
        return sum(len(p.plans) for v in self.villagers for p in v.plan_days)


# --- the bonds between villagers (kernel.report.bonds) ---------------------------------


@dataclass(frozen=True, slots=True)
class BondNode:
    """A villager on the bond graph's circle: where it is drawn and where its name is written
    (to a tenth, as text), and which end of the name is there (an SVG text-anchor)."""

    villager: int
    name: str
    x: str
    y: str
    label_x: str
    label_y: str
    anchor: str


@dataclass(frozen=True, slots=True)
class BondEdge:
    """One villager's bond to another as one day ended, drawn from the holder to the other."""

    villager: int
    other: int
    bond: int                    # thousandths, -1000..1000, never 0
    label: str                   # the bond as -1..1, signed, two decimals
    path: str                    # the SVG path of its curve
    head: str                    # the SVG points of its arrowhead
    width: str
    opacity: str
    colour: str
    label_x: str
    label_y: str
    title: str                   # who, the bond at the day's end and start, and what passed


@dataclass(frozen=True)
class BondGraph:
    """The village's bonds on one day (from 1): an edge per ordered pair whose bond is not 0."""

    day: int
    edges: tuple[BondEdge, ...]
    passed: int                  # the passings of the day, counted once per holder and other


@dataclass(frozen=True)
class BondsView:
    """The bond graph of each day, on one circle of villagers, and the law's numbers."""

    size: int
    node: int
    nodes: tuple[BondNode, ...]
    graphs: tuple[BondGraph, ...]
    half_life_days: int
    rate: int                    # thousandths of a passing's valence that push the bond
    unvalued: int = 0            # passings the valence table has no value for, not counted
    note: str | None = None
# --- conversations and news (kernel.report.talk) --------------------------------------


@dataclass(frozen=True, slots=True)
class DrawnLine:
    """A row an utterance drew on: its id and its line (None: no row with this id in the run)."""

    id: int
    text: str | None


@dataclass(frozen=True)
class SaidView:
    """One utterance: who said what to whom at which tick, whether it answered the listener,
    whether the listener heard it (had the speaker in sight), the lines it drew on, and the
    news it carried."""

    tick: int
    speaker: int
    speaker_name: str
    listener: int
    listener_name: str
    text: str
    reply: bool
    heard: bool
    drawn: tuple[DrawnLine, ...]
    news: tuple[str, ...] = ()


@dataclass(frozen=True)
class TellingView:
    """A holder of a piece of news in the tree of first tellings, with those it told first."""

    villager: int
    name: str
    tick: int
    day: int                     # from 1, as a reader counts
    by: str                      # "given", "cited" or "words"
    told: tuple[TellingView, ...] = ()


@dataclass(frozen=True)
class NewsView:
    """How one piece of news spread: holders by the end of each day (from day 1), the tree of
    who told whom, how many said its words without holding it, and who stood on its cell on
    its day (`place`: "x,y on day D"; None where it names no place and day)."""

    news: str
    text: str
    words: tuple[str, ...]
    per_day: tuple[int, ...]
    villagers: int               # everyone founded in the run: the curve's ceiling
    tree: tuple[TellingView, ...]
    holders: int
    unheld: int
    place: str | None = None
    reached: bool = True         # False: the log ends before the day the news names
    there_holding: tuple[str, ...] = ()
    there_not: tuple[str, ...] = ()


# --- a day of a run, for the HTML report (kernel.report.day) ---------------------------


@dataclass(frozen=True, slots=True)
class PersonView:
    id: int
    name: str
    founded: int | None          # the tick of its `founded` event; None: not founded in the run


@dataclass(frozen=True, slots=True)
class Answerer:
    model: str
    digest: str
    answers: int                 # answered events in the log by this model at this digest


@dataclass(frozen=True)
class HeaderView:
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
    people: tuple[PersonView, ...]
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
class RetrievalView:
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
class CallView:
    """One model call as the report's cost table shows it (a villager's call is
    kernel.mind.calls.VillagerCall; what a model said, kernel.oracle.base.Said)."""

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

    strengths: tuple[Strengths, ...] = ()
    nights: tuple[NightRow, ...] = ()
    note: str | None = None      # why the run has no felt strength to show
    nights_note: str | None = None

    @property
    def curves(self) -> int:
        return sum(len(v.curves) for v in self.strengths)


# --- interviews (kernel.report.interviews) ---------------------------------------------


@dataclass(frozen=True, slots=True)
class AskedRow:
    """A row an interview's question brought to mind: its id, kind, line and score."""

    id: int
    kind: str
    text: str
    score: float


@dataclass(frozen=True)
class AskedView:
    """One question put to one villager: the rows it brought to mind, what the model said, the
    answer the seam let stand (None: refused, and why), its citations with their lines, and
    where the log knows the answer, the right ones, whether it said one, and the chance."""

    villager: int
    name: str
    question: str
    category: str
    text: str
    shown: tuple[AskedRow, ...]
    said: str | None
    answer: str | None
    cites: tuple[DrawnLine, ...]
    refused: str | None
    right: tuple[str, ...] | None
    correct: bool | None
    chance: float | None
    cosine: float | None
    near: tuple[str, ...] = ()
    """The lines the prompt showed for the folded rows it cites (`laws.near_lines`), which name
    whom a cited row's own line leaves out: what the seam read beside `cites`."""


@dataclass(frozen=True)
class InterviewsView:
    """A scenario's committed interviews, replayed: at which tick, from which recording, every
    interview of the first variant, and the variants compared per category as (accuracy,
    citation validity), each None where there is nothing to count."""

    tick: int
    recording: str
    variant: str
    variants: tuple[str, ...]
    categories: tuple[str, ...]
    asked: tuple[AskedView, ...]
    compare: tuple[tuple[str, tuple[tuple[float | None, float | None], ...]], ...]
    chance: float | None                 # the memory questions' mean chance
    transcript_sha256: str = ""


@dataclass(frozen=True)
class Day:
    header: HeaderView
    map: Map
    timelines: tuple[Timeline, ...]
    thoughts: tuple[ThoughtView, ...]
    refusals: tuple[tuple[str, tuple[RefusalView, ...]], ...]    # by check, in check order
    retrievals: tuple[RetrievalView, ...]
    retrieval_note: str | None
    calls: tuple[CallView, ...]
    rounds: tuple[RoundCost, ...]
    cost_note: str | None
    rows: dict[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    """Per villager, (tick, rows so far) at each tick its row count changed."""
    weights: tuple[float, float, float] | None = None   # recency, importance, relevance
    felt: FeltView = field(default_factory=FeltView)
    minds: Minds | None = None                          # the measure of the run's minds
    basins: BasinsView | None = None                    # None: no basins and no plans in the run
    bonds: BondsView | None = None                      # None: nothing passed between villagers
    conversations: tuple[SaidView, ...] = ()            # every utterance; () in a run with none
    news: tuple[NewsView, ...] = ()                     # every piece of news; () in a run with none
    interviews: InterviewsView | None = None            # the committed interviews; None: none
    interviews_note: str | None = None                  # why the committed interviews are not shown

    @property
    def refusal_count(self) -> int:
        return sum(len(x) for _, x in self.refusals)
