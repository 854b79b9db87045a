"""Signals held while Ray starts: one the kernel gives another thread, or Ray's own handler
takes, still reaches the program's handler once Ray is whole or gone, never halfway."""

from __future__ import annotations

import importlib
import signal
import threading
import time

import pytest

session = importlib.import_module("kernel.cluster.session")


def _soon(what):
    """`what()` once it is true, polled for up to two seconds (a signal is asynchronous)."""
    for _ in range(200):
        if got := what():
            return got
        time.sleep(0.01)
    return what()


@pytest.fixture
def heard():
    got: list[int] = []
    had = {s: signal.signal(s, lambda signum, frame: got.append(signum))
           for s in (signal.SIGINT, signal.SIGTERM)}
    yield got
    for s, h in had.items():
        signal.signal(s, h)


def test_a_signal_another_thread_is_given_while_held_is_noted_and_reaches_the_handler_after(heard):
    ready, done = threading.Event(), threading.Event()
    other = threading.Thread(target=lambda: (ready.set(), done.wait(10)))
    other.start()           # started before the hold: the signal is not blocked there
    ready.wait(10)
    try:
        with session._signals_held() as pending:
            signal.pthread_kill(other.ident, signal.SIGTERM)
            assert _soon(pending) and heard == []    # noted, not yet the program's
    finally:
        done.set()
        other.join(10)
    assert _soon(lambda: heard) == [signal.SIGTERM]


def test_ray_inits_own_exit_for_a_signal_is_taken_for_that_signal_not_an_exit(heard):
    with session._signals_held():
        raise SystemExit(signal.SIGTERM)    # what ray.init's handler does with it
    assert _soon(lambda: heard) == [signal.SIGTERM]


def test_an_exit_that_is_no_signals_goes_on_as_an_exit(heard):
    with pytest.raises(SystemExit), session._signals_held():
        raise SystemExit(3)
    assert heard == []
