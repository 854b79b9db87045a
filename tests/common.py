"""What more than one test folder uses: small random worlds (a hypothesis strategy), and a
day of three run against a scripted oracle."""

from __future__ import annotations

import json
import re

from hypothesis import strategies as st

from kernel import config as configs
from kernel import engine
from kernel.engine import scenario as msc
from kernel.testing import ScriptedOracle
from kernel.world.config import WorldConfig, from_value

NAMES = ("Halla", "Ander", "Mose", "Ilse", "Bram", "Sif")


@st.composite
def worlds(draw, most: int = 5) -> WorldConfig:
    """A world of 2 to `most` villagers (at most 6) on a grid of at most 8 by 8, founded in
    its first 20 ticks, under a busy policy (gifts, takes, pleas, gathers) and a random seed."""
    width, height = draw(st.integers(2, 8)), draw(st.integers(2, 8))
    n = draw(st.integers(2, most))
    value = configs.thaw(configs.load("world").value)
    value.update({
        "seed": draw(st.integers(0, 2**63)),
        "grid": {"width": width, "height": height},
        "sight_cells": draw(st.sampled_from([1.5, 2, 3])),
        "reach_cells": 1.5,
        "villagers": [
            {"id": 10 * (i + 1), "name": NAMES[i], "founded": draw(st.integers(0, 20)),
             "x": draw(st.integers(0, width - 1)), "y": draw(st.integers(0, height - 1))}
            for i in range(n)
        ],
    })
    value["policy"]["chances_in_10000"].update(
        {"give": 2000, "take": 1500, "beg": 5000, "wander": 300, "gather": 800})
    value["policy"]["burn_milligrams_per_tick"] = draw(st.sampled_from([50, 200, 400]))
    configs.validate("world", value)
    return from_value(value, digest=configs.digest(value))


def day_answer(ask):
    """Two questions; a statement drawn from the first memory its prompt ranks; an empty night plan."""
    if ask.purpose == "questions":
        return json.dumps({"questions": ["What did I eat today?", "Whom did I meet today?"]})
    if ask.purpose == "night":
        return json.dumps({"groups": []})
    first = re.search(r"\[(\d+)\]", ask.prompt_text)
    return json.dumps({"statement": "Today is worth keeping.",
                       "drawn_from": [int(first.group(1))] if first else []})


def scripted_day_of_three(out, settings=None):
    """day-of-three run into `out` (under `settings`, else its own) with `day_answer` answering
    every call: each villager's questions call, a statement a question and a night plan."""
    sc = msc.load("day-of-three")
    oracle = ScriptedOracle([day_answer] * (3 * (2 + sc.settings.questions)), dim=16)
    return engine.run(sc, oracle, out, settings=settings)
