"""Days of random events and nights through the felt projection, against a plain model.

A hypothesis state machine writes frames to a real log: world events that
perception turns into rows, thoughts that re-feel what they cite, thoughts
recurring, and nights whose plans are drawn at random (answered by a
scripted oracle). The engine's code makes the felt events; the felt
projection folds every frame. Beside it a plain dictionary follows the
rules as the issue states them, written out again here by hand. After
every step the two must agree, and at the end the log folded from disk
must give the projection's state again.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from kernel import engine
from kernel import events as ev
from kernel.engine.felt import FeltProjection, valences_of
from kernel.engine.scenario import load_rules
from kernel.laws import felt as lf
from kernel.laws.memory import Memory
from kernel.laws.reflection import recent
from kernel.log import LogWriter
from kernel.mind import refeel as rf
from kernel.mind.night import NightSettings, night_round
from kernel.mind.reflect import Due
from kernel.mind.settings import load as load_settings
from kernel.testing import ScriptedOracle

TPD = 100
NAMES = {1: "Halla", 2: "Ander", 3: "Mose"}
VALENCE = valences_of()   # the shipped importance file's valence table
ROLE_VALENCE = {(k, e, r): v for (k, e, r), v in VALENCE.table}
NIGHT = NightSettings(shown=6, groups=3, members=3, limit=64)


class FeltMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.dir = Path(tempfile.mkdtemp())
        self.path = self.dir / "felt.log"
        self.log = LogWriter.create(self.path, config_digest="0" * 64, seed=1, ticks_per_day=TPD)
        self.mem = engine.MemoryProjection(load_rules())
        self.felt = FeltProjection(VALENCE, TPD).follow(self.mem)
        self.st = load_settings()
        self.tick = -1
        self.model: dict[int, dict] = {}
        self.fresh = 0             # world frames since the last night
        first = [ev.Founded(villager=v, name=n, x=v, y=1) for v, n in NAMES.items()]
        first += [ev.CameIntoSight(viewer=a, seen=b, millicells=1000)
                  for a in NAMES for b in NAMES if a != b]
        self.append(first)

    # -- the real side ---------------------------------------------------------

    def append(self, events, at=None):
        self.tick = self.tick + 1 if at is None else at
        self.log.append(self.tick, tuple(events))
        before = len(self.mem.rows)
        self.mem.apply(self.tick, tuple(events))
        self.felt.apply(self.tick, tuple(events))
        # the model is born its rows here; it changes them in the rules, by the rules,
        # and never from the events the engine's code wrote
        for m in self.mem.rows[before:]:
            self.born(m)

    # -- the plain model ----------------------------------------------------------

    def born(self, m):
        if m.kind == "thought":
            vs = [self.model[c]["valence"] for c in m.drawn_from]
            val = int(sum(vs) / len(vs)) if vs else 0          # truncated toward zero
        else:
            role = "actor" if m.kind == "did" else ("target" if m.villager in m.about
                                                    else "witness")
            val = ROLE_VALENCE[(m.kind, m.event, role)]
        self.model[m.id] = dict(villager=m.villager, tick=m.tick, kind=m.kind,
                                intensity=m.weight * 100, valence=val, stored=m.weight * 100,
                                last_felt=m.tick, forgotten_at=None, absorbed_into=None,
                                absorbed_at=None, refelt=0)

    def faded(self, r, now):
        return lf.fading(r["stored"], now - r["last_felt"], r["valence"], TPD)

    def living(self, v):
        return [i for i, r in sorted(self.model.items()) if r["villager"] == v
                and r["forgotten_at"] is None and r["absorbed_into"] is None]

    # -- rules ------------------------------------------------------------------

    @rule(kind=st.sampled_from(["beg", "give", "take", "part", "see"]),
          a=st.sampled_from(sorted(NAMES)), b=st.sampled_from(sorted(NAMES)))
    def world(self, kind, a, b):
        if a == b:
            b = a % 3 + 1
        e = {"beg": ev.Begged(villager=a, x=1, y=1),
             "give": ev.Gave(giver=a, receiver=b, parcels=1, milligrams=5000),
             "take": ev.Took(taker=a, owner=b, parcels=2, milligrams=30_000),
             "part": ev.WentOutOfSight(viewer=a, seen=b),
             "see": ev.CameIntoSight(viewer=a, seen=b, millicells=500)}[kind]
        if kind == "see" and self.mem.state.sees(a, b):
            return
        if kind == "part" and not self.mem.state.sees(a, b):
            return
        self.append([e])
        self.fresh += 1

    @rule(v=st.sampled_from(sorted(NAMES)), picks=st.lists(st.integers(0, 10**6), min_size=1,
                                                          max_size=3, unique=True),
          gap=st.integers(1, TPD // 2))
    def think(self, v, picks, gap):
        living = self.living(v)
        if not living:
            return
        cites = tuple(sorted({living[p % len(living)] for p in picks}))
        now = self.tick + gap
        t = Memory(id=self.mem.next_id, villager=v, tick=now, kind="thought", event="reflection",
                   text=f"thought {self.mem.next_id}", weight=4, about=(), drawn_from=cites)
        book = self.felt.scratch([v], now)
        events = [ev.Thought(id=t.id, villager=v, text=t.text, weight=4, depth=1, about=(),
                             drawn_from=cites)]
        events += rf.refeel(book, t, now)
        # the model: every cited row that agrees in sign is re-felt toward 0.4
        vs = [self.model[c]["valence"] for c in cites]
        tv = int(sum(vs) / len(vs))
        expect = {}
        for c in cites:
            r = self.model[c]
            if r["valence"] * tv >= 0:
                fallen = self.faded(r, now)
                expect[c] = fallen if fallen >= 400 else min(400, round(fallen + 0.6 * (400 - fallen)))
        self.append(events, at=now)
        for c, s in expect.items():
            self.model[c].update(stored=s, last_felt=now, refelt=self.model[c]["refelt"] + 1)

    @rule(v=st.sampled_from(sorted(NAMES)), pick=st.integers(0, 10**6),
          weight=st.integers(1, 10), gap=st.integers(1, TPD // 2))
    def recur(self, v, pick, weight, gap):
        thoughts = [i for i in self.living(v) if self.model[i]["kind"] == "thought"]
        if not thoughts:
            return
        t = thoughts[pick % len(thoughts)]
        now = self.tick + gap
        book = self.felt.scratch([v], now)
        e = rf.recur(book, v, t, 1, "again", weight, now)
        r = self.model[t]
        fallen = self.faded(r, now)
        want = weight * 100
        expect = fallen if want <= fallen else min(want, round(fallen + 0.6 * (want - fallen)))
        self.append([e], at=now)
        r.update(stored=expect, last_felt=now, refelt=r["refelt"] + 1)

    @precondition(lambda self: self.fresh >= 2)
    @rule(groups=st.lists(st.tuples(st.integers(0, 99), st.lists(st.integers(0, 99), min_size=1,
                                                                  max_size=3)), max_size=3),
          days=st.integers(0, 2), strongest=st.booleans())
    def night(self, groups, days, strongest):
        now = ((self.tick + 1) // TPD + 1 + days) * TPD - 1

        def plan(ask):
            # each shown line opens "[id] ..." or, said at several ids, "[id, id] ..."; the
            # plan counts them in the order they were lived, as the model below does
            ids = sorted((int(i) for line in ask.prompt.splitlines() if line.startswith(b"[")
                          for i in line[1:].split(b"]")[0].split(b",")),
                         key=lambda i: (self.model[i]["tick"], i))
            # half the plans anchor on the strongest rows shown and absorb the weakest, so
            # groups are accepted as well as refused
            order = (sorted(ids, key=lambda i: (-book.rows[i].stored, i)) if strongest else ids)
            return json.dumps({"groups": [{"anchor": order[a % len(ids)],
                                           "absorbed": [order[-1 - m % len(ids)] for m in ms]}
                                          for a, ms in groups]})

        due = [Due(v, n) for v, n in NAMES.items()]
        book = self.felt.scratch(NAMES, now)
        streams = {v: self.mem.of(v) for v in NAMES}
        got = night_round(now, due, streams, book, ScriptedOracle([plan] * 3), self.st, NIGHT)
        # the model, by hand: consolidation first, then forgetting
        since = now - TPD
        for v in NAMES:
            cands = [i for i in self.living(v) if self.model[i]["kind"] != "thought"
                     and self.model[i]["last_felt"] > since]
            if len(cands) < 2:
                continue
            shown = sorted(cands, key=lambda i: (self.model[i]["tick"], i))[-NIGHT.shown:]
            claimed: set[int] = set()
            order = (sorted(shown, key=lambda i: (-self.model[i]["stored"], i)) if strongest
                     else shown)
            for a, ms in groups:
                ids = (order[a % len(shown)], *(order[-1 - m % len(shown)] for m in ms))
                if any(i in claimed for i in ids) or len(set(ids)) != len(ids):
                    continue
                anchor = self.model[ids[0]]
                if anchor["stored"] < 400:
                    continue
                if any(self.model[i]["stored"] > anchor["stored"] for i in ids[1:]):
                    continue
                left = 1.0
                for i in ids:
                    left *= 1 - self.model[i]["stored"] / 1000
                combined = lf.combined([self.model[i]["stored"] for i in ids])
                assert abs(combined - 1000 * (1 - left)) <= 0.5 + 1e-9
                anchor["stored"] = combined
                for i in ids[1:]:
                    self.model[i].update(absorbed_into=ids[0], absorbed_at=now)
                claimed.update(ids)
        for v in NAMES:
            for i in self.living(v):
                r = self.model[i]
                if r["kind"] != "thought" and lf.forgets(r["stored"], now - r["last_felt"], TPD):
                    r["forgotten_at"] = now
        self.append(got.events, at=now)
        self.fresh = 0
        assert got.calls <= len(NAMES)
        # an absorbed row is never stronger than its anchor, which ends at least as strong
        for e in got.events:
            if isinstance(e, ev.Absorbed):
                assert all(self.felt.rows[a].stored <= e.before for a in e.absorbed)
                assert e.before <= e.stored
        kinds = {e.kind for e in got.events}
        event(f"a night with {'some' if 'absorbed' in kinds else 'no'} group accepted")
        event(f"a night with {'some' if 'forgotten' in kinds else 'no'} row forgotten")

    # -- what must hold -------------------------------------------------------------

    @invariant()
    def the_projection_is_the_model(self):
        snap = self.felt.snapshot()
        assert set(snap) == set(self.model)
        for i, s in snap.items():
            m = self.model[i]
            assert (s.intensity, s.valence, s.stored, s.last_felt, s.forgotten_at,
                    s.absorbed_into, s.refelt) == (
                m["intensity"], m["valence"], m["stored"], m["last_felt"], m["forgotten_at"],
                m["absorbed_into"], m["refelt"]), i

    @invariant()
    def a_thought_is_never_forgotten_or_absorbed(self):
        for r in self.felt.rows.values():
            if r.is_thought:
                assert r.living

    @invariant()
    def felt_now_is_between_the_floor_and_what_is_stored(self):
        for r in self.felt.rows.values():
            f = self.felt.felt_now(r, self.tick)
            assert round(0.3 * r.stored) - 1 <= f <= r.stored

    @precondition(lambda self: self.tick >= 0)
    @invariant()
    def recent_never_shows_a_row_that_left_memory(self):
        for v in NAMES:
            living = set(self.living(v))
            rows = [m for m in self.mem.of(v) if m.id in living]
            assert all(m.id in living for m in recent(rows, self.tick, 24))

    def teardown(self):
        self.log.close()
        mem = engine.MemoryProjection(load_rules())
        again = FeltProjection(VALENCE, TPD).follow(mem)
        engine.fold(self.path, [mem, again])
        assert again.snapshot() == self.felt.snapshot()


FeltMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=50, deadline=None)
test_days_of_random_events_and_nights_fold_to_the_plain_model = FeltMachine.TestCase
