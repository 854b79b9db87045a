"""What a written or recurring thought does to felt memory (EmoStack rows 69, 70, 75, 76).

A thought written cites rows; each cited row whose valence agrees in sign
with the thought's (their product >= 0) is re-felt: first its fallen
strength is written (fading to now), then it closes `closing` of the gap
toward the thought's intensity, never past it, and a stronger row keeps
its strength; its last felt becomes now either way (`Refelt`). A statement
whose vector is within the recurrence cosine of one of the villager's
thoughts is that thought recurring (`recurrence`): nothing is written, and
the thought is restored toward the statement's intensity by the same law
(`Recurred`).

This module owns those two steps. Each changes the felt book it is handed
(a round's scratch copy) and returns the events to append; it must not
call a model or write the log. The round (kernel.mind.reflect) decides the
order and hands in the vectors.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from kernel import events as ev
from kernel import laws
from kernel.laws import felt as lf
from kernel.mind.felt import FeltBook


def refeel(book: FeltBook, thought: laws.Memory, now: int) -> list[ev.Refelt]:
    """Bear the thought `thought` in `book` and re-feel the rows it cites, in ascending order."""
    t = book.born(thought)
    out: list[ev.Refelt] = []
    for c in thought.drawn_from:
        r = book.rows[c]
        if not lf.agree(r.valence, t.valence):
            continue
        fallen = book.felt_now(r, now)
        e = ev.Refelt(villager=thought.villager, id=c, by=thought.id, fallen=fallen,
                      stored=lf.reconsolidate(fallen, t.intensity, book.laws))
        book.felt(now, (e,))
        out.append(e)
    return out


def recurrence(vector: np.ndarray, thoughts: Iterable[int], vectors: Mapping[int, np.ndarray],
               at_least: float = lf.LAWS.recurrence) -> tuple[int, float] | None:
    """The thought `vector` recurs as: the highest cosine at or above `at_least` among
    `thoughts` (ids with vectors in `vectors`), the lowest id among equals; None if none."""
    best: tuple[int, float] | None = None
    for i in sorted(thoughts):
        c = laws.cosine(vector, vectors[i])
        if c >= at_least and (best is None or c > best[1]):
            best = (i, c)
    return best


def recur(book: FeltBook, villager: int, thought: int, index: int, text: str, weight: int,
          now: int) -> ev.Recurred:
    """The earlier thought `thought` restored toward a recurring statement of `weight`."""
    r = book.rows[thought]
    fallen = book.felt_now(r, now)
    pull = lf.intensity(weight)
    t = book.temperaments.get(villager)
    if t is not None:       # a reflection step is felt through the villager's temperament
        pull = lf.bent_strength(pull, t.intensity_amplification)
    e = ev.Recurred(villager=villager, id=thought, index=index, text=text, fallen=fallen,
                    stored=lf.reconsolidate(fallen, pull, book.laws))
    book.felt(now, (e,))
    return e
