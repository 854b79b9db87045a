"""A hand-written log for the bond tests: three villagers who give, take, beg and talk.

Ander (1), Knut (2) and Mose (3) are founded at tick 0 and all come into sight of one another.
Days are `TPD` ticks. On day 0 Ander hands Knut a parcel and the two talk (Ander starts,
Knut answers); Mose takes a parcel out of Knut's hands and asks for food, which Ander and
Knut hear. On day 2 Knut says something to Ander. `importance()` is the shipped importance
table with the talk rows a talking scenario names (base and valence), so the log's rows can be
weighed and valued; `quiet()` is the same villagers founded and in sight, with nothing
passing between them.
"""

from __future__ import annotations

import json
from pathlib import Path

from kernel import events as ev
from kernel.laws.felt import Valences
from kernel.laws.importance import Importance
from kernel.log import LogWriter

ANDER, KNUT, MOSE = 1, 2, 3
NAMES = {ANDER: "Ander", KNUT: "Knut", MOSE: "Mose"}
TPD = 20
TALK_VALENCE = 200
ROOT = Path(__file__).resolve().parents[1]


def importance_value() -> dict:
    value = json.loads((ROOT / "configs/importance.json").read_text())
    value["base"].setdefault("did", {})["talk"] = 2
    value["base"].setdefault("heard", {})["talk"] = 3
    value["valence"]["did"]["talk"] = {"actor": TALK_VALENCE}
    value["valence"].setdefault("heard", {})["talk"] = {"witness": TALK_VALENCE}
    return value


def importance() -> Importance:
    return Importance.from_value(importance_value())


def valences() -> Valences:
    return Valences.from_value(importance_value()["valence"])


def _met() -> list[ev.Event]:
    out: list[ev.Event] = [ev.Founded(villager=v, name=n, x=v, y=1) for v, n in NAMES.items()]
    out += [ev.CameIntoSight(viewer=a, seen=b, millicells=1000)
            for a in NAMES for b in NAMES if a != b]
    return out


def _said(a: int, b: int, text: str, reply: bool = False) -> ev.Spoke:
    return ev.Spoke(speaker=a, listener=b, text=text, drawn_from=(), reply=reply)


def frames(tpd: int = TPD) -> list[tuple[int, list[ev.Event]]]:
    """The log's frames, in days of `tpd` ticks."""
    return [
        (0, _met()),
        (5, [ev.Gave(giver=ANDER, receiver=KNUT, parcels=1, milligrams=4000)]),
        (6, [_said(ANDER, KNUT, "There is food by the river."),
             _said(KNUT, ANDER, "Thank you, I will go there.", reply=True)]),
        (7, [ev.Took(taker=MOSE, owner=KNUT, parcels=1, milligrams=3000)]),
        (8, [ev.Begged(villager=MOSE, x=3, y=1)]),
        (2 * tpd + 3, [_said(KNUT, ANDER, "The river had food.")]),
        (3 * tpd - 1, []),
    ]


def quiet_frames() -> list[tuple[int, list[ev.Event]]]:
    return [(0, _met()), (TPD - 1, [])]


def write(path: Path, frames_: list[tuple[int, list[ev.Event]]] | None = None, *,
          tpd: int = TPD) -> Path:
    """The log of `frames_` (default: `frames()`) at `path`, under a digest no scenario has."""
    w = LogWriter.create(path, config_digest="b" * 64, seed=1, ticks_per_day=tpd)
    for tick, events in frames() if frames_ is None else frames_:
        w.append(tick, events)
    w.close()
    return path
