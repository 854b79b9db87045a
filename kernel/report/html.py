"""The HTML report of a day: one self-contained page from a `Day`, through the shipped templates.

The templates live in kernel/report/templates/ and ship in the wheel as
package data. The page holds its CSS, its SVG and one small script (the
map's slider) inline, and fetches nothing. This module renders; what the
page shows is computed in kernel.report.day.
"""

from __future__ import annotations

import jinja2

from kernel.mind.night import FEWEST_FELT
from kernel.report.day import Day


def color(i: int) -> str:
    """The i-th villager's colour: hues a golden angle apart, so neighbours never look alike."""
    return f"hsl({(i * 137.508) % 360:.1f}, 62%, {40 + (i % 3) * 6}%)"


ROW_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
              "#7f7f7f", "#bcbd22", "#17becf")
"""A villager's rows in its felt-strength figure: ten colours far apart, in rank order."""
ROW_DASHES = ("", "9 4", "3 3", "12 3 3 3", "6 2")
"""And a dash each, so that a line lying on another (two rows felt alike) still shows."""


def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("kernel.report", "templates"),
        autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
        undefined=jinja2.StrictUndefined, trim_blocks=False, lstrip_blocks=False,
        keep_trailing_newline=True)


def render(d: Day) -> str:
    """The page, as text."""
    m = d.map
    script_data = {
        "trails": [[list(p) for p in t.points] for t in m.trails],
        "food": [[tick, list(g)] for tick, g in m.food],
        "foodMax": m.food_max_grams or 0,
    }
    return _env().get_template("day.html.j2").render(
        d=d, h=d.header, color=color, row_colors=ROW_COLORS, row_dashes=ROW_DASHES, script_data=script_data,
        person_index={p.id: i for i, p in enumerate(d.header.people)},
        max_took=max((c.took_s for c in d.calls), default=0) or 1, fading=_fading(),
        fewest_felt=FEWEST_FELT, minds_rules=_minds_rules())


def _fading() -> dict[str, str]:
    """The fading law's numbers as the felt section's note says them, from the law itself."""
    from kernel.laws.felt import LAWS

    return {"floor": f"{LAWS.floor / 1000:g}", "days": f"{LAWS.tau_days}",
            "bad": f"{LAWS.negative_factor / 1000:g}"}


def _minds_rules() -> dict[str, str]:
    """The measure of the minds' thresholds as the section's note says them, from the law itself."""
    from kernel.laws import minds as lm

    return {"loop_times": f"{lm.LOOP_TIMES}", "digits": f"{100 * lm.DIGIT_SHARE:g}",
            "parrot": f"{lm.PARROT_RUN}", "edit": f"{100 * lm.NEAR_EDIT:g}",
            "cosine": f"{lm.NEAR_COSINE:g}", "sentence_words": f"{lm.SENTENCE_WORDS}",
            "copy_edit": f"{100 * lm.COPY_EDIT:g}", "run_piece": f"{lm.RUN_PIECE}",
            "run_pieces": f"{lm.RUN_PIECES}"}
