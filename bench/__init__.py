"""Benchmarks (`make bench`): ratios against a baseline run in the same process."""
