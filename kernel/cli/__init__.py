"""The `village` command line (click). Thin: parse, call the kernel, render.

Click code lives here, inside the package, and not in a top-level `cmd`
package, which would shadow the standard library's `cmd` module; the
`cmd/` folder holds only the thin `village` program. Each command group
is its own module, registered on `main` below. Errors reach the user in
one place: `VillageGroup` turns every kernel error into one line naming
the rule and the value, and an exit code of 1.

Signals reach the user there too. While this package loads, SIGINT or
SIGTERM stops the program at once with "interrupted; nothing written" (nothing
has run); while a command runs, either raises `Interrupted` where the
program is, so every file the command holds is closed or removed on the way
out, and `VillageGroup.main` prints its one line and exits 128 + the signal's
number (130, 143). Once one arrived, later ones are ignored: the command is
already stopping. A command that writes a run's log says, through
`writes_log`, how many whole ticks the log holds; a sweep says how many of
its runs are done (`Interrupted.left`). A signal that lands in compiled code
comes out as that code's error (Ray's SystemError, pydantic's SchemaError); whatever
error a command ends with after the handler raised, it stopped for the signal.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _handle(handler) -> dict | None:
    """Give SIGINT and SIGTERM `handler`; the handlers they had (None off the main thread, where
    Python lets no handler be set). A signal the program was started ignoring (`nohup`, a
    shell's background job) stays ignored, as Python itself leaves it."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return {s: signal.signal(s, handler) for s in SIGNALS if signal.getsignal(s) != signal.SIG_IGN}


def _restore(before: dict | None) -> None:
    for s, h in (before or {}).items():
        signal.signal(s, signal.SIG_DFL if h is None else h)


def _stop_loading(signum: int, frame) -> None:
    """While the commands load nothing has run: say so and stop, with no traceback of an import."""
    os.write(2, b"interrupted; nothing written\n")
    os._exit(128 + signum)


_LOADING = _handle(_stop_loading)   # until the commands are registered, at the end of this module

import click  # noqa: E402  (after the guard: loading click is part of the start)

from kernel.errors import Interrupted, VillageError  # noqa: E402

CONTEXT = {"help_option_names": ["-h", "--help"]}


_RAISED: list[Interrupted] = []
"""The `Interrupted` the handler raised, if it did: the command is stopping for it, whatever
error it comes out as."""


def _interrupt(signum: int, frame) -> None:
    """While a command runs: stop it where it is; what it holds is let go on the way out."""
    _handle(_already_stopping)
    _RAISED.append(Interrupted(signum))
    raise _RAISED[-1]


def _already_stopping(signum: int, frame) -> None:
    """A signal after the first, or once the command is done: it changes nothing. (A handler
    that does nothing, not SIG_IGN: a signal already pending when SIG_IGN is set is raised by
    Python as an OSError, "ignored due to race condition".)"""


def _file_id(path: str | os.PathLike) -> tuple[int, int] | None:
    try:
        st = os.lstat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def _ticks_held(path: Path, before: tuple[int, int] | None) -> int | None:
    """How many whole ticks the log a run made at `path` holds; None, and the file removed,
    where it holds none (cut while being created). None too where no file is there, or the
    one that was there before the run: the run made nothing."""
    if _file_id(path) in (None, before):
        return None
    from kernel.log import verify

    try:
        last = verify(path, deep=False).last_tick
    except VillageError:
        last = None
    if last is None:
        path.unlink(missing_ok=True)
        return None
    return last + 1


@contextmanager
def writes_log(path: str | os.PathLike) -> Iterator[None]:
    """Around the part of a command that writes a run's log at `path`: an interrupt says how
    many whole ticks the log holds (the engine appends a tick whole or not at all)."""
    before = _file_id(path)
    try:
        yield
    except KeyboardInterrupt:
        raise Interrupted(signal.SIGINT, _ticks_held(Path(path), before)) from None
    except Interrupted as e:
        raise Interrupted(e.signum, _ticks_held(Path(path), before)) from None


def interrupted_in(e: BaseException) -> Interrupted | None:
    """The signal's `Interrupted` that `e` is, or came out of: compiled code a signal landed in
    (Ray's wait) hands the handler's exception on as a SystemError caused by it."""
    seen = 0
    while e is not None and seen < 8:
        if isinstance(e, Interrupted):
            return e
        if isinstance(e, KeyboardInterrupt):
            return Interrupted(signal.SIGINT)
        e, seen = e.__cause__ or e.__context__, seen + 1
    return None


def one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


class VillageGroup(click.Group):
    """A click group that maps every kernel error to one line, once, for every command under it.

    `says` names what a kind of error means under a group (a subclass's): its
    line starts with that, then the error's own words.
    """

    says: tuple[tuple[type[VillageError], str], ...] = ()

    def main(self, *args, **kwargs):
        """Run the command line; SIGINT or SIGTERM stops it with one line and 128 + its number."""
        before = _handle(_interrupt)
        _RAISED.clear()
        try:
            return super().main(*args, **kwargs)
        except Interrupted as e:
            _handle(_already_stopping)
            click.echo(one_line(e), err=True)
            sys.exit(e.code)
        finally:
            _restore(before)
            _quiet_at_exit()

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except VillageError as e:
            raise click.ClickException(self.line(e)) from None
        except KeyboardInterrupt:   # one raised by other code than our handler: click would say "Aborted!"
            raise Interrupted(signal.SIGINT) from None
        except Exception as e:
            # A signal that lands in compiled code comes out as that code's error: a
            # SystemError caused by it (Ray's wait), or one that lost it on the way (pydantic,
            # building a model as the Ollama client is imported, says its schema is invalid).
            cut = interrupted_in(e) or (_RAISED[0] if _RAISED else None)
            if cut is None:
                raise
            raise cut from None

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
        interview_cmd,
        log_cmd,
        minds_cmd,
        news_cmd,
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
                report_cmd, plot_cmd, fork_cmd, sweep_cmd, scenarios_cmd, minds_cmd, news_cmd,
                interview_cmd):
        for c in getattr(mod, "COMMANDS", ()):
            main.add_command(c)


_QUIET: list[bool] = []


def _quiet_at_exit() -> None:
    """Once a command is done, a signal while the program shuts down (its atexit hooks) is
    ignored rather than shown as a traceback: what the command wrote is whole."""
    if not _QUIET:
        _QUIET.append(True)
        atexit.register(_handle, _already_stopping)


try:
    _register()
finally:
    _restore(_LOADING)
