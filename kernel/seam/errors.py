"""The seam's own error kinds, under the kernel's root `VillageError`.

A refusal of a model's answer is `kernel.errors.Refused` itself (raised by
`shaped`); these are the mistakes of the code that calls the seam.
"""

from __future__ import annotations

from kernel.errors import VillageError


class SeamError(VillageError):
    """The seam was called with something it cannot use (a bad schema, a bad count)."""


class TemplateError(SeamError):
    """A template is missing, does not parse, or needs a key the call did not give."""
