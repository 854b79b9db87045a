"""A fork: a new run whose first T ticks are its parent's, and which goes on under other settings.

The parent's state at tick T is rebuilt, not read: the engine steps the
parent's scenario from tick 0 (the world from its seed, memory by folding
each frame, the vectors from the parent's recording, which answers any
reflection round before T), and each of those T frames is checked against
the parent's log when there is one and copied into the fork's log. At T the
engine takes the fork's settings (a thought config, or a world config that
changes only `policy` and `food`) and the fork's oracle, and runs on.

The fork's log header names the parent (its head hash), the parent's chain
value at tick T-1, `fork_at` and the digests of the configs it changed; the
header of a run that is not a fork does not change. A forked scenario
(`parent` and `fork_at` in its scenario.json) replays from the parent's
recording up to T and from its own after: `kernel.engine.start` hands it
here, with the run's options (`RunOptions`) as one value. A fork that fails
leaves no log: its first T ticks are its parent's, and a fork cut short is a
run of nothing.

This module owns rebuilding the state at T and the loop of a fork; the
order of a tick is kernel.engine.run's, the state the projections', and
the log's bytes kernel.log's. It builds on the tick loop and must not be
imported by it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from kernel import config
from kernel import events as ev
from kernel.engine.feature import TickState
from kernel.engine.run import (
    DEFAULTS,
    Engine,
    RunOptions,
    RunReport,
    account,
    drive,
    writing,
)
from kernel.engine.scenario import Forked, Scenario, is_fork, weighed
from kernel.errors import ConfigError, ForkError
from kernel.log import FORMAT, Header, LogWriter, encode, read_header, verify
from kernel.log.frame import ZERO, frame_bytes, scan_raw
from kernel.mind.settings import Settings
from kernel.oracle.base import Oracle
from kernel.world import config as wconfig

WORLD_MAY_CHANGE = ("policy", "food")
"""The only keys of a world config a fork may change: a fork keeps its villagers and its grid."""


# --- what may change --------------------------------------------------------------------


def fork_world(parent: Scenario, path: str | os.PathLike) -> wconfig.WorldConfig:
    """The world config at `path`, refused unless it differs from the parent's only in policy and food."""
    return _fork_world(parent, config.load(path, schema="world"))


def _fork_world(parent: Scenario, c: config.Config) -> wconfig.WorldConfig:
    theirs = config.thaw(_config(parent, "world").value)
    mine = config.thaw(c.value)
    keys = sorted((set(theirs) | set(mine)) - set(WORLD_MAY_CHANGE) - {"description"})
    changed = [k for k in keys if theirs.get(k) != mine.get(k)]
    if changed:
        raise ForkError(f"a fork's world may change only {' and '.join(WORLD_MAY_CHANGE)}, and "
                        f"{c.path} changes {', '.join(changed)}: a fork keeps its villagers and "
                        f"grid")
    return wconfig.from_value(c.value, digest=c.digest, source=str(c.path))


def _config(sc: Scenario, what: str) -> config.Config:
    """The config `sc` was resolved with, as it was loaded then (read here only for a scenario
    made without them)."""
    got = dict(sc.configs).get(what)
    return got if got is not None else config.load(dict(sc.files)[what], schema=what)


def world_file(sc: Scenario) -> Path:
    """The file `sc`'s world config was read from (the home's own for a world run, which names
    no files but the rules)."""
    return Path(_config(sc, "world").path)


def fork_settings(parent: Scenario, thought: str | os.PathLike) -> Settings:
    """The parent's settings with its thought config replaced by the file at `thought`."""
    return fork_thought(parent, thought)


def fork_thought(parent: Scenario, thought: str | os.PathLike) -> Settings:
    """The parent's settings with its thought config replaced by the file at `thought` (its
    night block with the rest: all of a thought file a run reads, and its digest names)."""
    from kernel.mind import settings as msettings

    if parent.settings is None:
        raise ForkError(f"a thought config changes how villagers reflect, and nobody reflects in "
                        f"{parent.name}'s run")
    t = config.load(thought, schema="thought")
    # every config the parent's settings were made of, by what it is, with the thought one replaced
    return msettings.of(thought=t,
                        **{k: _config(parent, k) for k in ("models", "importance", "embedder")},
                        templates=parent.templates)


def overrides(parent: Scenario, child: Scenario) -> tuple[tuple[str, str], ...]:
    """(what, digest) of every config the child runs under that is not the parent's."""
    out = []
    if child.world.digest != parent.world.digest:
        out.append(("world", child.world.digest))
    if parent.settings is not None and child.settings is not None:
        theirs = dict(parent.settings.digests)
        out += [(k, d) for k, d in child.settings.digests if theirs.get(k) != d]
    return tuple(sorted(out))


# --- the run ------------------------------------------------------------------------------


class _NoPrefixOracle(Oracle):
    """Stands in for the parent's recording when none was given: a round before T is refused."""

    def __init__(self, why: str):
        super().__init__()
        self.why = why

    def _digest(self, model: str) -> str:
        return ""

    def _generate(self, ask):
        raise ForkError(self.why)

    def _embed(self, model, texts, purpose):
        raise ForkError(self.why)


@dataclass
class ForkReport(RunReport):
    fork_at: int = 0
    parent_chain: str = ""


Prefix = list[tuple[int, tuple[ev.Event, ...], TickState]]
"""A fork's ticks before T as the engine ran them: (tick, its events, what its phases handed on)."""


@dataclass(frozen=True)
class ForkedFrom:
    """The run a fork leaves: its scenario, the head of its log (which the fork's header
    names), the oracle that answers its rounds before the fork (its recording, or None for a
    world run), and that log itself, each rebuilt frame held to it (None: held to nothing)."""

    scenario: Scenario
    head: str
    oracle: Oracle | None
    log: str | os.PathLike | None = None


def run_fork(source: ForkedFrom, child: Scenario, at: int, out: str | os.PathLike, *, oracle,
             options: RunOptions = DEFAULTS) -> ForkReport:
    """Write the fork of `source` at tick `at` into a new log at `out`, and run it on as `child`.

    Ticks 0 .. at-1 run under the parent's configs with `source.oracle` (the
    parent's recording) answering any round; with `source.log`, each frame
    must be that log's, and the chain value at at-1 its chain value. From
    `at` on the engine runs under `child`'s world and `options.settings`
    (default `child.settings`) with `oracle`, to tick `options.ticks` - 1
    (default `child.ticks`).
    """
    parent, prefix_oracle, parent_log = source.scenario, source.oracle, source.log
    n = child.ticks if options.ticks is None else options.ticks
    _check(parent, child, at, n)
    en = Engine(parent, prefix_oracle, projections=options.projections, features=options.phases)
    if child.reflecting:
        en.preflight(oracle)     # the fork's models are there before anything is written
    report = ForkReport(scenario=child.name, path=Path(out), fork_at=at,
                        ticks_per_day=child.world.ticks_per_day)
    frames, chain = _prefix(en, parent, at, parent_log)
    report.parent_chain = chain.hex()
    header = Header(FORMAT, child.header_digest, child.world.seed, fork_at=at, parent=source.head,
                    parent_chain=chain.hex(), overrides=overrides(parent, child))
    log = LogWriter.create(out, config_digest=child.header_digest, seed=child.world.seed,
                           ticks_per_day=child.world.ticks_per_day, fork=header,
                           commit_every=options.commit_every)
    try:
        with writing(log, out, report):
            for t, events, ts in frames:
                log.append(t, events)
                account(report, events, ts, options)
            del frames
            # From T on: the fork's configs and its oracle.
            en.go_on(child, options.settings or child.settings, oracle)
            drive(en, log, range(at, n), report, options)
            report.head_hex = log.head.hex()
    except BaseException:
        # A run that fails keeps the ticks it wrote, a log that verifies as far as it goes; a
        # fork's first T ticks are its parent's, and a fork cut short is no run of its settings,
        # so nothing of it is left.
        Path(out).unlink(missing_ok=True)
        raise
    report.bytes = Path(out).stat().st_size
    report.rows = {p.id: 0 for p in child.world.people} | en.memory.counts()
    return report


def _check(parent: Scenario, child: Scenario, at: int, n: int) -> None:
    """A fork at `at` running to tick `n` - 1 keeps its parent's seed, villagers and reflectors."""
    if type(at) is not int or at < 1:
        raise ForkError(f"a fork is at a tick >= 1 (its parent's first ticks are its own), not "
                        f"--at {at!r}")
    if type(n) is not int or n < at:
        raise ForkError(f"a fork runs to a tick at or after the one it forks at: --at {at}, "
                        f"and it would end at {n}")
    if child.world.seed != parent.world.seed or child.world.people != parent.world.people:
        raise ForkError("a fork keeps its parent's seed and villagers")
    if child.night is not None and child.valences is None:
        raise ForkError(f"the fork's thought config has a night block, and a night needs the "
                        f"importance table's valence table, which {parent.name}'s does not have")
    if tuple(child.reflecting) != tuple(parent.reflecting):
        raise ForkError(f"a fork keeps who reflects: {parent.name} has "
                        f"{', '.join(parent.reflecting) or 'nobody'}, the fork "
                        f"{', '.join(child.reflecting) or 'nobody'}")


def _prefix(en: Engine, parent: Scenario, at: int,
            parent_log: str | os.PathLike | None) -> tuple[Prefix, bytes]:
    """The parent's ticks 0 .. at-1, run by `en` and folded, and the chain value at at-1; with
    `parent_log`, each frame and chain value held to that log's, byte for byte."""
    # The parent's header, rebuilt, gives its chain values; a parent log is held to them.
    prev = frame_bytes(ZERO, ev.pack(Header(FORMAT, parent.header_digest,
                                            parent.world.seed).to_map()))[1]
    frames: Prefix = []
    with _parent_frames(parent, parent_log) as given:
        for t in range(at):
            events, ts = en.tick(t)
            payload = encode.payload(t, events)
            prev = frame_bytes(prev, payload)[1]
            if given is not None:
                _same(parent, parent_log, at, t, next(given, None), payload, prev)
            en.apply(t, events, ts)
            frames.append((t, events, ts))
    return frames, prev


@contextmanager
def _parent_frames(parent: Scenario,
                   parent_log: str | os.PathLike | None) -> Iterator[Iterator | None]:
    """The parent log's tick frames as bytes, its header checked and passed; None with no log."""
    if parent_log is None:
        yield None
        return
    h = read_header(parent_log)
    if h.config_digest != parent.header_digest:
        raise ForkError(f"{parent_log} ran under config digest {h.config_digest[:16]}, and "
                        f"{parent.name}'s configs have digest {parent.header_digest[:16]}")
    with open(parent_log, "rb") as fh:
        given = scan_raw(fh)
        next(given, None)        # its header, already read
        try:
            yield given
        finally:
            given.close()


def _same(parent: Scenario, parent_log, at: int, t: int, theirs, payload: bytes,
          prev: bytes) -> None:
    """Tick `t`'s frame as the fork ran it is the parent log's: its payload and chain value."""
    if theirs is None:
        raise ForkError(f"{parent_log} ends before tick {t}: a fork at {at} needs the "
                        f"parent's ticks 0 to {at - 1}")
    if theirs[2] != payload:
        raise ForkError(f"{parent.name}'s configs do not give {parent_log}'s tick {t} "
                        f"(frame {theirs[0]}, byte {theirs[1]}): the log is not a "
                        f"run of them")
    if theirs[3] != prev:
        raise ForkError(f"{parent_log}'s chain value at tick {t} is not the one its "
                        f"frames give: the log is not a run of {parent.name}'s configs")


# --- a forked scenario ----------------------------------------------------------------------


def parent_of(sc: Scenario) -> Scenario:
    """A forked scenario's parent, loaded, with the fork's own files checked against it."""
    from kernel.engine import scenario as msc

    name = sc.parent
    if name == sc.name:
        raise ForkError(f"scenario {sc.name} names itself as its parent")
    parent = msc.load(name, known=(*(c for _, c in sc.configs), *sc.templates))
    if is_fork(parent):
        raise ForkError(f"scenario {sc.name}'s parent {name} is itself a fork: a fork's parent is "
                        f"a run from tick 0")
    at = sc.fork_at
    if type(at) is not int or not 1 <= at <= parent.ticks:
        raise ConfigError(f"scenario {sc.name} forks {name} at tick {at!r}, and {name} runs "
                          f"{parent.ticks} ticks: fork_at is between 1 and {parent.ticks}")
    _fork_world(parent, _config(sc, "world"))
    return parent


def run_forked_scenario(sc: Scenario, oracle, out: str | os.PathLike,
                        options: RunOptions = DEFAULTS) -> ForkReport:
    """Run a forked scenario: the parent's recording answers before `fork_at`, `oracle` after."""
    from kernel.oracle import make

    parent = parent_of(sc)
    at = sc.fork_at
    if parent.world_only:
        prefix = None
    elif parent.exemplars is None:
        prefix = _NoPrefixOracle(f"scenario {parent.name} has no recording, and {sc.name}'s ticks "
                                 f"before {at} hold its reflection rounds")
    else:
        prefix = make("replay", parent.models, replay_from=parent.exemplars)
    return run_fork(ForkedFrom(parent, parent.head_sha256, prefix), sc, at, out, oracle=oracle,
                    options=options)


# --- a fork of a log -------------------------------------------------------------------------


@dataclass(frozen=True)
class ForkPlan:
    """Everything a fork of a log runs from, resolved and checked before its log is made."""

    parent: Scenario
    child: Scenario
    at: int
    ticks: int
    parent_log: Path
    parent_head: str
    parent_recording: Path | None


def plan(parent_log: str | os.PathLike, at: int, *, thought: str | os.PathLike | None = None,
         world: str | os.PathLike | None = None, scenario: str | os.PathLike | None = None,
         ticks: int | None = None, parent_recording: str | os.PathLike | None = None) -> ForkPlan:
    """Resolve a fork of the log at `parent_log` at tick `at`: the parent's configs and the child's."""
    from kernel.engine import scenario as msc

    s = verify(parent_log)
    h = s.header
    if h.is_fork:
        raise ForkError(f"{parent_log} is itself a fork (of {h.parent[:16]} at tick {h.fork_at}): "
                        f"fork its parent, or make the fork a scenario and fork that")
    if scenario is not None:
        parent = msc.load(scenario)
        if is_fork(parent):
            raise ForkError(f"scenario {parent.name} is a fork: a fork's parent is a run from tick 0")
        if parent.header_digest != h.config_digest:
            raise ForkError(f"{parent_log} ran under config digest {h.config_digest[:16]}, and "
                            f"scenario {parent.name}'s configs have digest "
                            f"{parent.header_digest[:16]}: they are not the configs it ran")
    else:
        parent = msc.by_digest(h.config_digest)
        if parent is None:
            raise ForkError(f"no scenario of this home, and not the home's own configs, has the "
                            f"config digest of {parent_log} ({h.config_digest[:16]}): name its "
                            f"scenario with --scenario")
    last = s.last_tick
    if last is None:
        raise ForkError(f"{parent_log} holds no tick to fork from")
    if s.first_tick != 0 or s.ticks != last + 1:
        raise ForkError(f"{parent_log} does not hold one frame a tick from tick 0")
    if type(at) is not int or not 1 <= at <= last + 1:
        raise ForkError(f"a fork of {parent_log} is at a tick between 1 and {last + 1} (its ticks "
                        f"are 0 to {last}), not --at {at!r}")
    end = last + 1 if ticks is None else ticks
    if end < at:
        raise ForkError(f"a fork runs to a tick at or after the one it forks at: --at {at}, "
                        f"--ticks {end}")
    child = replace(parent, ticks=end, forked=Forked(parent.name, at))
    if world is not None:
        child = replace(child, world=fork_world(parent, world))
    if thought is not None:
        # the header names the thought file's digest, so the fork runs all that file says:
        # its reflection and retrieval, and its night block (or no nights, without one)
        child = replace(child, settings=fork_thought(parent, thought))
    weighed(child)    # a fork's thought or world may give rows its importance table cannot weigh
    rec = Path(parent_recording) if parent_recording is not None else None
    if rec is None and parent.exemplars is not None and parent.head_sha256 == s.head_hex:
        rec = parent.exemplars       # the log is the scenario's recorded run
    if rec is not None and not rec.is_file():
        raise ForkError(f"the parent's recording {rec} is not a file")
    return ForkPlan(parent, child, at, end, Path(parent_log), s.head_hex, rec)


def recorded(prefix) -> bool:
    """Whether the oracle `prefix_oracle` gave reads a recording (and may go on past T), rather
    than standing in for a recording that was not given."""
    return prefix is not None and not isinstance(prefix, _NoPrefixOracle)


def prefix_oracle(p: ForkPlan):
    """The oracle for the parent's rounds before the fork: its recording, read in order."""
    from kernel.oracle import make

    if p.parent.world_only:
        return None
    if p.parent_recording is None:
        return _NoPrefixOracle(f"{p.parent_log}'s ticks before {p.at} hold reflection rounds, and "
                               f"rebuilding them needs the parent's recording: give it with "
                               f"--parent-exemplars")
    return make("replay", p.parent.models, replay_from=p.parent_recording)
