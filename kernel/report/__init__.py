"""What a reader of a run looks at, computed as data: the reflect modes, felt memory, the
plots' series and the HTML report of a day.

Every view folds its projections over a run once: over a scenario's replay
as it runs (kernel.engine.replay, answered from the recording, no model), or
over a log on disk. `reflection` gives a round's reflections with their
rankings and verdicts, the seam's refusals of broken statements, the chain
of thoughts under a depth cap and the settings a reflection runs under;
`felt` each night and one villager's felt strengths; `figures` the felt
counts of a run's events; `plots` the series `village plot` draws;
`scenarios` each scenario's row of `village scenarios`; `minds` the
measure of a run's minds (`village minds`, the report's section, a sweep
row's columns); `basins` each villager's basins over the nights and
each day's plans with what became of it; `source` which run a view of a log reads; `day` the `Day`
the HTML page shows, which `html` renders through the shipped templates.
The values they return are `views`'. This package prints nothing (the
CLI and the templates render) and writes nothing but a replay's
temporary log.
"""

from kernel.report.reflection import chain, pick, recorded_call, refusals, settings_view
from kernel.report.views import Chain, ChainStep, Refusals, SettingsView

__all__ = ["Chain", "ChainStep", "Refusals", "SettingsView", "chain", "pick", "recorded_call",
           "refusals", "settings_view"]
