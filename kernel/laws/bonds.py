"""Bonds in integers: what passes between two villagers, held as a bond that fades by night.

A bond is one villager's toward another, per ORDERED pair (a's bond to b is not b's to a),
in integer thousandths from -1000 (keeps away) to 1000 (close); 0 is neutral. It is read
off a's own memory rows only, since a bond is what a villager holds, not what the world
did: a row of a's counts toward each other villager in its `about` when it is one of the
seven passings below, named by (kind, event, role) as the valence table names a row's part
(kernel.laws.felt.role):

    gave   did/gift, actor      a handed b food
    got    saw/gift, target     b handed a food
    took   did/take, actor      a took food out of b's hands
    lost   saw/take, target     b took food out of a's hands
    pleas  heard/plea, witness  a heard b ask for food
    said   did/talk, actor      a said words to b
    heard  heard/talk, witness  a heard b say words

A row a merely witnessed between others (a `saw` row whose role is a witness's: a gift or
a take between two others, or someone coming into or going out of sight) counts toward no
one: nothing passed between a and them. A heard row is a witness's by the table's rule
(the one heard is in its `about`, a is not), and it counts all the same, because what a
hears is said to it or before it. Thoughts and given rows count toward no one: a thought
is a's own reading of what passed, and a given row is a scenario's, not a meeting's.

The sign and size of what passed is the row's valence from the valence table, as the
scenario's importance file says it, so a bond agrees with what a felt at the moment. Each
passing pushes the bond by `rate` thousandths of that valence, saturating: a push p > 0
closes p thousandths of the gap to 1000 (a push p < 0 of the gap to -1000), rounded away
from zero, so a push always moves an unsaturated bond by at least one thousandth its way and
never past either end. Rows of one day are taken in id order.

Each night the bond fades toward 0 by the keep factor: |bond| * keep / 1000, rounded toward
zero, with its sign. keep is 1000 * 2 ** (-1 / half_life_days), to the nearest thousandth, so
a bond halves in `half_life_days` nights with nothing passing; rounding toward zero means it
never crosses 0 and reaches 0 in finitely many nights (a bond that is never renewed ends).

The numbers, and why:
- `half_life_days` 3 (keep 794): a run of a few days should show yesterday's bonds still
  standing, faded, and a week without a meeting leaves a fifth of a bond (0.794 ** 7 = 0.20),
  as an acquaintance cools. It is the felt laws' time constant (`Felt.tau_days` 3) taken as a
  half-life, so a bond outlasts the feeling of any one row behind it.
- `rate` 350: the strongest good passing, a gift received (valence 700), moves a stranger's
  bond to 245, "on good terms" but not "close"; two gifts in a day make it close (430), a
  third 570. A take suffered (-700) is as strong the other way, and a plea heard (-300) about a
  third of that. Words at the talk table's valences (a scenario names them) move it less
  than a gift, as they should: talk is cheap beside food to a hungry villager.
- the bands of `words`: `close` 400, `good` 150, `wary` -150, `away` -400, even either way:
  two gifts received make a villager close, one on good terms; one take suffered (-245) or
  two pleas heard (-199) make it wary, and two takes (-430) make it keep away. A plea heard
  once (-105) leaves it in between: one plea is a neighbour's bad day.

This module owns those rules and numbers, and the words a prompt names a bond by. It must not
read a log, memory streams or files: kernel.mind.bonds folds rows through it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Context, Decimal
from functools import lru_cache

from kernel.laws import felt as lf
from kernel.laws._errors import LawError, integer

FULL = 1000
"""A bond of 1.0 (close) in thousandths; -FULL keeps away."""

PASSINGS: dict[tuple[str, str, str], str] = {
    ("did", "gift", "actor"): "gave",
    ("saw", "gift", "target"): "got",
    ("did", "take", "actor"): "took",
    ("saw", "take", "target"): "lost",
    ("heard", "plea", "witness"): "pleas",
    ("did", "talk", "actor"): "said",
    ("heard", "talk", "witness"): "heard",
}
"""What passes between two villagers, by a row's (kind, event, role): the name it is counted
under. A row of any other (kind, event, role) counts toward no one."""

NAMES = tuple(PASSINGS.values())
"""The passings' names, in the order above: the columns a day's counts are kept in."""

_CTX = Context(prec=28, rounding=ROUND_HALF_EVEN)


def bond(name: str, value: object) -> int:
    """A bond in thousandths: an integer in -1000..1000, as a valence is."""
    return lf.valence(name, value)


@dataclass(frozen=True, slots=True)
class Bonds:
    """The bond law's numbers (the module's docstring says why each is what it is).

    `half_life_days`: nights for a bond to halve with nothing passing; `rate`: the thousandths
    of a passing's valence that push the bond; `close`, `good`, `wary`, `away`: the bands
    `words` names a bond by (close at or above `close`, on good terms at or above `good`,
    wary at or below `wary`, keeping away at or below `away`, else in between).
    """

    half_life_days: int = 3
    rate: int = 350
    close: int = 400
    good: int = 150
    wary: int = -150
    away: int = -400

    def __post_init__(self) -> None:
        integer("half_life_days", self.half_life_days, at_least=1)
        r = integer("rate", self.rate, at_least=0)
        if r > FULL:
            raise LawError(f"Expected rate in 0..{FULL} thousandths but got rate={self.rate!r}")
        for n in ("close", "good", "wary", "away"):
            bond(n, getattr(self, n))
        if not self.away < self.wary < 0 < self.good < self.close:
            raise LawError(f"Expected bands away < wary < 0 < good < close but got "
                           f"away={self.away}, wary={self.wary}, good={self.good}, "
                           f"close={self.close}")

    @property
    def keep(self) -> int:
        """The share of a bond a night keeps, in thousandths: 1000 * 2 ** (-1 / half_life_days)."""
        return _keep(self.half_life_days)


LAWS = Bonds()


@lru_cache(maxsize=64)
def _keep(half_life_days: int) -> int:
    x = _CTX.exp(_CTX.divide(-_CTX.ln(Decimal(2)), Decimal(half_life_days)))
    return int(_CTX.multiply(x, Decimal(FULL)).quantize(Decimal(1), rounding=ROUND_HALF_EVEN,
                                                         context=_CTX))


def passing(villager: int, kind: str, event: str, about: Iterable[int]) -> str | None:
    """What a row of `villager`'s is between it and the others in its `about` (a name of
    `PASSINGS`), or None where it is nothing that passed between them."""
    about = tuple(about)
    r = "actor" if kind == "did" else "target" if villager in about else "witness"
    return PASSINGS.get((kind, event, r))


def others(villager: int, about: Iterable[int]) -> tuple[int, ...]:
    """The villagers a row of `villager`'s is between it and: its `about` but itself."""
    return tuple(o for o in about if o != villager)


def push(valence: int, laws: Bonds = LAWS) -> int:
    """How hard a passing of `valence` pushes a bond: `rate` thousandths of it, toward zero."""
    v = integer("valence", valence)
    if not -FULL <= v <= FULL:
        raise LawError(f"Expected valence in -{FULL}..{FULL} thousandths but got "
                       f"valence={valence!r}")
    p = abs(v) * laws.rate // FULL
    return p if v >= 0 else -p


def passed(b: int, valence: int, laws: Bonds = LAWS) -> int:
    """The bond `b` after one passing of `valence`: the push closes its share of the gap to the
    end it pushes toward, rounded away from zero; never past -1000 or 1000."""
    b = bond("bond", b)
    p = push(valence, laws)
    if p > 0:
        return b + -(-p * (FULL - b) // FULL)
    if p < 0:
        return b - -(p * (FULL + b) // FULL)
    return b


def carried(b: int, valences: Iterable[int], laws: Bonds = LAWS) -> int:
    """The bond `b` after each passing of `valences`, in order."""
    for v in valences:
        b = passed(b, v, laws)
    return b


def night(b: int, laws: Bonds = LAWS) -> int:
    """The bond `b` after one night: |b| * keep / 1000 toward zero, with b's sign."""
    b = bond("bond", b)
    k = abs(b) * laws.keep // FULL
    return k if b >= 0 else -k


def faded(b: int, nights: int, laws: Bonds = LAWS) -> int:
    """The bond `b` after `nights` nights with nothing passing (one `night` each)."""
    b = bond("bond", b)
    n = integer("nights", nights, at_least=0)
    while n and b:
        b = night(b, laws)
        n -= 1
    return b


def words(b: int | None, name: str, laws: Bonds = LAWS) -> str:
    """The bond `b` toward `name` as a talk prompt says it; None: nothing has passed yet."""
    if not isinstance(name, str) or not name:
        raise LawError(f"Expected a villager's name but got name={name!r}")
    if b is None:
        return f"nothing has passed between you and {name} yet"
    b = bond("bond", b)
    if b >= laws.close:
        return f"you are close to {name}"
    if b >= laws.good:
        return f"you are on good terms with {name}"
    if b <= laws.away:
        return f"you keep away from {name}"
    if b <= laws.wary:
        return f"you are wary of {name}"
    return f"you know {name}, neither close nor distant"
