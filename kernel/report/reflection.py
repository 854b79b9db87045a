"""A scenario's reflections, replayed from its recording and laid out as data.

Each function replays the scenario once (kernel.engine.replay, no model),
then returns the values a reader looks at (their shapes are
kernel.report.views'). The refusal demonstration breaks an accepted
statement three ways and asks the seam (kernel.laws.cite) about each; the
chain replays the multi-day recording under a depth cap and counts, per
step, the world rows and thoughts in the window, the retrieval and the
citations, and where the cap stops that replay, replays the recording once
more under its own settings to name the statements the cap cut (the round a
replay stops in is not in its report). It must not write anything but the
replays' temporary logs.
"""

from __future__ import annotations

from collections.abc import Sequence

from kernel import config, laws
from kernel.engine.replay import replay
from kernel.engine.scenario import Scenario
from kernel.errors import VillageError
from kernel.mind.reflect import Reflection, Round
from kernel.oracle import entry, exemplar, minilm
from kernel.report.views import Case, Chain, ChainStep, Cut, Refusals, SettingsView
from kernel.seam import QUESTIONS, STATEMENT
from kernel.seam.plan import NIGHT


def pick(rnd: Round, who: str | None) -> Reflection:
    """The reflection of `who` (any case) in a round, or the first one."""
    for r in rnd.reflections:
        if who is None or r.name.lower() == who.lower():
            return r
    names = ", ".join(r.name for r in rnd.reflections)
    raise VillageError(f"no villager named {who!r} reflected at tick {rnd.now}: those who did are {names}")


def recorded_call(sc: Scenario, purpose: str, seed: int, index: int = 0) -> dict | None:
    """The recorded call of this villager's round (its seed) and purpose, in order."""
    doc = exemplar.load(sc.exemplars)
    got = [c for c in doc["calls"] if c["kind"] == "generate" and c["purpose"] == purpose
           and c["options"]["seed"] == seed]
    return got[index] if index < len(got) else None


def settings_view(sc: Scenario) -> SettingsView:
    if sc.settings is None or sc.models is None:
        raise VillageError(f"scenario {sc.name} has nobody who reflects, so no reflection settings")
    night = sc.night
    templates = tuple(sc.settings.template(n) for n in (QUESTIONS, STATEMENT)) + (
        (sc.settings.template(NIGHT),) if night is not None else ())
    digest, embed = _pins(sc)
    return SettingsView(sc.settings, sc.models.value.backend, digest, templates, config.home_line(),
                        embed_digest=embed, valences=sc.valences is not None, night=night)


def _pins(sc: Scenario) -> tuple[str, str]:
    """The generation and embedding models' pins: on llamacpp the GGUF's sha256, except for an
    embedding model the sentence embedder answers to, pinned at its own model.onnx's sha256
    (configs/embedder.json); nothing on a backend whose pins are the server's."""
    m = sc.models.value
    gguf = entry(m.backend).pinned_digest(m)
    embedder = dict(sc.configs).get("embedder")
    if not gguf or embedder is None:
        return gguf, gguf
    block = embedder.value["minilm"]
    if sc.settings.embed_model not in block["models"]:
        return gguf, gguf
    model, _ = minilm.files_of(block)
    return gguf, model.sha256


def refusals(sc: Scenario, who: str | None) -> Refusals:
    """Break the accepted statement with the most citations three ways; the seam on each."""
    rp = replay(sc)
    accepted = [(r, s) for rnd in rp.report.rounds for r in rnd.reflections
                if who is None or r.name.lower() == who.lower()
                for s in r.statements if s.row is not None]
    best = max(accepted, key=lambda x: len(x[1].cites), default=None)
    if best is None:
        raise VillageError(f"no accepted statement{' of ' + who if who else ''} in {sc.name} to break")
    r, s = best
    # The streams as they stood when the round began: its own thoughts are not in them.
    before = [m for m in rp.memory.rows if m.tick < r.now or (m.tick == r.now and m.kind != "thought")]
    stream = tuple(m for m in before if m.villager == r.villager)
    others = [m for m in before if m.villager != r.villager]
    nobody = max(m.id for m in stream + tuple(others)) + 900
    by_id = {m.id: m for m in stream}
    back = max(by_id[c].tick for c in s.cites) - 1
    broken = [(f"the first citation swapped for {nobody}, which no stream holds",
               (nobody,) + s.cites[1:], r.now)]
    if others:
        other = others[0]
        owner = sc.world.name_of(other.villager)
        broken.append((f"the first citation swapped for {other.id}, which is {owner}'s",
                       (other.id,) + s.cites[1:], r.now))
    broken.append((f"the same citations, with the reflection moved back to tick {back}, the tick "
                   f"before its newest citation ({r.now - back} ticks back)", s.cites, back))
    cases = tuple(Case(what, cites, now, laws.cite(stream, now, cites, sc.settings.cap))
                  for what, cites, now in broken)
    return Refusals(r, s, len(stream), cases)


def _steps(n: int, rnd: Round) -> list[ChainStep]:
    """One round's steps: each villager's questions refused, or each of its statements."""
    steps: list[ChainStep] = []
    for r in rnd.reflections:
        wt = sum(1 for m in r.window if m.kind == "thought")
        ww = len(r.window) - wt
        if r.refused:
            steps.append(ChainStep(n, rnd.now, ww, wt, str(r.refused)))
        for s in r.statements:
            rt = sum(1 for x in s.ranked if x.memory.kind == "thought")
            by = {m.id: m for m in (x.memory for x in s.ranked)} | {m.id: m for m in r.window}
            ct = sum(1 for c in s.cites if c in by and by[c].kind == "thought")
            v = s.verdict
            steps.append(ChainStep(
                n, rnd.now, ww, wt, None, len(s.ranked) - rt, rt,
                (len(s.cites) - ct) if s.statement is not None else None,
                ct if s.statement is not None else None, v, str(s.refused) if v is None else None))
    return steps


def refused_for_depth(rounds: Sequence[Round]) -> int:
    """The statements of `rounds` refused for depth. A replay's report holds the rounds it
    replayed whole, so the round it stopped in is never among them, nor counted here."""
    return sum(1 for rnd in rounds for r in rnd.reflections for s in r.statements
               if s.verdict is not None and not s.verdict.ok and s.verdict.check == "depth")


def cuts(rounds: Sequence[Round], cap: int) -> tuple[Cut, ...]:
    """The statements of the first round of `rounds` accepted deeper than `cap`, in the order
    they were asked: where a replay of those rounds under `cap` is cut. () with the cap off
    (0), or where no statement stands deeper."""
    if not cap:
        return ()
    for rnd in rounds:
        got = tuple(Cut(rnd.now, r.name, s.index, s.verdict.depth, cap, s.statement or "",
                        tuple(s.cites))
                    for r in rnd.reflections for s in r.statements
                    if s.verdict is not None and s.verdict.ok and s.verdict.depth > cap)
        if got:
            return got
    return ()


def chain(sc: Scenario, cap: int) -> Chain:
    """Replay the recording under `cap`: each step's window, retrieval, citations and verdict.

    Where the replay stops, the round it stopped in is not in its report, so the cut is read
    off the run the recording was made from (replayed under its own settings, which it always
    replays under): the first round holding a statement deeper than `cap`."""
    rp = replay(sc, settings=sc.settings.with_cap(cap))
    rounds = rp.report.rounds
    steps = [x for n, rnd in enumerate(rounds, start=1) for x in _steps(n, rnd)]
    deepest = max((s.verdict.depth for rnd in rounds for r in rnd.reflections
                   for s in r.statements if s.verdict), default=0)
    stopped = rp.report.stopped
    cut = cuts(replay(sc).report.rounds, cap) if stopped is not None else ()
    return Chain(recorded_cap=sc.settings.cap, cap=cap, steps=tuple(steps),
                 rounds=len(rounds), thoughts=rp.report.thoughts,
                 refused_depth=refused_for_depth(rounds),
                 stopped_at=rp.report.ticks if stopped is not None else None,
                 stopped=str(stopped) if stopped is not None else None,
                 left=rp.oracle.total - rp.oracle.read, deepest=deepest, cuts=cut)
