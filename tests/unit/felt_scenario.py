"""A small felt scenario for tests: three villagers, short days, nights, scripted answers.

Days are 200 ticks so a test lives several of them in a second or two;
the world is the committed village-day's, the importance table the
shipped one with a valence table beside it (the shipped file's own, where
it has one), and the thought file the shipped one with felt retrieval and
a night block.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from kernel import config

NIGHT = {"shown": 24, "groups": 4, "members": 6, "limit": 192}


ATTRACTOR = {"rule": "current", "shown": 12, "budget": 360, "limit": 160}
PLAN = {"intentions": 3, "limit": 96, "carry_out": True}
BASINS = {"Halla": ["Food", "Ander"], "Ander": ["Food", "Mose", "Quiet"], "Mose": ["Sharing"]}
TALK = {"starts": 1, "answers": 1, "chars": 120, "recall": 4, "shown": 6, "limit": 64}
GIVEN = {"Halla": [{"text": "Mose said there will be a feast on 3,3 on the second day",
                    "about": ["Mose"],
                    "news": {"name": "feast", "words": ["feast"], "cell": [3, 3], "day": 1}}],
         "Ander": [{"text": "Halla is your sister", "about": ["Halla"]}]}
WORDS = {"base": {"did": {"talk": 2}, "heard": {"talk": 3},
                  "given": {"backstory": 4, "news": 5}},
         "valence": {"did": {"talk": {"actor": 200}},
                     "heard": {"talk": {"witness": 200}},
                     "given": {"backstory": {"witness": 0}, "news": {"witness": 300}}}}
"""The importance rows a scenario that talks or is given rows needs (the shipped table has none)."""


def make(folder: Path, *, days: int = 3, tpd: int = 200, night: dict | None = NIGHT,
         importance: str = "felt", reflecting: tuple[str, ...] = ("Halla", "Ander", "Mose"),
         basins: dict | None = None, attractor: dict | None = None,
         plan: dict | None = None, talk: dict | None = None, given: dict | None = None,
         words: bool | None = None) -> Path:
    """Write a scenario folder and return it: `basins` and `given` rows by villager name go
    into its world config, `attractor`, `plan` and `talk` blocks into its thought file, and the
    importance rows of words and given rows (`WORDS`) into its table where it talks or is
    given rows (or `words` says so)."""
    root = Path(__file__).resolve().parents[2]
    folder.mkdir(parents=True, exist_ok=True)
    world = json.loads((root / "fixtures/village-day/world.json").read_text())
    world["ticks_per_day"] = tpd
    for v in world["villagers"]:
        if basins and basins.get(v["name"]):
            v["basins"] = basins[v["name"]]
        if given and given.get(v["name"]):
            v["given"] = given[v["name"]]
    (folder / "world.json").write_text(json.dumps(world))
    imp = config.thaw(config.load("importance").value)   # the shipped valence table with it
    if words or (words is None and (talk or given)):
        for part in ("base", "valence"):
            for kind, rows in WORDS[part].items():
                imp[part].setdefault(kind, {}).update(rows)
    (folder / "importance.json").write_text(json.dumps(imp))
    th = config.thaw(config.load("thought").value)
    th["reflection"]["every"] = tpd
    th["retrieval"]["importance"] = importance
    th.pop("night", None)
    if night is not None:
        th["night"] = night
    for key, block in (("attractor", attractor), ("plan", plan), ("talk", talk)):
        if block is not None:
            th[key] = block
    (folder / "thought.json").write_text(json.dumps(th))
    (folder / "scenario.json").write_text(json.dumps({
        "name": folder.name, "description": "a felt test scenario", "ticks": days * tpd,
        "head_sha256": "0" * 64, "importance": "importance.json", "thought": "thought.json",
        "reflecting": list(reflecting)}))
    return folder


def shown_ids(prompt: bytes) -> list[int]:
    return [int(x) for x in re.findall(rb"^\[(\d+)\]", prompt, flags=re.M)]


def answer(ask, *, statement=None, plan=None) -> str:
    """A scripted answer to any call of a felt run: `statement(ask, ids)` and `plan(ask, ids)`
    give the statement and the plan, by default a fresh statement citing the first row shown,
    and a plan of one group of the first two rows shown."""
    ids = shown_ids(ask.prompt[ask.opening:])
    if ask.purpose == "questions":
        return json.dumps({"questions": ["What mattered today?", "Who was near me?"]})
    if ask.purpose == "statement":
        if statement is not None:
            return statement(ask, ids)
        return json.dumps({"answer": f"On tick {ask.seed} the day felt full",
                           "numbers": ids[:1]})
    if ask.purpose == "night":
        if plan is not None:
            return plan(ask, ids)
        return json.dumps({"groups": [{"anchor": ids[0], "absorbed": ids[1:2]}]})
    if ask.purpose == "basins":
        # the first basin the request offers, a little more, with the first word it offers
        req = json.loads(ask.schema)
        item = req["properties"]["updates"]["items"]
        first = item.get("anyOf", [item])[0]["properties"]
        words = first["add"].get("items", {}).get("enum", [])
        return json.dumps({"life": "as before", "updates": [
            {"basin": first["basin"]["const"], "delta": 0.1, "add": words[:1], "remove": []}],
            "patterns": [], "links": [], "new": "none"})
    if ask.purpose in ("talk", "answer"):
        return json.dumps({"numbers": ids[:1], "answer": f"At tick {ask.seed} I think of you"})
    if ask.purpose == "keywords":
        return json.dumps({"keywords": ["days"]})
    if ask.purpose == "plan":
        # seek the first villager the request offers, else stay home
        req = json.loads(ask.schema)
        item = req["properties"]["plan"]["items"]
        for b in item.get("anyOf", [item]):
            if b["properties"]["do"]["const"] == "seek":
                return json.dumps({"plan": [{"do": "seek",
                                             "who": b["properties"]["who"]["enum"][0]}]})
        return json.dumps({"plan": [{"do": "home"}]})
    raise AssertionError(ask.purpose)
