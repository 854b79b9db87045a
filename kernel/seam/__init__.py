"""The seam between the village and a model: templates in, a checked value out.

This package owns the prompt templates (`render`), the answer schemas the
calls send (`asked_schema`, `drawn_schema` per ask, `DRAWN_SCHEMA` where no ask says
which ids were shown) and `shaped`, the one road from a
model's text to a value. It must not call a model (that is `kernel.oracle`),
write the log, or enforce a citation rule (that is `kernel.laws`): a rule
lives in one place, and that place is not a prompt.
"""

from kernel.seam.errors import SeamError, TemplateError
from kernel.seam.schemas import DRAWN_SCHEMA, asked_schema, drawn_schema
from kernel.seam.shaped import shaped
from kernel.seam.templates import (
    QUESTIONS,
    SHIPPED,
    STATEMENT,
    Rendered,
    TemplateFile,
    render,
    shipped_templates,
    template_file,
)

__all__ = [
    "DRAWN_SCHEMA",
    "QUESTIONS",
    "SHIPPED",
    "STATEMENT",
    "Rendered",
    "SeamError",
    "TemplateError",
    "TemplateFile",
    "asked_schema",
    "drawn_schema",
    "render",
    "shaped",
    "shipped_templates",
    "template_file",
]
