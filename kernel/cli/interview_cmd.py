"""`village interview SOURCE [QUESTION]`: ask a villager, or a battery, at a tick of a log.

Thin: parse, find the log and its scenario, make the oracle, call kernel.interview, print.
SOURCE is a run's log (its scenario found by the header's digest) or a scenario of the home
(its recording replayed to a temporary log). One QUESTION with --who prints the retrieval
table, the answer and each cited line; --battery asks every question of every villager (or
those --who names) under every --variant, and prints the scores. `--json` prints every
figure and every answer's row as one JSON object instead.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import click

from kernel.cli import CONTEXT
from kernel.cli.shared import ranked_table
from kernel.engine import scenario as msc
from kernel.errors import ReplayMismatch, VillageError
from kernel.interview import battery as ib
from kernel.interview import recording as ir
from kernel.interview import session as isn
from kernel.oracle import backends, entry


@contextlib.contextmanager
def _source(source: str) -> Iterator[tuple[Path, msc.Scenario]]:
    """The log to fold and the scenario that ran it."""
    p = Path(source)
    if p.is_file() and p.name != "scenario.json":
        from kernel.log import read_header
        from kernel.report.source import scenario_for

        try:
            digest = read_header(p).config_digest
        except OSError as e:
            raise VillageError(f"cannot read the log {p}: {e.strerror or e}") from None
        sc = scenario_for(digest)
        if sc is None:
            raise VillageError(f"no scenario of this home runs under the log's config digest "
                               f"{digest[:16]}: an interview reads its settings from the "
                               f"scenario that ran the log")
        yield p, sc
        return
    if p.exists() and not p.is_dir() and p.name != "scenario.json":
        raise VillageError(f"Expected a run's log or a scenario but got {source!r}, which is "
                           f"not a file")
    from kernel.engine.replay import replay

    sc = msc.load(source)
    if sc.world_only:
        raise VillageError(f"nobody reflects in scenario {sc.name}: its runs have no thought "
                           f"settings to interview under")
    with tempfile.TemporaryDirectory(prefix="village-interview-") as d:
        log = Path(d) / f"{sc.name}.log"
        rp = replay(sc, out=log)
        if rp.stopped is not None:
            raise VillageError(f"scenario {sc.name} does not replay: {rp.stopped}")
        yield log, sc


def _oracle(sc: msc.Scenario, backend: str, record: Path | None, exemplars: Path | None,
            accept_digest: bool):
    from kernel.oracle import make, recording

    b = entry(backend)
    if not b.live:
        if record is not None:
            raise click.UsageError("--record needs a live oracle: --oracle llamacpp or ollama")
        path = exemplars if exemplars is not None else ir.committed_path(sc)
        if not path.is_file():
            raise VillageError(f"no recording of interviews at {path}: record one with "
                               f"--oracle llamacpp --record FILE, or give --exemplars FILE")
        return make("replay", sc.models, replay_from=path), path
    if exemplars is not None:
        raise click.UsageError("--exemplars is read by --oracle replay; a live oracle answers "
                               "itself")
    if record is not None:
        from kernel.oracle import exemplar
        exemplar.check_target(record)
    live = make(backend, sc.models, accept_digest=accept_digest,
                embedder=dict(sc.configs).get("embedder"))
    try:
        for model in isn.settings_of(sc).models:
            live.digest(model)
    except BaseException:
        live.close()
        raise
    return (recording(live, record) if record is not None else live), None


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def one_lines(s: isn.Session, a: isn.At) -> list[str]:
    x = s.asked[0]
    iv = x.interview
    out = [f"  {iv.name} at tick {iv.now} (day {a.day}) of {a.sc.name}, asked: {x.text}", "",
           f"  {len(iv.ranked)} rows brought to mind, ranked as a reflection ranks them",
           *ranked_table(iv.ranked, weight=False, text=40)]
    out.append("")
    if iv.prompt is not None:
        out.append(f"  the call: {len(iv.prompt.bytes)} bytes of prompt, sha256 "
                   f"{iv.prompt.sha256[:16]}, seed {iv.seed}")
    if iv.said is not None:
        out.append(f"  the model said: {iv.said.text}")
    if iv.accepted:
        out.append(f"  the answer: {iv.answer}")
        rows = {m.id: m for m in a.rows}
        for c in iv.cites:
            m = rows.get(c)
            out.append(f"    cites {c}: {m.text if m is not None else '?'}")
        if x.cosine is not None:
            out.append(f"  cosine to what it cites: {x.cosine:.3f}")
    else:
        out.append(f"  refused by the seam: {iv.refused}")
    return out


def _order(category: str) -> int:
    return ib.CATEGORIES.index(category) if category in ib.CATEGORIES else len(ib.CATEGORIES)


def battery_lines(s: isn.Session) -> list[str]:
    out = [f"  {s.scenario} at tick {s.tick}: {len(s.who)} villagers, "
           f"{len({x.question.id for x in s.asked})} questions, variants "
           f"{', '.join(s.variants)}" + (f" (not asked, the run has nothing for them: "
                                         f"{', '.join(s.skipped)})" if s.skipped else "")]
    head = (f"  {'villager':<10} {'category':<11} {'asked':>5} {'answered':>8} {'valid':>6} "
            f"{'cosine':>6} {'correct':>8} {'chance':>6}")
    for v in s.variants:
        out += ["", f"  variant {v}", head]
        t = isn.table(s, ("variant", "villager", "category"))
        for (vv, who, cat), sc in sorted(t.items(), key=lambda kv: (kv[0][1], _order(kv[0][2]))):
            if vv != v:
                continue
            correct = f"{sc.correct}/{sc.known}" if sc.known else "-"
            out.append(f"  {who:<10} {cat:<11} {sc.asked:>5} {sc.answered:>8} "
                       f"{_pct(sc.valid):>6} {_f(sc.cosine):>6} {correct:>8} "
                       f"{_pct(sc.chance):>6}")
    out += ["", "  the variants compared, per category: accuracy (correct of the answers the log "
                "knows) / citation validity (answers the seam let stand of those said)",
            f"  {'variant':<14} " + " ".join(f"{c:>16}" for c in ib.CATEGORIES)]
    t = isn.table(s, ("variant", "category"))
    for v in s.variants:
        cells = []
        for c in ib.CATEGORIES:
            sc = t.get((v, c))
            cells.append("-" if sc is None else f"{_pct(sc.accuracy)} / {_pct(sc.valid)}")
        out.append(f"  {v:<14} " + " ".join(f"{x:>16}" for x in cells))
    mem = isn.table(s, ("category",)).get(("memory",))
    if mem is not None and mem.chance is not None:
        out.append(f"  chance on the memory questions the log knows: {_pct(mem.chance)}")
    return out


def _score(sc: isn.Score) -> dict:
    return {"asked": sc.asked, "said": sc.said, "answered": sc.answered, "known": sc.known,
            "correct": sc.correct, "valid": sc.valid, "accuracy": sc.accuracy,
            "cosine": sc.cosine, "chance": sc.chance}


def _answer(x: isn.Asked) -> dict:
    iv, t = x.interview, x.truth
    return {"variant": x.variant, "villager": iv.name, "question": x.question.id,
            "category": x.category, "question_text": x.text,
            "text": iv.answer if iv.accepted else None,
            "said": iv.said.text if iv.said is not None else None,
            "cites": list(iv.cites) if iv.accepted else [], "accepted": iv.accepted,
            "refused": str(iv.refused) if iv.refused is not None else None,
            "correct": x.correct,
            "chance": t.chance if t is not None and t.known else None,
            "right": sorted(t.right) if t is not None and t.known else None,
            "cosine": x.cosine}


def document(s: isn.Session, a: isn.At) -> dict:
    """Every figure of an interview and every answer, as one JSON object: the scores per
    variant, villager and category and per variant and category, the memory questions' chance,
    each villager's distinct answers under each variant, and every answer's row."""
    from kernel.laws.minds import distinct

    keyed = sorted(isn.table(s, ("variant", "villager", "category")).items(),
                   key=lambda kv: (s.variants.index(kv[0][0]) if kv[0][0] in s.variants else 0,
                                   kv[0][1], _order(kv[0][2])))
    mem = isn.table(s, ("category",)).get(("memory",))
    said: dict[tuple[str, str], list[str]] = {}
    for x in s.asked:
        if x.interview.accepted:
            said.setdefault((x.variant, x.interview.name), []).append(x.interview.answer)
    return {
        "scenario": s.scenario, "tick": s.tick, "day": a.day, "head": s.head_hex,
        "who": list(s.who), "variants": list(s.variants), "skipped": list(s.skipped),
        "transcript_sha256": s.transcript_sha256,
        "scores": [{"variant": v, "villager": who, "category": c, **_score(sc)}
                   for (v, who, c), sc in keyed],
        "compared": [{"variant": v, "category": c, **_score(sc)}
                     for (v, c), sc in isn.table(s, ("variant", "category")).items()],
        "memory_chance": mem.chance if mem is not None else None,
        "distinct": [{"variant": v, "villager": who, "answers": n, "distinct": d}
                     for (v, who), xs in said.items() for d, n in [distinct(xs)]],
        "answers": [_answer(x) for x in s.asked]}


@click.command("interview", context_settings=CONTEXT)
@click.argument("source")
@click.argument("question", required=False)
@click.option("--who", multiple=True, help="The villager to ask (for --battery: repeat, or "
                                           "leave out for every villager).")
@click.option("--at", "tick", type=click.IntRange(min=0), default=None,
              help="The tick whose memory is asked (default: the log's last).")
@click.option("--battery", type=click.Path(path_type=Path), default=None,
              help="Ask every question of this battery file (configs/interview.json, say).")
@click.option("--variant", "variants", multiple=True,
              help="Ask the battery under this variant of it (repeat; 'all' for every one; "
                   "default: full).")
@click.option("--oracle", "backend", type=click.Choice(backends()), default="replay",
              show_default=True, help="Who answers: a live backend, or a recording of interviews.")
@click.option("--record", type=click.Path(path_type=Path), default=None,
              help="Write every call to this exemplar file (a live oracle only).")
@click.option("--exemplars", type=click.Path(path_type=Path), default=None,
              help="The recording --oracle replay reads (default: the scenario's committed "
                   "interviews, exemplars/interviews/NAME.json).")
@click.option("--accept-digest", is_flag=True, help="Ask a model whose digest is not the pinned one.")
@click.option("--json", "as_json", is_flag=True,
              help="Print every figure and every answer's row as one JSON object.")
def interview_cmd(source: str, question: str | None, **given) -> None:
    """Ask a villager of SOURCE (a run's log, or a scenario) QUESTION at tick --at, or a battery.

    The villager's memory and felt state are folded from the log up to the tick and no
    further; the question brings memories to mind exactly as a reflection's does; one call
    at temperature 0, seeded by the tick, the villager and the question; the seam checks the
    citations. With --oracle replay the answers are read off a recording of interviews, and
    the first prompt that differs stops it, naming both digests.
    """
    o = InterviewAsked(**given)
    o.check(question)
    b = ib.load(o.battery) if o.battery is not None else ib.of({"questions": [
        {"id": "asked", "category": "self", "text": "asked"}]})
    with _source(source) as (log, sc):
        a = isn.at(log, sc, o.tick)
        for n in o.who:
            a.who(n)
        names = ([v.name for v in b.variants] if "all" in o.variants else list(o.variants)) \
            or ["full"]
        for n in names:
            if n != "full":
                b.variant(n)
        oracle, path = _oracle(sc, o.backend, o.record, o.exemplars, o.accept_digest)
        try:
            if question is not None:
                s = isn.one(a, o.who[0], question, oracle, battery=b)
            else:
                s = isn.ask(a, b, oracle, who=o.who, variants=names)
        except ReplayMismatch as e:
            raise VillageError(f"the interview does not replay from {path}: {e}") from None
        finally:
            oracle.close()
        _said(o, s, a, oracle, path, one=question is not None)


@dataclass(frozen=True)
class InterviewAsked:
    """What `village interview` was asked besides SOURCE and QUESTION: its options as given."""

    who: tuple[str, ...]
    tick: int | None
    battery: Path | None
    variants: tuple[str, ...]
    backend: str
    record: Path | None
    exemplars: Path | None
    accept_digest: bool
    as_json: bool

    def check(self, question: str | None) -> None:
        """Refuse options that cannot go with QUESTION (or its absence), before the log is read
        or a model is loaded."""
        if (question is None) == (self.battery is None):
            raise click.UsageError("give one QUESTION (with --who NAME) or --battery FILE")
        if question is not None and len(self.who) != 1:
            raise click.UsageError("one QUESTION is put to one villager: give --who NAME once")
        if question is not None and self.variants:
            raise click.UsageError("--variant is for --battery")
        if question is not None:
            isn.question_of(question)


def _said(o: InterviewAsked, s: isn.Session, a: isn.At, oracle, path: Path | None, *,
          one: bool) -> None:
    """Print what the interview found (its lines, or its JSON document), checked against the
    recording it replayed, or saved as the one it recorded."""
    lines = one_lines(s, a) if one else battery_lines(s)
    for line in lines if not o.as_json else ():
        click.echo(line)
    done = _check_replayed(s, oracle, path) if path is not None else None
    if o.record is not None:
        rel = _rel(o.battery)
        ir.save(o.record, oracle, s, rel)
        done = (f"  recorded {oracle.calls} calls and {oracle.embeddings} embeddings to "
                f"{o.record}; transcript sha256 {s.transcript_sha256}")
    if o.as_json:
        import json

        click.echo(json.dumps({**document(s, a), "done": done.strip() if done else None},
                              ensure_ascii=False, indent=1, allow_nan=False))
    elif done is not None:
        click.echo(done)


def _rel(p: Path | None) -> str | None:
    if p is None:
        return None
    from kernel import config
    try:
        return str(p.resolve().relative_to(config.home().resolve()))
    except ValueError:
        return str(p.resolve())


def _check_replayed(s: isn.Session, oracle, path: Path) -> str:
    meta = ir.meta_of(path)
    if oracle.unread:
        raise VillageError(f"the interview does not replay from {path}: {oracle.unread} "
                           f"recorded calls were never asked for (ask what was recorded: "
                           f"who {', '.join(meta['who'])}, variants {', '.join(meta['variants'])}, "
                           f"at {meta['at']})")
    if s.transcript_sha256 != meta["transcript_sha256"]:
        raise VillageError(f"the interview does not replay from {path}: its transcript's sha256 "
                           f"is {s.transcript_sha256}, and the recording's is "
                           f"{meta['transcript_sha256']}")
    return (f"  replayed from {path}: {oracle.read} calls, every prompt the recorded bytes, "
            f"transcript sha256 {s.transcript_sha256}")


COMMANDS = (interview_cmd,)
