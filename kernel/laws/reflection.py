"""The reflection cycle's laws: when a villager reflects, what it reads, and what the seam accepts.

This module owns `due` (and `next_due`), `recent`, `depth`, `cite` (with its `Verdict`) and
`reflected`: the pure rules that decide whether a model's statement becomes a
thought row and what that row is. It must not call a model, read the log or
write anything; the code that runs a reflection calls these and does the I/O.
Rows handed in are one villager's rows only, so a citation of another
villager's row is, from here, a citation of a row that does not exist.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kernel.laws._errors import LawError, integer, tick
from kernel.laws.memory import Memory, ThoughtWeight


def due(founded: int, now: int, every: int) -> bool:
    """Whether a villager founded at `founded` reflects at the boundary of tick `now`.

    Once every `every` ticks of its life, the founding tick counting as the
    first: founded at 901 with every 2000, the first reflection is at 2900.
    """
    founded = tick("founded", founded)
    now = tick("now", now)
    every = integer("every", every, at_least=1)
    lived = now - founded + 1
    return lived > 0 and lived % every == 0


def next_due(founded: int, now: int, every: int) -> int:
    """The first tick from `now` on at which `due(founded, tick, every)` holds.

    So a caller that asks at every tick can skip to it: founded at 901 with
    every 2000, from any tick up to 2900 it is 2900, and from 2901 it is 4900.
    """
    founded = tick("founded", founded)
    now = tick("now", now)
    every = integer("every", every, at_least=1)
    spans = max(1, -(-(now - founded + 1) // every))  # whole spans lived by then, at least one
    return founded - 1 + spans * every


def _ordered(rows: Iterable[Memory]) -> list[Memory]:
    try:
        return sorted(rows, key=lambda m: (m.tick, m.id))
    except AttributeError as e:
        raise LawError(f"Expected rows of Memory but got rows={rows!r}") from e


def recent(rows: Iterable[Memory], now: int, n: int) -> tuple[Memory, ...]:
    """The newest `n` rows at ticks up to `now`, in the order they were lived: by tick, then id."""
    now = tick("now", now)
    n = integer("n", n, at_least=0)
    have = _ordered(m for m in rows if m.tick <= now)
    # have[-0:] would be everything, so zero is said out loud
    return tuple(have[max(0, len(have) - n) :]) if n else ()


def _index(rows: Iterable[Memory]) -> dict[int, Memory]:
    by_id: dict[int, Memory] = {}
    villagers: set[int] = set()
    for m in rows:
        if not isinstance(m, Memory):
            raise LawError(f"Expected rows of Memory but got a row {m!r}")
        if m.id in by_id:
            raise LawError(f"Expected each row once but got memory {m.id} twice in rows")
        by_id[m.id] = m
        villagers.add(m.villager)
    if len(villagers) > 1:
        raise LawError(
            f"Expected one villager's rows but got rows of villagers {sorted(villagers)}"
        )
    return by_id


def _depth(by_id: Mapping[int, Memory], row: Memory, memo: dict[int, int]) -> int:
    # an explicit stack, not recursion: a chain of thoughts may be longer than
    # Python's recursion limit, and each row's depth is worked out once
    if not row.is_thought:
        return 0
    if row.id in memo:
        return memo[row.id]
    stack: list[tuple[Memory, bool]] = [(row, False)]
    open_: set[int] = set()
    while stack:
        m, sources_done = stack.pop()
        if m.id in memo:
            continue
        if sources_done:
            deepest = 0
            for i in m.drawn_from:
                source = by_id[i]
                deepest = max(deepest, memo[i] if source.is_thought else 0)
            memo[m.id] = 1 + deepest
            open_.discard(m.id)
            continue
        if m.id in open_:
            raise LawError(
                f"Expected thoughts drawn from earlier rows but memory {m.id} draws on itself"
            )
        open_.add(m.id)
        stack.append((m, True))
        for i in m.drawn_from:
            source = by_id.get(i)
            if source is None:
                raise LawError(
                    f"Expected every row a thought is drawn from among by_id but memory {m.id} "
                    f"is drawn from memory {i}, which is not there"
                )
            if source.is_thought and i not in memo:
                if i in open_:
                    raise LawError(
                        f"Expected thoughts drawn from earlier rows but memory {i} draws on itself"
                    )
                stack.append((source, False))
    return memo[row.id]


def depth(by_id: Mapping[int, Memory], row: Memory) -> int:
    """How far a row stands above the world: 0 for a world row, 1 + the deepest source for a thought."""
    if not isinstance(row, Memory):
        raise LawError(f"Expected a Memory but got row={row!r}")
    return _depth(by_id, row, {})


@dataclass(frozen=True, slots=True)
class Verdict:
    """The seam's answer on one statement's citations.

    `check` is None when accepted, else "cites" or "depth"; `depth` is the
    depth the thought would stand at, 0 when a citation failed and it is unknown.
    """

    ok: bool
    check: str | None
    reason: str
    depth: int


def cite(rows: Iterable[Memory], now: int, cites: Sequence[int], cap: int,
         gone: Mapping[int, str] | None = None) -> Verdict:
    """Judge a statement's citations against one villager's rows, refusing it whole or not at all.

    Each citation, in the order given, must be among `rows`, at a tick no later
    than `now`, still in memory (not among `gone`, which says for each row
    that left it why: forgotten or absorbed, and when), and given once; a
    statement must cite something; and the
    thought (1 + the deepest cited row) must stand no deeper than `cap`, where
    a cap of 0 means no cap. The first failure is the verdict: nothing is
    trimmed to make the rest pass.
    """
    now = tick("now", now)
    cap = integer("cap", cap, at_least=0)
    if isinstance(cites, str | bytes) or not isinstance(cites, Iterable):
        raise LawError(f"Expected a sequence of memory ids but got cites={cites!r}")
    cites = tuple(cites)
    for c in cites:
        integer("a citation in cites", c)
    by_id = _index(rows)

    seen: set[int] = set()
    for c in cites:
        m = by_id.get(c)
        if m is None:
            return Verdict(False, "cites", f"memory {c} is not one this villager has", 0)
        if m.tick > now:
            return Verdict(
                False, "cites", f"memory {c} is at tick {m.tick}, which is after tick {now}", 0
            )
        if gone and c in gone:
            return Verdict(False, "cites", gone[c], 0)
        if c in seen:
            return Verdict(False, "cites", f"memory {c} is cited twice", 0)
        seen.add(c)
    if not cites:
        return Verdict(False, "cites", "a statement drawn from nothing", 0)

    memo: dict[int, int] = {}
    d = 1 + max(_depth(by_id, by_id[c], memo) for c in cites)
    if cap and d > cap:
        return Verdict(False, "depth", f"a thought at depth {d}, and the cap is {cap}", d)
    return Verdict(True, None, f"accepted, at depth {d}", d)


def reflected(
    rows: Iterable[Memory],
    now: int,
    statement: str,
    cites: Sequence[int],
    table: ThoughtWeight | Mapping[str, int],
    *,
    next_id: int,
    villager: int | None = None,
) -> Memory:
    """The thought row an accepted statement becomes.

    At tick `now`, of kind "thought" and event "reflection", weighed on the
    table's thought row plus its first-of-its-kind bonus when none of `rows`
    at ticks up to now is a thought, about the union of the cited rows'
    `about`, drawn from the citations in ascending order. The statement is
    the only column a model wrote. Citations are judged again with no cap
    (the cap is the caller's, already applied), and a refusal is a LawError:
    a refused statement has no row to become.
    """
    now = tick("now", now)
    next_id = integer("next_id", next_id, at_least=0)
    if not isinstance(statement, str):
        raise LawError(f"Expected the statement as a string but got statement={statement!r}")
    weights = ThoughtWeight.of(table)
    if not isinstance(cites, str | bytes) and isinstance(cites, Iterable):
        cites = tuple(cites)  # read twice below, so a generator is read once here
    rows = tuple(rows)
    by_id = _index(rows)
    verdict = cite(rows, now, cites, 0)
    if not verdict.ok:
        raise LawError(f"Expected an accepted statement but it was refused: {verdict.reason}")
    if next_id in by_id:
        raise LawError(f"Expected a new id but got next_id={next_id!r}, which a row already has")
    owners = {m.villager for m in rows}
    if villager is not None:
        villager = integer("villager", villager)
        if owners != {villager}:
            raise LawError(f"Expected rows of villager {villager} but got rows of {sorted(owners)}")
    else:
        (villager,) = owners
    first = not any(m.is_thought and m.tick <= now for m in rows)
    cited = [by_id[c] for c in cites]
    about = tuple(sorted({a for m in cited for a in m.about}))
    return Memory(
        id=next_id,
        villager=villager,
        tick=now,
        kind="thought",
        event="reflection",
        text=statement,
        weight=weights.weigh(first),
        about=about,
        drawn_from=tuple(sorted(cites)),
    )
