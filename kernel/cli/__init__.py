"""The `village` command line (click). Thin: parse, call the kernel, render.

Click code lives here, inside the package, and not in a top-level `cmd`
package, which would shadow the standard library's `cmd` module; the
`cmd/` folder holds only the thin `village` program. Each command group
is its own module, registered on `main` below. Errors reach the user in
one place: `VillageGroup` turns every kernel error into one line naming
the rule and the value, and an exit code of 1.
"""

from __future__ import annotations

import click

from kernel.errors import VillageError

CONTEXT = {"help_option_names": ["-h", "--help"]}


def one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


class VillageGroup(click.Group):
    """A click group that maps every kernel error to one line, once, for every command under it.

    `says` names what a kind of error means under a group (a subclass's): its
    line starts with that, then the error's own words.
    """

    says: tuple[tuple[type[VillageError], str], ...] = ()

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except VillageError as e:
            raise click.ClickException(self.line(e)) from None

    def line(self, e: VillageError) -> str:
        for kind, what in self.says:
            if isinstance(e, kind):
                return f"{what}: {one_line(e)}"
        return one_line(e)


def _home(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    from kernel import config

    try:
        config.set_home(value)     # None as well: each invocation starts from its own options
    except VillageError as e:
        raise click.BadParameter(one_line(e)) from None
    return value


def _verbose(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    ctx.ensure_object(dict)["verbose"] = value
    return value


@click.group(cls=VillageGroup, context_settings=CONTEXT)
@click.option("--home", type=click.Path(file_okay=False), default=None, callback=_home,
              is_eager=True, expose_value=False,
              help="The project folder to use [default: the nearest folder, from the working "
                   "folder up, holding a village.toml or configs/world.json; VILLAGE_HOME].")
@click.option("-v", "--verbose", is_flag=True, callback=_verbose, expose_value=False,
              help="Say which project home and files a command uses.")
@click.pass_context
def main(ctx: click.Context) -> None:
    """The village kernel: run, inspect and replay a village of language-model agents."""
    from kernel import config

    if ctx.obj.get("verbose"):
        click.echo(config.home_line(), err=True)


def _register() -> None:
    from kernel.cli import (
        diff_cmd,
        embed_cmd,
        fork_cmd,
        init_cmd,
        log_cmd,
        plot_cmd,
        reflect_cmd,
        report_cmd,
        run_cmd,
        scenarios_cmd,
        store_cmd,
        sweep_cmd,
        world_cmd,
    )

    for mod in (init_cmd, log_cmd, world_cmd, store_cmd, run_cmd, reflect_cmd, embed_cmd, diff_cmd,
                report_cmd, plot_cmd, fork_cmd, sweep_cmd, scenarios_cmd):
        for c in getattr(mod, "COMMANDS", ()):
            main.add_command(c)


_register()
