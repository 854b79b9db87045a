"""The seam's rules on a statement's own words: it must say something, and not say a memory back.

This module owns `plain` (the form two texts are compared in), `restates`
(which shown memory, if any, a statement only repeats), `wordless` (too
few words to be a statement), `judge_statement`, which gives the first
refusal of the two with its reason, and `repeated` (the first question of
a list that is another one again, so a round never asks a statement for
the same question twice). A thought is the model making something
of its memories; a line copied from the prompt, or a bare number, is
neither, and is refused whole like any other refusal. This module must not
call a model, read the log or know where the shown memories came from: the
round that rendered the prompt hands in exactly the memories it showed.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kernel.laws._errors import LawError, integer
from kernel.laws.memory import Memory

NOT_A_STATEMENT = "not a statement"
MIN_WORDS = 2
MIN_LETTERS = 2


def _text(name: str, value: object) -> str:
    if not isinstance(value, str):
        raise LawError(f"Expected text but got {name}={value!r}")
    return value


def _fold(text: str) -> str:
    # NFKC before casefolding makes compatibility forms (full-width letters,
    # ligatures) one letter; NFKC after it recomposes what casefolding took
    # apart, so the result is in the same normal form as its input.
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def _unpunctuated(text: str) -> str:
    kept = "".join(ch for ch in text if not unicodedata.category(ch).startswith("P"))
    return " ".join(kept.split())


def plain(text: str) -> str:
    """`text` as the seam compares it: NFKC, casefolded, Unicode punctuation dropped, spaces collapsed.

    "Ander handed Halla 26 parcels, 13.0 grams." and "ander handed HALLA 26
    parcels 130 grams" are one text here. Folding runs until nothing
    changes, because dropping a mark of punctuation can bring two
    characters together that normalise anew; so `plain(plain(t)) == plain(t)`.
    """
    text = _text("text", text)
    while True:
        folded = _unpunctuated(_fold(text))
        if folded == text:
            return folded
        text = folded


def _shown(shown: object) -> list[tuple[int, str]]:
    if isinstance(shown, Mapping):
        pairs = list(shown.items())
    elif isinstance(shown, str | bytes) or not isinstance(shown, Iterable):
        raise LawError(f"Expected the shown memories as rows or an id-to-text map but got shown={shown!r:.80}")
    else:
        pairs = []
        for m in shown:
            if not isinstance(m, Memory):
                raise LawError(f"Expected the shown memories as rows of Memory but got a row {m!r:.80}")
            pairs.append((m.id, m.text))
    out = []
    for i, t in pairs:
        out.append((integer("a shown memory id", i, at_least=0), _text(f"the text of memory {i}", t)))
    return out


def restates(statement: str, shown: Mapping[int, str] | Iterable[Memory]) -> int | None:
    """The id of a shown memory whose text the statement only repeats, else None.

    `shown` is every memory the statement's prompt showed (cited or not), as
    rows or as a map from id to text. Texts are compared as `plain` gives
    them. When several shown memories have that text, the lowest id is
    named, so the answer does not depend on the order they were shown in.
    """
    said = plain(_text("statement", statement))
    same = [i for i, t in _shown(shown) if plain(t) == said]
    return min(same) if same else None


def restatement(memory: int) -> str:
    """The refusal's reason for a statement that restates `memory`."""
    return f"a restatement of memory {integer('memory', memory, at_least=0)}, not a thought"


def words(statement: str) -> tuple[str, ...]:
    """The words of a statement that count: its spaced words holding at least `MIN_LETTERS` letters.

    A word is what spaces separate (after NFKC); a letter is a Unicode
    letter. So "I'm" and "Ander's" are words, and "13.0", "9,3", "127" and
    "}" are not, whatever stands beside them.
    """
    text = unicodedata.normalize("NFKC", _text("statement", statement))
    return tuple(w for w in text.split()
                 if sum(unicodedata.category(ch).startswith("L") for ch in w) >= MIN_LETTERS)


def wordless(statement: str) -> bool:
    """Whether a statement has fewer than `MIN_WORDS` words of at least `MIN_LETTERS` letters."""
    return len(words(statement)) < MIN_WORDS


@dataclass(frozen=True, slots=True)
class StatementRefusal:
    """Why the seam refuses a statement's text: `check` is "wordless" or "restates", or
    "ungrounded" (kernel.laws.grounded: a name or a claim no cited line holds)."""

    check: str
    reason: str
    memory: int | None = None


def judge_statement(statement: str, shown: Mapping[int, str] | Iterable[Memory]) -> StatementRefusal | None:
    """The first rule a statement's text breaks, or None when it may stand.

    A wordless statement is refused before it is compared with the shown
    memories: "127" is not a statement whatever the prompt showed.
    """
    if wordless(statement):
        return StatementRefusal("wordless", NOT_A_STATEMENT)
    n = restates(statement, shown)
    if n is not None:
        return StatementRefusal("restates", restatement(n), n)
    return None


def repeated(texts: Iterable[str]) -> tuple[int, int] | None:
    """The first pair (i, j), i < j, of texts that are one text as `plain` compares them, else None.

    The questions schema asks for distinct items, which JSON compares byte
    for byte: "What did Halla eat?" and "what did Halla eat" pass it, and
    would fetch the same memories for the same statement. Here they are one
    question. "First" is the smallest j, then its earliest i.
    """
    if isinstance(texts, str | bytes) or not isinstance(texts, Iterable):
        raise LawError(f"Expected a list of texts but got texts={texts!r:.80}")
    seen: dict[str, int] = {}
    for j, t in enumerate(texts):
        p = plain(_text(f"texts[{j}]", t))
        if p in seen:
            return seen[p], j
        seen[p] = j
    return None


def repetition(first: int, again: int) -> str:
    """The refusal's reason for a list whose item `again` repeats item `first` (both counted from 0)."""
    first = integer("first", first, at_least=0)
    again = integer("again", again, at_least=first + 1)
    return f"question {again + 1} repeats question {first + 1}"
