"""A small scenario with basins and plans for tests: three villagers, short days, scripted answers.

The world is the committed village-day's with days of 200 ticks and seeded basins for each
villager; the thought file is the shipped one with reflections at each day's end, a night, an
attractor block and a plan block that the world carries out. `answer` answers every call a
run of it makes, by purpose, with no model: the basins update moves a basin that depends on
the night, so a run under the "current" rule and one under the "single" rule part ways.
`record` runs it against that script through the recording oracle, as `make record` records a
scenario, so a report or a sweep can replay it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from kernel import config

BASINS = {"Halla": ["Food", "Company"], "Ander": ["Food", "Keeping to myself", "Halla"],
          "Mose": ["Sharing", "Food"]}
ATTRACTOR = {"rule": "current", "shown": 12, "budget": 360, "limit": 160}
PLAN = {"intentions": 3, "limit": 96, "carry_out": True}
SEEKS = {"Halla": "Ander", "Ander": "Halla", "Mose": "Halla"}
"""Whom each villager's plan seeks (refused where it has not met them yet)."""
REFUSED = ("Mose", 2)
"""The one basins update answered with something that is not the shape: (villager, night)."""


def make(folder: Path, *, days: int = 3, tpd: int = 200, rule: str = "current",
         basins: dict[str, list[str]] | None = None) -> Path:
    """Write the scenario folder and return it."""
    root = Path(__file__).resolve().parents[1]
    folder.mkdir(parents=True, exist_ok=True)
    world = json.loads((root / "fixtures/village-day/world.json").read_text())
    world["ticks_per_day"] = tpd
    for p in world["villagers"]:
        labels = (BASINS if basins is None else basins).get(p["name"])
        if labels:
            p["basins"] = labels
    (folder / "world.json").write_text(json.dumps(world))
    imp = config.thaw(config.load("importance").value)
    (folder / "importance.json").write_text(json.dumps(imp))
    th = config.thaw(config.load("thought").value)
    th["reflection"]["every"] = tpd
    th["night"] = {"shown": 24, "groups": 3, "members": 3, "limit": 192}
    th["attractor"] = {**ATTRACTOR, "rule": rule}
    th["plan"] = dict(PLAN)
    (folder / "thought.json").write_text(json.dumps(th))
    (folder / "scenario.json").write_text(json.dumps({
        "name": folder.name, "description": "a test scenario with basins and plans",
        "ticks": days * tpd, "head_sha256": "0" * 64, "importance": "importance.json",
        "thought": "thought.json", "reflecting": list(BASINS)}))
    return folder


NAMES = {1: "Halla", 2: "Ander", 3: "Mose"}


def _who(ask, tpd: int = 200) -> str:
    """The villager a night call is for: its seed is the night's tick plus the villager's id."""
    return NAMES[(ask.seed + 1) % tpd]


def answer(ask) -> str:
    """A scripted answer to any call of a run of this scenario, by the call's purpose."""
    text = ask.prompt_text
    if ask.purpose == "questions":
        return json.dumps({"questions": ["What mattered today?", "Who was near me?"]})
    if ask.purpose == "statement":
        ids = [int(x) for x in re.findall(r"^\[(\d+)\]", text, flags=re.M)]
        return json.dumps({"answer": f"On tick {ask.seed} the day felt full", "numbers": ids[:1]})
    if ask.purpose == "night":
        return json.dumps({"groups": []})
    if ask.purpose == "basins":
        # the night (the seed's hundreds) picks which of its seeded basins a villager moves;
        # Mose's second update is not the shape at all, so it is refused whole
        who, night = _who(ask), ask.seed // 200
        if (who, night) == REFUSED:
            return json.dumps({"updates": 3})
        labels = BASINS[who]
        return json.dumps({"life": "as before", "updates": [
            {"basin": labels[night % len(labels)], "delta": 0.2, "add": ["bread"], "remove": []}],
            "patterns": [], "links": [], "new": "none"})
    if ask.purpose == "keywords":
        return json.dumps({"keywords": ["bread"]})
    if ask.purpose == "plan":
        who = SEEKS[_who(ask)]
        return json.dumps({"plan": [{"do": "seek", "who": who}, {"do": "home"}]})
    raise AssertionError(ask.purpose)


def record(folder: Path, recording: Path, log: Path):
    """Run the scenario in `folder` against `answer` through the recording oracle, write its
    recording to `recording` and its head into its scenario.json; the loaded scenario."""
    from kernel import engine
    from kernel.engine import scenario as msc
    from kernel.oracle.record import RecordingOracle
    from kernel.testing import ScriptedOracle

    raw = json.loads((folder / "scenario.json").read_text())
    raw["exemplars"] = str(recording)
    (folder / "scenario.json").write_text(json.dumps(raw))
    sc = msc.load(folder)
    oracle = RecordingOracle(ScriptedOracle([answer] * 10_000, dim=64), recording)
    rep = engine.run(sc, oracle, log)
    oracle.save()
    msc.write_digest(sc, rep.head_hex, recorded_with={"backend": "scripted", "models": {}})
    return msc.load(folder)
