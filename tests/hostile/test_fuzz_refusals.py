"""Random bytes, random JSON and random nesting in each config a project holds, through the real program.

Each example writes one hypothesis-drawn file (the world, importance, thought
or models config, day-of-three's scenario.json, or its recording) into a copy
of a project `village init` made, and runs the `village` command that reads
it, as a process of its own from the project's folder. The command either
does its work (exit 0) or refuses in one line (exit 1); a file that is not
strict JSON is always refused, in a line naming it, with no log left. Either
way no traceback is printed, no file of the project changes, nothing is left
behind but the command's own log, and that log verifies. Every example is
counted in the suite's tally. The loaders' own properties, in process and
over many more examples, are tests/properties/test_loader_fuzz.py.
"""

from __future__ import annotations

import json
import math
import resource
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernel import config, jsonstrict
from kernel import log as vlog
from tests import process, strategies

from .conftest import record, tree

pytestmark = pytest.mark.slow   # a real process, server, model or browser each test

EXAMPLES = settings(max_examples=15, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
RUN = ["run", "day-of-three", "--out", "r.log"]
REPLAY = ["replay", "day-of-three"]

# config: (where the project holds it, the schema name its mutations start from, the commands
# that read it: one is drawn for each example)
FILES = {
    "world": ("configs/world.json", "world",
              [["world", "run", "--config", "world", "--ticks", "3", "--out", "r.log"]]),
    "importance": ("configs/importance.json", "importance", [RUN]),
    "thought": ("configs/thought.json", "thought", [RUN]),   # the one day-of-three reads
    "models": ("configs/models-smollm2.json", "models", [RUN]),   # the one QUICK has it name
    "scenario": ("fixtures/day-of-three/scenario.json", "scenario", [REPLAY, RUN]),
    "exemplar": ("exemplars/day-of-three.json", None, [REPLAY, RUN]),
}
# the configs a live run of day-of-three reads: it is asked of SmolLM2 (models-smollm2.json) so that
# a config the run takes is a day of seconds, not of Qwen2.5-Coder-1.5B's minutes
QUICK = {"importance", "thought", "models"}
MEMORY = 4 << 30    # bytes of address space a child may take: a config that wants more is a finding


def _bounded() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def _strict_json(data: bytes) -> bool:
    """Whether `data` is JSON a strict reader takes: UTF-8, finite numbers, no key twice."""
    def finite(text):
        if not math.isfinite(float(text)):
            raise ValueError(text)
        return float(text)

    def once(pairs):
        keys = [k for k, _ in pairs]
        if len(keys) != len(set(keys)):
            raise ValueError("a key twice")
        return dict(pairs)

    def no_constant(name):
        raise ValueError(name)
    try:
        text = data.decode("utf-8")
    except ValueError:
        return False
    if jsonstrict.depth(text) > config.MAX_DEPTH:
        return False    # as the readers refuse it, and never a recursion deep enough to fail
    try:
        json.loads(text, object_pairs_hook=once, parse_constant=no_constant, parse_float=finite)
    except ValueError:
        return False
    return True


def _error_lines(stderr: str) -> list[str]:
    return [x for x in stderr.splitlines() if x.startswith(("Error: ", "village: "))
            and not x.startswith("village: note: ")]


def _judge(name: str, data: bytes, r, before: dict[str, str], after: dict[str, str],
           home: Path) -> tuple[str, str]:
    """The example's outcome (one of the tally's) and, when not clean, what went wrong."""
    if "Traceback (most recent call last)" in r.stderr + r.stdout:
        return "traceback", r.stderr[-1500:]
    if r.returncode not in (0, 1):
        return "silent", f"exit {r.returncode}: {r.stderr[-500:]}"
    changed = [p for p in before if after.get(p) != before[p] and p != "r.log"]
    if changed:
        return "lost", f"changed: {changed}"
    if "r.log" in after:
        try:
            vlog.verify(home / "r.log")
        except Exception as e:  # noqa: BLE001 - any failure here is the finding
            return "lost", f"the run's log does not verify: {e}"
    extra = sorted(set(after) - set(before) - {"r.log"})
    if extra:
        return "silent", f"left behind: {extra}"
    lines = _error_lines(r.stderr)
    if r.returncode == 1 and len(lines) != 1:
        return "silent", f"exit 1 with {len(lines)} error lines: {r.stderr[-1500:]!r}"
    if not _strict_json(data):
        file = FILES[name][0]
        if r.returncode == 0:
            return "silent", f"{file} is not strict JSON, and the command took it"
        if file not in lines[0]:
            return "silent", f"the refusal does not name {file}: {lines[0]}"
        if "r.log" in after:
            return "silent", "a file refused before tick 0 left a log"
    return "clean", ""


def _try(made_project: Path, name: str, data: bytes, command: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="village-fuzz-") as d:
        home = Path(shutil.copytree(made_project, Path(d) / "p", symlinks=True))
        if name in QUICK:
            sc = home / "fixtures" / "day-of-three" / "scenario.json"
            sc.write_text(json.dumps({**json.loads(sc.read_text()), "models": "models-smollm2.json"}))
        (home / FILES[name][0]).write_bytes(data)
        before = tree(home)
        try:
            r = process.village(*command, cwd=home, environ=process.env(drop=("VILLAGE_HOME",)),
                                timeout=120, preexec_fn=_bounded)
        except subprocess.TimeoutExpired:
            record("silent")
            pytest.fail(f"{' '.join(command)} gave no answer within 120 s on {data[:200]!r}")
        kind, why = _judge(name, data, r, before, tree(home), home)
        record(kind)
        assert kind == "clean", f"{kind}: {why}\n{' '.join(command)} on {FILES[name][0]} = {data[:300]!r}"


def _fuzzed(name: str):
    _, schema, commands = FILES[name]
    return given(data=strategies.config_bytes(schema), command=st.sampled_from(commands))


@EXAMPLES
@_fuzzed("world")
def test_village_world_run_only_runs_or_refuses_a_fuzzed_world_config(made_project, data, command):
    _try(made_project, "world", data, command)


@EXAMPLES
@_fuzzed("importance")
def test_village_run_only_runs_or_refuses_a_fuzzed_importance_config(made_project, data, command):
    _try(made_project, "importance", data, command)


@EXAMPLES
@_fuzzed("thought")
def test_village_run_only_runs_or_refuses_a_fuzzed_thought_config(made_project, data, command):
    _try(made_project, "thought", data, command)


@EXAMPLES
@_fuzzed("models")
def test_village_run_only_runs_or_refuses_a_fuzzed_models_config(made_project, data, command):
    _try(made_project, "models", data, command)


@EXAMPLES
@_fuzzed("scenario")
def test_village_replay_and_run_only_run_or_refuse_a_fuzzed_scenario(made_project, data, command):
    _try(made_project, "scenario", data, command)


@EXAMPLES
@_fuzzed("exemplar")
def test_village_replay_and_run_only_run_or_refuse_a_fuzzed_recording(made_project, data, command):
    _try(made_project, "exemplar", data, command)


def test_strict_json_is_what_the_fuzz_expects_a_config_reader_to_take():
    assert _strict_json(b'{"a": [1, 2.5, "x", null, true]}')
    for bad in (b'{"a": NaN}', b'{"a": Infinity}', b'{"a": 1e999}', b'{"a": 1, "a": 2}', b"\xff",
                b"[" * 100_000, b"{"):
        assert not _strict_json(bad), bad
