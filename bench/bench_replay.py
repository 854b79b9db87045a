"""Replaying a recorded village day: against its floor, and against the live run it replaces.

Scenario day-of-twenty-four (24 villagers, one reflection each) is replayed
with no model. Its floor is what any replay must do at least: read and parse
the exemplar file, decode its vectors, hash its prompts, and read and decode
the log the run writes. Its live time is what the recording says the models
took. Also printed: how many times the resident model changed in the round
(target: at most 4 for the whole village, where a reflection per villager
in turn would change it 3 times a villager), and, apart, at the night that
follows it (its plan calls are one group, so one change back to the
generation model).
"""

from __future__ import annotations

import hashlib
import json
import tempfile
import time
from pathlib import Path

from bench import interleaved, verdict
from kernel import engine
from kernel import log as vlog
from kernel.engine import scenario as msc
from kernel.oracle import exemplar, make

SCENARIO = "day-of-twenty-four"


def _floor(sc: msc.Scenario, log_path: Path) -> None:
    doc = json.loads(sc.exemplars.read_bytes())
    for call in doc["calls"]:
        if call["kind"] == "generate":
            hashlib.sha256(exemplar.prompt_bytes(call)).digest()
        else:
            exemplar.vectors(call)
    for _ in vlog.read_events(log_path):
        pass


def _parts(sc: msc.Scenario, repeats: int = 3) -> dict[str, float]:
    """The replay's parts timed alone: the world's steps, encoding their frames for the log
    (the codec's way and the log's fast encoder), and perceiving them."""
    from kernel import events as ev
    from kernel.engine.frames import world_frames
    from kernel.log import encode

    frames = [(f.tick, f.events) for f in world_frames(sc.world, sc.ticks)]

    def perceive() -> None:
        mem = engine.MemoryProjection(sc.rules)
        for t, es in frames:
            mem.apply(t, es)

    timed = {
        "the world's steps": lambda: list(world_frames(sc.world, sc.ticks)),
        "the world's frames encoded by the codec": lambda: [
            ev.pack([t, [ev.to_map(e) for e in es]]) for t, es in frames],
        "the world's frames encoded by the log": lambda: [
            encode.payload(t, es) for t, es in frames],
        "the world's frames perceived": perceive,
    }
    return interleaved(timed, repeats, warm=False)


def run() -> list[str]:
    sc = msc.load(SCENARIO)
    with tempfile.TemporaryDirectory(prefix="bench-replay-") as d:
        d = Path(d)
        best = float("inf")
        for i in range(3):
            oracle = make("replay", replay_from=sc.exemplars)
            t0 = time.perf_counter()
            report = engine.run(sc, oracle, d / f"r{i}.log")
            best = min(best, time.perf_counter() - t0)
        assert report.head_hex == sc.head_sha256, "the replay did not reach the committed digest"
        floor = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            _floor(sc, d / "r0.log")
            floor = min(floor, time.perf_counter() - t0)
    parts = _parts(sc)
    steps = parts["the world's steps"]
    doc = json.loads(sc.exemplars.read_bytes())
    live_ns = sum(c.get("took_ns", 0) for c in doc["calls"])
    rounds = len(report.rounds)
    nights = len(report.nights)
    # each change of the resident model, put to the round or the night whose call made it
    changes, last = {"round": 0, "night": 0}, None
    for c in doc["calls"]:
        if c["model"] != last:
            changes["night" if c["purpose"] == "night" else "round"] += 1
            last = c["model"]
    assert sum(changes.values()) == oracle.model_changes
    villagers = sum(len(r.reflections) for r in report.rounds)
    pace = sc.world.ticks_per_second
    return [
        f"replay  {SCENARIO}: {sc.ticks} ticks, {villagers} reflections in {rounds} round(s), "
        f"{oracle.calls} calls and {oracle.embeddings} embeddings read off the recording",
        f"  replay          {best * 1e3:9.1f} ms",
        f"  floor           {floor * 1e3:9.1f} ms  (read, parse, hash and decode the exemplars and the log)",
        f"  over the floor  {best / floor:9.2f}x",
        f"  recorded live   {live_ns / 1e9:9.1f} s   ({live_ns / 1e9 * pace:,.0f} ticks at {pace} ticks a second)",
        f"  live / replay   {live_ns / 1e9 / best:9.1f}x",
        f"  model changes   {changes['round'] / max(rounds, 1):9.1f} per round for the whole village "
        f"(target at most 4: {verdict(changes['round'] <= 4 * max(rounds, 1), 'the calls of a round are not grouped by model')}; "
        f"one villager at a time would be {3 * villagers}), and "
        f"{changes['night'] / max(nights, 1):.1f} per night ({nights} night(s))",
        "  where a replay's time goes (each part alone, best of 3):",
        *(f"    {what:<44} {t * 1e3:7.1f} ms  {t / best:5.0%} of the replay"
          for what, t in parts.items()),
        "  target at most 3x the floor: " + verdict(
            best <= 3 * floor,
            f"3x is {3 * floor * 1e3:.0f} ms, and the world's steps alone, in Python, take "
            f"{steps * 1e3:.0f} ms ({steps / floor:.1f}x the floor, "
            f"{steps / sc.ticks * 1e6:.0f} us a tick); the rest of the replay (the log, "
            f"perception, the round) takes {(best - steps) / floor:.1f}x more"),
    ]


if __name__ == "__main__":
    for line in run():
        print(line)
