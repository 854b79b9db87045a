"""What the tests of news share: an importance table with rows for words and given rows, logs
of villagers who talk written by hand, and a hypothesis strategy of small such logs (villagers,
sight events, utterances citing their speaker's rows, a piece of news given to some).

A drawn log is perceived as it is drawn, so an utterance cites rows its speaker has (and, now
and then, one it does not, or a row its speaker will never have): the law must hold on any log.
This module draws and writes values; it asserts nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import strategies as st

from kernel import events as ev
from kernel import log as vlog
from kernel.engine.scenario import load_rules
from kernel.laws.importance import Importance
from kernel.laws.perception import perceive, start

RULES = load_rules()
TALK_ROWS = ((("did", "talk"), 3), (("heard", "talk"), 4), (("given", "backstory"), 5),
             (("given", "news"), 6))
TABLE = Importance(base=tuple(sorted(RULES.base + TALK_ROWS)), first_bonus=RULES.first_bonus,
                   bands=RULES.bands, meal_run=RULES.meal_run, journey_run=RULES.journey_run)
"""The home's importance table with a row for each kind of row words and given rows make."""

NAMES = ("Ander", "Brita", "Knut", "Ilse", "Mose")
WORDS = ("feast",)
SAYINGS = ("hello there", "a FEAST at the mill", "feasting is for later", "the feast!",
           "nothing much", "Feast? where", "unfeast", "rain tomorrow")
"""What a drawn villager says: some with the news's word whole (any case), some with it inside
a longer word (which does not tell it), some without it."""


def importance_file(folder: Path) -> Path:
    """The home's importance.json with rows for did/talk, heard/talk and given rows, in `folder`."""
    from kernel import config

    value = json.loads(config.load("importance", schema="importance").path.read_text(encoding="utf-8"))
    value["base"]["did"]["talk"] = 3
    value["base"]["heard"]["talk"] = 4
    value["base"]["given"] = {"backstory": 5, "news": 6}
    p = folder / "talk-importance.json"
    p.write_text(json.dumps(value, indent=1), encoding="utf-8")
    return p


def walk(v: int, x: int, y: int) -> ev.Walked:
    return ev.Walked(villager=v, from_x=0, from_y=0, to_x=x, to_y=y)


def founded(*cells: tuple[int, int]) -> list[ev.Event]:
    """Villagers 1, 2, ... founded on `cells`, named by NAMES."""
    return [ev.Founded(villager=i + 1, name=NAMES[i], x=x, y=y) for i, (x, y) in enumerate(cells)]


def news(villager: int, *, name: str = "feast", words: tuple[str, ...] = WORDS,
         x: int | None = None, y: int | None = None, day: int | None = None,
         text: str = "there is a feast") -> ev.Given:
    return ev.Given(villager=villager, index=0, event="news", text=text, about=(), news=name,
                    words=words, x=x, y=y, day=day)


def meet(a: int, b: int) -> list[ev.Event]:
    """`a` and `b` come into each other's sight."""
    return [ev.CameIntoSight(viewer=a, seen=b, millicells=1000),
            ev.CameIntoSight(viewer=b, seen=a, millicells=1000)]


def say(a: int, b: int, text: str, drawn_from: tuple[int, ...] = (), reply: bool = False) -> ev.Spoke:
    return ev.Spoke(speaker=a, listener=b, text=text, drawn_from=drawn_from, reply=reply)


def perceived(frames) -> list:
    """The rows perception makes of `frames` under TABLE."""
    s, rows = start(TABLE), []
    for tick, events in frames:
        s, got = perceive(s, tick, events)
        rows.extend(got)
    return rows


def write_log(path: Path, frames, *, digest: str = "cd" * 32) -> Path:
    with vlog.LogWriter.create(path, config_digest=digest, seed=1) as w:
        for tick, events in frames:
            w.append(tick, list(events))
    return path


@st.composite
def talk_logs(draw, *, max_villagers: int = 5, max_frames: int = 10):
    """A small log of villagers who talk: (frames, rows), the rows perceived as drawn.

    Villagers 1..n are founded at tick 0 on cells of a 4 by 4 grid, some given the news there,
    some pairs in each other's sight;
    each later frame brings a few villagers into or out of each other's sight, walks a few, and
    has a few utterances, each citing some of its speaker's rows so far (its given and heard
    rows most often; now and then a row of another's)."""
    n = draw(st.integers(2, max_villagers))
    cells = [(draw(st.integers(0, 3)), draw(st.integers(0, 3))) for _ in range(n)]
    first = founded(*cells)
    told = draw(st.lists(st.integers(1, n), min_size=0, max_size=2, unique=True))
    # one piece of news: its cell and day are drawn once, and every villager told it is told the same
    x, y, day = draw(st.integers(0, 3)), draw(st.integers(0, 3)), draw(st.integers(0, 2))
    first += [news(v, x=x, y=y, day=day) for v in told]
    for a in range(1, n + 1):
        for b in range(a + 1, n + 1):
            if draw(st.booleans()):
                first += meet(a, b)
    state, rows = start(TABLE), []
    frames = []
    tick = 0
    events = first
    for k in range(draw(st.integers(1, max_frames)) + 1):
        if k:
            tick += draw(st.integers(1, 3))
            events = []
            for _ in range(draw(st.integers(0, 3))):
                a, b = draw(st.integers(1, n)), draw(st.integers(1, n))
                if a != b:
                    if draw(st.integers(0, 3)):     # coming into sight, three times in four
                        events.append(ev.CameIntoSight(viewer=a, seen=b, millicells=500))
                    else:
                        events.append(ev.WentOutOfSight(viewer=a, seen=b))
            for v in draw(st.lists(st.integers(1, n), max_size=2, unique=True)):
                x, y = draw(st.integers(0, 3)), draw(st.integers(0, 3))
                events.append(ev.Walked(villager=v, from_x=0, from_y=0, to_x=x, to_y=y))
            for _ in range(draw(st.integers(0, 4))):
                a, b = draw(st.integers(1, n)), draw(st.integers(1, n))
                if a == b:
                    continue
                which = draw(st.sampled_from(("told", "own", "any")))
                pool = [m.id for m in rows if (which == "any" or m.villager == a) and
                        (which != "told" or m.kind in ("given", "heard"))]
                cites = tuple(sorted(set(draw(st.lists(st.sampled_from(pool), max_size=3))))) \
                    if pool else ()
                events.append(say(a, b, draw(st.sampled_from(SAYINGS)), cites,
                                  draw(st.booleans())))
        state, got = perceive(state, tick, events)
        rows.extend(got)
        frames.append((tick, tuple(events)))
    return frames, rows
