"""Random bytes, random JSON and random nesting into every config loader and into `shaped`: only refusals.

A loader either hands back a typed value or raises a kernel error (a
`VillageError`) that names the rule; `shaped` either hands back the value
or raises `Refused`. Anything else (a RecursionError, an OverflowError, a
TypeError from three calls down) is a traceback a user would see, and
fails the property. These are properties of the loaders, called in process;
tests/hostile/test_fuzz_refusals.py runs such files through the real
`village` program.
"""

from __future__ import annotations

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

REPO = Path(__file__).resolve().parents[2]

EXAMPLES = settings(max_examples=strategies.examples(150), suppress_health_check=[HealthCheck.too_slow,
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

json_values = strategies.hostile_json
_dumps = strategies.dumps
nested = strategies.nested


def inputs(name: str):
    return strategies.config_bytes(name)


def _try(load, data: bytes) -> None:
    with tempfile.TemporaryDirectory(prefix="village-fuzz-") as d:
        p = Path(d) / "f.json"
        p.write_bytes(data)
        try:
            load(p)
        except VillageError:
            return
        # accepted: a loader's own checks passed; anything else raised is the failure


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


@settings(max_examples=strategies.examples(400), suppress_health_check=[HealthCheck.too_slow])
@given(text=answers, done_reason=st.sampled_from(["stop", "stop", "stop", "length", "", "load"]),
       schema=st.sampled_from([DRAWN_SCHEMA, asked_schema(2)]))
def test_shaped_only_accepts_or_refuses(text, done_reason, schema):
    try:
        shaped(said(text, done_reason), schema)
    except Refused:
        pass


SCHEMAS = sorted(p.stem for p in (REPO / "configs" / "schema").glob("*.json"))


@pytest.mark.parametrize("name", SCHEMAS)
@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=200) | json_values.map(_dumps).map(str.encode) | nested().map(str.encode))
def test_every_schema_checked_load_only_accepts_or_refuses(name, data):
    _try(lambda p: config.load(p, schema=name), data)


def test_every_typed_loader_fuzzed_here_has_its_schema():
    assert set(LOADERS) <= set(SCHEMAS)
