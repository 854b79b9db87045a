"""The village's bonds as a graph per day, for the HTML report.

`BondsGather` is the mind's own bond book (kernel.mind.bonds.BondBook), folded with the report's
other projections (over a replay as it runs, or over a log), so a bond drawn here is the one
the villagers' talk prompts named. `view` lays each day out as a graph on a circle: every
villager a node, every ordered pair whose bond ended the day other than 0 an edge from the
one who holds the bond to the one it is toward, bowed to its left so that a's bond to b and
b's to a lie side by side, as wide as the bond is strong, green where it is warm and red
where it is cold, labelled with the bond (-1 to 1) and titled with what passed that day.
The geometry is worked out here, to a tenth of a unit, so the page is the same bytes on
every machine; the template only writes it out. A run in which nothing passed between two
villagers has no graph, and the report no section. Values only (their shapes are
kernel.report.views'); it renders nothing and writes nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from kernel.laws import bonds as lb
from kernel.laws.felt import Valences
from kernel.mind.bonds import BondBook, BondDay
from kernel.report.views import BondEdge, BondGraph, BondNode, BondsView

SIZE = 400                 # the square each day's graph is drawn in
RING = 130                 # the circle the villagers sit on, around the square's middle
NODE = 16                  # a node's radius
BOW = 0.18                 # an edge's bow to its left, as a share of its length
WARM, COLD = "#1f7a35", "#a8321e"


class BondsGather(BondBook):
    """The report's bond book: a `BondBook` folded with the report's other projections."""


def gather_of(valences: Valences | None, ticks_per_day: int) -> BondsGather | None:
    """A bond book for a run valued by `valences` (None: the run has no valence table, and
    no bond)."""
    return None if valences is None else BondsGather(valences, ticks_per_day)


def _f(x: float) -> str:
    """A coordinate as the page writes it: a tenth of a unit, never "-0.0"."""
    s = f"{x:.1f}"
    return "0.0" if s == "-0.0" else s


def _nodes(people: Sequence[tuple[int, str]]) -> tuple[BondNode, ...]:
    n = max(1, len(people))
    c = SIZE / 2
    out = []
    for i, (v, name) in enumerate(people):
        a = -math.pi / 2 + 2 * math.pi * i / n
        cos, sin = math.cos(a), math.sin(a)
        far = RING + NODE + 6                  # a name sits outside its node, away from the middle
        anchor = "start" if cos > 0.3 else "end" if cos < -0.3 else "middle"
        out.append(BondNode(v, name, _f(c + RING * cos), _f(c + RING * sin), _f(c + far * cos),
                            _f(c + far * sin + 4 + 6 * sin), anchor))
    return tuple(out)


def _edge(r: BondDay, at: dict[int, tuple[float, float]], names: dict[int, str]) -> BondEdge:
    (x0, y0), (x1, y1) = at[r.villager], at[r.other]
    dx, dy = x1 - x0, y1 - y0
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    nx, ny = uy, -ux                           # the edge's left, on a page whose y runs down
    px, py = x0 + ux * NODE, y0 + uy * NODE    # from the rim of one node to the rim of the other
    qx, qy = x1 - ux * (NODE + 2), y1 - uy * (NODE + 2)
    cx, cy = (x0 + x1) / 2 + nx * BOW * length, (y0 + y1) / 2 + ny * BOW * length
    # the arrowhead points along the curve's tangent at its end (from the control point)
    tx, ty = qx - cx, qy - cy
    tl = math.hypot(tx, ty) or 1.0
    tx, ty = tx / tl, ty / tl
    strength = abs(r.end) / lb.FULL
    head = 5 + 3 * strength
    tip = f"{_f(qx)},{_f(qy)}"
    left = f"{_f(qx - tx * 2 * head + ty * head)},{_f(qy - ty * 2 * head - tx * head)}"
    right = f"{_f(qx - tx * 2 * head - ty * head)},{_f(qy - ty * 2 * head + tx * head)}"
    passed = ", ".join(f"{n} {k}" for n, k in zip(lb.NAMES, r.counts, strict=True) if k)
    title = (f"{names[r.villager]}'s bond to {names[r.other]} on day {r.day + 1}: "
             f"{r.end / lb.FULL:+.3f} at its end, {r.start / lb.FULL:+.3f} at its start"
             + (f"; that day: {passed}" if passed else "; nothing passed that day"))
    return BondEdge(
        villager=r.villager, other=r.other, bond=r.end, label=f"{r.end / lb.FULL:+.2f}",
        path=f"M{_f(px)},{_f(py)} Q{_f(cx)},{_f(cy)} {_f(qx)},{_f(qy)}",
        head=f"{tip} {left} {right}", width=_f(1 + 5 * strength),
        opacity=f"{0.35 + 0.65 * strength:.2f}", colour=WARM if r.end > 0 else COLD,
        label_x=_f(0.25 * px + 0.5 * cx + 0.25 * qx), label_y=_f(0.25 * py + 0.5 * cy + 0.25 * qy),
        title=title)


def view(book: BondsGather | None, people: Sequence[tuple[int, str]], *,
         note: str | None = None) -> BondsView | None:
    """The bond graph of each day from the first with a bond, or None where nothing passed
    between two villagers; `people` are (id, name) in the report's order, and `note` what the
    section should say of where its valences came from."""
    if book is None or not book.pairs:
        return None
    rows = book.days()
    if not rows:
        return None
    names = dict(people)
    for r in rows:
        for v in (r.villager, r.other):
            if v not in names:
                names[v] = f"villager {v}"
    order = list(people) + sorted((v, n) for v, n in names.items() if v not in dict(people))
    nodes = _nodes(order)
    at = {n.villager: (float(n.x), float(n.y)) for n in nodes}
    by_day: dict[int, list[BondDay]] = {}
    for r in rows:
        by_day.setdefault(r.day, []).append(r)
    graphs = []
    for day in range(rows[0].day, rows[-1].day + 1):
        mine = by_day.get(day, [])
        edges = tuple(_edge(r, at, names) for r in mine if r.end != 0)
        passed = sum(r.passed for r in mine)
        graphs.append(BondGraph(day + 1, edges, passed))
    return BondsView(size=SIZE, node=NODE, nodes=nodes, graphs=tuple(graphs),
                     half_life_days=book.laws.half_life_days, rate=book.laws.rate,
                     unvalued=book.unvalued, note=note)
