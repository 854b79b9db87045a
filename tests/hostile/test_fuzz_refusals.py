"""Random bytes, random JSON and random nesting into every config loader and into `shaped`: only refusals.

A loader either hands back a typed value or raises a kernel error (a
`VillageError`) that names the rule; `shaped` either hands back the value
or raises `Refused`. Anything else (a RecursionError, an OverflowError, a
TypeError from three calls down) is a traceback a user would see, and
fails the property. Every example is counted in the suite's tally.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernel import config
from kernel.errors import Refused, VillageError
from kernel.oracle import Said
from kernel.oracle import exemplar as ex
from kernel.seam import DRAWN_SCHEMA, asked_schema, shaped
from tests import strategies

from .conftest import record

REPO = Path(__file__).resolve().parents[2]
SHIPPED = {name: json.loads((REPO / "configs" / f"{name}.json").read_text(encoding="utf-8"))
           for name in ("world", "importance", "thought", "models")}
SHIPPED["scenario"] = json.loads((REPO / "fixtures" / "day-of-three" / "scenario.json").read_text())

EXAMPLES = settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow,
                                                           HealthCheck.filter_too_much])


def _world(p):
    from kernel import world
    return world.load(p)


def _importance(p):
    from kernel.engine.scenario import load_rules
    return load_rules(p)


def _thought(p):
    from kernel.mind import settings as msettings
    return msettings.load(thought=p)


LOADERS = {
    "world": _world,
    "importance": _importance,
    "thought": _thought,
    "models": lambda p: config.load(p, schema="models"),
    "scenario": lambda p: config.load(p, schema="scenario"),
    "exemplar": ex.load,
}

# -- what goes in ------------------------------------------------------------------------

json_values = strategies.json_values(strategies.HOSTILE_SCALARS, key_size=8, leaves=20)


def _dumps(v) -> str:
    # allow_nan: NaN and Infinity go in as the literals a hand-written file would hold.
    return json.dumps(v, allow_nan=True)


@st.composite
def nested(draw) -> str:
    depth = draw(st.sampled_from([1, 31, 33, 65, 333, 996, 5_000, 100_000]))
    opener = draw(st.sampled_from(["[", '{"a":', '[{"a":']))
    closer = {"[": "]", '{"a":': "}", '[{"a":': "}]"}[opener]
    inner = draw(st.sampled_from(["1", "[]", '"x"', "NaN", "1e999", "1" + "0" * 5000]))
    closed = draw(st.booleans())
    return opener * depth + inner + (closer * depth if closed else "")


@st.composite
def mutated(draw, name: str) -> str:
    """The shipped file with one leaf (or one subtree) replaced by a random value."""
    v = json.loads(json.dumps(SHIPPED[name]))
    node, key = v, None
    path = []
    while isinstance(node, dict | list) and node:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        key = draw(st.sampled_from(keys))
        path.append((node, key))
        if draw(st.booleans()):
            break
        node = node[key]
    if path:
        parent, key = path[-1]
        parent[key] = draw(json_values)
    text = _dumps(v)
    if draw(st.booleans()) and isinstance(v, dict) and v:
        k = draw(st.sampled_from(list(v)))      # the same key once more, a later value
        text = text[:-1] + f", {json.dumps(k)}: {_dumps(draw(json_values))}" + "}"
    return text


def inputs(name: str):
    return (st.binary(max_size=200) | json_values.map(_dumps).map(str.encode)
            | nested().map(str.encode) | mutated(name).map(str.encode))


def _try(load, data: bytes) -> None:
    with tempfile.TemporaryDirectory(prefix="village-fuzz-") as d:
        p = Path(d) / "f.json"
        p.write_bytes(data)
        try:
            load(p)
        except VillageError:
            record("clean")
            return
        except BaseException:
            record("traceback")
            raise
        record("clean")   # accepted: a loader's own checks passed


# -- the properties ------------------------------------------------------------------------


@EXAMPLES
@given(data=inputs("world"))
def test_the_world_loader_only_accepts_or_refuses(data):
    _try(LOADERS["world"], data)


@EXAMPLES
@given(data=inputs("importance"))
def test_the_importance_loader_only_accepts_or_refuses(data):
    _try(LOADERS["importance"], data)


@EXAMPLES
@given(data=inputs("thought"))
def test_the_thought_loader_only_accepts_or_refuses(data):
    _try(LOADERS["thought"], data)


@EXAMPLES
@given(data=inputs("models"))
def test_the_models_loader_only_accepts_or_refuses(data):
    _try(LOADERS["models"], data)


@EXAMPLES
@given(data=inputs("scenario"))
def test_the_scenario_loader_only_accepts_or_refuses(data):
    _try(LOADERS["scenario"], data)


@EXAMPLES
@given(data=st.binary(max_size=200) | json_values.map(_dumps).map(str.encode) | nested().map(str.encode))
def test_the_recording_loader_only_accepts_or_refuses(data):
    _try(LOADERS["exemplar"], data)


def said(text: str, done_reason: str) -> Said:
    return Said(text=text, done_reason=done_reason, tokens_in=1, tokens_out=1, took_ns=1,
                load_ns=0, model="m", digest="d")


answers = (st.text(max_size=300) | json_values.map(_dumps) | nested()
           | st.binary(max_size=200).map(lambda b: b.decode("utf-8", "surrogateescape")))


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(text=answers, done_reason=st.sampled_from(["stop", "stop", "stop", "length", "", "load"]),
       schema=st.sampled_from([DRAWN_SCHEMA, asked_schema(2)]))
def test_shaped_only_accepts_or_refuses(text, done_reason, schema):
    try:
        shaped(said(text, done_reason), schema)
    except Refused:
        pass
    except BaseException:
        record("traceback")
        raise
    record("clean")


SCHEMAS = sorted(p.stem for p in (REPO / "configs" / "schema").glob("*.json"))


@pytest.mark.parametrize("name", SCHEMAS)
@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=200) | json_values.map(_dumps).map(str.encode) | nested().map(str.encode))
def test_every_schema_checked_load_only_accepts_or_refuses(name, data):
    _try(lambda p: config.load(p, schema=name), data)


def test_every_typed_loader_fuzzed_here_has_its_schema():
    assert set(LOADERS) <= set(SCHEMAS)
