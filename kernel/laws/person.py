"""The rule that turns a line a prompt speaks to its villager ("you ate plums in the orchard",
"Dorin took dozens of parcels out of your hands") into the villager's own words ("I ate plums
in the orchard", "Dorin took dozens of parcels out of my hands"), for a prompt in which the
villager speaks to someone else, whose "you" is that other.

Outside quotation marks, a line's first word "you" is "I" ("you were" is "I was"), every other
"you" is "me", "your" is "my", "yours" "mine" and "yourself" "myself", each keeping its capital.
Inside quotation marks nothing changes: there the words are whoever was quoted. Rows write
"you" as a subject only as their first word (kernel.laws.perception), so this is no parser
of English; a given row of a user's own words is read by the same rule.
"""

from __future__ import annotations

import re

from kernel.laws._errors import LawError

_OTHER = {"you": "me", "your": "my", "yours": "mine", "yourself": "myself"}
_WORD = re.compile(r"\b(you|your|yours|yourself)\b", re.IGNORECASE)


def _swap(m: re.Match[str]) -> str:
    word = m.group()
    mine = _OTHER[word.lower()]
    return mine[0].upper() + mine[1:] if word[0].isupper() else mine


def first_person(text: str) -> str:
    """`text` in its villager's own voice, by the rule above."""
    if not isinstance(text, str):
        raise LawError(f"Expected a line's text but got text={text!r:.80}")
    pieces = text.split('"')
    for i in range(0, len(pieces), 2):          # the even pieces stand outside quotation marks
        piece = pieces[i]
        if i == 0:
            piece = re.sub(r"^(you|You) were\b", "I was", piece)
            piece = re.sub(r"^(you|You)\b", "I", piece)
        pieces[i] = _WORD.sub(_swap, piece)
    return '"'.join(pieces)
