"""`village init DIR`: a new project folder, with the shipped configs and two small scenarios.

Thin: parse, call kernel.project, print what it wrote. It writes nothing itself.
"""

from __future__ import annotations

from pathlib import Path

import click

from kernel.cli import CONTEXT


@click.command("init", context_settings=CONTEXT)
@click.argument("folder", type=click.Path(path_type=Path))
def init_cmd(folder: Path) -> None:
    """Write a new project into FOLDER: village.toml, configs/, two small scenarios, a README.

    The scenarios are village-day (the world alone) and day-of-three (the same
    day, its three villagers reflecting and having a night), with the recording
    day-of-three replays from. The folder must be new or empty. Commands run
    inside it use its files, found from the working folder upward; change a
    config there and runs use it.
    """
    from kernel import project

    made = project.init(folder)
    for p in made.files:
        click.echo(f"  wrote {p}")
    click.echo(f"a new project in {made.folder}: run `village replay`, "
               f"`village report day-of-three` or `village world run --out day.log` there")


COMMANDS = (init_cmd,)
