"""The laws of talk, over drawn budgets and drawn answers: words only at a meeting, at most the
budget, never twice to one villager in a day, heard only by a listener in sight, and every
citation a row of the speaker's no later than now; whatever the model says."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))

from felt_scenario import TALK, answer, make, shown_ids  # noqa: E402

from kernel import engine  # noqa: E402
from kernel import events as ev  # noqa: E402
from kernel.engine import scenario as msc  # noqa: E402
from kernel.laws.perception import perceive, start  # noqa: E402
from kernel.log import read_ticks  # noqa: E402
from kernel.testing import ScriptedOracle  # noqa: E402

WORDS = ("bread", "Halla", "feast", "river", "you", "took", "kind", "grain", "tomorrow")


def chatter(seed: int):
    """Answers drawn from `seed`: numbers among those shown, now and then one not shown or
    none at all; words of a small vocabulary, now and then a shown line said back."""
    rnd = random.Random(seed)

    def say(ask):
        if ask.purpose not in ("talk", "answer"):
            return answer(ask)
        ids = shown_ids(ask.prompt[ask.opening:])
        pick = rnd.sample(ids, k=min(len(ids), rnd.randint(1, 3)))
        roll = rnd.random()
        if roll < 0.1:
            pick = pick + [10 ** 6]
        elif roll < 0.15:
            pick = []
        if rnd.random() < 0.2:
            line = next(x for x in ask.prompt.decode().split("\n") if x.startswith("["))
            words = line.split("] ", 1)[1]
        else:
            words = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(1, 7)))
        return json.dumps({"numbers": pick, "answer": words})

    return say


def talked(tmp, starts: int, answers: int, seed: int):
    folder = make(tmp / f"t{starts}{answers}{seed}", days=2,
                  talk=dict(TALK, starts=starts, answers=answers))
    sc = msc.load(folder)
    path = tmp / f"t{starts}{answers}{seed}.log"
    engine.run(sc, ScriptedOracle([chatter(seed)] * 10_000, dim=32), path)
    state = start(sc.rules)
    out = []
    for t in read_ticks(path):
        state, rows = perceive(state, t.tick, t.events)
        out.append((t.tick, t.events, rows, state))
    return sc, out


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 3), st.integers(0, 2), st.integers(0, 10 ** 6))
def test_words_are_said_only_at_a_meeting_within_the_budget_and_never_twice_to_one_in_a_day(
        tmp_path_factory, starts, answers, seed):
    sc, frames = talked(tmp_path_factory.mktemp("talk"), starts, answers, seed)
    tpd = sc.world.ticks_per_day
    calls: dict[tuple[int, int, str], int] = {}
    said: set[tuple[int, int, int]] = set()
    for tick, events, _, _ in frames:
        came = {(e.viewer, e.seen) for e in events if isinstance(e, ev.CameIntoSight)}
        starts_now = [e for e in events if isinstance(e, ev.Spoke) and not e.reply]
        for e in events:
            if isinstance(e, ev.Answered) and e.purpose in ("talk", "answer"):
                key = (tick // tpd, e.villager, e.purpose)
                calls[key] = calls.get(key, 0) + 1
            if isinstance(e, ev.Spoke):
                if e.reply:
                    assert any(s.speaker == e.listener and s.listener == e.speaker
                               for s in starts_now)
                else:
                    assert (e.speaker, e.listener) in came
                assert (tick // tpd, e.speaker, e.listener) not in said
                said.add((tick // tpd, e.speaker, e.listener))
    for (_, _, purpose), n in calls.items():
        assert n <= (starts if purpose == "talk" else answers)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(1, 3), st.integers(0, 2), st.integers(0, 10 ** 6))
def test_a_heard_row_is_only_for_a_listener_in_sight_and_every_citation_is_the_speakers_own(
        tmp_path_factory, starts, answers, seed):
    sc, frames = talked(tmp_path_factory.mktemp("cite"), starts, answers, seed)
    owner: dict[int, tuple[int, int]] = {}
    for tick, events, rows, after in frames:
        for r in rows:
            owner[r.id] = (r.villager, r.tick)
            if r.kind == "heard" and r.event == "talk":
                (speaker,) = r.about
                assert after.sees(r.villager, speaker)
        spoke = [e for e in events if isinstance(e, ev.Spoke)]
        heard = [r for r in rows if r.kind == "heard" and r.event == "talk"]
        assert len(heard) == len(spoke)
        for e in spoke:
            assert e.drawn_from
            for i in e.drawn_from:
                assert owner[i][0] == e.speaker and owner[i][1] <= tick
