"""The laws: pure functions from rows and numbers to rows and numbers.

This package owns every rule of the village that can be stated without a
clock, a file, a model or a random draw: what a row is (`memory`), what it
weighs (`importance`), how a log's events become rows (`perception`), when
a villager reflects and what the seam accepts (`reflection`, `statement`, and
`grounded`: whom an answer may name and who it may say gave or took from whom),
which memories a question retrieves (`retrieval`), what a prompt shows of
them, each repeated line once with every id (`window`), how strongly a row is
felt, in integer thousandths, as it fades, is re-felt, absorbed and
forgotten (`felt`, the laws a run feels by), how the basins drift
(`basins`, which no run calls yet), and how much of what a model said
means something (`minds`, the measure of a run's answers, which changes
nothing in a run). Its errors are `LawError` and
`PerceptionError` (kernel.errors). It must not import the log, the store,
the oracle, the world or the command line, nor anything that reads the
time or draws at random; a test reads every module's imports and fails if
it does.
"""

from kernel.laws import felt
from kernel.laws._errors import LawError, PerceptionError
from kernel.laws.basins import (
    CONVERGING,
    DIVERGING,
    RESTRUCTURING,
    STABLE,
    Basin,
    BasinsParams,
    BasinsState,
    BasinsUpdate,
    BasinUpdate,
    NewBasin,
    consolidation_due,
    entropy,
    seed_basins,
    slugify,
    trajectory,
    update_basins,
    update_basins_single,
)
from kernel.laws.grounded import Claim, claims, judge_grounded, named
from kernel.laws.memory import KINDS, Memory, ThoughtWeight
from kernel.laws.person import first_person
from kernel.laws.reflection import Verdict, cite, depth, due, next_due, recent, reflected
from kernel.laws.retrieval import (
    PLACES,
    Ranked,
    Retrieval,
    RowColumns,
    Scored,
    cosine,
    rank,
    rank_columns,
    ranked,
    recency,
    row_columns,
    squares,
)
from kernel.laws.statement import (
    StatementRefusal,
    judge_statement,
    plain,
    repeated,
    repetition,
    restatement,
    restates,
    wordless,
    words,
)
from kernel.laws.window import Line, cited_texts, collapse, near_lines

__all__ = [
    "CONVERGING",
    "DIVERGING",
    "KINDS",
    "PLACES",
    "RESTRUCTURING",
    "STABLE",
    "BasinsParams",
    "BasinsState",
    "BasinsUpdate",
    "Basin",
    "BasinUpdate",
    "Claim",
    "RowColumns",
    "LawError",
    "Line",
    "near_lines",
    "cited_texts",
    "Memory",
    "NewBasin",
    "PerceptionError",
    "Ranked",
    "Retrieval",
    "Scored",
    "StatementRefusal",
    "ThoughtWeight",
    "Verdict",
    "seed_basins",
    "update_basins",
    "update_basins_single",
    "cite",
    "claims",
    "collapse",
    "consolidation_due",
    "cosine",
    "depth",
    "due",
    "entropy",
    "felt",
    "judge_grounded",
    "first_person",
    "judge_statement",
    "named",
    "next_due",
    "plain",
    "rank",
    "rank_columns",
    "ranked",
    "recency",
    "recent",
    "reflected",
    "repeated",
    "repetition",
    "restatement",
    "restates",
    "row_columns",
    "slugify",
    "squares",
    "trajectory",
    "wordless",
    "words",
]
