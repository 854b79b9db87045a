"""The village's state and its one law of motion: `step(state, tick) -> (state, events)`.

This module owns the world's state (villagers' spots, bellies and hands,
the food on every cell, who is in whose sight) and the seeded policy that
moves it one tick on. `step` is a pure function of its arguments: every
random draw of a tick comes from a PCG64 stream seeded by (world seed,
tick) through numpy's SeedSequence, and only its raw 64-bit outputs are
used, as integers, so no generator state hides between ticks and no float
decides anything. It must not write the log, read files, or know what a
memory is: perception reads the events it returns.

Sight and reach cost what the village holds, not its square: who sees
whom is found through a grid of buckets as wide as the sight radius (a
pair in sight is in the same or a neighbouring bucket; a small village
sweeps along x instead), and who is within
reach is asked only of those in sight at the last tick, which is the rule.
A villager keeps at most the config's `sight_most` others in sight, its
nearest (by distance, then id), and two see each other when each is among
the other's nearest: so who sees whom, and every event and memory of it,
is at most that many a villager even when a crowd shares one cell, where
all within sight of all would be the crowd's square.
A tick in which nobody founds or walks leaves every spot where it was, so
it keeps who sees whom without looking again (most ticks of a small
village are such ticks).
The state is held by column (a tuple per villager field, the food and the
tick each cell was last written at as int64 bytes), so a tick copies
arrays, not objects; `World.villagers` builds the per-villager view when
someone asks for it. In a large village most villagers do nothing but
burn in a tick; they are sorted out from the tick's draws with array
operations and burn all at once, and the rest act one by one in the
config's order, since each may change what the next one finds. The draws
are the same words in the same order either way, and so are the events
(tests/unit/test_world_spatial.py holds both ways to the pairwise rule
this module once followed).

Units: food and bellies in milligrams, positions and distances in
millicells (a cell is 1000 millicells; a villager stands on a spot inside
its cell), chances in 10,000.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import repeat
from math import isqrt

import numpy as np

from kernel import events as ev
from kernel.errors import WorldError
from kernel.world.config import WorldConfig

DRAWS = 8
"""Raw draws per villager per tick, used by position so that one villager's
choices never shift another's stream."""

# The slots of a villager's DRAWS words in a tick, by what each decides. A word is 64 bits;
# where one decides two things, its low bits (taken modulo a small number) and its high half
# (word >> 32) are two draws. A draw is taken whether or not it decides anything, so no choice
# shifts another.
SPOT_X, SPOT_Y = 0, 1   # where in its cell a villager stands once it founds or steps
CHANCE = 2              # whether a hungry villager begs; whether a fed one gives
TAKE = 3                # whether it takes from one who carries food
GATHER = 4              # whether it gathers parcels from its cell
PARCELS = 5             # how many parcels it gives, takes or gathers; high half: whether it visits
PICK = 6                # whom it gives to, takes from or visits; high half: whether it wanders
ROAM = 7                # where it wanders: x, and in the high half y

MEAL = 10
"""The mouthfuls a cell must hold for a hungry villager to set out for it: a meal's worth."""

_NOWHERE = object()
"""What `_Tick.planned_walk` says where no plan decides a walk."""

_FOOD_STREAM = 1
_TICK_STREAM = 0

_FOOD_LIMIT = 2**61
"""Food and bellies are held as int64 milligrams; a cell's food, a tick's
regrowth and a belly's parts must each stay below this so that no sum of
them overflows."""

_VECTOR_FROM = 160
"""From this many villagers in the world, the step works on arrays: pairs in
sight are found through a table of buckets, and the quiet villagers (see
`_Tick.sort_out`) burn all at once. Below it a sweep along x and one loop
are quicker than numpy's cost per call. Both ways give the same world and
the same events (a test holds them to it)."""


@dataclass(frozen=True, slots=True)
class Villager:
    id: int
    name: str
    founded: int
    here: bool                    # founded yet
    px: int                       # spot, millicells
    py: int
    belly: int                    # milligrams
    hands: int                    # parcels carried
    dest: tuple[int, int] | None  # the cell a journey is heading for
    eating: bool

    @property
    def cell(self) -> tuple[int, int]:
        return self.px // 1000, self.py // 1000


@dataclass(frozen=True, slots=True)
class Plan:
    """One plan a villager carries into a day: `act` one of seek, avoid, share, forage,
    home; `whom` the villager (by id) it names, `cell` the cell. The policy prefers, among the
    acts a tick's draws allow, the ones it asks for; it never draws anew and never makes an
    act possible that the draws did not allow."""

    act: str
    whom: int | None = None
    cell: tuple[int, int] | None = None


class _People:
    """What never changes in a run: ids, names and founding ticks by position, and ids to positions."""

    __slots__ = ("ids", "names", "founded", "index", "founders", "id_array", "founded_array",
                 "id_rank")

    def __init__(self, cfg: WorldConfig):
        self.ids = tuple(p.id for p in cfg.people)
        self.names = tuple(p.name for p in cfg.people)
        self.founded = tuple(p.founded for p in cfg.people)
        self.index = {p.id: i for i, p in enumerate(cfg.people)}
        self.founders: dict[int, list[int]] = {}
        for i, p in enumerate(cfg.people):
            self.founders.setdefault(p.founded, []).append(i)
        # The schema bounds ids and founding ticks well inside int64.
        self.id_array = np.array(self.ids, dtype=np.int64)
        self.founded_array = np.array(self.founded, dtype=np.int64)
        # Each villager's place in id order: who is nearer, of two as near, is told by it.
        self.id_rank = np.empty(len(self.ids), dtype=np.int64)
        self.id_rank[np.argsort(self.id_array, kind="stable")] = np.arange(len(self.ids))


class _Seen:
    """Who each villager saw at the last tick, by position: `of[start[i]:start[i + 1]]`, ascending.

    Derived from a World's `sight` (`source`, the very set it was built
    from, so a World made some other way never reads a stale one);
    `partnered[i]` says whether villager i saw anyone (array form only).
    """

    __slots__ = ("source", "start", "of", "partnered")

    def __init__(self, source: frozenset, start: list[int], of: list[int],
                 partnered: np.ndarray | None):
        self.source, self.start, self.of, self.partnered = source, start, of, partnered


def _seen_by_lists(source: frozenset, n: int, a: list[int], b: list[int]) -> _Seen:
    edges = sorted([*zip(a, b, strict=True), *zip(b, a, strict=True)])
    start = [0] * (n + 1)
    for i, _ in edges:
        start[i + 1] += 1
    for i in range(n):
        start[i + 1] += start[i]
    return _Seen(source, start, [j for _, j in edges], None)


def _seen_by_arrays(source: frozenset, n: int, a: np.ndarray, b: np.ndarray) -> _Seen:
    src, dst = np.concatenate((a, b)), np.concatenate((b, a))
    order = np.lexsort((dst, src))
    count = np.bincount(src, minlength=n)
    start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(count, out=start[1:])
    return _Seen(source, start.tolist(), dst[order].tolist(), count > 0)


def _seen_of(w: World) -> _Seen:
    if w.seen is not None and w.seen.source is w.sight:
        return w.seen
    index = w.people.index
    pairs = [(index[a], index[b]) for a, b in w.sight]
    n = len(w.here)
    seen = _seen_by_lists(w.sight, n, [i for i, _ in pairs], [j for _, j in pairs])
    if n >= _VECTOR_FROM:
        count = np.diff(np.array(seen.start, dtype=np.int64))
        seen.partnered = count > 0
    return seen


@dataclass(frozen=True, slots=True)
class World:
    """The whole village between ticks. `tick` is the tick `step` must be given next.

    Villagers are held by column, in the config's order: `here[i]`,
    `px[i]` and so on are the config's i-th villager's. `food_mg` and
    `grown_at` are the int64 bytes (row-major) of each cell's food as of the
    tick it was last written at, and that tick.
    """

    config: WorldConfig
    tick: int
    here: tuple[bool, ...]
    px: tuple[int, ...]
    py: tuple[int, ...]
    belly: tuple[int, ...]
    hands: tuple[int, ...]
    dest: tuple[tuple[int, int] | None, ...]
    eating: tuple[bool, ...]
    food_mg: bytes
    grown_at: bytes
    sight: frozenset[tuple[int, int]]  # (a, b) with a < b: a and b see each other
    people: _People = field(compare=False, repr=False)
    seen: _Seen | None = field(default=None, compare=False, repr=False)
    looked: tuple | None = field(default=None, compare=False, repr=False)
    """Where `step` found `sight`: the very config, sight, `here`, `px` and `py` it found it
    with and from. A World made any other way (or changed since, by `replace`) holds
    other objects, and its next tick finds who sees whom anew."""

    @property
    def villagers(self) -> tuple[Villager, ...]:
        """Every villager as one value, in the config's order; built anew on each call, so
        a reader of one field of many villagers does better with its column."""
        return tuple(self._villager(i) for i in range(len(self.here)))

    def _villager(self, i: int) -> Villager:
        p = self.people
        return Villager(id=p.ids[i], name=p.names[i], founded=p.founded[i], here=self.here[i],
                        px=self.px[i], py=self.py[i], belly=self.belly[i], hands=self.hands[i],
                        dest=self.dest[i], eating=self.eating[i])

    @property
    def food(self) -> tuple[int, ...]:
        """Milligrams on each cell (row-major) as of `grown`."""
        return tuple(np.frombuffer(self.food_mg, dtype=np.int64).tolist())

    @property
    def grown(self) -> tuple[int, ...]:
        """The tick each cell's food was last written at."""
        return tuple(np.frombuffer(self.grown_at, dtype=np.int64).tolist())

    def food_at(self, x: int, y: int, tick: int | None = None) -> int:
        i = y * self.config.width + x
        mg = int(np.frombuffer(self.food_mg, dtype=np.int64)[i])
        since = int(np.frombuffer(self.grown_at, dtype=np.int64)[i])
        return _grown(self.config, mg, since, self.tick if tick is None else tick)

    def by_id(self, villager: int) -> Villager:
        i = self.people.index.get(villager)
        if i is None:
            raise WorldError(f"no villager with id {villager} in this world")
        return self._villager(i)


def _stream(seed: int, key: tuple[int, ...], n: int) -> np.ndarray:
    # Raw PCG64 words: the bit generator's algorithm is fixed, unlike the
    # Generator's float and bounded-integer methods, which numpy may change.
    ss = np.random.SeedSequence(entropy=seed, spawn_key=key)
    return np.random.PCG64(ss).random_raw(n) if n else np.zeros(0, dtype=np.uint64)


def _grown(cfg: WorldConfig, mg: int, since: int, tick: int) -> int:
    # Regrowth is computed when a cell is read rather than applied to every
    # cell every tick: same numbers, no per-tick sweep of the grid.
    return min(cfg.food_max, mg + cfg.regrow * (tick - since))


def initial(cfg: WorldConfig) -> World:
    """The village before tick 0: food laid out from the seed, nobody founded yet."""
    pol = cfg.policy
    big = {"food max": cfg.food_max, "regrowth": cfg.regrow, "belly at start": pol.belly_start,
           "full belly": pol.belly_full, "mouthful": pol.mouthful, "parcel": pol.parcel,
           "burn": pol.burn}
    for what, mg in big.items():
        if mg >= _FOOD_LIMIT:
            raise WorldError(f"food and bellies are held as milligrams below {_FOOD_LIMIT}, "
                             f"but the config's {what} is {mg} milligrams")
    cells = cfg.width * cfg.height
    lo, hi = cfg.food_start
    raw = _stream(cfg.seed, (_FOOD_STREAM,), cells).tolist()
    food = np.array([lo + r % (hi - lo + 1) for r in raw], dtype=np.int64)
    n = len(cfg.people)
    return World(
        config=cfg, tick=0, here=(False,) * n,
        px=tuple(p.x * 1000 + 500 for p in cfg.people),
        py=tuple(p.y * 1000 + 500 for p in cfg.people),
        belly=(cfg.policy.belly_start,) * n, hands=(0,) * n, dest=(None,) * n,
        eating=(False,) * n, food_mg=food.tobytes(),
        grown_at=np.zeros(cells, dtype=np.int64).tobytes(), sight=frozenset(),
        people=_People(cfg),
    )


def distance(a: Villager, b: Villager) -> int:
    """Straight-line distance between two spots, in whole millicells (rounded down)."""
    dx, dy = a.px - b.px, a.py - b.py
    return isqrt(dx * dx + dy * dy)


def _sign(n: int) -> int:
    return (n > 0) - (n < 0)


def _spot(cell: int, word: int) -> int:
    # Somewhere in the middle eight-tenths of the cell, so two villagers on
    # one cell stand apart and neighbours' distances are not all whole cells.
    return cell * 1000 + 100 + word % 801


# -- who sees whom ---------------------------------------------------------------
#
# isqrt(d2) <= r exactly when d2 < (r + 1) ** 2, so every test of a radius
# below is on squared integers and no square root is taken but for the
# distance an event reports.

_AHEAD = ((0, 0), (1, 0), (-1, 1), (0, 1), (1, 1))
"""A bucket and the four neighbours after it: every neighbouring pair of buckets once."""


def _pairs_by_sweep(who: list[int], px: list[int], py: list[int], radius: int
                    ) -> tuple[list[int], list[int], list[int]]:
    """Every two of `who` (positions) whose spots are within `radius`: (i's, j's, squared distances).

    A small village's search: villagers in order of x, each held against
    those after it until one is further along x than the radius, so no
    bucket is made or looked up. Only those within the radius along x are
    ever compared, which in a village below `_VECTOR_FROM` is a few each.
    """
    limit = (radius + 1) ** 2
    order = sorted(who, key=px.__getitem__)
    xs = [px[i] for i in order]
    first: list[int] = []
    second: list[int] = []
    squares: list[int] = []
    m = len(order)
    for a in range(m):
        i = order[a]
        xi, yi = xs[a], py[i]
        last = xi + radius        # further along x than this, nobody is within the radius
        for b in range(a + 1, m):
            xj = xs[b]
            if xj > last:
                break
            j = order[b]
            dx, dy = xj - xi, py[j] - yi
            d2 = dx * dx + dy * dy
            if d2 < limit:
                first.append(i)
                second.append(j)
                squares.append(d2)
    return first, second, squares


def _pairs_by_arrays(who: list[int], px: list[int], py: list[int], radius: int,
                     most: int | None = None, rank: np.ndarray | None = None
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The same pairs as `_pairs_by_sweep`, as arrays, found through a table of buckets.

    Villagers are sorted by bucket and each bucket's run of them is read off
    a table of every bucket's start, so a bucket's neighbours are found by
    indexing, never by a search. Buckets are as wide as the radius, or wider
    where the village is sparse, so the table has a few buckets a villager
    at most; a pair within the radius is still in the same or neighbouring
    buckets.

    With `most` (and `rank`, each position's place in id order), the pairs are
    those of `_nearest_pairs` wherever a villager has more than `most` others
    in its bucket and the eight around it; elsewhere nobody can have more than
    `most` within the radius, and every pair within it is one.
    """
    none = np.zeros(0, dtype=np.int64)
    m = len(who)
    if m < 2:
        return none, none, none
    limit = (radius + 1) ** 2
    idx = np.asarray(who, dtype=np.int64)
    x = np.asarray(px, dtype=np.int64)[idx]
    y = np.asarray(py, dtype=np.int64)[idx]
    x -= x.min()
    y -= y.min()
    area = (int(x.max()) + 1) * (int(y.max()) + 1)
    size = max(radius, 1, isqrt(area // (4 * m)) + 1)
    bx, by = x // size + 1, y // size + 1  # a margin of one bucket, so no key wraps a row
    width = int(bx.max()) + 2
    key = by * width + bx
    order = np.argsort(key, kind="stable")
    ks = key[order]
    starts = np.zeros((int(by.max()) + 2) * width + 1, dtype=np.int64)
    np.cumsum(np.bincount(key, minlength=len(starts) - 1), out=starts[1:])
    if most is not None and m > most + 1:
        sizes = np.diff(starts)
        crowd = sum(sizes[ks + (oy * width + ox)] for ox, oy in _AROUND) - 1
        if int(crowd.max()) > most:
            assert rank is not None, "the nearest of a crowd are told apart by id: pass rank"
            a, b, d2 = _nearest_pairs(_Buckets(x[order], y[order], rank[idx[order]], ks, starts,
                                               width), crowd, limit, most)
            return idx[order[a]], idx[order[b]], d2
    ahead = _bucket_pairs(ks, starts, width)
    if ahead is None:
        return none, none, none
    a, b = order[ahead[0]], order[ahead[1]]
    dx, dy = x[a] - x[b], y[a] - y[b]
    d2 = dx * dx + dy * dy
    near = d2 < limit
    return idx[a[near]], idx[b[near]], d2[near]


def _bucket_pairs(ks: np.ndarray, starts: np.ndarray,
                  width: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Every pair of sorted positions in one bucket, or in a bucket and one ahead of it
    (`_AHEAD`), each once: the first's positions and the second's; None where there is none.
    `ks` is each sorted position's bucket key, `starts` where each bucket's run starts."""
    pos = np.arange(len(ks))
    firsts, seconds = [], []
    for ox, oy in _AHEAD:
        target = ks + (oy * width + ox)
        hi = starts[target + 1]
        lo = pos + 1 if ox == 0 and oy == 0 else starts[target]
        count = np.maximum(hi - lo, 0)
        total = int(count.sum())
        if not total:
            continue
        before = np.cumsum(count) - count
        firsts.append(np.repeat(pos, count))
        seconds.append(np.arange(total) - np.repeat(before - lo, count))
    if not firsts:
        return None
    return np.concatenate(firsts), np.concatenate(seconds)


_AROUND = tuple((ox, oy) for oy in (-1, 0, 1) for ox in (-1, 0, 1))
"""A bucket and the eight around it: every bucket a villager's pairs within the radius are in."""

_BLOCK = 1 << 20
"""The most distances a crowd's search holds at once (8 MiB a column of them)."""

_FAR = np.int64(1 << 62)
"""A key above every pair's: (squared distance << 17) | id rank, with the squared distance
within a radius of at most 1000 cells below 2**40 and at most 100,000 villagers."""


@dataclass(frozen=True, slots=True)
class _Buckets:
    """The villagers a search holds, sorted by bucket: spots, id ranks and bucket keys by sorted
    position, and where each bucket's run of them starts (`starts[k]` to `starts[k + 1]`)."""

    x: np.ndarray
    y: np.ndarray
    rank: np.ndarray
    key: np.ndarray
    starts: np.ndarray
    width: int

    def around(self, k: int) -> np.ndarray:
        """Sorted positions of everyone in bucket `k` and the eight around it."""
        st, w = self.starts, self.width
        return np.concatenate([np.arange(st[k + oy * w + ox], st[k + oy * w + ox + 1])
                               for ox, oy in _AROUND])


def _nearest_pairs(bk: _Buckets, crowd: np.ndarray, limit: int, most: int
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairs (by sorted position) each of whom is among the other's `most` nearest within sight.

    A villager's nearest are the first `most` of those with a squared distance
    below `limit`, by squared distance and then by id. One whose bucket and
    the eight around it hold no more than `most` others has all it can see
    as its nearest; the nearest of one in a crowd are chosen from a table of
    distances, a block of its bucket's villagers at a time, so the search
    holds at most `_BLOCK` distances however many share the cell. The pairs
    kept are held in memory as the villagers' nearest are: `most` a villager.
    """
    src, dst, sq = [], [], []
    calm = np.flatnonzero(crowd <= most)
    for ox, oy in _AROUND:
        target = bk.key[calm] + (oy * bk.width + ox)
        lo, hi = bk.starts[target], bk.starts[target + 1]
        count = hi - lo
        total = int(count.sum())
        if total:
            before = np.cumsum(count) - count
            src.append(np.repeat(calm, count))
            dst.append(np.arange(total) - np.repeat(before - lo, count))
    if src:
        a, b = np.concatenate(src), np.concatenate(dst)
        dx, dy = bk.x[a] - bk.x[b], bk.y[a] - bk.y[b]
        d2 = dx * dx + dy * dy
        keep = (a != b) & (d2 < limit)
        src, dst, sq = [a[keep]], [b[keep]], [d2[keep]]
    for k in np.unique(bk.key[crowd > most]).tolist():
        cols = bk.around(k)
        step = max(1, _BLOCK // len(cols))
        for first in range(int(bk.starts[k]), int(bk.starts[k + 1]), step):
            rows = np.arange(first, min(first + step, int(bk.starts[k + 1])))
            a, b, d2 = _nearest_in_block(bk, rows, cols, limit, most)
            src.append(a)
            dst.append(b)
            sq.append(d2)
    return _mutual(np.concatenate(src), np.concatenate(dst), np.concatenate(sq), len(bk.x))


def _nearest_in_block(bk: _Buckets, rows: np.ndarray, cols: np.ndarray, limit: int, most: int
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each of `rows`' `most` nearest among `cols` within sight: (row, col, squared distance)."""
    dx = bk.x[rows][:, None] - bk.x[cols][None, :]
    dy = bk.y[rows][:, None] - bk.y[cols][None, :]
    d2 = dx * dx + dy * dy
    del dx, dy
    key = np.where((d2 < limit) & (rows[:, None] != cols[None, :]),
                   (d2 << 17) | bk.rank[cols][None, :], _FAR)
    del d2
    if key.shape[1] > most:
        pick = np.argpartition(key, most - 1, axis=1)[:, :most]
        key = np.take_along_axis(key, pick, axis=1)
        chosen = cols[pick]
    else:
        chosen = np.broadcast_to(cols, key.shape)
    ok = key < _FAR
    return (np.broadcast_to(rows[:, None], key.shape)[ok], chosen[ok], key[ok] >> 17)


def _mutual(src: np.ndarray, dst: np.ndarray, d2: np.ndarray, m: int
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs named from both ends (i among j's nearest and j among i's), each once."""
    lo, hi = np.minimum(src, dst), np.maximum(src, dst)
    code = lo * m + hi
    order = np.argsort(code, kind="stable")
    code = code[order]
    both = order[:-1][code[1:] == code[:-1]]
    return lo[both], hi[both], d2[both]


def _nearest_of_lists(a: list[int], b: list[int], d2: list[int], ids: tuple[int, ...],
                      most: int) -> tuple[list[int], list[int], list[int]]:
    """Of the pairs (a, b, d2) within sight, those each of whom is among the other's `most`
    nearest, by squared distance, then id: `_nearest_pairs`' rule, for a small village."""
    if len(a) <= most:
        return a, b, d2     # nobody is in more pairs than there are
    near: dict[int, list[tuple[int, int, int]]] = {}
    for i, j, sq in zip(a, b, d2, strict=True):
        near.setdefault(i, []).append((sq, ids[j], j))
        near.setdefault(j, []).append((sq, ids[i], i))
    if max(map(len, near.values()), default=0) <= most:
        return a, b, d2
    top = {i: {j for _, _, j in sorted(got)[:most]} for i, got in near.items()}
    keep = [(i, j, sq) for i, j, sq in zip(a, b, d2, strict=True) if j in top[i] and i in top[j]]
    return [k[0] for k in keep], [k[1] for k in keep], [k[2] for k in keep]


class _Tick:
    """The mutable scratch of one step; nothing of it outlives `step`.

    It is one piece because every method is one act on the same columns (spots, bellies, hands,
    destinations, the food), each act reads what the acts before it in the tick wrote, and the
    order of the acts is the rule: split, the columns would be handed from object to object in
    the world's hottest loop, or each part would hold a copy to keep in step.
    """

    def __init__(self, state: World, tick: int,
                 plans: Mapping[int, tuple[Plan, ...]] | None = None):
        cfg = state.config
        self.cfg = cfg
        self.pol = cfg.policy
        self.tick = tick
        self.people = state.people
        self.ids = state.people.ids
        self.here = list(state.here)
        self.px = list(state.px)
        self.py = list(state.py)
        self.belly = list(state.belly)
        self.hands = list(state.hands)
        self.dest = list(state.dest)
        self.eating = list(state.eating)
        self.food = np.frombuffer(state.food_mg, dtype=np.int64).copy()
        self.grown = np.frombuffer(state.grown_at, dtype=np.int64).copy()
        self.food2 = self.food.reshape(cfg.height, cfg.width)
        self.grown2 = self.grown.reshape(cfg.height, cfg.width)
        self.sight = state.sight
        self.reach_limit = (cfg.reach + 1) ** 2
        self.bite = max(1, self.pol.mouthful // 4)  # the least a cell must hold to be eaten from
        self.deal = max(self.pol.give_to_hungry, self.pol.give)  # a draw below it may give
        # Those each villager saw at the last tick, by position in the config
        # (the order `near` keeps); the only ones it may reach this tick.
        self.seen = _seen_of(state)
        self.seen_after: _Seen | None = None
        # `moved`: somebody founded or walked this tick, or the sight held is not what `step`
        # found with this very config from these very spots. While it is False, who sees
        # whom stands as it is.
        looked = state.looked
        self.moved = looked is None or any(a is not b for a, b in zip(
            looked, (cfg, state.sight, state.here, state.px, state.py), strict=True))
        self.events: list[ev.Event] = []
        # each villager's plans for the day, by position; empty for a world without any
        self.plans: dict[int, tuple[Plan, ...]] = {}
        if plans:
            index = state.people.index
            self.plans = {index[v]: tuple(xs) for v, xs in plans.items() if v in index and xs}

    # -- food ------------------------------------------------------------

    def food_here(self, x: int, y: int) -> int:
        i = y * self.cfg.width + x
        return min(self.cfg.food_max,
                   self.food.item(i) + self.cfg.regrow * (self.tick - self.grown.item(i)))

    def remove_food(self, x: int, y: int, mg: int) -> None:
        self.set_food(y * self.cfg.width + x, self.food_here(x, y) - mg)

    def set_food(self, i: int, mg: int) -> None:
        self.food[i] = mg
        self.grown[i] = self.tick

    # -- who is near -------------------------------------------------------

    def near(self, i: int) -> list[int]:
        """Positions of villagers this one saw last tick and can reach now, in the config's order."""
        start = self.seen.start
        if start[i] == start[i + 1]:
            return []
        seen = self.seen.of[start[i]:start[i + 1]]
        px, py, here, limit = self.px, self.py, self.here, self.reach_limit
        x, y = px[i], py[i]
        out = []
        for j in seen:
            dx, dy = px[j] - x, py[j] - y
            if here[j] and dx * dx + dy * dy < limit:
                out.append(j)
        return out

    # -- acts ----------------------------------------------------------------

    def found(self, i: int, d: list[int]) -> None:
        x, y = self.px[i] // 1000, self.py[i] // 1000
        self.moved = True
        self.here[i] = True
        self.px[i] = _spot(x, d[SPOT_X])
        self.py[i] = _spot(y, d[SPOT_Y])
        self.events.append(ev.Founded(villager=self.ids[i], name=self.people.names[i], x=x, y=y))

    def walk(self, i: int, d: list[int]) -> None:
        x, y = self.px[i] // 1000, self.py[i] // 1000
        self.moved = True
        tx, ty = dest = self.dest[i]  # type: ignore[misc]
        nx, ny = x + _sign(tx - x), y + _sign(ty - y)
        self.px[i] = _spot(nx, d[SPOT_X])
        self.py[i] = _spot(ny, d[SPOT_Y])
        self.dest[i] = None if (nx, ny) == dest else dest
        self.events.append(ev.Walked(villager=self.ids[i], from_x=x, from_y=y, to_x=nx, to_y=ny))

    def set_out(self, i: int, dest: tuple[int, int], d: list[int]) -> None:
        # The first step is taken at once, so a journey's steps are on
        # consecutive ticks and a reader can tell where one journey ends.
        self.dest[i] = dest
        self.eating[i] = False
        self.walk(i, d)

    def eat(self, i: int) -> bool:
        """One mouthful from the cell, or from the hands if the cell is bare; False if neither."""
        pol = self.pol
        x, y = self.px[i] // 1000, self.py[i] // 1000
        # The hottest call of a hungry village: food_here and remove_food, inlined.
        c = y * self.cfg.width + x
        here = min(self.cfg.food_max,
                   self.food.item(c) + self.cfg.regrow * (self.tick - self.grown.item(c)))
        if here >= self.bite:
            mg = min(pol.mouthful, here)
            self.set_food(c, here - mg)
        elif self.hands[i] > 0:
            mg = pol.parcel
            self.hands[i] -= 1
        else:
            return False
        self.belly[i] += mg
        self.eating[i] = True
        self.events.append(ev.Ate(villager=self.ids[i], x=x, y=y, mouthfuls=1, milligrams=mg))
        return True

    def hand_over(self, kind: type[ev.Gave | ev.Took], i: int, j: int, d: list[int]) -> bool:
        """`i` gives parcels to `j` (`ev.Gave`) or takes them from `j` (`ev.Took`): as many as the
        draw picks in the policy's range for it, no more than the one giving holds nor than the
        one receiving has room for, and the event of `kind` that says so (`i` the villager it
        concerns, `j` the other); False where none change hands."""
        pol = self.pol
        if kind is ev.Gave:
            frm, to, (lo, hi) = i, j, pol.gift_parcels
        else:
            frm, to, (lo, hi) = j, i, pol.take_parcels
        n = min(self.hands[frm], lo + d[PARCELS] % (hi - lo + 1), pol.hands_max - self.hands[to])
        if n <= 0:
            return False
        self.hands[frm] -= n
        self.hands[to] += n
        actor, other = kind.concerns
        self.events.append(kind(**{actor: self.ids[i], other: self.ids[j]}, parcels=n,
                                milligrams=n * pol.parcel))
        return True

    def give(self, i: int, j: int, d: list[int]) -> bool:
        return self.hand_over(ev.Gave, i, j, d)

    def take(self, i: int, j: int, d: list[int]) -> bool:
        return self.hand_over(ev.Took, i, j, d)

    def gather(self, i: int, d: list[int]) -> bool:
        pol = self.pol
        x, y = self.px[i] // 1000, self.py[i] // 1000
        lo, hi = pol.gather_parcels
        n = min(lo + d[PARCELS] % (hi - lo + 1), pol.hands_max - self.hands[i],
                self.food_here(x, y) // pol.parcel)
        if n < lo:
            return False
        mg = n * pol.parcel
        self.remove_food(x, y, mg)
        self.hands[i] += n
        self.events.append(ev.Gathered(villager=self.ids[i], x=x, y=y, parcels=n, milligrams=mg))
        return True

    def forage_target(self, i: int) -> tuple[int, int] | None:
        """The richest cell within forage range, if it holds a meal's worth; nearest, then y, x, on ties."""
        cfg = self.cfg
        x, y = self.px[i] // 1000, self.py[i] // 1000
        r = self.pol.forage_cells
        y0, y1 = max(0, y - r), min(cfg.height, y + r + 1)
        x0, x1 = max(0, x - r), min(cfg.width, x + r + 1)
        if (y1 - y0) * (x1 - x0) <= 1:
            return None  # no cell but this one
        since = self.tick - self.grown2[y0:y1, x0:x1]
        if cfg.regrow:
            # A cell full since long ago is as full as one filled just now;
            # the cap keeps regrow * since inside int64.
            np.minimum(since, cfg.food_max // cfg.regrow + 1, out=since)
        mg = np.minimum(self.food2[y0:y1, x0:x1] + cfg.regrow * since, cfg.food_max)
        mg[y - y0, x - x0] = -1  # never this cell
        most = int(mg.max())
        if most < MEAL * self.pol.mouthful:
            return None
        # Row-major order is (y, x) order, so the first of the nearest is the tie-break's pick.
        cy, cx = np.nonzero(mg == most)
        ring = np.maximum(np.abs(cx + (x0 - x)), np.abs(cy + (y0 - y)))
        k = int(np.argmin(ring))
        return int(cx[k]) + x0, int(cy[k]) + y0

    def visit_target(self, i: int, d: list[int]) -> tuple[int, int] | None:
        """The cell of someone this villager saw last tick, if it is not this cell."""
        start = self.seen.start
        seen = self.seen.of[start[i]:start[i + 1]]
        if not seen:
            return None
        ids = self.ids
        j = sorted(seen, key=ids.__getitem__)[d[PICK] % len(seen)]
        cell = (self.px[j] // 1000, self.py[j] // 1000)
        return None if cell == (self.px[i] // 1000, self.py[i] // 1000) else cell

    def wander_target(self, i: int, d: list[int]) -> tuple[int, int] | None:
        cfg = self.cfg
        x, y = self.px[i] // 1000, self.py[i] // 1000
        w = self.pol.wander_cells
        dx = d[ROAM] % (2 * w + 1) - w
        dy = (d[ROAM] >> 32) % (2 * w + 1) - w
        tx = min(cfg.width - 1, max(0, x + dx))
        ty = min(cfg.height - 1, max(0, y + dy))
        return None if (tx, ty) == (x, y) else (tx, ty)

    # -- plans -------------------------------------------------------------
    #
    # A villager with plans for the day chooses by them among what its draws allow, and
    # only there: whom it gives to or takes from once a draw gave it the chance, where it
    # heads once a draw sent it walking. Without plans none of this is asked.

    def partner(self, among: list[int], d: list[int], plan: tuple[Plan, ...] | None,
                deal: str) -> int | None:
        """Whom of `among` (positions) a villager gives to (`deal` "give") or takes from: by the
        draw, as ever, where it has no plans; else one it shares with, where one is among
        them (the first such plan), and never one it keeps away from (keeping away wins
        over sharing) or, taking, one it shares with. None where nobody is left."""
        if not plan:
            return among[d[PICK] % len(among)]
        index = self.people.index
        avoided = {index.get(x.whom) for x in plan if x.act == "avoid"}
        if deal == "give":
            for x in plan:
                j = index.get(x.whom)
                if x.act == "share" and j in among and j not in avoided:
                    return j
        barred = avoided | ({index.get(x.whom) for x in plan if x.act == "share"}
                            if deal == "take" else set())
        left = [j for j in among if j not in barred]
        return left[d[PICK] % len(left)] if left else None

    def planned_walk(self, i: int, d: list[int], plan: tuple[Plan, ...]):
        """Where a villager sent walking by its draw heads, by the first of its plans that
        says: seek (where the one sought is), forage (the cell remembered), home (its founding
        cell), avoid (away from the one avoided, while in sight). None: it stays, being there
        already; `_NOWHERE`: no plan says, and the draw's own walk goes on."""
        here = (self.px[i] // 1000, self.py[i] // 1000)
        index = self.people.index
        for x in plan:
            if x.act == "seek":
                j = index.get(x.whom)
                if j is None or not self.here[j]:
                    continue
                cell = (self.px[j] // 1000, self.py[j] // 1000)
            elif x.act == "forage" and x.cell is not None:
                cell = x.cell
            elif x.act == "home":
                p = self.cfg.people[i]
                cell = (p.x, p.y)
            elif x.act == "avoid":
                j = index.get(x.whom)
                if j is None or j not in self.seen_of(i):
                    continue
                cell = self.away(i, j)
                if cell == here:
                    continue
            else:
                continue
            return None if cell == here else cell
        return _NOWHERE

    def planned_forage(self, i: int, plan: tuple[Plan, ...]) -> tuple[int, int] | None:
        """A hungry villager's forage cell by its first forage plan, where that cell is not
        its own and holds a meal's worth (as `forage_target` asks of any cell); else None."""
        here = (self.px[i] // 1000, self.py[i] // 1000)
        for x in plan:
            if x.act == "forage" and x.cell is not None and x.cell != here:
                if self.food_here(*x.cell) >= MEAL * self.pol.mouthful:
                    return x.cell
        return None

    def avoided_at(self, i: int, d: list[int], plan: tuple[Plan, ...]) -> bool:
        """Whether the one a visit would head for (`visit_target`'s pick) is kept away from."""
        seen = self.seen_of(i)
        if not seen:
            return False
        j = sorted(seen, key=self.ids.__getitem__)[d[PICK] % len(seen)]
        return any(x.act == "avoid" and self.people.index.get(x.whom) == j for x in plan)

    def seen_of(self, i: int) -> list[int]:
        start = self.seen.start
        return self.seen.of[start[i]:start[i + 1]]

    def away(self, i: int, j: int) -> tuple[int, int]:
        """The cell `wander_cells` on from villager i, straight away from villager j (on the grid)."""
        cfg, w = self.cfg, self.pol.wander_cells
        x, y = self.px[i] // 1000, self.py[i] // 1000
        jx, jy = self.px[j] // 1000, self.py[j] // 1000
        tx = min(cfg.width - 1, max(0, x + _sign(x - jx) * w))
        ty = min(cfg.height - 1, max(0, y + _sign(y - jy) * w))
        return tx, ty

    # -- the policy ----------------------------------------------------------

    def act(self, i: int, d: list[int]) -> None:
        """Villager `i`'s turn: burn, then the first of walk, eat, beg, give, take, gather or set
        out that its state and its draws `d` (by slot: SPOT_X .. ROAM) allow."""
        pol = self.pol
        belly = self.belly[i] = max(0, self.belly[i] - pol.burn)
        if self.dest[i] is not None:
            self.walk(i, d)
            return
        if self.eating[i]:
            # A meal goes on until the belly is full or there is nothing left;
            # the tick it stops is a tick of nothing, which closes the meal.
            if belly >= pol.belly_full or not self.eat(i):
                self.eating[i] = False
            return
        hands = self.hands
        if belly < pol.hungry_below:
            self.hungry(i, d)
            return
        chance = d[CHANCE] % 10000
        # with neither a chance to give nor one to take, whoever is near changes nothing
        near = self.near(i) if chance < self.deal or d[TAKE] % 10000 < pol.take else None
        plan = self.plans.get(i) if self.plans else None
        if near:
            if hands[i] > 0:
                hungry = [j for j in near if self.belly[j] < pol.hungry_below]
                if hungry and chance < pol.give_to_hungry:
                    j = self.partner(hungry, d, plan, "give")
                    if j is not None and self.give(i, j, d):
                        return
                elif chance < pol.give:
                    j = self.partner(near, d, plan, "give")
                    if j is not None and self.give(i, j, d):
                        return
            carrying = [j for j in near if hands[j] > 0]
            if carrying and d[TAKE] % 10000 < pol.take:
                j = self.partner(carrying, d, plan, "take")
                if j is not None and self.take(i, j, d):
                    return
        if hands[i] < pol.hands_max and d[GATHER] % 10000 < pol.gather:
            if self.gather(i, d):
                return
        if (d[PICK] >> 32) % 10000 < pol.wander:
            self.roam(i, d, plan)

    def hungry(self, i: int, d: list[int]) -> None:
        """A hungry villager's turn (`act`'s, once it has burnt): eat what it carries, else beg
        of one near who carries food, else wait by them, else set out to forage or wander."""
        if self.eat(i):
            return
        hands = self.hands
        givers = [j for j in self.near(i) if hands[j] > 0]
        if givers and d[CHANCE] % 10000 < self.pol.beg:
            self.events.append(ev.Begged(villager=self.ids[i], x=self.px[i] // 1000,
                                         y=self.py[i] // 1000))
            return
        if givers:
            return  # stay near those who carry food, and ask again later
        plan = self.plans.get(i) if self.plans else None
        dest = (plan and self.planned_forage(i, plan)) or self.forage_target(i) \
            or self.wander_target(i, d)
        if dest is not None:
            self.set_out(i, dest, d)

    def roam(self, i: int, d: list[int], plan: tuple[Plan, ...] | None) -> None:
        """A villager's walk when its draw says wander (`act`'s last choice): where its plan
        sends it, else a visit to one it saw (unless it keeps away from them), else a wander."""
        if plan:
            dest = self.planned_walk(i, d, plan)
            if dest is not _NOWHERE:
                if dest is not None:
                    self.set_out(i, dest, d)
                return
        dest = self.visit_target(i, d) if (d[PARCELS] >> 32) % 10000 < self.pol.visit else None
        if dest is not None and plan and self.avoided_at(i, d, plan):
            dest = None
        dest = dest or self.wander_target(i, d)
        if dest is not None:
            self.set_out(i, dest, d)

    def sort_out(self, draws: np.ndarray) -> np.ndarray:
        """Positions of the villagers whose act this tick may do more than burn, ascending.

        The rest are quiet: not walking or eating, not hungry once they have
        burnt, and drawing no chance to give, take, gather or wander (or
        none to give or take, when they saw nobody at the last tick). A quiet
        villager's act is its burn alone, which nobody else reads but to ask
        whether it is hungry, and it is not, before its burn or after (a burn
        is never negative: the schema's rule); so its burn is done here, for
        all of them at once, and the order of the rest is unchanged.
        """
        pol = self.pol
        n = len(self.here)
        here = np.fromiter(self.here, dtype=bool, count=n)
        acting = here & (self.people.founded_array != self.tick)
        busy = np.fromiter(map(operator.is_not, self.dest, repeat(None)), dtype=bool, count=n)
        busy |= np.fromiter(self.eating, dtype=bool, count=n)
        belly = np.fromiter(self.belly, dtype=np.int64, count=n)
        burnt = np.maximum(belly - pol.burn, 0)
        chance = draws[:, CHANCE:GATHER + 1] % 10000   # CHANCE, TAKE and GATHER, in that order
        deals = (chance[:, 0] < self.deal) | (chance[:, 1] < pol.take)
        if self.seen.partnered is not None:
            deals &= self.seen.partnered
        quiet = (acting & ~busy & (burnt >= pol.hungry_below) & ~deals
                 & (chance[:, 2] >= pol.gather) & ((draws[:, PICK] >> 32) % 10000 >= pol.wander))
        self.belly = np.where(quiet, burnt, belly).tolist()
        return np.flatnonzero(acting & ~quiet)

    def look(self) -> None:
        """Who sees whom once everyone has acted; a change is an event for each viewer.

        A tick in which nobody founded or walked leaves every spot where it was, so
        the pairs within sight are the last tick's (`moved`), and nothing changes.
        """
        if not self.moved:
            self.seen_after = self.seen
            return
        n = len(self.here)
        who = list(range(n)) if all(self.here) else [i for i, h in enumerate(self.here) if h]
        now: dict[tuple[int, int], int]
        if n >= _VECTOR_FROM:
            a, b, d2 = _pairs_by_arrays(who, self.px, self.py, self.cfg.sight,
                                        self.cfg.sight_most, self.people.id_rank)
            ia, ib = self.people.id_array[a], self.people.id_array[b]
            lo, hi = np.minimum(ia, ib), np.maximum(ia, ib)
            now = dict(zip(zip(lo.tolist(), hi.tolist(), strict=True), d2.tolist(), strict=True))
        else:
            a, b, d2 = _pairs_by_sweep(who, self.px, self.py, self.cfg.sight)
            ids = self.ids
            a, b, d2 = _nearest_of_lists(a, b, d2, ids, self.cfg.sight_most)
            now = {}
            for i, j, sq in zip(a, b, d2, strict=True):
                ia, ib = ids[i], ids[j]
                now[(ia, ib) if ia < ib else (ib, ia)] = sq
        found: list[tuple[int, int, ev.Event]] = []
        for ia, ib in now.keys() - self.sight:
            d = isqrt(now[(ia, ib)])
            found.append((ia, ib, ev.CameIntoSight(viewer=ia, seen=ib, millicells=d)))
            found.append((ib, ia, ev.CameIntoSight(viewer=ib, seen=ia, millicells=d)))
        for ia, ib in self.sight - now.keys():
            found.append((ia, ib, ev.WentOutOfSight(viewer=ia, seen=ib)))
            found.append((ib, ia, ev.WentOutOfSight(viewer=ib, seen=ia)))
        # (viewer, seen) is one event's alone, so this order is total.
        found.sort(key=lambda f: (f[0], f[1]))
        self.events.extend(f[2] for f in found)
        self.sight = frozenset(now)
        if n >= _VECTOR_FROM:
            self.seen_after = _seen_by_arrays(self.sight, n, a, b)
        else:
            self.seen_after = _seen_by_lists(self.sight, n, a, b)


def placed(cfg: WorldConfig) -> tuple[ev.Placed, ...]:
    """The world's places as the events that name them, in the config's order: none for a
    world that names none, so its log is the bytes it always was."""
    return tuple(ev.Placed(index=i, name=p.name, grows=p.grows, preposition=p.preposition,
                           cells=p.flat) for i, p in enumerate(cfg.places.places))


def step(state: World, tick: int, plans: Mapping[int, tuple[Plan, ...]] | None = None
         ) -> tuple[World, tuple[ev.Event, ...]]:
    """The village one tick on, and what happened in it, in the order it happened.

    At tick 0 the world's places first (`placed`), then founders, then every villager in
    the config's order, then the changes of sight. `plans` are the day's plans by
    villager id (none: the world as it always was). A pure function of (state, tick,
    intents): the same three give the same world and the same events, on any machine.
    """
    if type(tick) is not int or tick != state.tick:
        raise WorldError(f"step takes the world's next tick, {state.tick}, but got tick={tick!r}")
    n = len(state.here)
    draws = _stream(state.config.seed, (_TICK_STREAM, tick), n * DRAWS).reshape(n, DRAWS)
    t = _Tick(state, tick, plans)
    if tick == 0:
        t.events.extend(placed(state.config))
    for i in state.people.founders.get(tick, ()):
        if not t.here[i]:
            t.found(i, draws[i].tolist())
    if n >= _VECTOR_FROM:
        active = t.sort_out(draws)
        for i, d in zip(active.tolist(), draws[active].tolist(), strict=True):
            t.act(i, d)
    else:
        founded = state.people.founded
        rows = draws.tolist()
        for i in range(n):
            if t.here[i] and founded[i] != tick:
                t.act(i, rows[i])
    t.look()
    here, px, py = tuple(t.here), tuple(t.px), tuple(t.py)
    after = World(config=state.config, tick=tick + 1, here=here, px=px, py=py,
                  belly=tuple(t.belly), hands=tuple(t.hands), dest=tuple(t.dest),
                  eating=tuple(t.eating), food_mg=t.food.tobytes(), grown_at=t.grown.tobytes(),
                  sight=t.sight, people=state.people, seen=t.seen_after,
                  looked=(state.config, t.sight, here, px, py))
    return after, tuple(t.events)
