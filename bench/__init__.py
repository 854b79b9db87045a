"""Benchmarks (`make bench`): ratios against a baseline run in the same process."""


def verdict(met: bool, why: str) -> str:
    """A target's outcome in words: met, or not met and the measured reason why."""
    return "met" if met else f"NOT met: {why}"
