"""`village plot RUN --what rows|strengths|cost|refusals|basins --out FIG.png`: a figure for a paper.

Thin: kernel.report.plots gives the series, matplotlib (the Agg backend,
no display) draws them. Every figure is the same size in pixels, and
every axis says its unit.
"""

from __future__ import annotations

from pathlib import Path

import click

from kernel import files
from kernel.calendar import DAY, Calendar
from kernel.cli import CONTEXT

WHAT = ("rows", "strengths", "cost", "refusals", "basins")
SIZE = (9.0, 5.0)      # inches
DPI = 100              # so a figure is 900 by 500 pixels
TOP_ONE, TOP_ALL = 8, 3   # strongest rows drawn for one villager, and for each of several
PANELS = 6             # the most villagers' basins one figure draws, a panel each


def _figure():
    import matplotlib
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=SIZE, dpi=DPI)
    return plt, fig, ax


def _colors(n: int):
    import matplotlib
    cmap = matplotlib.colormaps["tab20" if n > 10 else "tab10"]
    return [cmap(i % cmap.N) for i in range(n)]


def draw_rows(series, title: str, out: files.Output) -> None:
    plt, fig, ax = _figure()
    for s, c in zip(series, _colors(len(series)), strict=True):
        ax.step(s.x, s.y, where="post", label=s.label, color=c, linewidth=1.4)
    ax.set_xlabel("tick (1 tick = 1 step of the world)")
    ax.set_ylabel("memory rows (count)")
    ax.set_title(f"{title}: memory rows per villager")
    ax.grid(alpha=0.3)
    if series:
        ax.legend(fontsize=7 if len(series) > 8 else 9, ncol=1 + len(series) // 12,
                  loc="upper left", frameon=False)
    _save(plt, fig, out)


def draw_strengths(villagers, title: str, out: files.Output, ticks_per_day: int) -> None:
    """Felt-now curves; one villager's rows each in its own colour, several villagers' by villager."""
    plt, fig, ax = _figure()
    one = len(villagers) == 1
    shown = [(v, c) for v in villagers for c in v.curves]
    cols = _colors(len(shown) if one else len(villagers))
    ends = set()
    for i, v in enumerate(villagers):
        for k, c in enumerate(v.curves):
            col = cols[k] if one else cols[i]
            label = (f"[{c.id}] {c.kind}: {_short(c.text)}" if one else
                     v.name if k == 0 else None)
            ax.plot(c.x, [y / 1000 for y in c.y], color=col, linewidth=1.5 if one else 1.2,
                    alpha=1.0 if one else 0.9 - 0.1 * min(k, 4), label=label,
                    linestyle=_dash(k) if one else "-")
            if c.end is not None:
                ends.add(c.end)
                ax.plot([c.x[-1]], [c.y[-1] / 1000], linestyle="none", color=col,
                        marker="x" if c.end == "forgotten" else "o", markersize=7,
                        markerfacecolor="none")
    last = max((c.x[-1] for _, c in shown), default=0)
    for night in Calendar(ticks_per_day).nights_up_to(last):
        ax.axvline(night, color="0.55", linewidth=0.7, linestyle=":")
    ax.set_xlabel(f"tick (1 tick = 1 step of the world; dotted: a night, every {ticks_per_day} "
                  f"ticks)")
    ax.set_ylabel("felt strength now (0 to 1; 1 = 1000 thousandths)")
    ax.set_ylim(0, 1.02)
    ax.set_xlim(0, max(1, last))
    n = max((len(v.curves) for v in villagers), default=0)
    who = villagers[0].name if one else "each villager"
    ax.set_title(f"{title}: felt strength of {who}'s {n} strongest rows")
    ax.grid(alpha=0.3)
    marks = [f"{'x' if e == 'forgotten' else 'o'}: {e}" for e in sorted(ends)]
    if shown:
        ax.legend(fontsize=8 if one or len(villagers) > 8 else 9, loc="upper right", frameon=False,
                  title="; ".join(marks) or None, title_fontsize=7,
                  ncol=1 if one else 1 + len(villagers) // 12)
    else:
        ax.text(0.5, 0.5, "no row was felt in this run", ha="center", va="center",
                transform=ax.transAxes, color="0.4")
    _save(plt, fig, out)


def _dash(rank: int):
    """The report's dash for a row of this rank, so a line lying on another still shows."""
    from kernel.report.html import ROW_DASHES
    d = ROW_DASHES[rank % len(ROW_DASHES)]
    return "-" if not d else (0, tuple(int(x) / 1.5 for x in d.split()))


def _short(text: str, n: int = 48) -> str:
    return text if len(text) <= n else text[:n - 1] + "\u2026"


def draw_cost(calls, title: str, out: files.Output) -> None:
    plt, fig, ax = _figure()
    models = sorted({c.model for c in calls})
    col = dict(zip(models, _colors(len(models)), strict=True))
    for m in models:
        mine = [c for c in calls if c.model == m]
        ax.bar([c.n for c in mine], [c.seconds for c in mine], color=col[m], label=m, width=0.8)
    ax.set_xlabel("call (in the order made)")
    ax.set_ylabel("time taken (seconds)")
    ax.set_title(f"{title}: model time per call, from the recording")
    ax.grid(axis="y", alpha=0.3)
    if models:
        ax.legend(frameon=False)
    _save(plt, fig, out)


def draw_refusals(by_check, title: str, out: files.Output) -> None:
    plt, fig, ax = _figure()
    checks = list(by_check)
    purposes = sorted({p for c in by_check.values() for p in c})
    bottom = [0] * len(checks)
    for p, c in zip(purposes, _colors(len(purposes)), strict=True):
        h = [by_check[k].get(p, 0) for k in checks]
        ax.bar(checks, h, bottom=bottom, label=f"{p} calls", color=c)
        bottom = [a + b for a, b in zip(bottom, h, strict=True)]
    ax.set_xlabel("the check that refused")
    ax.set_ylabel("refusals (count)")
    ax.set_title(f"{title}: refusals by check")
    ax.grid(axis="y", alpha=0.3)
    if not checks:
        ax.text(0.5, 0.5, "nothing was refused in this run", ha="center", va="center",
                transform=ax.transAxes, color="0.4")
        ax.set_xticks([])
    else:
        ax.legend(frameon=False)
    ax.yaxis.get_major_locator().set_params(integer=True)
    _save(plt, fig, out)


def draw_basins(villagers, title: str, out: files.Output, ticks_per_day: int, last: int) -> None:
    """A panel a villager (at most PANELS), a line a basin: its weight, held between nights."""
    import math

    plt, fig, _ = _figure()
    fig.clf()
    shown = villagers[:PANELS]
    cols = 1 if len(shown) == 1 else 2 if len(shown) <= 4 else 3
    rows = math.ceil(len(shown) / cols)
    axes = fig.subplots(rows, cols, sharex=True, sharey=True, squeeze=False).ravel()
    for ax, v in zip(axes, shown, strict=False):
        for b, c in zip(v.lines, _colors(len(v.lines)), strict=True):
            xs, ys = list(b.x) + [max(last, b.x[-1])], list(b.y) + [b.y[-1]]
            ax.step(xs, ys, where="post", color=c, linewidth=1.4, label=_short(b.label, 24))
            ax.plot(b.x, b.y, linestyle="none", marker="o", markersize=3, color=c)
        for night in Calendar(ticks_per_day).nights_up_to(last):
            ax.axvline(night, color="0.55", linewidth=0.7, linestyle=":")
        ax.axhline(0.4, color="0.4", linewidth=0.6, linestyle="--")
        ax.set_title(v.name, fontsize=10)
        ax.set_ylim(0, 1.02)
        ax.set_xlim(0, max(1, last) * 1.04)     # room past the last night, to see it move
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower left", frameon=False, ncol=2)
    for ax in axes[len(shown):]:
        ax.set_visible(False)
    fig.supxlabel(f"tick (1 tick = 1 step of the world; dotted: a night, every {ticks_per_day} "
                  f"ticks)", fontsize=9)
    fig.supylabel("basin weight (0 to 1; dashed: 0.4, above it active)", fontsize=9)
    more = (f" ({len(shown)} of {len(villagers)} villagers; --who NAME for another)"
            if len(villagers) > len(shown) else "")
    fig.suptitle(f"{title}: basin weights over the nights{more}", fontsize=11)
    _save(plt, fig, out)


def _save(plt, fig, out: files.Output) -> None:
    """Draw the figure into a temporary file beside its path and rename it there, so a
    failed write (a full disk) leaves the PNG that was there, or none, and no empty file."""
    fig.tight_layout()
    try:
        with out.replacing() as tmp:
            fig.savefig(tmp, format="png", dpi=DPI)
    finally:
        plt.close(fig)


def _output(run: str, out: str, exemplars: str | None) -> files.Output:
    """Where the figure goes, checked before anything is read: a PNG may be replaced, never
    the run's log, its recording or its index (each an input of the figure) nor any other file."""
    index = Path(run).with_suffix(".duckdb") if Path(run).name else None
    o = files.Output(Path(out), files.Words("figure"), kind=files.PNG,
                     inputs=(run, exemplars, index))
    o.check()
    return o


@click.command("plot", context_settings=CONTEXT)
@click.argument("run")
@click.option("--what", type=click.Choice(WHAT), required=True, help="The figure to draw.")
@click.option("--out", type=click.Path(), required=True, help="The PNG to write.")
@click.option("--exemplars", type=click.Path(dir_okay=False), default=None,
              help="The run's recording, for --what cost [default: a scenario's own].")
@click.option("--who", default=None, metavar="NAME",
              help="For --what strengths: one villager's rows; for --what basins, its basins "
                   "[default: every villager's].")
@click.option("--top", type=int, default=None, metavar="N",
              help="For --what strengths: the strongest N rows a villager "
                   f"[default: {TOP_ONE} with --who, {TOP_ALL} without].")
def plot_cmd(run: str, what: str, out: str, exemplars: str | None, who: str | None,
             top: int | None) -> None:
    """Draw one figure of RUN (a log, or a scenario, which is replayed first) as a PNG.

    rows: memory rows per villager over ticks. cost: the time each model call
    took, from the recording. refusals: refusals by the check that made them.
    strengths: felt strength over ticks of each villager's strongest rows (the
    largest area under felt-now), which needs a run under felt memory.
    basins: each villager's basin weights over the nights, a panel a villager
    (at most six), which needs a run whose villagers hold basins.
    """
    from kernel.report import plots

    o = _output(run, out, exemplars)
    path = o.path
    title = Path(run).name
    if what == "cost" and exemplars is not None:
        calls = plots.cost(plots.recording_of(None, exemplars))
        draw_cost(calls, title, o)
        click.echo(f"{path}: model time of {len(calls)} calls")
        return
    r = plots.run_of(run)
    if what == "rows":
        series = plots.rows(r)
        draw_rows(series, title, o)
        click.echo(f"{path}: memory rows of {len(series)} villagers")
    elif what == "strengths":
        got = plots.strengths(r, top=(TOP_ONE if who else TOP_ALL) if top is None else top,
                             who=who)
        draw_strengths(got, title, o, r.scenario.world.ticks_per_day)
        whose = got[0].name if len(got) == 1 else f"{len(got)} villagers"
        click.echo(f"{path}: felt strength of {sum(len(v.curves) for v in got)} rows of "
                   f"{whose}")
    elif what == "basins":
        _draw_basins(r, title, o, who)
    elif what == "cost":
        calls = plots.cost(plots.recording_of(r, None))
        draw_cost(calls, title, o)
        click.echo(f"{path}: model time of {len(calls)} calls")
    else:
        by = plots.refusals(r)
        draw_refusals(by, title, o)
        click.echo(f"{path}: {sum(sum(c.values()) for c in by.values())} refusals by "
                   f"{len(by)} checks")


def _draw_basins(r, title: str, o: files.Output, who: str | None) -> None:
    from kernel.errors import VillageError
    from kernel.report import plots

    got = plots.basins(r)
    if who is not None:
        mine = [v for v in got if v.name.lower() == who.lower()]
        if not mine:
            raise VillageError(f"--who names a villager who holds basins, and {who!r} is none "
                               f"of {', '.join(v.name for v in got)}")
        got = tuple(mine)
    tpd = r.scenario.world.ticks_per_day if r.scenario is not None else DAY
    last = max(max(b.x[-1] for b in v.lines) for v in got)
    if r.log is None:              # a scenario's replay runs to its last tick
        last = max(last, r.scenario.ticks - 1)
    draw_basins(got, title, o, tpd, last)
    nights = sum(len(v.nights) for v in got)
    whose = got[0].name if len(got) == 1 else f"{len(got)} villagers"
    click.echo(f"{o.path}: {sum(len(v.lines) for v in got)} basins of {whose} over "
               f"{nights} nights")


COMMANDS = (plot_cmd,)
