"""Sweeps: many runs of many scenarios as Ray tasks, gathered into one DuckDB table.

A spec (configs/schema/sweep.json) names scenarios x world seeds x
overrides; `spec.plans` resolves each combination into the files its run
reads; `runner.run` makes every run as a Ray task and writes each under
the sweep folder whole (temp then rename); `runner.replay` replays a
finished sweep from its recordings and checks every head; `table` keeps
`sweep.duckdb`; `stopped` tidies a sweep a signal stopped and says what it left. This package must not render prompts, call a model itself
or change how a run is made (the engine does).
"""

from kernel.sweep.runner import MAX_RETRIES, SweepOutcome, load_rows, replay, run
from kernel.sweep.spec import RunPlan, Spec, creatable, load, merge, plans, runnable
from kernel.sweep.table import TABLE

__all__ = ["MAX_RETRIES", "TABLE", "SweepOutcome", "RunPlan", "Spec", "creatable", "load", "load_rows", "merge",
           "plans", "replay", "run", "runnable"]
