"""The seam's own error kinds, as the seam names them; defined in kernel/errors.py.

A refusal of a model's answer is `kernel.errors.Refused` itself (raised by
`shaped`); `SeamError` and `TemplateError` under it are the mistakes of the
code that calls the seam, usage errors like every caller's mistake. Both
are defined with every other kind in kernel/errors.py and imported here,
so `kernel.seam.errors` and `kernel.seam` keep naming them.
"""

from __future__ import annotations

from kernel.errors import SeamError, TemplateError

__all__ = ["SeamError", "TemplateError"]
