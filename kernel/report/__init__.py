"""What the `reflect` modes (and, later, an HTML report) show, computed as data.

This package replays a scenario and returns what a reader looks at: a
round's reflections with their rankings and verdicts, the seam's refusals
of broken statements, the chain of thoughts under a depth cap, the
settings a reflection runs under. It returns values and prints nothing;
the CLI renders them as text, and another renderer may draw them. It must
not write anything but temporary logs.
"""

from kernel.report.reflection import (
    Chain,
    ChainStep,
    Refusals,
    Replayed,
    SettingsView,
    chain,
    pick,
    recorded_call,
    refusals,
    replay,
    settings_view,
)

__all__ = ["Chain", "ChainStep", "Refusals", "Replayed", "SettingsView", "chain", "pick",
           "recorded_call", "refusals", "replay", "settings_view"]
