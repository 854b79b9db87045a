"""The laws: pure functions from rows and numbers to rows and numbers.

This package owns every rule of the village that can be stated without a
clock, a file, a model or a random draw: when a villager reflects and what
the seam accepts (`reflection`, `statement`), which memories a question retrieves
(`retrieval`), how a felt memory's strength changes (`feeling`) and how the
attractor drifts (`attractor`). It must not import the log, the store, the
oracle, the world or the command line, nor anything that reads the time or
draws at random; a test reads every module's imports and fails if it does.
"""

from kernel.laws._errors import LawError
from kernel.laws.attractor import (
    CONVERGING,
    DIVERGING,
    RESTRUCTURING,
    STABLE,
    AttractorParams,
    AttractorState,
    AttractorUpdate,
    Basin,
    BasinUpdate,
    NewBasin,
    attractor_seed,
    attractor_update,
    attractor_update_single,
    consolidation_due,
    entropy,
    slugify,
    trajectory,
)
from kernel.laws.feeling import (
    TICKS_PER_DAY,
    Fading,
    ForgettingCurve,
    Temperament,
    combined_intensity,
    fading,
    felt_score,
    forgets,
    forgetting_threshold,
    reconsolidate,
    reinforce,
    temper,
)
from kernel.laws.memory import KINDS, Memory, ThoughtWeight
from kernel.laws.reflection import Verdict, cite, depth, due, recent, reflected
from kernel.laws.retrieval import PLACES, Ranked, Retrieval, cosine, rank, recency
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

__all__ = [
    "CONVERGING",
    "DIVERGING",
    "KINDS",
    "PLACES",
    "RESTRUCTURING",
    "STABLE",
    "TICKS_PER_DAY",
    "AttractorParams",
    "AttractorState",
    "AttractorUpdate",
    "Basin",
    "BasinUpdate",
    "Fading",
    "ForgettingCurve",
    "LawError",
    "Memory",
    "NewBasin",
    "Ranked",
    "Retrieval",
    "StatementRefusal",
    "Temperament",
    "ThoughtWeight",
    "Verdict",
    "attractor_seed",
    "attractor_update",
    "attractor_update_single",
    "cite",
    "combined_intensity",
    "consolidation_due",
    "cosine",
    "depth",
    "due",
    "entropy",
    "fading",
    "felt_score",
    "forgets",
    "forgetting_threshold",
    "judge_statement",
    "plain",
    "rank",
    "recency",
    "recent",
    "reconsolidate",
    "reflected",
    "reinforce",
    "repeated",
    "repetition",
    "restatement",
    "restates",
    "slugify",
    "temper",
    "trajectory",
    "wordless",
    "words",
]
