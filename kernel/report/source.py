"""Which run a view of a log reads: the replay of the log's scenario where that is the log, or
the log alone.

A view of a log (the HTML report's day, the measure of the minds) needs what the log does not
hold (vectors, durations, token counts, the rows each prompt showed) from a replay of the run
under its configs and recording. This module owns finding that scenario (by the config digest
in the log's header), putting a recording given on the command line in place of its own, and
saying why a log cannot be replayed. The views then replay it and hold its head to the log's.
It must not replay, fold or compute a view.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from kernel.engine.scenario import Scenario, by_digest
from kernel.errors import VillageError


def scenario_for(digest: str) -> Scenario | None:
    """The home's scenario whose runs' headers carry `digest`, or None."""
    return by_digest(digest, forks=True)


def with_recording(sc: Scenario, exemplars: str | os.PathLike) -> Scenario:
    """`sc` replayed from the recording `exemplars` instead of its own."""
    path = Path(exemplars)
    if not path.is_file():
        raise VillageError(f"--exemplars names a recording, and {path} is not a file")
    return replace(sc, recording=replace(sc.recording, exemplars=path))


def with_ticks(sc: Scenario, ticks: int) -> Scenario:
    return replace(sc, ticks=ticks)


def of_log(config_digest: str, head_hex: str,
           exemplars: str | os.PathLike | None) -> tuple[Scenario | None, str | None]:
    """The scenario a log with this header digest and head runs under (with `exemplars` as its
    recording, where given), and why its replay cannot give the log (None where it may)."""
    sc = scenario_for(config_digest)
    if sc is None:
        return None, (f"no scenario of this home runs under the log's config digest "
                      f"{config_digest[:16]}, so the run cannot be replayed")
    if exemplars is not None:
        sc = with_recording(sc, exemplars)
    if not sc.world_only and sc.exemplars is None:
        return sc, (f"the log runs under scenario {sc.name}'s configs, which has no recording: "
                    f"give the run's recording with --exemplars")
    if not sc.world_only and exemplars is None and sc.head_sha256 != head_hex:
        return sc, (f"the log runs under scenario {sc.name}'s configs but is not its recorded "
                    f"run: give the run's own recording with --exemplars")
    return sc, None
