"""Benchmarks of villagers who talk: what words cost, and how far a piece of news went.

1. Calls and model seconds per villager-day of the committed talking village
   (village-of-eight, replayed from its recording, no model), with talk and without it: the
   run's every generation call, then the same run's calls but the talk's (the utterances
   started and the answers), the seconds being the recording's own (what the model took when
   it was recorded, kept in its exemplars). The issue's bound is checked too: a day's talk
   calls are at most villagers x (starts + answers).
2. The spread of each piece of news in the replayed log (kernel.laws.news): holders by the end
   of each day, and who stood on the news's cell on its day.

Run with `python -m bench bench_talk`. Figures are counts and the recording's seconds, never
timings taken here.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from bench import verdict
from kernel import engine

SCENARIO = "village-of-eight"
TALKS = ("talk", "answer")


def _replayed(folder: Path):
    from kernel.engine import scenario as msc
    from kernel.oracle import make

    sc = msc.load(SCENARIO)
    path = folder / "talk.log"
    report = engine.run(sc, make("replay", replay_from=sc.exemplars), path)
    return sc, report, path


def _seconds(sc) -> dict[str, float]:
    """The recording's model seconds by purpose, summed over its generation calls."""
    calls = json.loads(Path(sc.exemplars).read_text())["calls"]
    out: dict[str, float] = {}
    for c in calls:
        if c.get("kind") == "generate":
            out[c["purpose"]] = out.get(c["purpose"], 0.0) + int(c["took_ns"]) / 1e9
    return out


def cost_lines(sc, report) -> list[str]:
    villager_days = len(sc.reflecting) * (sc.ticks // sc.world.ticks_per_day)
    calls: dict[str, int] = {}
    for r in report.rounds:
        for x in r.reflections:
            calls["questions"] = calls.get("questions", 0) + (1 if x.said else 0)
            calls["statement"] = calls.get("statement", 0) + sum(1 for s in x.statements if s.said)
    calls["night"] = sum(n.calls for n in report.nights)
    for t in report.talks:
        for u in t.utterances:
            if u.said is not None:
                calls[u.purpose] = calls.get(u.purpose, 0) + 1
    secs = _seconds(sc)
    every = sum(calls.values())
    talk = sum(calls.get(p, 0) for p in TALKS)
    s_every = sum(secs.values())
    s_talk = sum(secs.get(p, 0.0) for p in TALKS)
    st = sc.settings.talk
    bound = len(sc.reflecting) * (st.starts + st.answers)
    per_day: dict[int, int] = {}
    for t in report.talks:
        day = t.now // sc.world.ticks_per_day
        per_day[day] = per_day.get(day, 0) + t.calls
    worst = max(per_day.values(), default=0)
    return [
        f"  {'':<14} {'calls':>6} {'a villager-day':>15} {'model s':>9} {'s a villager-day':>17}",
        f"  {'with talk':<14} {every:>6} {every / villager_days:>15.2f} {s_every:>9.1f} "
        f"{s_every / villager_days:>17.2f}",
        f"  {'without talk':<14} {every - talk:>6} {(every - talk) / villager_days:>15.2f} "
        f"{s_every - s_talk:>9.1f} {(s_every - s_talk) / villager_days:>17.2f}",
        f"  talk's share: {talk} of {every} calls, {s_talk:.1f} of {s_every:.1f} model seconds "
        f"over {villager_days} villager-days",
        f"  the most talk calls in a day: {worst}, against the bound villagers x (starts + "
        f"answers) = {bound} " + verdict(worst <= bound, "over the bound"),
    ]


def news_lines(sc, path) -> list[str]:
    from kernel.report.talk import diffusion_of

    d, _ = diffusion_of(path)
    out = []
    for s in d.news:
        out.append(f"  {s.news}: holders by the end of each day {list(s.per_day)} of "
                   f"{len(sc.world.people)} villagers; {len(s.unheld)} utterances said its words "
                   f"without holding it")
        a = s.attendance
        if a is not None:
            out.append(f"  on {a.x},{a.y} on day {a.day + 1}: {a.count} stood there, "
                       f"{len(a.holders)} of them holding the news")
    return out or ["  no news"]


def run() -> list[str]:
    with tempfile.TemporaryDirectory(prefix="bench-talk-") as d:
        try:
            sc, report, path = _replayed(Path(d))
        except Exception as e:  # the recording is optional here: say so, and go on
            return [f"talk: no {SCENARIO} to replay ({e})"]
        out = [f"{SCENARIO} replayed: generation calls and the recording's model seconds",
               *cost_lines(sc, report), "news, from the replayed log:", *news_lines(sc, path)]
    return out
