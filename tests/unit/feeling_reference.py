"""The float reference of the strength laws: fading, reconsolidation, forgetting, combining.

A run feels in integers, through kernel.laws.felt; this module is what those
integer laws restate, kept for the tests that hold the two together and
that state the laws' numbers as floats (tests/unit/test_laws_feeling_cases.py,
tests/properties/test_laws_feeling_properties.py and
tests/properties/test_laws_felt_properties.py). No module of the kernel imports it.

It holds the strength laws taken from the EmoStack engine's rules,
restated in this village's time, where a day is 2000 ticks: `fading`,
`reconsolidate`, `forgetting_threshold` (and `forgets`), `combined_intensity`,
`reinforce`, `temper` (and its two halves, `bent_valence` and
`bent_strength`, which kernel.laws.felt restates in thousandths) and
`felt_score`, with their parameter values
`Fading`, `ForgettingCurve` and `Temperament`. It must not decide which
memory is felt or when: the caller says how long it has been and what is
felt now. Intensities are in [0, 1]; valence is in [-1, 1].
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from kernel.laws._errors import LawError, integer, real, unit

TICKS_PER_DAY = 2000
"""A day in this village, the span one reflection makes something of."""


@dataclass(frozen=True, slots=True)
class Fading:
    """The fading law's parameters: strength never falls below `floor` of the
    intensity; the rest decays with time constant `tau` ticks (3 days), which
    is `negative_factor` times longer for a negative feeling."""

    floor: float = 0.3
    tau: float = 3 * TICKS_PER_DAY
    negative_factor: float = 1.5

    def __post_init__(self) -> None:
        unit("floor", self.floor)
        real("tau", self.tau, above=0.0)
        real("negative_factor", self.negative_factor, above=0.0)


def fading(intensity: float, elapsed: float, valence: float, params: Fading = Fading()) -> float:
    """The felt strength of a memory `elapsed` ticks after it was last felt.

    intensity * (floor + (1 - floor) * exp(-elapsed / tau)), with tau stretched
    by `negative_factor` when the valence is below zero. It is the intensity
    itself at elapsed 0 and never below floor * intensity.
    """
    intensity = unit("intensity", intensity)
    elapsed = real("elapsed", elapsed, low=0.0)
    valence = real("valence", valence, low=-1.0, high=1.0)
    tau = params.tau * (params.negative_factor if valence < 0 else 1.0)
    if elapsed == 0:
        # floor + (1 - floor) need not round back to exactly 1
        return intensity
    kept = params.floor + (1.0 - params.floor) * math.exp(-elapsed / tau)
    return intensity * min(1.0, kept)


def reconsolidate(stored: float, felt_now: float, closing: float = 0.6) -> float:
    """A recurring memory's new strength: close `closing` of the gap toward what is felt now.

    Never past what is felt now, and a memory stronger than now keeps its strength.
    """
    stored = unit("stored", stored)
    felt_now = unit("felt_now", felt_now)
    closing = unit("closing", closing)
    if felt_now <= stored:
        return stored
    return min(felt_now, stored + closing * (felt_now - stored))


@dataclass(frozen=True, slots=True)
class ForgettingCurve:
    """Below which stored intensity a memory is forgotten, by days since last felt.

    `anchors` are (days, threshold) pairs with strictly increasing days: nothing
    is forgotten before the first, the last holds for ever after, and between
    two anchors the threshold is interpolated in the logarithm of time.
    """

    anchors: tuple[tuple[float, float], ...] = (
        (1, 0.2),
        (7, 0.4),
        (10, 0.5),
        (30, 0.6),
        (180, 0.8),
    )
    ticks_per_day: int = TICKS_PER_DAY

    def __post_init__(self) -> None:
        integer("ticks_per_day", self.ticks_per_day, at_least=1)
        pairs = tuple(
            (real("anchor days", d, above=0.0), unit("anchor threshold", t))
            for d, t in self.anchors
        )
        if not pairs or any(a[0] >= b[0] for a, b in zip(pairs, pairs[1:], strict=False)):
            raise LawError(
                f"Expected anchors with strictly increasing days but got anchors={self.anchors!r}"
            )
        object.__setattr__(self, "anchors", pairs)


def forgetting_threshold(age: float, curve: ForgettingCurve = ForgettingCurve()) -> float:
    """The stored intensity below which a memory `age` ticks since last felt is forgotten; 0.0 means none."""
    age = real("age", age, low=0.0)
    days = age / curve.ticks_per_day
    anchors = curve.anchors
    if days < anchors[0][0]:
        return 0.0
    if days >= anchors[-1][0]:
        return anchors[-1][1]
    for (d0, t0), (d1, t1) in zip(anchors, anchors[1:], strict=False):
        if days < d1:
            share = (math.log(days) - math.log(d0)) / (math.log(d1) - math.log(d0))
            return t0 + (t1 - t0) * share
    raise AssertionError("unreachable: days is below the last anchor")


def forgets(intensity: float, age: float, curve: ForgettingCurve = ForgettingCurve()) -> bool:
    """Whether a memory of stored `intensity`, `age` ticks since last felt, is forgotten."""
    return unit("intensity", intensity) < forgetting_threshold(age, curve)


def combined_intensity(intensities: Iterable[float]) -> float:
    """The strength of memories consolidated into one: 1 - product(1 - i); 0.0 for none."""
    if isinstance(intensities, str | bytes):
        raise LawError(f"Expected intensities as numbers but got intensities={intensities!r}")
    remaining = 1.0
    for i in intensities:
        remaining *= 1.0 - unit("an intensity in intensities", i)
    return min(1.0, max(0.0, 1.0 - remaining))


def reinforce(intensity: float, step: float = 0.1) -> float:
    """A construct met again gains `step` of intensity, up to 1.0."""
    return min(1.0, unit("intensity", intensity) + unit("step", step))


@dataclass(frozen=True, slots=True)
class Temperament:
    """A bias on valence, added in logit space, and an amplification that bends intensity.
    The neutral temperament (0, 1) changes nothing."""

    valence_bias: float = 0.0
    intensity_amplification: float = 1.0

    def __post_init__(self) -> None:
        real("valence_bias", self.valence_bias)
        real("intensity_amplification", self.intensity_amplification, above=0.0)


def temper(
    valence: float, intensity: float, temperament: Temperament = Temperament()
) -> tuple[float, float]:
    """Valence and intensity as this temperament feels them: tanh(atanh(v) + bias) and i ** (1 / amp)."""
    valence = real("valence", valence, low=-1.0, high=1.0)
    intensity = unit("intensity", intensity)
    if temperament == Temperament():
        return valence, intensity
    # atanh(+-1) is infinite; a feeling at the very end of the scale stays there
    if abs(valence) == 1.0:
        felt_v = valence
    else:
        felt_v = math.tanh(math.atanh(valence) + temperament.valence_bias)
    felt_i = intensity ** (1.0 / temperament.intensity_amplification)
    return max(-1.0, min(1.0, felt_v)), max(0.0, min(1.0, felt_i))


def bent_valence(valence: float, valence_bias: float) -> float:
    """A valence as a temperament feels it: tanh(atanh(v) + bias); the ends -1 and 1 stay."""
    return temper(valence, 1.0, Temperament(valence_bias=valence_bias))[0]


def bent_strength(intensity: float, intensity_amplification: float) -> float:
    """An intensity as a temperament feels it: i ** (1 / amp), in [0, 1]."""
    return temper(0.0, intensity, Temperament(intensity_amplification=intensity_amplification))[1]


def felt_score(relevance: float, felt_strength: float) -> float:
    """A felt record's recall score: how near it is in meaning times how strongly it is felt now."""
    return real("relevance", relevance, low=-1.0, high=1.0) * unit("felt_strength", felt_strength)
