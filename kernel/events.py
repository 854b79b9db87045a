"""The closed set of event kinds, and their canonical msgpack codec.

An event is an immutable value; the log stores nothing else. This module
owns what an event may hold and how it becomes bytes: maps with sorted
keys, integers and text, never a float (grams are milligrams, distances
are thousandths of a cell) and never a wall-clock value, so the same run
is the same bytes on every machine. A kind not listed here is refused
when read. A fold that handles some kinds hands a frame to them with `by_kind`.
It must not import the log, the world, an oracle or the store.

Adding a kind: write a frozen dataclass with a `kind` class name and what it
`concerns` below, add it to `KINDS`, and say in kernel.laws.perception what
a villager perceives of it. Changing a kind's fields is a format change: bump
`FORMAT` in kernel/log and give the old shape an upcaster.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

import msgpack

from kernel.errors import EventError


class Event:
    """Base of every event kind. Subclasses are frozen, slotted dataclasses.

    Each kind says what it is about, beside its fields, so no table
    elsewhere repeats it: `concerns` names the field holding the villager
    the event concerns (who acted, or who saw) and the field holding the
    other party, if any. What a villager perceives of it is perception's
    (kernel.laws.perception.PERCEIVED, which names every kind).
    """

    kind: ClassVar[str] = ""
    concerns: ClassVar[tuple[str | None, str | None]] = (None, None)


# --- the world --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Placed(Event):
    """A named place of the world, as its config names it, written at tick 0 before anyone
    is founded: its `index` among the places, `name`, what `grows` there, the `preposition` a
    row puts before its name, and its `cells`, rectangles as x0, y0, x1, y1 (corners both in),
    four integers each. A world that names no places writes none, so its log is as it was;
    perception reads the places from here, so rows are worded from the log alone."""

    kind: ClassVar[str] = "placed"
    concerns: ClassVar[tuple[str | None, str | None]] = (None, None)   # the world's, nobody's
    index: int
    name: str
    grows: str
    preposition: str
    cells: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Founded(Event):
    """A villager begins its life at this tick, on cell (x, y)."""

    kind: ClassVar[str] = "founded"
    concerns: ClassVar[tuple[str | None, str | None]] = ("villager", None)
    villager: int
    name: str
    x: int
    y: int


@dataclass(frozen=True, slots=True)
class Walked(Event):
    kind: ClassVar[str] = "walked"
    concerns: ClassVar[tuple[str | None, str | None]] = ("villager", None)
    villager: int
    from_x: int
    from_y: int
    to_x: int
    to_y: int


@dataclass(frozen=True, slots=True)
class Ate(Event):
    """Mouthfuls eaten on cell (x, y); milligrams, not grams, so no floats.

    The food is the cell's, or, when the cell is bare, parcels out of the
    villager's own hands: either way it was eaten there.
    """

    kind: ClassVar[str] = "ate"
    concerns: ClassVar[tuple[str | None, str | None]] = ("villager", None)
    villager: int
    x: int
    y: int
    mouthfuls: int
    milligrams: int


@dataclass(frozen=True, slots=True)
class Gathered(Event):
    """Parcels picked up from the food on cell (x, y) into the villager's hands."""

    kind: ClassVar[str] = "gathered"
    concerns: ClassVar[tuple[str | None, str | None]] = ("villager", None)
    villager: int
    x: int
    y: int
    parcels: int
    milligrams: int


@dataclass(frozen=True, slots=True)
class Begged(Event):
    """A hungry villager with nothing to eat asked aloud for food, on cell (x, y)."""

    kind: ClassVar[str] = "begged"
    concerns: ClassVar[tuple[str | None, str | None]] = ("villager", None)
    villager: int
    x: int
    y: int


@dataclass(frozen=True, slots=True)
class Gave(Event):
    """Parcels handed from one villager's hands into another's."""

    kind: ClassVar[str] = "gave"
    concerns: ClassVar[tuple[str | None, str | None]] = ("giver", "receiver")
    giver: int
    receiver: int
    parcels: int
    milligrams: int


@dataclass(frozen=True, slots=True)
class Took(Event):
    """Parcels taken out of another villager's hands."""

    kind: ClassVar[str] = "took"
    concerns: ClassVar[tuple[str | None, str | None]] = ("taker", "owner")
    taker: int
    owner: int
    parcels: int
    milligrams: int


@dataclass(frozen=True, slots=True)
class CameIntoSight(Event):
    """`seen` came within `viewer`'s sight radius, `millicells` thousandths of a cell off."""

    kind: ClassVar[str] = "came_into_sight"
    concerns: ClassVar[tuple[str | None, str | None]] = ("viewer", "seen")
    viewer: int
    seen: int
    millicells: int


@dataclass(frozen=True, slots=True)
class WentOutOfSight(Event):
    kind: ClassVar[str] = "went_out_of_sight"
    concerns: ClassVar[tuple[str | None, str | None]] = ("viewer", "seen")
    viewer: int
    seen: int


# --- the mind: what models answered, what the seam said, what was written ----


class Purpose(StrEnum):
    """The closed set of what a generation call is for: an `Answered` or `Refusal` event's
    `purpose`, an ask's, a recording's. Each is its text in the log's bytes, so a member
    compares equal to the text read back; code names the member, never the text."""

    QUESTIONS = "questions"     # a reflection's questions
    STATEMENT = "statement"     # a reflection's statement, one a question
    NIGHT = "night"             # a night's consolidation plan
    BASINS = "basins"           # the basins' update
    NEW_BASIN = "new-basin"     # a new basin the update proposes (refusals only)
    BASIN_LINK = "basin-link"   # a link between two basins the update proposes (refusals only)
    KEYWORDS = "keywords"       # a new basin's keywords
    PLAN = "plan"               # tomorrow's plans
    TALK = "talk"               # an utterance that starts a talk
    ANSWER = "answer"           # an utterance that answers one
    INTERVIEW = "interview"     # an interview question's answer


class Embedding(StrEnum):
    """The closed set of what an embedding call is for: a recording's `purpose` of each
    embed call, its text in the recording's bytes (so a member compares equal to the text
    read back); code names the member, never the text."""

    MEMORIES = "memories and questions"   # a round's new rows and its questions
    STATEMENTS = "statements"             # a round's accepted statements
    THOUGHTS = "thoughts"                 # the thoughts a night's plan or a recurrence weighs
    TALK = "talk"                         # a tick's talk: what is said and heard
    INTERVIEW = "interview"               # an interview's questions
    INTERVIEW_ANSWERS = "interview answers"   # an interview's answers, for their likeness
    MINDS = "minds"                       # `village minds` measuring thoughts' nearness
    EMBED = "embed"                       # `village embed`, a text on the command line



@dataclass(frozen=True, slots=True)
class Answered(Event):
    """A model's answer to one call, beside the sha256 of the exact prompt bytes.

    The call is a reflection's (purpose "questions", then "statement" once per
    question), a night's plan (purpose "night", index 0), or an utterance at a meeting
    (purpose "talk" for one started, "answer" for an answer; index the listener's id). Durations and
    token counts are not here: they belong to exemplars, so a recorded run and
    its replay are the same bytes.
    """

    kind: ClassVar[str] = "answered"
    concerns: ClassVar[tuple[str | None, str | None]] = ("villager", None)
    villager: int
    purpose: str          # a Purpose (its text)
    index: int            # 0 for the questions call and a night's plan; a statement's question number
    model: str
    digest: str
    seed: int
    prompt_sha256: str
    text: str
    done_reason: str


@dataclass(frozen=True, slots=True)
class Refusal(Event):
    """An answer refused whole: by `shaped` (not the shape asked for), `cites` or `depth`;
    or, with purpose "night", one group of a night's plan refused by the check it failed
    (`index` is the group's number in the plan, 0 for the whole plan)."""

    kind: ClassVar[str] = "refusal"
    concerns: ClassVar[tuple[str | None, str | None]] = ("villager", None)
    villager: int
    purpose: str          # a Purpose (its text)
    index: int
    check: str
    reason: str


@dataclass(frozen=True, slots=True)
class Thought(Event):
    """An accepted statement, become a memory row of kind `thought`."""

    kind: ClassVar[str] = "thought"
    concerns: ClassVar[tuple[str | None, str | None]] = ("villager", None)
    id: int
    villager: int
    text: str
    weight: int
    depth: int
    about: tuple[int, ...]
    drawn_from: tuple[int, ...]


# --- felt memory: strengths in thousandths, events about rows, never edits ---


@dataclass(frozen=True, slots=True)
class Refelt(Event):
    """Memory `id` re-felt by the thought `by` written at this tick: it had fallen to
    `fallen` thousandths and now stores `stored` (reconsolidation toward the thought)."""

    kind: ClassVar[str] = "refelt"
    concerns: ClassVar[tuple[str | None, str | None]] = ("villager", None)
    villager: int
    id: int
    by: int
    fallen: int
    stored: int


@dataclass(frozen=True, slots=True)
class Recurred(Event):
    """A statement accepted at this tick is the earlier thought `id` recurring: no thought is
    written; `id` had fallen to `fallen` and now stores `stored`. `index` is the question's
    number and `text` what was said this time."""

    kind: ClassVar[str] = "recurred"
    concerns: ClassVar[tuple[str | None, str | None]] = ("villager", None)
    villager: int
    id: int
    index: int
    text: str
    fallen: int
    stored: int


@dataclass(frozen=True, slots=True)
class Forgotten(Event):
    """Memory `id`, stored at `stored`, fell below the forgetting curve (`threshold`) at night."""

    kind: ClassVar[str] = "forgotten"
    concerns: ClassVar[tuple[str | None, str | None]] = ("villager", None)
    villager: int
    id: int
    stored: int
    threshold: int


@dataclass(frozen=True, slots=True)
class Absorbed(Event):
    """A night's accepted group: the rows `absorbed` are absorbed into `anchor`, whose stored
    strength goes from `before` to `stored` (their combined strength). `group` is the group's
    number in the plan."""

    kind: ClassVar[str] = "absorbed"
    concerns: ClassVar[tuple[str | None, str | None]] = ("villager", None)
    villager: int
    group: int
    anchor: int
    absorbed: tuple[int, ...]
    before: int
    stored: int


# --- basins and plans: what the night's checked calls settled ----------------------


@dataclass(frozen=True, slots=True)
class BasinsSeeded(Event):
    """A villager founded at this tick holds the world config's basins for it, by label, each
    at the basins' seed weight (the labels in the config's order)."""

    kind: ClassVar[str] = "basins_seeded"
    concerns: ClassVar[tuple[str | None, str | None]] = ("villager", None)
    villager: int
    labels: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BasinsMoved(Event):
    """A night's accepted basins update, under `rule` ("current" or "single"): each of
    `basins` (slugs) moved by its delta in `deltas` (thousandths, already clamped), with the
    keywords `added` and `removed` (one list per basin); `born` a new basin's label ("" for
    none) with `born_keywords`; connections `linked_from[i]` to `linked_to[i]`; the emerging
    patterns carried; whether the phase shifted. Every basin not listed relaxed."""

    kind: ClassVar[str] = "basins_moved"
    concerns: ClassVar[tuple[str | None, str | None]] = ("villager", None)
    villager: int
    rule: str
    basins: tuple[str, ...]
    deltas: tuple[int, ...]
    added: tuple[tuple[str, ...], ...]
    removed: tuple[tuple[str, ...], ...]
    born: str
    born_keywords: tuple[str, ...]
    linked_from: tuple[str, ...]
    linked_to: tuple[str, ...]
    emerging: tuple[str, ...]
    phase_shift: bool


@dataclass(frozen=True, slots=True)
class KeywordsConsolidated(Event):
    """Basin `basin`'s keywords, due after their cap hits, rewritten as `keywords` (fewer)."""

    kind: ClassVar[str] = "keywords_consolidated"
    concerns: ClassVar[tuple[str | None, str | None]] = ("villager", None)
    villager: int
    basin: str
    keywords: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Planned(Event):
    """One accepted plan of a villager's for day `day` (the `index`-th of its plans for that
    day; the kind keeps its old word, `intended`):
    `act` one of seek, avoid, share, forage, home; `whom` the villager it names (seek, avoid,
    share), `x`, `y` the cell it names (forage); None where the act names neither."""

    kind: ClassVar[str] = "intended"
    concerns: ClassVar[tuple[str | None, str | None]] = ("villager", "whom")
    villager: int
    day: int
    index: int
    act: str
    whom: int | None
    x: int | None
    y: int | None


# --- words and given rows: what villagers said to each other, and what they were given ----


@dataclass(frozen=True, slots=True)
class Given(Event):
    """A row given to a villager as it is founded, before it has lived anything: its
    backstory or a piece of news (`event`), in `text`, about the villagers `about`. A piece
    of news has a `news` name ("" for a backstory), the `words` that tell it in an utterance,
    and the cell (`x`, `y`) and 0-based `day` it names, where it names them."""

    kind: ClassVar[str] = "given"
    concerns: ClassVar[tuple[str | None, str | None]] = ("villager", None)
    villager: int
    index: int
    event: str            # "backstory" or "news"
    text: str
    about: tuple[int, ...]
    news: str
    words: tuple[str, ...]
    x: int | None
    y: int | None
    day: int | None


@dataclass(frozen=True, slots=True)
class Spoke(Event):
    """An accepted utterance: `speaker` said `text` to `listener`, who had it in sight,
    drawing on the speaker's rows `drawn_from`; `reply` when it answers what `listener`
    said to it at this tick."""

    kind: ClassVar[str] = "spoke"
    concerns: ClassVar[tuple[str | None, str | None]] = ("speaker", "listener")
    speaker: int
    listener: int
    text: str
    drawn_from: tuple[int, ...]
    reply: bool


KINDS: dict[str, type[Event]] = {
    c.kind: c
    for c in (Placed, Founded, Walked, Ate, Gathered, Begged, Gave, Took, CameIntoSight,
              WentOutOfSight, Answered, Refusal, Thought, Refelt, Recurred, Forgotten, Absorbed,
              BasinsSeeded, BasinsMoved, KeywordsConsolidated, Planned, Given, Spoke)
}


def by_kind(handlers: Mapping[type, Callable[[Any, int, Any], object]], fold: Any, tick: int,
            events: Iterable[Event]) -> None:
    """Hand each of a frame's `events` at `tick`, in order, to the handler `handlers` keeps for
    its kind, as `handler(fold, tick, event)`; an event of a kind it keeps none for is passed
    over."""
    for e in events:
        how = handlers.get(type(e))
        if how is not None:
            how(fold, tick, e)


# --- codec ----------------------------------------------------------------


def _check(v: Any, where: str) -> Any:
    """Refuse what has no canonical bytes (floats, sets, unknown objects)."""
    if v is None or isinstance(v, bool | int | str | bytes):
        return v
    if isinstance(v, tuple | list):
        return [_check(x, where) for x in v]
    if isinstance(v, dict):
        bad = [k for k in v if not isinstance(k, str)]
        if bad:
            raise EventError(f"an event's maps are keyed by text, but {where} has the key {bad[0]!r}")
        return {k: _check(v[k], where) for k in sorted(v)}
    raise EventError(f"an event holds only integers, text, bytes and lists of them, "
                     f"but {where} is {type(v).__name__} {v!r}")


def to_map(e: Event) -> dict[str, Any]:
    """An event as a plain map with sorted keys, its kind under "kind"."""
    if type(e).kind not in KINDS or KINDS[type(e).kind] is not type(e):
        raise EventError(f"not an event of a known kind: {e!r}")
    d: dict[str, Any] = {"kind": e.kind}
    for f in dataclasses.fields(e):
        d[f.name] = _check(getattr(e, f.name), f"{e.kind}.{f.name}")
    return {k: d[k] for k in sorted(d)}


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    h = _HINTS.get(cls)
    if h is None:
        h = _HINTS[cls] = typing.get_type_hints(cls)
    return h


def _coerce(v: Any, t: Any, where: str) -> Any:
    origin = typing.get_origin(t)
    if origin is tuple:
        if not isinstance(v, list | tuple):
            raise EventError(f"{where} must be a list, not {type(v).__name__} {v!r}")
        (inner, _) = typing.get_args(t)
        return tuple(_coerce(x, inner, where) for x in v)
    if origin in (typing.Union, types.UnionType):
        for a in typing.get_args(t):
            if a is type(None) and v is None:
                return None
        return _coerce(v, [a for a in typing.get_args(t) if a is not type(None)][0], where)
    if t is int and (type(v) is not int):
        raise EventError(f"{where} must be an integer, not {type(v).__name__} {v!r}")
    if t is str and not isinstance(v, str):
        raise EventError(f"{where} must be text, not {type(v).__name__} {v!r}")
    if t is bool and not isinstance(v, bool):
        raise EventError(f"{where} must be true or false, not {v!r}")
    return v


def from_map(d: Any) -> Event:
    """The event a map describes; an unknown kind or a field out of place is refused."""
    if not isinstance(d, dict):
        raise EventError(f"an event is a map, not {type(d).__name__}")
    kind = d.get("kind")
    # A kind that is not text (a list, a map) is no kind at all, and unhashable besides.
    cls = KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise EventError(f"unknown event kind {_shown(kind)}: the known kinds are {', '.join(sorted(KINDS))}")
    hints = _hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    # Keys may be text or bytes (msgpack's bin): sorted by their repr, so the two never compare.
    extra = sorted(set(d) - set(names) - {"kind"}, key=repr)
    missing = [n for n in names if n not in d]
    if extra or missing:
        raise EventError(f"a {kind} event has fields {', '.join(names)}; "
                         f"got extra {extra} and missing {missing}")
    return cls(**{n: _coerce(d[n], hints[n], f"{kind}.{n}") for n in names})


def _shown(v: Any) -> str:
    s = repr(v)
    return s if len(s) <= 80 else s[:77] + "..."


def pack(v: Any) -> bytes:
    """Canonical msgpack bytes of a plain value (maps sorted by key, no floats)."""
    return msgpack.packb(_check(v, "value"), use_bin_type=True)


def unpack(b: bytes) -> Any:
    return msgpack.unpackb(b, raw=False, strict_map_key=True)


def encode(e: Event) -> bytes:
    return pack(to_map(e))


def decode(b: bytes) -> Event:
    return from_map(unpack(b))
