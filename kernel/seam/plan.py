"""The night's answer shape: a consolidation plan, as the JSON Schema bytes its call sends.

`{"groups": [{"anchor": id, "absorbed": [ids]}]}` with at most `groups`
groups of at most `members` ids each: bounds on the answer's size, so a
grammar closes the list where a small model would run on. Given the ids a
night shows (`shown`), every anchor and member is an `enum` of them, so a
grammar cannot count past the shown rows; the same bytes are what the seam
checks the plan with. Whether an id was shown, is living, or may anchor is
still judged by code (kernel.mind.night), never here and never in the template. The bytes are canonical, as the
reflection's schemas are, because their sha256 goes into every recording.
"""

from __future__ import annotations

from kernel.seam.errors import SeamError
from kernel.seam.schemas import canonical, ids_of

NIGHT = "night-plan.tmpl"
"""The template the night's plan call renders."""


# How many rows a request asks each group to take in, where as many were shown: a night folds
# the several rows of one happening (a day's meals, a gift and its thanks) into one, where a
# small model left to itself names one pair a night. The seam's check still takes one.
FOLDED = 2

# How many groups a request asks for, where as many rows can anchor one: a night is asked only
# where one can, and a small model whose plan's fixed text is filled for it closes an empty
# list at once (`{"groups":[]}`). The seam's check still takes none.
GATHERED = 2


def plan_schema(groups: int, members: int, shown: object = None,
                anchors: object = None) -> bytes:
    """The plan answer: at most `groups` groups, each an anchor and 1..`members` absorbed ids
    (the request asks for at least GATHERED groups where as many anchors were given, and at
    least FOLDED ids a group, where as many others were shown).

    Given `shown`, it is the request a night's ask sends: every id one of the ids shown (an
    `enum`) and a group's members distinct, and every anchor one of `anchors` where that is
    given (the shown rows that can hold a group; all shown where it is None). Without it, it is the seam's check of the same
    shape and bounds: whether an id was shown, is living and is given once in its group is
    judged group by group by kernel.mind.night, so one bad group is refused by its own check
    and the others stand, whatever a server did with the request."""
    for name, n in (("groups", groups), ("members", members)):
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise SeamError(f"Expected a count of {name} >= 1 but got {name}={n!r}")
    if shown is None:
        return _plan(groups, members, {"type": "integer"}, {})
    ids = ids_of(shown, "a night's plan call")
    held = ids if anchors is None else ids_of(anchors, "a night's plan call's anchors")
    return _plan(groups, members, {"type": "integer", "enum": ids}, {"uniqueItems": True},
                 {"type": "integer", "enum": held}, fewest=min(FOLDED, members, len(ids) - 1),
                 least=min(GATHERED, groups, len(held)))


def _plan(groups: int, members: int, an_id: dict, unique: dict,
          anchor: dict | None = None, fewest: int = 1, least: int = 0) -> bytes:
    return canonical({
        "type": "object",
        "properties": {
            "groups": {
                "type": "array", "maxItems": groups, **({"minItems": least} if least else {}),
                "items": {
                    "type": "object",
                    "properties": {
                        "anchor": an_id if anchor is None else anchor,
                        "absorbed": {"type": "array", "items": an_id,
                                     "minItems": max(1, fewest), "maxItems": members,
                                     **unique},
                    },
                    "required": ["anchor", "absorbed"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["groups"],
        "additionalProperties": False,
    })
