"""The `village` command line (click). Thin: parse, call the kernel, print.

Click code lives here, inside the package, and not in a top-level `cmd`
package, which would shadow the standard library's `cmd` module; the
`cmd/` folder holds only the thin `village` program. Each command group
is its own module, registered on `main` below.
"""

from __future__ import annotations

import click

CONTEXT = {"help_option_names": ["-h", "--help"]}


@click.group(context_settings=CONTEXT)
def main() -> None:
    """The village kernel: run, inspect and replay a village of language-model agents."""


def _register() -> None:
    from kernel.cli import embed_cmd, log_cmd, mind_cmd, reflect_cmd, store_cmd, world_cmd

    for mod in (log_cmd, world_cmd, store_cmd, mind_cmd, reflect_cmd, embed_cmd):
        for c in getattr(mod, "COMMANDS", ()):
            main.add_command(c)


_register()
