"""The answer shapes of a night's interests and plan: the attractor update, a keyword
consolidation and a plan for tomorrow, as the JSON Schema bytes their calls send.

Each shape has two forms, as the night's consolidation plan has. Built from what an ask shows
(the basins' labels, the villagers met, the cells remembered), it is the request: a label or a
name is an `enum` of those shown, a delta one of a few steps, a plan's intention one of the
closed set of acts with its own parameter, so a grammar cannot name what the villager does not
know. Without them it is the seam's check of the same shape and bounds, with any text where
the request had an `enum` and any number where it had steps: whether a basin exists, a delta
is in bounds or a villager was met is judged by code (kernel.mind.basins, kernel.mind.intend),
item by item, never here and never in a template. The bytes are canonical, as every schema's
are, because their sha256 goes into every recording.
"""

from __future__ import annotations

from typing import Any

from kernel.seam.errors import SeamError
from kernel.seam.schemas import _bytes

BASINS_UPDATE = "basins-update.tmpl"
"""The template of a night's attractor update call."""
BASINS_KEYWORDS = "basins-keywords.tmpl"
"""The template of a keyword consolidation call."""
BASINS_VIEW = "basins-view.tmpl"
"""The template that renders a villager's basins for the prompts that show them."""
PLAN = "plan-tomorrow.tmpl"
"""The template of a night's plan for tomorrow."""

ACTS = ("seek", "avoid", "share", "forage", "home")
"""The closed set of intentions: seek a villager, keep away from one, share food with one,
forage at a cell remembered, stay close to home."""
WHOM_ACTS = ("seek", "avoid", "share")
"""The acts that name a villager."""
CELL_ACTS = ("forage",)
"""The acts that name a cell."""

STEPS = (-0.2, -0.1, 0.1, 0.2)
"""The deltas a request offers: a little or much, toward or away. The seam reads any number
and the law clamps it; a basin the day did not touch is left out, not given 0."""
LABEL_CHARS = 24
WORD_PATTERN = "^[a-z]{3,14}$"
KEYWORDS_ADDED = 3
PATTERNS = 5
KEYWORDS_KEPT = 5
LINKS = 2
NEW_LABEL_PATTERN = "^[A-Z][a-z]{2,11}( [a-z]{2,11}){0,2}$"


def _words(most: int, least: int = 0) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string", "pattern": WORD_PATTERN},
            "minItems": least, "maxItems": most, "uniqueItems": True}


def _texts(most: int, chars: int) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": chars},
            "maxItems": most}


def _labels(labels: object) -> list[str]:
    if isinstance(labels, str | bytes) or not hasattr(labels, "__iter__"):
        raise SeamError(f"Expected the basins' labels an update shows but got {labels!r:.80}")
    out = list(dict.fromkeys(labels))
    if not out or not all(isinstance(x, str) and x for x in out):
        raise SeamError(f"an update's schema needs at least one basin label, got {labels!r:.80}")
    return out


def update_schema(labels: object = None) -> bytes:
    """The attractor update: `{"updates": [{"basin", "delta", "add", "remove"}], "new": null or
    {"label", "keywords"}, "links": [[basin, basin]], "patterns": [...], "shift": bool}`.

    Given `labels` (the basins the ask shows), the request: each basin one of them, each
    delta one of STEPS, at most one update a basin, keywords lower-case words. Without, the
    check: any text, any number, the same bounds on counts."""
    if labels is None:
        basin: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": 64}
        delta: dict[str, Any] = {"type": "number"}
        most = 64
        new_label: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": 64}
        added, removed = _texts(16, 64), _texts(16, 64)
        born = _texts(16, 64)
    else:
        names = _labels(labels)
        basin = {"enum": names}
        delta = {"enum": list(STEPS)}
        most = len(names)
        new_label = {"type": "string", "pattern": NEW_LABEL_PATTERN, "maxLength": LABEL_CHARS}
        added, removed = _words(KEYWORDS_ADDED), _words(KEYWORDS_ADDED)
        born = _words(KEYWORDS_ADDED)
    update = {"type": "object",
              "properties": {"basin": basin, "delta": delta, "add": added, "remove": removed},
              "required": ["basin", "delta", "add", "remove"], "additionalProperties": False}
    new = {"anyOf": [{"type": "null"},
                     {"type": "object", "properties": {"label": new_label, "keywords": born},
                      "required": ["label", "keywords"], "additionalProperties": False}]}
    link = {"type": "array", "items": basin, "minItems": 2, "maxItems": 2}
    return _bytes({
        "type": "object",
        "properties": {
            "updates": {"type": "array", "items": update, "maxItems": most},
            "new": new,
            "links": {"type": "array", "items": link, "maxItems": LINKS if labels else 64},
            "patterns": _texts(PATTERNS, LABEL_CHARS) if labels else _texts(16, 64),
            "shift": {"type": "boolean"},
        },
        "required": ["updates", "new", "links", "patterns", "shift"],
        "additionalProperties": False,
    })


def keywords_schema(request: bool = False) -> bytes:
    """A keyword consolidation: `{"keywords": [1..KEYWORDS_KEPT words]}`; as the request,
    lower-case words each once; as the check, any short texts (the law keeps the first
    KEYWORDS_KEPT, each once ignoring case)."""
    words = _words(KEYWORDS_KEPT, 1) if request else {**_texts(16, 64), "minItems": 1}
    return _bytes({"type": "object", "properties": {"keywords": words},
                   "required": ["keywords"], "additionalProperties": False})


def plan_schema(most: int, people: object = None, cells: object = None) -> bytes:
    """A plan for tomorrow: `{"plan": [{"do": act, ...}]}` with 1..`most` intentions.

    Given `people` (names of villagers met) and `cells` ("x,y" of cells remembered), the
    request: each intention one branch of the acts its parameters allow (seek, avoid and share
    only where someone was met, forage only where a cell is remembered), its parameter an
    `enum` of those shown. Without them, the check: an act of ACTS and any `who` or `at` text;
    whether the act fits its parameter and names the known is judged by kernel.mind.intend."""
    if not isinstance(most, int) or isinstance(most, bool) or most < 1:
        raise SeamError(f"Expected a count of intentions >= 1 but got most={most!r}")
    if people is None and cells is None:
        item: dict[str, Any] = {
            "type": "object",
            "properties": {"do": {"enum": list(ACTS)},
                           "who": {"type": "string", "maxLength": 64},
                           "at": {"type": "string", "maxLength": 16}},
            "required": ["do"], "additionalProperties": False}
        least = 0
    else:
        names = list(dict.fromkeys(people or ()))
        places = list(dict.fromkeys(cells or ()))
        branches: list[dict[str, Any]] = []
        for act in ACTS:
            if act in WHOM_ACTS:
                if names:
                    branches.append(_act(act, "who", {"enum": names}))
            elif act in CELL_ACTS:
                if places:
                    branches.append(_act(act, "at", {"enum": places}))
            else:
                branches.append(_act(act))
        item = branches[0] if len(branches) == 1 else {"anyOf": branches}
        least = 1
    return _bytes({
        "type": "object",
        "properties": {"plan": {"type": "array", "items": item, "minItems": least,
                                "maxItems": most}},
        "required": ["plan"],
        "additionalProperties": False,
    })


def _act(act: str, key: str | None = None, value: dict[str, Any] | None = None) -> dict:
    props: dict[str, Any] = {"do": {"const": act}}
    if key is not None:
        props[key] = value
    return {"type": "object", "properties": props, "required": list(props),
            "additionalProperties": False}
