"""The answer shapes of a night's basins and plans: the basins update, a keyword
consolidation and the plans for tomorrow, as the JSON Schema bytes their calls send.

Each shape has two forms, as the night's consolidation plan has. Built from what an ask shows
(the basins' labels, the villagers met, the cells remembered), it is the request: a label or a
name is an `enum` of those shown, a delta one of a few steps, each plan one of the
closed set of acts with its own parameter, so a grammar cannot name what the villager does not
know. Without them it is the seam's check of the same shape and bounds, with any text where
the request had an `enum` and any number where it had steps: whether a basin exists, a delta
is in bounds or a villager was met is judged by code (kernel.mind.basins, kernel.mind.plans),
item by item, never here and never in a template. The bytes are canonical, as every schema's
are, because their sha256 goes into every recording.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kernel.seam.errors import SeamError
from kernel.seam.schemas import canonical

BASINS_UPDATE = "basins-update.tmpl"
"""The template of a night's basins update call."""
BASINS_KEYWORDS = "basins-keywords.tmpl"
"""The template of a keyword consolidation call."""
BASINS_VIEW = "basins-view.tmpl"
"""The template that renders a villager's basins for the prompts that show them."""
PLAN = "plan-tomorrow.tmpl"
"""The template of a night's plan for tomorrow."""

ACTS = ("seek", "avoid", "share", "forage", "home")
"""The closed set of acts a plan takes: seek a villager, keep away from one, share food with one,
forage at a cell remembered, stay close to home."""
WHOM_ACTS = ("seek", "avoid", "share")
"""The acts that name a villager."""
CELL_ACTS = ("forage",)
"""The acts that name a cell."""

STEPS = (-0.2, -0.1, 0.1, 0.2)
"""The deltas a request offers: a little or much, toward or away. The seam reads any number
and the law clamps it; a basin the day did not touch is left out, not given 0."""
WORD_PATTERN = "^[a-z]{3,14}$"
KEYWORDS_ADDED = 2
PATTERNS = 5
KEYWORDS_KEPT = 5
LINKS = 1


def _words(most: int, least: int = 0) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string", "pattern": WORD_PATTERN},
            "minItems": least, "maxItems": most, "uniqueItems": True}


def _texts(most: int, chars: int) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": chars},
            "maxItems": most}


LIFE = ("as before", "turned around")
"""How an update says whether the day shifted the villager's phase: in words, the first "no"."""
NO_NEW = "none"
"""What an update says where it names no new basin (no label is lower-case: a label is a name
or a word of the day's, capitalised)."""
WORDS = 24
"""The most of the day's words an update request offers as keywords."""


def update_schema(basins: object = None, words: object = (), names: object = ()) -> bytes:
    """The basins update: `{"life": one of LIFE, "updates": [{"basin", "delta", "add",
    "remove"}], "patterns": [...], "links": [[basin, basin]], "new": NO_NEW or a label}`.

    Given `basins` (each basin the ask shows as (label, its keywords)), the request: at least
    one update, each one branch a basin with that basin's label, a delta one of STEPS,
    keywords added among `words` (the day's words) and removed among the basin's own; a link
    one pair of two basins; a new basin NO_NEW or one of `names` (whom else the day held).
    Without, the check: any text where the request had an `enum`, any number for a delta, and
    bounds on counts; what a label or a keyword names is judged by kernel.mind.basins."""
    if basins is None:
        text: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": 64}
        listed = {"type": "array", "items": text, "maxItems": 16}
        update: dict[str, Any] = {
            "type": "object",
            "properties": {"basin": text, "delta": {"type": "number"}, "add": listed,
                           "remove": listed},
            "required": ["basin", "delta", "add", "remove"], "additionalProperties": False}
        return _update(update, 0, 64, listed | {"maxItems": PATTERNS},
                       {"type": "array", "items": {"type": "array", "items": text,
                                                   "minItems": 2, "maxItems": 2},
                        "maxItems": 64}, text)
    shown = _basins(basins)
    labels = [label for label, _ in shown]
    offered = list(dict.fromkeys([words] if isinstance(words, str) else words))[:WORDS]
    branches = [_moved(label, offered, kept) for label, kept in shown]
    pairs = [[a, b] for i, a in enumerate(labels) for b in labels[i + 1:]]
    links = ({"type": "array", "items": {"enum": pairs}, "maxItems": LINKS} if pairs
             else {"const": []})
    patterns = ({"type": "array", "items": {"enum": offered}, "maxItems": 2,
                 "uniqueItems": True} if offered else {"const": []})
    new = {"enum": [NO_NEW, *dict.fromkeys(n for n in names if n not in labels)]}
    return _update(branches[0] if len(branches) == 1 else {"anyOf": branches}, 1, len(labels),
                   patterns, links, new)


def _moved(label: str, words: list[str], kept: Sequence[str]) -> dict[str, Any]:
    """One basin's branch of an update request: its label, a step, words to add and remove."""
    add = ({"type": "array", "items": {"enum": words}, "minItems": 1,
            "maxItems": KEYWORDS_ADDED, "uniqueItems": True} if words
           else {"const": []})
    remove = ({"type": "array", "items": {"enum": list(kept)}, "maxItems": KEYWORDS_ADDED,
               "uniqueItems": True} if kept else {"const": []})
    return {"type": "object",
            "properties": {"basin": {"const": label}, "delta": {"enum": list(STEPS)},
                           "add": add, "remove": remove},
            "required": ["basin", "delta", "add", "remove"], "additionalProperties": False}


def _update(update: dict, least: int, most: int, patterns: dict, links: dict,
            new: dict) -> bytes:
    return canonical({
        "type": "object",
        "properties": {
            "life": {"enum": list(LIFE)},
            "updates": {"type": "array", "items": update, "minItems": least, "maxItems": most},
            "patterns": patterns,
            "links": links,
            "new": new,
        },
        "required": ["life", "updates", "patterns", "links", "new"],
        "additionalProperties": False,
    })


def _basins(basins: object) -> list[tuple[str, tuple[str, ...]]]:
    if isinstance(basins, str | bytes) or not hasattr(basins, "__iter__"):
        raise SeamError(f"Expected the basins an update shows but got {basins!r:.80}")
    out: list[tuple[str, tuple[str, ...]]] = []
    for b in basins:
        label, kept = b
        if not isinstance(label, str) or not label:
            raise SeamError(f"Expected a basin's label but got {label!r:.80}")
        if label not in (x for x, _ in out):
            out.append((label, tuple(kept)))
    if not out:
        raise SeamError("an update's schema needs at least one basin, and none was shown")
    return out


def keywords_schema(request: bool = False) -> bytes:
    """A keyword consolidation: `{"keywords": [1..KEYWORDS_KEPT words]}`; as the request,
    lower-case words each once; as the check, any short texts (the law keeps the first
    KEYWORDS_KEPT, each once ignoring case)."""
    words = _words(KEYWORDS_KEPT, 1) if request else {**_texts(16, 64), "minItems": 1}
    return canonical({"type": "object", "properties": {"keywords": words},
                   "required": ["keywords"], "additionalProperties": False})


def plan_schema(most: int, people: object = None, cells: object = None) -> bytes:
    """Plans for tomorrow: `{"plan": [{"do": act, ...}]}` with 1..`most` plans.

    Given `people` (names of villagers met) and `cells` ("x,y" of cells remembered), the
    request: each plan one branch of the acts its parameters allow (seek, avoid and share
    only where someone was met, forage only where a cell is remembered), its parameter an
    `enum` of those shown. Without them, the check: an act of ACTS and any `who` or `at` text;
    whether the act fits its parameter and names the known is judged by kernel.mind.plans."""
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
    return canonical({
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
