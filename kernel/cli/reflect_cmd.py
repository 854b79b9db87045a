"""`village reflect SUBCOMMAND`: what one reflection runs under, sees, says and is refused.

This module owns the reflect group: one subcommand a view, each with only
the options it reads, and `--mode X` kept as an alias of the subcommand X
for one release. It parses and renders: the views' data come from
kernel.report, which replays the committed recording; nothing here calls a
model, runs the engine or maps an error to its line (kernel.cli does).
settings prints every number and the templates; prompt the questions prompt
against the recording's bytes; reflect the ranking, the statement and the
seam's verdict per question; refuse the seam meeting three broken copies of
an accepted statement; chain the multi-day recording replayed under the
depth cap; night each night's plan, checks and what it absorbed and forgot;
felt one villager's felt strengths.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Any

import click

from kernel import laws, report
from kernel.cli import CONTEXT, VillageGroup
from kernel.cli.shared import cut, ranked_table
from kernel.engine import scenario as msc
from kernel.engine.replay import replay
from kernel.errors import ReplayMismatch, VillageError
from kernel.mind.night import FEWEST_FELT


def _bar(lines: bytes | str) -> list[str]:
    text = lines.decode("utf-8") if isinstance(lines, bytes) else lines
    return [f"    | {x}".rstrip() for x in text.rstrip("\n").split("\n")]


def settings_lines(sc: msc.Scenario) -> list[str]:
    view = report.settings_view(sc)
    st, digest = view.settings, view.digest
    w = st.retrieval.weights
    own = (" (the sentence embedder's own, configs/embedder.json)"
           if view.embed_digest and view.embed_digest != digest else "")
    out = ["reflect: what a reflection runs under, read out of the files", "",
           f"  the cadence    every {st.every} ticks of a life, counting the founding tick as the first",
           f"  the questions  {st.questions}, asked about the newest {st.recent} memories",
           f"  the depth cap  {st.cap}{' (no cap)' if st.cap == 0 else ''}",
           f"  the retrieval  half-life {st.retrieval.half_life:g}, weights {w[0]:.2f} {w[1]:.2f} {w[2]:.2f}, "
           f"k {st.retrieval.k}",
           f"                 {_importance_term(st.retrieval.importance, view.valences)}",
           f"  the model      {st.generate_model} on {view.backend}, pinned at {digest[:16]}",
           f"  the embedding  {st.embed_model} on {view.backend}, pinned at {view.embed_digest[:16]}{own}",
           f"  the answer     at most {st.limit} tokens, temperature {st.temperature:.2f}, "
           f"context {st.context}, a seed of the tick plus the villager's id",
           "", "  the importance table's row for a thought, off configs/importance.json",
           "  kind     event       base",
           f"  thought  reflection  {st.thought.base:>4}",
           f"  plus {st.thought.first_bonus} for the first thought of a life; no grams band, "
           f"because no grams move in one", "", *_night_lines(view), ""]
    for tf in view.templates:
        parts = tf.path.parts   # configs/NAME, or configs/FOLDER/NAME where the scenario names one
        shown = "/".join(parts[len(parts) - 1 - parts[::-1].index("configs"):]) \
            if "configs" in parts else f"configs/{tf.name}"
        out.append(f"  {shown}, {tf.size} bytes, sha256 {tf.sha256[:16]}")
        out.extend("  " + x for x in _bar(tf.bytes))
        out.append("")
    out += ["  no template says which memories may be cited or grouped, or that a citation has",
            "  to exist: those are the seam's rules and the night's checks, kept in code",
            "  (kernel/laws, kernel/mind/night.py), each in one place", "", f"  {view.home}"]
    return out


def _importance_term(importance: str, valences: bool) -> str:
    if importance != "felt":
        return "its importance term is a row's weight / 10"
    if valences:
        return "its importance term is a row's felt strength now, off the importance table's valences"
    return ("its importance term is a row's felt strength now, and the importance table has no "
            "valences: a round refuses to run")


def _night_lines(view: report.SettingsView) -> list[str]:
    n, st = view.night, view.settings
    if n is None:
        return ["  the night      none: the thought settings have no night block"]
    return ["  the night      at every day's last tick, after its reflections, for each villager "
            "who reflects:",
            f"                 a plan call if at least {FEWEST_FELT} of its living rows, thoughts "
            f"aside, were felt since its last night, showing the newest {n.shown} of them,",
            f"                 at most {n.groups} groups, each absorbing at most {n.members} rows into "
            f"its anchor; at most {n.limit} tokens, temperature {st.temperature:.2f}, context "
            f"{st.context}, a seed of the tick plus the villager's id;",
            "                 then every living row of its that is not a thought and is stored below "
            "the forgetting curve for the time since it was last felt is forgotten"]


def prompt_lines(sc: msc.Scenario, who: str | None) -> list[str]:
    rp = replay(sc)
    if not rp.report.rounds:
        raise VillageError(f"scenario {sc.name} has no reflection round to show")
    r = report.pick(rp.report.rounds[0], who)
    thoughts = sum(1 for m in r.window if m.kind == "thought")
    out = [f"  {r.name}'s newest {len(r.window)} rows at ticks up to {r.now}: "
           f"{len(r.window) - thoughts} the world wrote and {thoughts} thoughts",
           f"  the prompt, {len(r.prompt.bytes)} bytes, sha256 {r.prompt.sha256[:16]}"]
    out += _bar(r.prompt.bytes)
    rec = report.recorded_call(sc, "questions", r.seed)
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
    rp = replay(sc)
    run, oracle = rp.report, rp.oracle
    if not run.rounds:
        raise VillageError(f"scenario {sc.name} has no reflection round to show")
    rnd = run.rounds[0]
    r = report.pick(rnd, who)
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
                *ranked_table(s.ranked, weight=True, text=34)]
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
    before = sum(run.rows.values()) - run.thoughts
    out += ["", f"  {oracle.read} calls read off the recording, {oracle.matched} requests rendered here "
                f"and every one the recorded bytes, {run.statements} statements checked, "
                f"{run.thoughts} thoughts written: {before} rows before, {before + run.thoughts} after"]
    return out


def refuse_lines(sc: msc.Scenario, who: str | None) -> tuple[list[str], int]:
    """The seam against three broken copies of an accepted statement; (lines, how many accepted)."""
    rf = report.refusals(sc, who)
    r, s = rf.reflection, rf.statement
    out = [f"  {r.name}'s accepted statement at tick {r.now}, drawn from "
           f"{', '.join(map(str, s.cites))}:", *_bar(s.statement), ""]
    for c in rf.cases:
        v = c.verdict
        out.append(f"  {c.what}")
        out.append(f"    drawn from   {', '.join(map(str, c.cites))}, at tick {c.now}")
        if v.ok:
            out.append(f"    the seam     ACCEPTED at depth {v.depth}: this is a fault in the seam")
        else:
            out.append(f"    the seam     refused by {v.check}: {v.reason}")
            rest = (f"the statement is not trimmed to the {len(c.cites) - 1} that check"
                    if len(c.cites) > 1 else "there is nothing to trim it to")
            out.append(f"    written      nothing: {rf.rows_before} rows before, {rf.rows_before} "
                       f"after; {rest}")
        out.append("")
    out.append(f"  {len(rf.cases) - rf.accepted} statements refused whole, 0 rows written, and the one "
               f"that checks is the one above")
    return out, rf.accepted


def chain_lines(sc: msc.Scenario, cap: int) -> list[str]:
    ch = report.chain(sc, cap)
    out = [f"  {sc.name}: recorded with the cap at {ch.recorded_cap}{' (off)' if ch.recorded_cap == 0 else ''}, "
           f"replayed here under cap {cap}", "",
           f"  {'step':>4} {'tick':>6}  {'the window':<13} {'retrieved':<13} {'cited':<13} {'depth':>5}  the seam"]
    for x in ch.steps:
        window = f"{x.window_world:>2} world {x.window_thoughts:>2} th"
        if x.refused:
            out.append(f"  {x.step:>4} {x.tick:>6}  {window}  "
                       f"{'':<13} {'':<13} {'-':>5}  refused before the seam: {cut(x.refused, 60)}")
            continue
        cited = (f"{x.cited_world:>2} world {x.cited_thoughts:>2} th"
                 if x.cited_world is not None else "")
        v = x.verdict
        if v is None:
            seam, depth = f"refused before the seam: {cut(x.statement_refused or '', 50)}", "-"
        elif v.ok:
            seam, depth = f"accepted, at depth {v.depth}", str(v.depth)
        else:
            seam, depth = f"refused by {v.check}: {v.reason}", str(v.depth or "-")
        out.append(f"  {x.step:>4} {x.tick:>6}  {window}  "
                   f"{x.ranked_world:>2} world {x.ranked_thoughts:>2} th  {cited:<13} {depth:>5}  {seam}")
    out.append("")
    return out + _chain_end(ch, cap)


def _cut(c) -> str:
    cites = ", ".join(map(str, c.cites))
    return (f"    {c.name}'s statement {c.index} \"{cut(c.statement, 60)}\" (citing {cites}): "
            f"a thought of depth {c.depth}, over the cap of {c.cap}")


def _chain_end(ch, cap: int) -> list[str]:
    """How the replay under the cap ended, then what the rounds it replayed whole hold: the
    refusals for depth are counted over those rounds only, never the one it stopped in."""
    recorded = f"{ch.recorded_cap}{' (off)' if ch.recorded_cap == 0 else ''}"
    out = []
    if ch.stopped_at_the_cut:
        out.append(f"  the replay stopped at tick {ch.stopped_at}, where the cap cut the chain: "
                   f"the recording, made with the cap at {recorded}, let stand what cap {cap} "
                   f"refuses for depth there:")
        out.extend(_cut(c) for c in ch.cuts)
        out.append(f"  so this replay's next call is not the recording's: {ch.stopped}")
    elif ch.stopped is not None and ch.cuts and ch.cuts[0].tick < ch.stopped_at:
        out.append(f"  the cap cut the chain at tick {ch.cuts[0].tick}, refusing for depth:")
        out.extend(_cut(c) for c in ch.cuts)
        out.append(f"  and the replay went on past the cut, to stop at tick {ch.stopped_at}: "
                   f"{ch.stopped}")
    elif ch.stopped is not None:
        out.append(f"  the replay stopped at tick {ch.stopped_at}: {ch.stopped}")
    elif ch.refused_depth:
        out.append(f"  the cap refused {ch.refused_depth} statement(s) for depth, and every call "
                   f"after was still the recorded one, so the replay ran to its end")
    elif cap != ch.recorded_cap:
        out.append(f"  the cap never cut the chain: the model's deepest thought in this recording "
                   f"stands at depth {ch.deepest}, within the cap of {cap}, so every call was the recorded one")
        if ch.deepest > 1:
            out.append(f"  (under --cap {ch.deepest - 1} the chain is cut: the thought is refused for "
                       f"depth, and the replay stops wherever a later call reads what it left out)")
    if ch.stopped is None:
        out.append(f"  {ch.rounds} steps replayed, {ch.thoughts} thoughts written, "
                   f"{ch.refused_depth} refused for depth")
        return out
    out.append(f"  the recording goes on for {ch.left} more call(s) made with the cap at "
               f"{ch.recorded_cap}, and none of them replays here")
    n = len(ch.cuts)
    tail = (f"; the cut ({n} statement{'s' if n != 1 else ''} refused for depth) is in the "
            f"round the replay stopped in, not among them" if ch.stopped_at_the_cut else "")
    out.append(f"  {ch.rounds} step{'s' if ch.rounds != 1 else ''} replayed whole before the stop, {ch.thoughts} thoughts "
               f"written, {ch.refused_depth} refused for depth in them{tail}")
    return out


def _s(milli: int) -> str:
    """A strength or valence in thousandths as the number it is: 400 -> 0.400."""
    return f"{milli / 1000:.3f}"


def night_lines(sc: msc.Scenario, who: str | None, day: int | None) -> list[str]:
    from kernel.report import felt as rf

    run = rf.felt_run(sc)
    names = run.names
    views = rf.nights(run, who, day)
    out: list[str] = []
    if not views:
        out.append(f"  scenario {sc.name} has no night: its thought settings have no night block")
    for v in views:
        n = v.night
        out += [f"  night of day {v.day}, tick {n.now}: {n.calls} plan call(s) for "
                f"{len(n.villagers)} villager(s)", ""]
        planned = {p.villager for p in n.plans}
        for vid in n.villagers:
            if vid not in planned:
                out.append(f"  {names.get(vid, vid)}: fewer than two rows felt since the last "
                           f"night, so no plan call")
        for p in n.plans:
            out.append(f"  {p.name}'s plan over {len(p.shown)} rows shown, {len(p.prompt.bytes)} "
                       f"bytes of prompt, sha256 {p.prompt.sha256[:16]}")
            out.append("  the plan, as the model gave it:")
            out += _bar(p.said.text if p.said is not None else "")
            if p.refused:
                out.append(f"  refused whole by {p.refused}")
            for g in p.groups:
                members = ", ".join(f"{i} ({_s(s)})" for i, s in g.members) or ", ".join(
                    map(str, g.absorbed))
                head = f"    group {g.index}: anchor {g.anchor}, absorbing {members}"
                if g.ok:
                    out.append(f"{head}: accepted; the anchor {_s(g.before)} -> {_s(g.stored)}")
                else:
                    out.append(f"{head}: refused by {g.check}: {g.reason}")
            if not p.refused and not p.groups:
                out.append("    no groups")
            out.append("")
        moved = [c for c in v.changes if c.kind in ("refelt", "recurred", "anchor", "absorbed")]
        out.append(f"  rows whose strength an event set on day {v.day}:")
        if not moved:
            out.append("    none")
        for c in moved:
            text = cut(run.rows[c.id].text, 40)
            why = {"refelt": f"re-felt by thought {c.by}", "recurred": "recurred",
                   "anchor": "anchored a group", "absorbed": f"absorbed into {c.by}"}[c.kind]
            out.append(f"    {names.get(c.villager, c.villager):<8} {c.id:>5} tick {c.tick:>6} "
                       f"{why:<24} {_s(c.before)} -> {_s(c.after)}  {text}")
        out.append(f"  rows forgotten at tick {n.now}:")
        if not n.forgotten:
            out.append("    none")
        for f in n.forgotten:
            out.append(f"    {names.get(f.villager, f.villager):<8} {f.id:>5} stored {_s(f.stored)}, "
                       f"below {_s(f.threshold)} after {n.now - f.last_felt} ticks unfelt  "
                       f"{cut(run.rows[f.id].text, 40)}")
        out.append("")
    c = rf.counts(run)
    out.append(f"  the whole run: {c['refelt']} re-felt, {c['recurred']} recurred, {c['forgotten']} "
               f"forgotten, {c['absorbed']} absorbed; {c['plans']} plans ({c['plans refused']} "
               f"refused whole), {c['groups accepted']} groups accepted, {c['groups refused']} refused")
    return out


def felt_lines(sc: msc.Scenario, who: str | None, tick: int | None) -> list[str]:
    from kernel.report import felt as rf

    if who is None:
        if not sc.reflecting:
            raise VillageError(f"nobody reflects in {sc.name}, so no villager is shown by "
                               f"default: give --who NAME")
        who = sc.reflecting[0]        # as --who says: the first who reflects
    run = rf.felt_run(sc, until=tick)
    name, rows = rf.felt_rows(run, who)
    out = [f"  {name}'s {len(rows)} rows at tick {run.at}: strengths and valences in units "
           f"(1.000 is the strongest)", "",
           f"  {'id':>5} {'tick':>6} {'kind':<7} {'intens':>6} {'valence':>7} {'stored':>6} "
           f"{'last felt':>9} {'now':>6}  {'state':<22} text"]
    for m, s, now in rows:
        state = ("living" if s.forgotten_at is None and s.absorbed_into is None else
                 f"forgotten at {s.forgotten_at}" if s.forgotten_at is not None else
                 f"absorbed into {s.absorbed_into}")
        out.append(f"  {m.id:>5} {m.tick:>6} {m.kind:<7} {_s(s.intensity):>6} {_s(s.valence):>7} "
                   f"{_s(s.stored):>6} {s.last_felt:>9} {_s(now):>6}  {state:<22} "
                   f"{cut(m.text, 40)}")
    living = sum(1 for _, s, _ in rows if s.forgotten_at is None and s.absorbed_into is None)
    out += ["", f"  {living} living, {sum(1 for _, s, _ in rows if s.forgotten_at is not None)} "
                f"forgotten, {sum(1 for _, s, _ in rows if s.absorbed_into is not None)} absorbed"]
    return out


DEFAULT = "day-of-three"
DEFAULTS = {"chain": "five-days-of-halla", "night": "week-of-three", "felt": "week-of-three"}
"""The committed scenario each subcommand shows when none is named."""


def _load(mode: str, scenario: str | None) -> msc.Scenario:
    sc = msc.load(scenario or DEFAULTS.get(mode, DEFAULT))
    if sc.world_only:
        raise VillageError(f"scenario {sc.name} has no recording to replay: nobody in it reflects")
    if mode != "settings" and sc.exemplars is None:
        raise VillageError(f"scenario {sc.name} has no recording to replay")
    return sc


def _echo(lines: list[str]) -> None:
    for x in lines:
        click.echo(x)


def show_settings(scenario: str | None) -> None:
    _echo(settings_lines(_load("settings", scenario)))


def show_prompt(scenario: str | None, who: str | None) -> None:
    _echo(prompt_lines(_load("prompt", scenario), who))


def show_reflect(scenario: str | None, who: str | None) -> None:
    _echo(reflect_lines(_load("reflect", scenario), who))


def show_refuse(scenario: str | None, who: str | None) -> None:
    lines, accepted = refuse_lines(_load("refuse", scenario), who)
    _echo(lines)
    if accepted:
        sys.exit(1)


def show_chain(scenario: str | None, cap: int) -> None:
    _echo(chain_lines(_load("chain", scenario), cap))


def show_night(scenario: str | None, who: str | None, day: int | None) -> None:
    _echo(night_lines(_load("night", scenario), who, day))


def show_felt(scenario: str | None, who: str | None, tick: int | None) -> None:
    _echo(felt_lines(_load("felt", scenario), who, tick))


SHOW = {"settings": show_settings, "prompt": show_prompt, "reflect": show_reflect,
        "refuse": show_refuse, "chain": show_chain, "night": show_night, "felt": show_felt}
"""What each subcommand shows; the keyword arguments of each are the options it reads."""

MODES = tuple(SHOW)
ALIAS = "mode"
"""The name `village reflect --mode X` is routed under: `--mode` stays an alias of the
subcommand X for one release, with a note on stderr."""


class ReflectGroup(VillageGroup):
    """`village reflect`: one subcommand a view, and `--mode X` routed to the alias."""

    says = ((ReplayMismatch, "the recording does not replay"),)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and _gives_mode(args):
            args = [ALIAS, *args]
        return super().parse_args(ctx, args)

    def resolve_command(self, ctx: click.Context, args: list[str]):
        if args and args[0] == ALIAS:
            return "--mode", mode_alias, args[1:]
        return super().resolve_command(ctx, args)


def _gives_mode(args: list[str]) -> bool:
    for a in args:
        if a == "--":
            return False
        if a == "--mode" or a.startswith("--mode="):
            return True
    return False


@click.group("reflect", cls=ReflectGroup, context_settings=CONTEXT)
def reflect_cmd() -> None:
    """Show one reflection of a committed scenario, replayed from its recording, with no model.

    Each subcommand is one view, with only the options it reads, and takes the
    scenario as its argument (default: day-of-three; five-days-of-halla for
    chain, week-of-three for night and felt). `--mode X` still runs the
    subcommand X, for one release.
    """


_who = click.option("--who", default=None,
                    help="The villager to show (default: the first who reflects).")
_scenario = click.argument("scenario", required=False)


def _view(name: str, show: Callable[..., None], says: str, *options: Callable) -> None:
    """Register the subcommand `name`, which `show` prints: `says` is its help, `options` the
    click options it reads (by the names `show` takes them under), before the scenario."""

    def view_cmd(scenario: str | None, **given: Any) -> None:
        show(scenario, **given)

    for option in reversed((*options, _scenario)):
        view_cmd = option(view_cmd)
    reflect_cmd.command(name, context_settings=CONTEXT, help=says)(view_cmd)


_view("settings", show_settings,
      "Every number a reflection runs under, the models with their pins, and the templates.")
_view("prompt", show_prompt, "The first round's questions prompt, against the recording's bytes.",
      _who)
_view("reflect", show_reflect,
      "The first round: the ranking, the statement and the seam's verdict per question.", _who)
_view("refuse", show_refuse,
      "The seam meeting three broken copies of an accepted statement; exit 1 if one is accepted.",
      _who)
_view("chain", show_chain, "The multi-day recording replayed under a depth cap, step by step.",
      click.option("--cap", type=click.IntRange(min=0), default=2, show_default=True,
                   help="The depth cap to replay under."))
_view("night", show_night,
      "Each night: the plan, each group's checks, rows absorbed, forgotten and re-felt.", _who,
      click.option("--day", type=click.IntRange(min=1), default=None,
                   help="The night's day (from 1; default: every night)."))
_view("felt", show_felt, "One villager's rows with their felt strengths at a tick (--who NAME, "
      "else the first who reflects).", _who,
      click.option("--tick", type=click.IntRange(min=0), default=None,
                   help="The tick to show (default: the run's last)."))


@click.command("--mode", context_settings=CONTEXT)
@click.option("--mode", type=click.Choice(MODES), required=True,
              help="The subcommand to run (deprecated: name the subcommand).")
@_who
@click.option("--cap", type=click.IntRange(min=0), default=2, show_default=True,
              help="The depth cap chain replays under.")
@click.option("--day", type=click.IntRange(min=1), default=None, help="night's day (from 1).")
@click.option("--tick", type=click.IntRange(min=0), default=None, help="felt's tick.")
@_scenario
def mode_alias(mode: str, **given) -> None:
    """`village reflect --mode X`, as before: the subcommand X, with the options X reads."""
    click.echo(f"village: note: `village reflect --mode {mode}` is deprecated and goes in the next "
               f"release; use `village reflect {mode}`", err=True)
    show = SHOW[mode]
    reads = inspect.signature(show).parameters
    show(**{k: v for k, v in given.items() if k in reads})


COMMANDS = (reflect_cmd,)
