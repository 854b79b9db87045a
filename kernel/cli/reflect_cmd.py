"""`village reflect --mode ...`: what one reflection runs under, sees, says and is refused.

Every mode reads the files and replays the committed recording; none calls
a model. settings prints every number and both templates; prompt the
questions prompt against the recording's bytes; reflect the ranking, the
statement and the seam's verdict per question; refuse the seam meeting
three broken copies of an accepted statement; chain the multi-day
recording replayed under the depth cap.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import click

from kernel import config, laws
from kernel.errors import ReplayMismatch, VillageError
from kernel.mind import run as mrun
from kernel.mind import scenario as msc
from kernel.mind.reflect import Reflection, Round
from kernel.oracle import exemplar, make
from kernel.seam import shipped_templates

CONTEXT = {"help_option_names": ["-h", "--help"]}
MODES = ("settings", "prompt", "reflect", "refuse", "chain")


def _short(s: str, n: int) -> str:
    return s if len(s) <= n else s[: n - 3] + "..."


def _bar(lines: bytes | str) -> list[str]:
    text = lines.decode("utf-8") if isinstance(lines, bytes) else lines
    return [f"    | {x}".rstrip() for x in text.rstrip("\n").split("\n")]


def _replay(sc: msc.Scenario, st=None, *, memory: bool = False):
    """Replay a scenario into a temporary log: the report, the oracle (stopped or not), and
    with `memory` every memory row the log folds to."""
    from kernel import world
    oracle = make("replay", replay_from=sc.exemplars)
    rows: tuple[laws.Memory, ...] = ()
    with tempfile.TemporaryDirectory(prefix="village-reflect-") as d:
        path = Path(d) / "run.log"
        report = mrun.run(sc, oracle, path, st=st, keep_going=True)
        if memory:
            rules = world.load_rules(sc.folder / sc.raw["importance"]) if "importance" in sc.raw else None
            rows = world.memory_of(path, rules=rules).rows
    return report, oracle, rows


def _pick(rnd: Round, who: str | None) -> Reflection:
    for r in rnd.reflections:
        if who is None or r.name.lower() == who.lower():
            return r
    names = ", ".join(r.name for r in rnd.reflections)
    raise VillageError(f"no villager named {who!r} reflected at tick {rnd.now}: those who did are {names}")


def _recorded(sc: msc.Scenario, purpose: str, seed: int, index: int = 0) -> dict | None:
    """The recorded call for this villager's round (its seed) and purpose, in order."""
    doc = exemplar.load(sc.exemplars)
    got = [c for c in doc["calls"] if c["kind"] == "generate" and c["purpose"] == purpose
           and c["options"]["seed"] == seed]
    return got[index] if index < len(got) else None


def settings_lines(sc: msc.Scenario) -> list[str]:
    st = sc.settings
    models = config.load(sc.folder / sc.raw["models"] if "models" in sc.raw else "models")
    m = models.value
    digest = {"llamacpp": m.llamacpp.sha256}.get(m.backend, "")
    w = st.retrieval.weights
    out = ["reflect: what a reflection runs under, read out of the files", "",
           f"  the cadence    every {st.every} ticks of a life, counting the founding tick as the first",
           f"  the questions  {st.questions}, asked about the newest {st.recent} memories",
           f"  the depth cap  {st.cap}{' (no cap)' if st.cap == 0 else ''}",
           f"  the retrieval  half-life {st.retrieval.half_life:g}, weights {w[0]:.2f} {w[1]:.2f} {w[2]:.2f}, "
           f"k {st.retrieval.k}",
           f"  the model      {st.generate_model} on {m.backend}, pinned at {digest[:16]}",
           f"  the embedding  {st.embed_model} on {m.backend}, pinned at {digest[:16]}",
           f"  the answer     at most {st.limit} tokens, temperature {st.temperature:.2f}, "
           f"context {st.context}, a seed of the tick plus the villager's id",
           "", "  the importance table's row for a thought, off configs/importance.json",
           "  kind     event       base",
           f"  thought  reflection  {st.thought.base:>4}",
           f"  plus {st.thought.first_bonus} for the first thought of a life; no grams band, "
           f"because no grams move in one", ""]
    for tf in shipped_templates():
        out.append(f"  configs/{tf.name}, {tf.size} bytes, sha256 {tf.sha256[:16]}")
        out.extend("  " + x for x in _bar(tf.bytes))
        out.append("")
    out += ["  neither template says which memories may be cited or that a citation has to",
            "  exist: that is the seam's rule, kept in code (kernel/laws), and in one place"]
    return out


def prompt_lines(sc: msc.Scenario, who: str | None) -> list[str]:
    report, _, _ = _replay(sc)
    if not report.rounds:
        raise VillageError(f"scenario {sc.name} has no reflection round to show")
    r = _pick(report.rounds[0], who)
    thoughts = sum(1 for m in r.window if m.kind == "thought")
    out = [f"  {r.name}'s newest {len(r.window)} rows at ticks up to {r.now}: "
           f"{len(r.window) - thoughts} the world wrote and {thoughts} thoughts",
           f"  the prompt, {len(r.prompt.bytes)} bytes, sha256 {r.prompt.sha256[:16]}"]
    out += _bar(r.prompt.bytes)
    rec = _recorded(sc, "questions", r.seed)
    out += ["", f"  against the recording, {sc.exemplars.name}",
            f"    rendered here   {len(r.prompt.bytes):>6} bytes  sha256 {r.prompt.sha256[:16]}"]
    if rec is None:
        out.append("    recorded        none: the recording has no questions call for this villager here")
        return out
    out.append(f"    recorded        {rec['prompt_bytes']:>6} bytes  sha256 {rec['prompt_sha256'][:16]}")
    same = rec["prompt_sha256"] == r.prompt.sha256
    out.append("    the same bytes; the recording is a recording of this template and this stream"
               if same else "    the bytes differ: the recording is not a recording of this code")
    out.append(f"    {rec['tokens_in']} tokens in by the model's own count, {rec['tokens_out']} out, "
               f"stopped because: {rec['done_reason']}")
    out += ["", "  what the model answered, once (a model's words; a live run's will differ):"]
    out += _bar(rec["answer"])
    return out


def _row(m: laws.Memory) -> str:
    return (f"id {m.id}, tick {m.tick}, {m.kind}, weight {m.weight}, about "
            f"{', '.join(map(str, m.about)) or 'nobody'}, drawn from {', '.join(map(str, m.drawn_from))}")


def reflect_lines(sc: msc.Scenario, who: str | None) -> list[str]:
    report, oracle, _ = _replay(sc)
    if not report.rounds:
        raise VillageError(f"scenario {sc.name} has no reflection round to show")
    rnd = report.rounds[0]
    r = _pick(rnd, who)
    out = [f"  {r.name} reflects at tick {r.now} over {r.rows} rows"]
    if r.said is not None:
        out.append(f"  the first call: {len(r.prompt.bytes)} bytes of prompt, sha256 {r.prompt.sha256[:16]}, "
                   f"{r.said.tokens_in} tokens in, {r.said.tokens_out} out, stopped because: "
                   f"{r.said.done_reason}")
    if r.refused:
        out.append(f"  refused before the seam: {r.refused}")
    if r.questions:
        out.append("  the questions, which a model wrote:")
        out += [f"    {i}. {q}" for i, q in enumerate(r.questions, start=1)]
    for s in r.statements:
        out += ["", f"  question {s.index}, embedded, and {r.name}'s {r.rows} rows at ticks up to "
                    f"{r.now} ranked against it",
                f"  {'rank':>4} {'id':>5} {'tick':>6} {'weight':>6} {'recency':>8} {'import':>7} "
                f"{'relev':>7} {'score':>7}  {'kind':<8} text"]
        for i, x in enumerate(s.ranked, start=1):
            m = x.memory
            out.append(f"  {i:>4} {m.id:>5} {m.tick:>6} {m.weight:>6} {x.recency:>8.4f} "
                       f"{x.importance:>7.2f} {x.relevance:>7.4f} {x.score:>7.4f}  {m.kind:<8} "
                       f"{_short(m.text, 34)}")
        out.append(f"  the second call: {len(s.prompt.bytes)} bytes of prompt, sha256 "
                   f"{s.prompt.sha256[:16]}, {s.said.tokens_in} tokens in, {s.said.tokens_out} out, "
                   f"stopped because: {s.said.done_reason}")
        if s.statement is None:
            out.append(f"  refused before the seam: {s.refused}")
            continue
        out.append("  the statement, which a model wrote:")
        out += _bar(s.statement or '""')
        out.append(f"  drawn from, as the model gave them   {', '.join(map(str, s.cites)) or 'nothing'}")
        v = s.verdict
        said = f"accepted, at depth {v.depth}" if v.ok else f"refused by {v.check}: {v.reason}"
        out.append(f"  the seam                             {said}")
        if s.row is not None:
            out.append(f"  the row appended                     {_row(s.row)}")
        else:
            out.append("  the row appended                     none; nothing was written")
    before = sum(report.rows.values()) - report.thoughts
    out += ["", f"  {oracle.read} calls read off the recording, {oracle.matched} requests rendered here "
                f"and every one the recorded bytes, {report.statements} statements checked, "
                f"{report.thoughts} thoughts written: {before} rows before, {before + report.thoughts} after"]
    return out


def refuse_lines(sc: msc.Scenario, who: str | None) -> tuple[list[str], int]:
    """The seam against three broken copies of an accepted statement; (lines, how many accepted)."""
    report, _, rows = _replay(sc, memory=True)
    # The accepted statement with the most citations: the most there is to trim, and not trimmed.
    accepted = [(rnd, r, s) for rnd in report.rounds for r in rnd.reflections
                if who is None or r.name.lower() == who.lower()
                for s in r.statements if s.row is not None]
    pick = max(accepted, key=lambda x: len(x[2].cites), default=None)
    if pick is None:
        raise VillageError(f"no accepted statement{' of ' + who if who else ''} in {sc.name} to break")
    rnd, r, s = pick
    # The villager's stream as the seam saw it, and every other villager's rows.
    # The streams as they stood when the round began: its own thoughts are not in them.
    before = [m for m in rows if m.tick < r.now or (m.tick == r.now and m.kind != "thought")]
    stream = tuple(m for m in before if m.villager == r.villager)
    others = [m for m in before if m.villager != r.villager]
    rows_before = len(stream)
    nobody = max(m.id for m in stream + tuple(others)) + 900
    other = others[0] if others else None
    by_id = {m.id: m for m in stream}
    back = max(by_id[c].tick for c in s.cites) - 1
    cases = [(f"the first citation swapped for {nobody}, which no stream holds",
              (nobody,) + s.cites[1:], r.now)]
    if other is not None:
        owner = sc.world.name_of(other.villager)
        cases.append((f"the first citation swapped for {other.id}, which is {owner}'s",
                      (other.id,) + s.cites[1:], r.now))
    cases.append((f"the same citations, with the reflection moved back to tick {back}, the tick "
                  f"before its newest citation ({r.now - back} ticks back)", s.cites, back))
    out = [f"  {r.name}'s accepted statement at tick {r.now}, drawn from "
           f"{', '.join(map(str, s.cites))}:", *_bar(s.statement), ""]
    accepted = 0
    for what, cites, now in cases:
        v = laws.cite(stream, now, cites, sc.settings.cap)
        out.append(f"  {what}")
        out.append(f"    drawn from   {', '.join(map(str, cites))}, at tick {now}")
        if v.ok:
            accepted += 1
            out.append(f"    the seam     ACCEPTED at depth {v.depth}: this is a fault in the seam")
        else:
            out.append(f"    the seam     refused by {v.check}: {v.reason}")
            rest = (f"the statement is not trimmed to the {len(cites) - 1} that check" if len(cites) > 1
                    else "there is nothing to trim it to")
            out.append(f"    written      nothing: {rows_before} rows before, {rows_before} after; {rest}")
        out.append("")
    out.append(f"  {len(cases) - accepted} statements refused whole, 0 rows written, and the one "
               f"that checks is the one above")
    return out, accepted


def chain_lines(sc: msc.Scenario, cap: int) -> list[str]:
    st = sc.settings.with_cap(cap)
    report, oracle, _ = _replay(sc, st)
    out = [f"  {sc.name}: recorded with the cap at {sc.settings.cap}{' (off)' if sc.settings.cap == 0 else ''}, "
           f"replayed here under cap {cap}", "",
           f"  {'step':>4} {'tick':>6}  {'the window':<13} {'retrieved':<13} {'cited':<13} {'depth':>5}  the seam"]
    refused_depth = 0
    for step, rnd in enumerate(report.rounds, start=1):
        for r in rnd.reflections:
            wt = sum(1 for m in r.window if m.kind == "thought")
            if r.refused:
                out.append(f"  {step:>4} {rnd.now:>6}  {len(r.window) - wt:>2} world {wt:>2} th  "
                           f"{'':<13} {'':<13} {'-':>5}  refused before the seam: {_short(r.refused, 60)}")
            for s in r.statements:
                rt = sum(1 for x in s.ranked if x.memory.kind == "thought")
                by = {m.id: m for m in (x.memory for x in s.ranked)} | {m.id: m for m in r.window}
                ct = sum(1 for c in s.cites if c in by and by[c].kind == "thought")
                cited = f"{len(s.cites) - ct:>2} world {ct:>2} th" if s.statement is not None else ""
                v = s.verdict
                if v is None:
                    seam = f"refused before the seam: {_short(s.refused or '', 50)}"
                    depth = "-"
                elif v.ok:
                    seam, depth = f"accepted, at depth {v.depth}", str(v.depth)
                else:
                    seam, depth = f"refused by {v.check}: {v.reason}", str(v.depth or "-")
                    refused_depth += v.check == "depth"
                out.append(f"  {step:>4} {rnd.now:>6}  {len(r.window) - wt:>2} world {wt:>2} th  "
                           f"{len(s.ranked) - rt:>2} world {rt:>2} th  {cited:<13} {depth:>5}  {seam}")
    out.append("")
    if report.stopped is not None:
        left = oracle.total - oracle.read
        out.append(f"  the replay stopped at tick {report.ticks}: {report.stopped}")
        out.append(f"  the recording goes on for {left} more call(s) made with the cap at "
                   f"{sc.settings.cap}, and none of them replays here")
    elif cap != sc.settings.cap:
        deepest = max((s.verdict.depth for rnd in report.rounds for r in rnd.reflections
                       for s in r.statements if s.verdict), default=0)
        out.append(f"  the cap never cut the chain: the model's deepest thought in this recording "
                   f"stands at depth {deepest}, within the cap of {cap}, so every call was the recorded one")
        if deepest > 1:
            out.append(f"  (under --cap {deepest - 1} the chain is cut, and the replay stops where the "
                       f"recording goes on without the cut)")
    out.append(f"  {len(report.rounds)} steps replayed, {report.thoughts} thoughts written, "
               f"{refused_depth} refused for depth")
    return out


@click.command("reflect", context_settings=CONTEXT)
@click.option("--mode", type=click.Choice(MODES), required=True, help="What to show.")
@click.option("--who", default=None, help="The villager to show (default: the first who reflects).")
@click.option("--cap", type=click.IntRange(min=0), default=2, show_default=True,
              help="The depth cap the chain mode replays under.")
@click.argument("scenario", required=False)
def reflect_cmd(mode: str, who: str | None, cap: int, scenario: str | None) -> None:
    """Show one reflection of a committed SCENARIO, replayed from its recording, with no model."""
    try:
        sc = msc.load(scenario or ("five-days-of-halla" if mode == "chain" else "day-of-three"))
        if mode != "settings" and sc.exemplars is None:
            raise VillageError(f"scenario {sc.name} has no recording to replay")
        if mode == "settings":
            lines = settings_lines(sc)
        elif mode == "prompt":
            lines = prompt_lines(sc, who)
        elif mode == "reflect":
            lines = reflect_lines(sc, who)
        elif mode == "refuse":
            lines, accepted = refuse_lines(sc, who)
            for x in lines:
                click.echo(x)
            if accepted:
                sys.exit(1)
            return
        else:
            lines = chain_lines(sc, cap)
    except ReplayMismatch as e:
        raise click.ClickException(f"the recording does not replay: {e}") from None
    except VillageError as e:
        raise click.ClickException(str(e)) from None
    for x in lines:
        click.echo(x)


COMMANDS = (reflect_cmd,)
