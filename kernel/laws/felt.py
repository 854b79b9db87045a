"""Felt memory in integers: the strength laws whose answers cross the log.

A strength that an event records (a row's stored strength, what it had
fallen to when re-felt, an anchor's combined strength) is an integer number
of thousandths, and so is a valence (-1000 to 1000). The laws here compute
with Python's `decimal` at 28 digits, whose `exp` and `ln` are correctly
rounded, and quantise to a whole thousandth with ROUND_HALF_EVEN, so the
same arguments give the same integer on every machine; libm's `exp` and
`log` may differ in the last bit, and a rounding boundary has no margin.
They restate the float laws kept as the tests' reference
(tests/unit/feeling_reference.py, with the same numbers: EmoStack rows
60, 67-70, 75-76, 108-112), and a test holds the two together. Row 60 is
the temperament that bends what a row is born with (`bent_valence`,
`bent_strength`).

Time is in ticks and a day is the world's `ticks_per_day`, handed in; no
day length lives here. This module also owns the valence table
(`Valences`, from configs/importance.json's `valence`) and the rule that
gives a row its role (actor, target, witness). It must not decide when a
row is felt, re-felt, forgotten or absorbed: the engine and the mind ask.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Context, Decimal
from functools import lru_cache

from kernel.laws._errors import LawError, integer
from kernel.laws._errors import tick as as_tick

FULL = 1000
"""A strength of 1.0, and a valence of +1.0, in thousandths."""

_CTX = Context(prec=28, rounding=ROUND_HALF_EVEN)
_ONE = Decimal(1)
_MILLI = Decimal(FULL)
_WHOLE = Decimal(1)

ROLES = ("actor", "target", "witness")


def _milli(x: Decimal) -> int:
    """A strength in [0, 1] as whole thousandths, half to even."""
    return int(_CTX.multiply(x, _MILLI).quantize(_WHOLE, rounding=ROUND_HALF_EVEN, context=_CTX))


def strength(name: str, value: object) -> int:
    """A strength in thousandths: an integer in 0..1000."""
    v = integer(name, value)
    if not 0 <= v <= FULL:
        raise LawError(f"Expected {name} in 0..{FULL} thousandths but got {name}={value!r}")
    return v


def valence(name: str, value: object) -> int:
    v = integer(name, value)
    if not -FULL <= v <= FULL:
        raise LawError(f"Expected {name} in -{FULL}..{FULL} thousandths but got {name}={value!r}")
    return v


@dataclass(frozen=True, slots=True)
class Felt:
    """The felt laws' numbers, in thousandths and days (EmoStack rows 67-70, 75, 108, 112).

    `floor`: strength never fades below this share of what was stored;
    `tau_days`: the fading time constant, `negative_factor` times longer
    (thousandths: 1500 is 1.5) for a negative feeling; `closing`: the share
    of the gap a re-felt row closes toward what is felt now; `anchor_minimum`:
    the least stored strength an anchor of a consolidation may have;
    `recurrence`: the cosine at and above which a statement is an earlier
    thought recurring; `curve`: (days, threshold in thousandths) anchors of
    the forgetting curve, interpolated in the logarithm of time.
    """

    floor: int = 300
    tau_days: int = 3
    negative_factor: int = 1500
    closing: int = 600
    anchor_minimum: int = 400
    recurrence: float = 0.90
    curve: tuple[tuple[int, int], ...] = ((1, 200), (7, 400), (10, 500), (30, 600), (180, 800))

    def __post_init__(self) -> None:
        strength("floor", self.floor)
        integer("tau_days", self.tau_days, at_least=1)
        integer("negative_factor", self.negative_factor, at_least=1)
        strength("closing", self.closing)
        strength("anchor_minimum", self.anchor_minimum)
        if not 0.0 < float(self.recurrence) <= 1.0:
            raise LawError(f"Expected a recurrence cosine in (0, 1] but got "
                           f"recurrence={self.recurrence!r}")
        days = [integer("curve days", d, at_least=1) for d, _ in self.curve]
        for _, t in self.curve:
            strength("curve threshold", t)
        if not days or any(a >= b for a, b in zip(days, days[1:], strict=False)):
            raise LawError(f"Expected a curve with strictly increasing days but got "
                           f"curve={self.curve!r}")


LAWS = Felt()


def intensity(weight: int) -> int:
    """A row's intensity at birth: its weight / 10, in thousandths (the seed's importance)."""
    w = integer("weight", weight)
    if not 1 <= w <= 10:
        raise LawError(f"Expected a weight in 1..10 but got weight={weight!r}")
    return w * 100


def fading(stored: int, elapsed: int, val: int, ticks_per_day: int, laws: Felt = LAWS) -> int:
    """What a row stored at `stored` is felt at `elapsed` ticks after it was last felt.

    stored * (floor + (1 - floor) * exp(-elapsed / tau)), tau = tau_days days,
    stretched by negative_factor for a negative valence; in thousandths. It is
    `stored` itself at elapsed 0, never more, and it never falls below the
    floor's share of `stored` (rounded as the rest is).
    """
    stored = strength("stored", stored)
    elapsed = integer("elapsed", elapsed, at_least=0)
    val = valence("valence", val)
    tpd = integer("ticks_per_day", ticks_per_day, at_least=1)
    if elapsed == 0 or stored == 0:
        return stored
    tau = Decimal(laws.tau_days * tpd)
    if val < 0:
        tau = _CTX.divide(_CTX.multiply(tau, Decimal(laws.negative_factor)), _MILLI)
    floor = _CTX.divide(Decimal(laws.floor), _MILLI)
    kept = _CTX.add(floor, _CTX.multiply(_ONE - floor, _CTX.exp(_CTX.divide(Decimal(-elapsed), tau))))
    return min(stored, _milli(_CTX.multiply(_CTX.divide(Decimal(stored), _MILLI), kept)))


def reconsolidate(fallen: int, felt_now: int, laws: Felt = LAWS) -> int:
    """A re-felt row's new strength: close `closing` of the gap toward what is felt now.

    Never past what is felt now, and a row stronger than now keeps its strength.
    """
    fallen = strength("fallen", fallen)
    felt_now = strength("felt_now", felt_now)
    if felt_now <= fallen:
        return fallen
    gap = Decimal(felt_now - fallen) * Decimal(laws.closing) / _MILLI
    risen = int((Decimal(fallen) + gap).quantize(_WHOLE, rounding=ROUND_HALF_EVEN, context=_CTX))
    return min(felt_now, risen)


def threshold(age: int, ticks_per_day: int, laws: Felt = LAWS) -> Decimal:
    """The stored strength (a fraction, as a Decimal) below which a row `age` ticks since last
    felt is forgotten: 0 under the curve's first day, its last value after its last day, and
    between two anchors interpolated in the logarithm of time."""
    age = integer("age", age, at_least=0)
    tpd = integer("ticks_per_day", ticks_per_day, at_least=1)
    curve = laws.curve
    days = _CTX.divide(Decimal(age), Decimal(tpd))
    if days < curve[0][0]:
        return Decimal(0)
    if days >= curve[-1][0]:
        return _CTX.divide(Decimal(curve[-1][1]), _MILLI)
    for (d0, t0), (d1, t1) in zip(curve, curve[1:], strict=False):
        if days < d1:
            ln0, ln1 = _CTX.ln(Decimal(d0)), _CTX.ln(Decimal(d1))
            share = _CTX.divide(_CTX.ln(days) - ln0, ln1 - ln0)
            t = _CTX.add(Decimal(t0), _CTX.multiply(Decimal(t1 - t0), share))
            return _CTX.divide(t, _MILLI)
    raise AssertionError("unreachable: days is below the last anchor")


def threshold_milli(age: int, ticks_per_day: int, laws: Felt = LAWS) -> int:
    """The forgetting threshold at `age`, in whole thousandths, for showing and for the log."""
    return _milli(threshold(age, ticks_per_day, laws))


def forgets(stored: int, age: int, ticks_per_day: int, laws: Felt = LAWS) -> bool:
    """Whether a row stored at `stored`, `age` ticks since last felt, is below the curve."""
    stored = strength("stored", stored)
    age = integer("age", age, at_least=0)
    at = forgetting_age(stored, ticks_per_day, laws)
    return at is not None and age >= at


@lru_cache(maxsize=1 << 14)
def forgetting_age(stored: int, ticks_per_day: int, laws: Felt = LAWS) -> int | None:
    """The fewest ticks since last felt at which a row stored at `stored` is below the curve;
    None if it never is. The threshold never falls as time passes (each step of it is a
    correctly rounded, non-decreasing function of the age), so this one age answers every
    `forgets` question for the strength, and a night asks it once, not once a row."""
    stored = strength("stored", stored)
    tpd = integer("ticks_per_day", ticks_per_day, at_least=1)
    s = _CTX.divide(Decimal(stored), _MILLI)
    last = laws.curve[-1][0] * tpd
    if not s < threshold(last, tpd, laws):
        return None
    low, high = 0, last          # below the answer at low (age 0 forgets nothing), at it at high
    while high - low > 1:
        mid = (low + high) // 2
        if s < threshold(mid, tpd, laws):
            high = mid
        else:
            low = mid
    return high


def combined(strengths: Iterable[int]) -> int:
    """Rows consolidated into one: 1 - product(1 - s), in thousandths; 0 for none."""
    if isinstance(strengths, str | bytes):
        raise LawError(f"Expected strengths as integers but got strengths={strengths!r}")
    remaining = _ONE
    for s in strengths:
        s = strength("a strength in strengths", s)
        remaining = _CTX.multiply(remaining, _CTX.divide(Decimal(FULL - s), _MILLI))
    return _milli(_ONE - remaining)


BIAS_MOST = 10 * FULL
"""The largest valence bias, either way, in thousandths: past a shift of 10 in logit space
every valence but the two ends is already born at -1000 or 1000."""


def bias(name: str, value: object) -> int:
    """A temperament's valence bias in thousandths: an integer in -10000..10000."""
    v = integer(name, value)
    if not -BIAS_MOST <= v <= BIAS_MOST:
        raise LawError(f"Expected {name} in -{BIAS_MOST}..{BIAS_MOST} thousandths but got "
                       f"{name}={value!r}")
    return v


def amplification(name: str, value: object) -> int:
    """A temperament's intensity amplification in thousandths: an integer >= 1 (1000 is 1.0)."""
    return integer(name, value, at_least=1)


def bent_valence(val: int, valence_bias: int) -> int:
    """A valence as a temperament of `valence_bias` feels it at birth (EmoStack row 60):
    tanh(atanh(v) + bias), in thousandths.

    Computed as t = ((1000 + v) * E - (1000 - v)) / ((1000 + v) * E + (1000 - v)) with
    E = exp(2 * bias / 1000), which is tanh(atanh(v) + bias) written out, so one Decimal `exp`
    gives it and no `ln` is needed. A bias of 0 returns `val` untouched, and so do the two
    ends, -1000 and 1000, where atanh is infinite: a feeling at the very end of the scale
    stays there. Otherwise the answer is in -1000..1000 (a strong bias may round to an end),
    it is above `val` for a positive bias and below for a negative one (or equal, at a
    thousandth's rounding), and it keeps the order of valences.
    """
    val = valence("valence", val)
    b = bias("valence_bias", valence_bias)
    if b == 0 or val == FULL or val == -FULL:
        return val
    up = _CTX.multiply(Decimal(FULL + val), _CTX.exp(_CTX.divide(Decimal(2 * b), _MILLI)))
    down = Decimal(FULL - val)
    t = _CTX.divide(_CTX.subtract(up, down), _CTX.add(up, down))
    return max(-FULL, min(FULL, _milli(t)))   # _milli rounds a negative fraction the same way


def bent_strength(s: int, intensity_amplification: int) -> int:
    """A strength as a temperament of `intensity_amplification` feels it at birth (EmoStack
    row 60): i ** (1 / amp), in thousandths, computed as exp(ln(i) * 1000 / amp) in Decimal.

    An amplification of 1000 returns `s` untouched, and so do 0 and 1000 (0 and 1 to any
    power). Above 1000 a strength below 1000 rises, below 1000 it falls (or stays, at a
    thousandth's rounding); the answer is in 0..1000 and keeps the order of strengths.
    """
    s = strength("strength", s)
    a = amplification("intensity_amplification", intensity_amplification)
    if a == FULL or s == 0 or s == FULL:
        return s
    power = _CTX.divide(_MILLI, Decimal(a))
    bent = _CTX.exp(_CTX.multiply(_CTX.ln(_CTX.divide(Decimal(s), _MILLI)), power))
    return max(0, min(FULL, _milli(bent)))


def mean_valence(valences: Iterable[int]) -> int:
    """A thought's valence: the mean of its cited rows' valences, truncated toward zero; 0 for none."""
    vs = [valence("a valence in valences", v) for v in valences]
    if not vs:
        return 0
    total = sum(vs)
    q = abs(total) // len(vs)
    return q if total >= 0 else -q


def agree(a: int, b: int) -> bool:
    """Whether two valences agree in sign (their product is >= 0): a re-felt row's condition."""
    return valence("a", a) * valence("b", b) >= 0


def role(villager: int, kind: str, about: Iterable[int]) -> str:
    """A row's part in what it remembers: its doer is the actor; a row about its own villager
    (a gift handed to it, a take from its hands) is the target's; any other is a witness's."""
    if kind == "did":
        return "actor"
    return "target" if villager in tuple(about) else "witness"


@dataclass(frozen=True, slots=True)
class Valences:
    """The valence table: (kind, event, role) to thousandths in -1000..1000."""

    table: tuple[tuple[tuple[str, str, str], int], ...]
    _by: dict = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        for (kind, event, r), v in self.table:
            if r not in ROLES:
                raise LawError(f"Expected a role among {ROLES} but got {kind}.{event}.{r}")
            valence(f"valence[{kind}][{event}][{r}]", v)
        object.__setattr__(self, "_by", dict(self.table))

    @classmethod
    def from_value(cls, value: Mapping) -> Valences:
        """The table from importance.json's `valence` value: kind -> event -> role -> thousandths."""
        try:
            return cls(tuple(sorted(((kind, event, r), int(v))
                                    for kind, row in value.items()
                                    for event, roles in row.items()
                                    for r, v in roles.items())))
        except (TypeError, AttributeError) as e:
            raise LawError(f"Expected a valence table kind -> event -> role -> thousandths but "
                           f"got value={value!r} ({e})") from None

    def of(self, kind: str, event: str, r: str) -> int:
        v = self._by.get((kind, event, r))
        if v is None:
            raise LawError(f"the valence table has no value for a {kind} {event} row's {r}")
        return v

    def of_row(self, villager: int, kind: str, event: str, about: Iterable[int]) -> int:
        return self.of(kind, event, role(villager, kind, about))


def felt_now(stored: int, last_felt: int, now: int, val: int, ticks_per_day: int,
             laws: Felt = LAWS) -> int:
    """A row's felt strength at `now`: `fading` over the ticks since it was last felt."""
    now = as_tick("now", now)
    last_felt = as_tick("last_felt", last_felt)
    if last_felt > now:
        raise LawError(f"Expected last_felt no later than now={now!r} but got {last_felt!r}")
    return fading(stored, now - last_felt, val, ticks_per_day, laws)
