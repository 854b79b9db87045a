"""The measure of the minds on every committed scenario's recording, beside what its calls cost.

Each committed scenario with a recording is replayed (no model) and measured by
kernel.report.minds: answers that degenerate, questions parroting the template, questions
answers refused, statements kept as thoughts or recurrences, night plans with an accepted
group, rows absorbed, a thought's cosine to its citations, near-restatements, how alike one
villager's thoughts are, and a generation call's mean tokens in and out and seconds (the
recording's). One column a setting: SETTINGS holds today's, the committed recordings; a new
setting (sampling options, schemas, templates) is one more line there, naming its own
recording of each scenario's same prompts, and is printed beside today's. No figure here is a
timing of this machine.
"""

from __future__ import annotations

from collections.abc import Callable

from kernel.engine import scenario as msc
from kernel.engine.scenario import Scenario
from kernel.laws.minds import Tally
from kernel.report.minds import minds

SETTINGS: tuple[tuple[str, Callable[[Scenario], Scenario | None]], ...] = (
    ("today", lambda sc: sc),
)
"""Each setting's name, and the scenario measured under it (None: it has no recording of it)."""


def _pct(n: int, total: int) -> str:
    return f"{n}/{total} {100 * n / total:3.0f}%" if total else "-"


def _num(x: float | None, fmt: str = ".2f") -> str:
    return "none" if x is None else format(x, fmt)


FIGURES: tuple[tuple[str, Callable[[Tally], str]], ...] = (
    ("answers that degenerate", lambda t: _pct(t.degenerate, t.answers)),
    ("questions parroting the template", lambda t: _pct(t.parroting, t.questions)),
    ("questions answers refused", lambda t: _pct(t.questions_refused, t.question_calls)),
    ("statements kept (thoughts, recurrences)", lambda t: _pct(t.kept, t.statements)),
    ("night plans with an accepted group", lambda t: _pct(t.plans_with_group, t.plans)),
    ("rows absorbed", lambda t: str(t.absorbed)),
    ("thought to its citations (cosine)", lambda t: _num(t.grounding)),
    ("near-restatements of a line shown", lambda t: _pct(t.near, t.shown) if t.shown else "none"),
    ("one villager's thoughts alike", lambda t: _num(t.alike)),
    ("tokens in a generation call (mean)", lambda t: _num(t.per_call("tokens_in"), ".0f")),
    ("tokens out a generation call (mean)", lambda t: _num(t.per_call("tokens_out"), ".0f")),
    ("seconds a generation call (mean)", lambda t: _num(t.per_call("seconds"), ".1f")),
)


def _scenario(name: str, under: Callable[[Scenario], Scenario | None]) -> Tally | None:
    sc = under(msc.load(name))
    return None if sc is None or sc.exemplars is None else minds(sc).all


def run() -> list[str]:
    names = [s for s in msc.committed() if msc.load(s).exemplars is not None]
    out = []
    width = max(len(f) for f, _ in FIGURES)
    for name in names:
        tallies = [_scenario(name, under) for _, under in SETTINGS]
        out.append(f"minds  {name}")
        out.append(f"  {'':<{width}}" + "".join(f"  {s:>14}" for s, _ in SETTINGS))
        for what, show in FIGURES:
            cells = [show(t) if t is not None else "no recording" for t in tallies]
            out.append(f"  {what:<{width}}" + "".join(f"  {c:>14}" for c in cells))
    return out


if __name__ == "__main__":
    for line in run():
        print(line)
