"""The word list a reader's measure reads words against: loaded once, at the edge.

The list is the Debian package wamerican's (one word a line, its possessives among them), a
well-kept list of American English that any Debian machine installs by name. This module owns
reading it into the folded set the laws take (kernel.laws.minds: `folded`, `lexicon`); it
judges no word (the laws do) and writes nothing. A list that is missing is one line naming the
file and the package, never a traceback.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path

from kernel.errors import VillageError
from kernel.laws import minds as lm

LIST = Path("/usr/share/dict/american-english")
"""Where the package installs its list."""
PACKAGE = "wamerican"
"""The Debian package that installs it."""


@dataclass(frozen=True)
class Listed:
    """A word list read: its words, folded, and what it is (its file, package, size, sha256)."""

    words: frozenset[str]
    what: str


def missing(path: Path | None = None) -> str:
    """The one line a missing list is said in."""
    return (f"no word list at {path or LIST}: the reader's measures need it (install the Debian "
            f"package {PACKAGE}: apt-get install {PACKAGE})")


def load(path: Path | None = None) -> Listed:
    """The list at `path` (default: LIST), its words folded; a missing or unreadable list is a
    VillageError of one line naming the file and the package."""
    return _load(Path(path) if path is not None else LIST)


@functools.lru_cache(maxsize=4)
def _load(path: Path) -> Listed:
    try:
        data = Path(path).read_bytes()
    except OSError:
        raise VillageError(missing(path)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise VillageError(f"the word list {path} is not UTF-8 (byte {e.start}): reinstall the "
                           f"Debian package {PACKAGE}") from None
    entries = text.split()
    return Listed(words=frozenset(lm.folded(w) for w in entries),
                  what=f"{path} (Debian's {PACKAGE}, {len(entries):,} entries, sha256 "
                       f"{hashlib.sha256(data).hexdigest()[:16]})")


def listed(path: Path | None = None) -> tuple[Listed | None, str | None]:
    """The list, or None and the one line that says why not."""
    try:
        return load(path), None
    except VillageError as e:
        return None, str(e)
