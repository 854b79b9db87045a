"""The small checks every law shares, and the errors they raise, as the laws name them.

This module owns the argument checks every law shares, so that a bad
argument is refused at the door with a message naming the argument and its
value, never three calls down. The errors themselves (`LawError`, and
perception's `PerceptionError` under it) are defined in kernel/errors.py,
with every other kind, and imported here so that the laws reach them in
one place; it imports nothing else but the standard library's `math` and
`numbers`.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

from kernel.errors import LawError, PerceptionError

__all__ = ["LawError", "PerceptionError", "integer", "real", "tick", "unit"]


def integer(name: str, value: object, *, at_least: int | None = None) -> int:
    # The plain int first: folding a long log makes a million rows, and the
    # abstract Integral check is most of what making a row costs.
    if type(value) is int:
        if at_least is not None and value < at_least:
            raise LawError(f"Expected {name} >= {at_least} but got {name}={value!r}")
        return value
    # bool is an int to Python, but a True tick is a bug, not a tick
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise LawError(f"Expected an integer but got {name}={value!r}")
    value = int(value)
    if at_least is not None and value < at_least:
        raise LawError(f"Expected {name} >= {at_least} but got {name}={value!r}")
    return value


def tick(name: str, value: object) -> int:
    if type(value) is int and value >= 0:
        return value
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 0:
        raise LawError(f"Expected a tick >= 0 but got {name}={value!r}")
    return int(value)


def real(
    name: str,
    value: object,
    *,
    low: float | None = None,
    high: float | None = None,
    above: float | None = None,
) -> float:
    """A finite float, optionally within [low, high] or strictly above `above`."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise LawError(f"Expected a number but got {name}={value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise LawError(f"Expected a finite number but got {name}={value!r}")
    if low is not None and number < low:
        raise LawError(f"Expected {name} >= {low} but got {name}={value!r}")
    if high is not None and number > high:
        raise LawError(f"Expected {name} <= {high} but got {name}={value!r}")
    if above is not None and not number > above:
        raise LawError(f"Expected {name} > {above} but got {name}={value!r}")
    return number


def unit(name: str, value: object) -> float:
    """A finite number in [0, 1]: an intensity, a fraction, a share."""
    return real(name, value, low=0.0, high=1.0)
