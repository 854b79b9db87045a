"""A recorded battery: its calls as an exemplar document, and its replay from one.

A recording of interviews is an exemplar document like a run's (kernel.oracle.exemplar), with
an `interview` block saying what was asked and the sha256 of the transcript it gave. A
scenario's committed interviews are `exemplars/interviews/NAME.json` in the home. Replaying
one folds the scenario's replayed log to the recorded tick, asks the same battery of the same
villagers under the same variants from the recording (so a prompt that differs stops it at
that call, naming both digests), and checks that every recorded call was asked and that the
transcript is the recorded one, byte for byte.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernel import config
from kernel.engine.scenario import Scenario
from kernel.errors import VillageError
from kernel.interview import battery as ib
from kernel.interview import session as isn
from kernel.oracle import exemplar

FOLDER = "interviews"
"""Where a scenario's committed interviews live, under the home's exemplars/."""


def committed_path(sc: Scenario) -> Path:
    return config.home() / "exemplars" / FOLDER / f"{sc.name}.json"


def document(oracle, s: isn.Session, battery_path: str | None) -> dict[str, Any]:
    meta = s.meta()
    if battery_path is not None:
        meta["battery"] = battery_path
    return {**oracle.document(), "interview": meta}


def save(path: str | os.PathLike, oracle, s: isn.Session, battery_path: str | None) -> Path:
    try:
        return exemplar.save(path, document(oracle, s, battery_path))
    finally:
        oracle.release()


def meta_of(path: str | os.PathLike) -> dict[str, Any]:
    doc = exemplar.load(path)
    m = doc.get("interview")
    if m is None:
        raise VillageError(f"{path} is a recording of a run, not of interviews: it has no "
                           f"interview block")
    return m


def battery_of(meta: dict[str, Any]) -> ib.Battery:
    """The battery a recording was asked from: the file it names, home-relative."""
    name = meta.get("battery")
    if name is None:
        raise VillageError("the recording names no battery file to ask again")
    p = Path(name)
    b = ib.load(p if p.is_absolute() else config.home() / p)
    if b.sha256 != meta["battery_sha256"]:
        raise VillageError(f"the battery {name} is not the one recorded: its digest is "
                           f"{b.sha256}, and the recording's is {meta['battery_sha256']}")
    return b


@dataclass(frozen=True)
class Replayed:
    session: isn.Session | None
    oracle: Any
    stopped: BaseException | None
    problem: str | None           # why it does not replay, in one line; None: byte for byte


def replay(sc: Scenario, log: str | os.PathLike, path: str | os.PathLike) -> Replayed:
    """The recorded interviews at `path` asked again of `log` (a replay of `sc`), from it."""
    from kernel.errors import ReplayMismatch
    from kernel.oracle import make

    meta = meta_of(path)
    if meta["scenario"] != sc.name:
        return Replayed(None, None, None, f"the recording is of scenario {meta['scenario']}, "
                                          f"not {sc.name}")
    b = battery_of(meta)
    oracle = make("replay", sc.models, replay_from=path)
    a = isn.at(log, sc, meta["at"])
    if a.head_hex != meta["head"]:
        return Replayed(None, oracle, None, f"the log's head is {a.head_hex}, and the "
                                            f"recording's is {meta['head']}")
    try:
        s = isn.ask(a, b, oracle, who=meta["who"], variants=meta["variants"])
    except ReplayMismatch as e:
        return Replayed(None, oracle, e, str(e))
    if oracle.unread:
        return Replayed(s, oracle, None, f"{oracle.unread} recorded calls were never asked for")
    if s.transcript_sha256 != meta["transcript_sha256"]:
        return Replayed(s, oracle, None, f"the transcript's sha256 is {s.transcript_sha256}, "
                                         f"and the recording's is {meta['transcript_sha256']}")
    return Replayed(s, oracle, None, None)
