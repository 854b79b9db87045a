"""One road for many asks: `generate_many` is the oracle base's, whatever answers behind it.

A backend gives its answers (one by one by default, all together in a pool);
the base checks, counts, costs and records each once, so many asks are the
accounting of the same asks made one by one. The base also keeps each model's
proven digest, so a run's pre-flight is the one time a backend is asked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kernel.cluster.testing import Recalled
from kernel.errors import OracleError
from kernel.oracle import (
    Ask,
    Oracle,
    OracleUsageError,
    RecordingOracle,
    RecordingPool,
    ReplayOracle,
    exemplar,
    recording,
)
from kernel.seam import DRAWN_SCHEMA
from kernel.testing import ScriptedOracle

KERNEL = Path(__file__).resolve().parents[2] / "kernel"


def asks(n: int = 3) -> list[Ask]:
    return [Ask("statement", "small", f"why {i}?\n".encode(), DRAWN_SCHEMA, 7 + i, 0.0, 128, 2048)
            for i in range(n)]


def answers(n: int = 3) -> list[str]:
    return [f'{{"answer": "answer {i}", "numbers": []}}' for i in range(n)]


class Together(ScriptedOracle):
    """A pool double: its answers come all at once, from one `_generate_many` a batch."""

    together = True

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.batches: list[int] = []

    def _generate_many(self, asks):
        self.batches.append(len(asks))
        return [self._generate(a) for a in asks]


def _one_by_one(make):
    o = make()
    return o, [o.generate(a) for a in asks()]


def _many(make):
    o = make()
    return o, o.generate_many(asks())


def _recorded(tmp_path) -> Path:
    rec = RecordingOracle(ScriptedOracle(answers()), tmp_path / "r.json")
    for a in asks():
        rec.generate(a)
    return rec.save()


@pytest.mark.parametrize("kind", ["scripted", "recording", "pool", "recording pool", "replay",
                                  "recalled"])
def test_every_backend_answers_many_asks_through_the_base_and_is_counted_once(kind, tmp_path):
    path = _recorded(tmp_path)
    make = {
        "scripted": lambda: ScriptedOracle(answers()),
        "recording": lambda: RecordingOracle(ScriptedOracle(answers())),
        "pool": lambda: Together(answers()),
        "recording pool": lambda: RecordingPool(Together(answers())),
        "replay": lambda: ReplayOracle(path),
        "recalled": lambda: Recalled(path, jitter=0),
    }[kind]
    alone, said_alone = _one_by_one(make)
    many, said_many = _many(make)
    assert said_many == said_alone
    assert many.counters() == alone.counters() and many.calls == len(asks())
    assert many.costs == alone.costs
    if isinstance(many, RecordingOracle):
        assert many.records == alone.records and len(many.records) == len(asks())
    if isinstance(getattr(many, "inner", many), Together):
        assert getattr(many, "inner", many).batches == [len(asks())], "asked together, once"
    assert type(many).generate_many is Oracle.generate_many


def test_no_oracle_but_the_base_writes_its_own_generate_many():
    found = [f"{p.relative_to(KERNEL)}:{i}" for p in sorted(KERNEL.rglob("*.py"))
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if re.match(r"\s+def generate_many\(", line)]
    assert found == ["oracle/base.py:" + str(_line_of("def generate_many("))], found


def _line_of(text: str) -> int:
    lines = (KERNEL / "oracle" / "base.py").read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


def test_one_by_one_each_ask_is_put_only_once_the_one_before_is_counted():
    seen: list[int] = []
    o = ScriptedOracle([lambda a, i=i: (seen.append(o.calls), answers()[i])[1] for i in range(3)])
    o.generate_many(asks())
    assert seen == [0, 1, 2]


def test_many_asks_are_refused_naming_the_one_that_is_not_an_ask():
    o = ScriptedOracle(answers())
    with pytest.raises(OracleUsageError, match=r"Expected asks\[1\] to be an Ask but got 'why\?'"):
        o.generate_many([asks(1)[0], "why?"])
    assert o.counters().calls == 0 and o.asked == []


@pytest.mark.parametrize("given", [asks(1)[0], "why?", 3])
def test_many_asks_are_a_list_of_asks_not_one_ask_or_a_text(given):
    with pytest.raises(OracleUsageError, match="Expected a list of Asks but got asks="):
        ScriptedOracle(answers()).generate_many(given)


def test_an_answer_too_long_among_many_stops_there_with_the_ones_before_it_counted():
    o = Together([answers()[0], "x" * 70_000, answers()[2]])
    with pytest.raises(OracleError, match="more than the 65,536"):
        o.generate_many(asks())
    assert o.calls == 1


def test_no_asks_are_no_calls():
    o = Together([])
    assert o.generate_many([]) == [] and o.counters().calls == 0


def test_a_pool_is_recorded_together_and_a_single_oracle_one_by_one():
    assert type(recording(Together())) is RecordingPool and recording(Together()).together
    assert type(recording(ScriptedOracle())) is RecordingOracle
    assert not recording(ScriptedOracle()).together


def test_the_user_facing_test_doubles_get_generate_many_from_the_base():
    for cls in (ScriptedOracle, Recalled):
        assert cls.generate_many is Oracle.generate_many and cls.together is False


class Counting(ScriptedOracle):
    def __init__(self, fail: int = 0):
        super().__init__()
        self.asked_digest: list[str] = []
        self.fail = fail

    def _digest(self, model):
        self.asked_digest.append(model)
        if len(self.asked_digest) <= self.fail:
            raise OracleError(f"model {model} is not pulled")
        return "d" * 64


def test_a_proven_digest_is_asked_of_the_backend_once():
    o = Counting()
    assert [o.digest("a"), o.digest("a"), o.digest("b"), o.digest("a")] == ["d" * 64] * 4
    assert o.asked_digest == ["a", "b"]


def test_a_digest_refused_is_not_kept_and_is_asked_again():
    o = Counting(fail=1)
    with pytest.raises(OracleError, match="not pulled"):
        o.digest("a")
    assert o.digest("a") == "d" * 64 and o.asked_digest == ["a", "a"]


def test_a_recording_labels_its_calls_with_the_digest_proven_by_the_oracle_it_wraps():
    inner = Counting()
    rec = RecordingOracle(inner)
    rec.embed("embed", ["x"])
    rec.embed("embed", ["y"])
    rec.digest("embed")
    assert inner.asked_digest == ["embed"]
    assert exemplar.document(rec.backend, rec.records)["models"]["embed"]["digest"] == "d" * 64
