"""What more than one test folder uses: a day of three run against a scripted oracle (the
hypothesis strategies they share are in tests/strategies.py)."""

from __future__ import annotations

import json
import re

from kernel import engine
from kernel.engine import scenario as msc
from kernel.testing import ScriptedOracle


def day_answer(ask):
    """Two questions; a statement drawn from the first memory its prompt ranks; an empty night plan."""
    if ask.purpose == "questions":
        return json.dumps({"questions": ["What did I eat today?", "Whom did I meet today?"]})
    if ask.purpose == "night":
        return json.dumps({"groups": []})
    first = re.search(r"\[(\d+)\]", ask.prompt_text)
    return json.dumps({"answer": "Today is worth keeping.",
                       "numbers": [int(first.group(1))] if first else []})


def scripted_day_of_three(out, settings=None):
    """day-of-three run into `out` (under `settings`, else its own) with `day_answer` answering
    every call: each villager's questions call, a statement a question and a night plan."""
    sc = msc.load("day-of-three")
    oracle = ScriptedOracle([day_answer] * (3 * (2 + sc.settings.questions)), dim=16)
    return engine.run(sc, oracle, out, settings=settings)


def looping_answer(ask):
    """`day_answer`, but a night plan that goes round: one group named three times."""
    if ask.purpose != "night":
        return day_answer(ask)
    first = int(re.search(r"\[(\d+)", ask.prompt_text).group(1))
    return json.dumps({"groups": [{"anchor": first, "absorbed": [first + 1]}] * 3})


def looping_day_of_three(out):
    """day-of-three run into `out` with `looping_answer` answering: its three night plans are
    degenerate (a loop), everything else as `scripted_day_of_three`."""
    sc = msc.load("day-of-three")
    oracle = ScriptedOracle([looping_answer] * (3 * (2 + sc.settings.questions)), dim=16)
    return engine.run(sc, oracle, out)


def quick_day_of_three(folder, name: str = "day-of-three"):
    """A copy of day-of-three at `folder`/`name` that a live run asks of SmolLM2 (its
    models file, models-smollm2.json), with no recording of its own: the quick live day
    of the tests that are about a backend, a pool or a sweep rather than about the words
    (the committed day-of-three is Qwen2.5-Coder-1.5B's, at 10 s and more a call)."""
    import shutil
    from pathlib import Path

    d = Path(folder) / name
    shutil.copytree(msc.find("day-of-three"), d)
    v = json.loads((d / "scenario.json").read_text(encoding="utf-8"))
    for k in ("exemplars", "recorded_with"):
        v.pop(k, None)
    v["models"] = "models-smollm2.json"
    (d / "scenario.json").write_text(json.dumps(v, indent=2), encoding="utf-8")
    return d
