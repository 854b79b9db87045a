"""The night's answer shape: a consolidation plan, as the JSON Schema bytes its call sends.

`{"groups": [{"anchor": id, "absorbed": [ids]}]}` with at most `groups`
groups of at most `members` ids each: bounds on the answer's size, so a
grammar closes the list where a small model would run on. Whether an id
was shown, is living, or may anchor is judged by code (kernel.mind.night),
never here and never in the template. The bytes are canonical, as the
reflection's schemas are, because their sha256 goes into every recording.
"""

from __future__ import annotations

from kernel.seam.errors import SeamError
from kernel.seam.schemas import _bytes

NIGHT = "night-plan.tmpl"
"""The template the night's plan call renders."""


def plan_schema(groups: int, members: int) -> bytes:
    """The plan answer: at most `groups` groups, each an anchor and 1..`members` absorbed ids."""
    for name, n in (("groups", groups), ("members", members)):
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise SeamError(f"Expected a count of {name} >= 1 but got {name}={n!r}")
    return _bytes({
        "type": "object",
        "properties": {
            "groups": {
                "type": "array", "maxItems": groups,
                "items": {
                    "type": "object",
                    "properties": {
                        "anchor": {"type": "integer"},
                        "absorbed": {"type": "array", "items": {"type": "integer"},
                                     "minItems": 1, "maxItems": members},
                    },
                    "required": ["anchor", "absorbed"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["groups"],
        "additionalProperties": False,
    })
