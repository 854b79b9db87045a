"""The log against a plain list: whatever is appended, closed and reopened, folds the same."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from kernel import events as ev
from kernel import log as vlog

ids = st.integers(min_value=1, max_value=5)
small = st.integers(min_value=0, max_value=10_000)
world_events = st.one_of(
    st.builds(ev.Walked, villager=ids, from_x=small, from_y=small, to_x=small, to_y=small),
    st.builds(ev.Ate, villager=ids, x=small, y=small, mouthfuls=small, milligrams=small),
    st.builds(ev.Gave, giver=ids, receiver=ids, parcels=small, milligrams=small),
    st.builds(ev.Took, taker=ids, owner=ids, parcels=small, milligrams=small),
    st.builds(ev.CameIntoSight, viewer=ids, seen=ids, millicells=small),
    st.builds(ev.Refusal, villager=ids, purpose=st.sampled_from(["questions", "statement"]),
              index=st.integers(0, 3), check=st.sampled_from(["shaped", "cites", "depth"]),
              reason=st.text(max_size=40)),
)


def tally(state: tuple, item: tuple[int, ev.Event]) -> tuple:
    """A pure fold: events by kind, milligrams moved, and the ticks seen, as an immutable value."""
    kinds, grams, ticks = state
    tick, e = item
    kinds = kinds + ((e.kind, tick),)
    grams = grams + getattr(e, "milligrams", 0)
    ticks = ticks if ticks and ticks[-1] == tick else ticks + (tick,)
    return kinds, grams, ticks


EMPTY = ((), 0, ())


class LogAgainstAList(RuleBasedStateMachine):
    @initialize()
    def start(self):
        self.dir = Path(tempfile.mkdtemp(prefix="vlog-"))
        self.path = self.dir / "run.log"
        self.writer = vlog.LogWriter.create(self.path, config_digest="cd" * 32, seed=11,
                                            commit_every=3, ticks_per_day=10)
        self.model: list[tuple[int, ev.Event]] = []
        self.tick = 0

    @precondition(lambda self: self.writer is not None)
    @rule(evs=st.lists(world_events, max_size=6), gap=st.integers(min_value=1, max_value=4))
    def append(self, evs, gap):
        self.writer.append(self.tick, evs)
        self.model.extend((self.tick, e) for e in evs)
        self.tick += gap

    @precondition(lambda self: self.writer is not None)
    @rule()
    def close(self):
        self.writer.close()
        self.writer = None

    @precondition(lambda self: self.writer is None)
    @rule()
    def reopen(self):
        self.writer = vlog.LogWriter.open(self.path, commit_every=3, ticks_per_day=10)
        assert self.writer.recovery.cut_bytes == 0

    @invariant()
    def folding_the_log_and_the_list_gives_the_same_state(self):
        if not hasattr(self, "path"):
            return
        assert vlog.fold(vlog.read_events(self.path), tally, EMPTY) == vlog.fold(self.model, tally, EMPTY)

    def teardown(self):
        if getattr(self, "writer", None) is not None:
            self.writer.close()
        if hasattr(self, "dir"):
            shutil.rmtree(self.dir, ignore_errors=True)


LogAgainstAList.TestCase.settings = settings(max_examples=40, stateful_step_count=25, deadline=None)
test_appending_closing_and_reopening_the_log_folds_like_a_plain_list = LogAgainstAList.TestCase
