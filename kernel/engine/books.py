"""The books the engine folds beside memory and its vectors, each where its feature is on:
one value the engine holds, where it once held each book as an attribute of its own.

Which books a run keeps is the engine's to decide (kernel.engine.run: felt memory where the
importance table has valences, basins where the thought settings have an attractor block,
talk and bonds where a talk block); this module only names them.
"""

from __future__ import annotations

from dataclasses import dataclass

from kernel.engine.felt import FeltProjection
from kernel.mind.basins import BasinBook
from kernel.mind.bonds import BondBook
from kernel.mind.intend import IntentBook
from kernel.mind.talk import TalkBook


@dataclass(slots=True)
class Books:
    """The engine's books: the felt book (`felt`), the plans the world carries out
    (`intents`, always kept), the standing interests (`basins`), who spoke to whom
    (`talks`) and the bonds talk leaves (`bonds`); None where the run has no such feature."""

    felt: FeltProjection | None
    intents: IntentBook
    basins: BasinBook | None = None
    talks: TalkBook | None = None
    bonds: BondBook | None = None
