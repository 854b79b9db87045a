"""Test settings shared by every suite.

Hypothesis runs under one profile with no per-example deadline and no
too-slow health check: the machines that run CI are shared and noisy, and a
property test checks a rule, never a speed (speeds are `make bench`'s).
"""

from hypothesis import HealthCheck, settings

settings.register_profile("village", deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("village")
