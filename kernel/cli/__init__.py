"""The `village` command line (click). Thin: parse, call the kernel, render.

Click code lives here, inside the package, and not in a top-level `cmd`
package, which would shadow the standard library's `cmd` module; the
`cmd/` folder holds only the thin `village` program. Each command group
is its own module, named in `COMMANDS` below and imported only when its
command runs, so `village -h` or a refused flag costs click and nothing heavy. Errors reach the user in
one place: `VillageGroup` turns every kernel error into one line naming
the rule and the value, and an exit code of 1.

Signals reach the user there too. While this package loads and until the
command starts, SIGINT or SIGTERM stops the program at once with "interrupted; nothing written" (nothing
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

import os
import signal
import sys
import threading

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


_GONE: list[int] = []
"""The signal `_stop_loading` is ending the process for: a second one while it does is one."""


def _stop_loading(signum: int, frame) -> None:
    """While the commands load nothing has run: say so and stop, with no traceback of an import.
    A second signal as it does so returns to the first's handler, which is on its way out."""
    if _GONE:
        return
    _GONE.append(signum)
    os.write(2, b"interrupted; nothing written\n")
    os._exit(128 + signum)


_AS_PROGRAM = os.path.basename(sys.argv[0] if getattr(sys, "argv", None) else "") == "village"
"""Whether this process is the `village` program (its installed script or cmd/village)."""

_LOADING = _handle(_stop_loading)   # until the command's handler takes its place (imported by
# another program: until this module is loaded, at its end): the first thing it does, so a signal
# from here on is one line (what comes before is the interpreter's start)

import atexit  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from pathlib import Path  # noqa: E402

import click  # noqa: E402  (after the guard: loading click is part of the start)

from kernel.errors import Interrupted, VillageError  # noqa: E402

CONTEXT = {"help_option_names": ["-h", "--help"]}


_PENDING: list[int] = []
"""A signal put off while an import ran, not yet raised."""

_RAISED: list[Interrupted] = []
"""The `Interrupted` the handler raised, if it did: the command is stopping for it, whatever
error it comes out as."""


def _interrupt(signum: int, frame) -> None:
    """While a command runs: stop it where it is; what it holds is let go on the way out. In
    the middle of an import the signal is sent again a moment later instead: an exception
    raised inside a compiled module's start (duckdb's nanobind building an enum) aborts the
    whole process with a C++ traceback, where after the import it is one line."""
    if _importing(frame):
        if not _PENDING:
            _PENDING.append(signum)    # kept, should the program end before it comes again
        again = threading.Timer(0.02, _again, (signum,))
        again.daemon = True
        again.start()
        return
    _PENDING.clear()
    _handle(_already_stopping)
    _RAISED.append(Interrupted(signum))
    raise _RAISED[-1]


_SENDING = threading.Lock()
_ENDED: list[bool] = []
"""Set by the program's last step: a signal put off is not sent again from then on."""


def _again(signum: int) -> None:
    """Send a signal put off again, unless the program's last step has begun: it is sent while
    the program's own handler is in place, so it is never met by the default action."""
    with _SENDING:
        if not _ENDED:
            os.kill(os.getpid(), signum)


def _importing(frame) -> bool:
    """Whether Python's import machinery is on the stack of `frame`."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


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
    _LOGS.append((Path(path), before))     # whole: a signal after this still says what it holds


_LOGS: list[tuple[Path, tuple[int, int] | None]] = []
"""The logs this process's command has written whole, for a signal that comes as it ends."""


def _as_it_ended(e: Interrupted) -> Interrupted:
    """`e`, raised where no writer said what is on disk (`writes_log`, a sweep): once a log was
    written whole, or a file put whole at its path, the line says so, not "nothing written"."""
    if e.tick is not None or e.left is not None:
        return e
    if _LOGS:
        return Interrupted(e.signum, _ticks_held(*_LOGS[-1]))
    from kernel import files

    if files.WRITTEN:
        return Interrupted(e.signum, left=f"{', '.join(dict.fromkeys(files.WRITTEN))} written whole")
    return e


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
        """Run the command line; SIGINT or SIGTERM stops it with one line and 128 + its number.

        As the program (the `village` script: no arguments given, so the command line is the
        process's), a signal that comes once the command is done, while the process shuts down,
        is kept too (`_late`), and the process exits with its number: a signal is never lost."""
        program = not args and "args" not in kwargs
        _RAISED.clear()
        _PENDING.clear()
        _LOGS.clear()
        if "kernel.files" in sys.modules:
            sys.modules["kernel.files"].WRITTEN.clear()
        ended = before = None
        try:
            # inside the try: a signal that lands between SIGINT's handler and SIGTERM's is
            # this handler's Interrupted, said in one line like any other
            before = _handle(_interrupt)
            return super().main(*args, **kwargs)
        except SystemExit as e:
            ended = e.code
            raise
        except Interrupted as e:
            _handle(_already_stopping)
            e = _as_it_ended(e)
            click.echo(one_line(e), err=True)
            sys.exit(e.code)
        finally:
            if program and not _RAISED and ended in (0, None):
                _handle(_late)          # done: a signal from now on is kept and said at exit
            elif program:
                _handle(_already_stopping)   # it failed or was stopped, and has said so once
                _PENDING.clear()
            else:
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
    if value is None and "kernel.config" not in sys.modules:
        return value               # no home was set in this process: nothing to start from again
    from kernel import config

    try:
        config.set_home(value)     # None as well: each invocation starts from its own options
    except VillageError as e:
        raise click.BadParameter(one_line(e)) from None
    return value


def _verbose(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    ctx.ensure_object(dict)["verbose"] = value
    return value


COMMANDS: dict[str, tuple[str, str]] = {
    "diff": ("diff_cmd",
            "Compare two runs' logs tick by tick: the first tick at which they differ, with "
            "both logs' events there, and how many ticks differ for each villager. Changes "
            'nothing.'),
    "embed": ("embed_cmd",
            'Embed each line of standard input; print each vector as one JSON array of floats '
            'a line.'),
    "fork": ("fork_cmd",
            "Fork RUN.log at tick T into a new log: RUN's first T ticks, byte for byte, then "
            "the rest of the run under the changed settings (to RUN's last tick, or --ticks)."),
    "index": ("store_cmd",
            "Rebuild LOG's DuckDB index (tables memory, events, villagers, meta, felt_state, "
            'basins, basin_nights, intentions, bonds, news; view felt) from the log alone.'),
    "init": ("init_cmd",
            'Write a new project into FOLDER: village.toml, configs/, two small scenarios, a '
            'README.'),
    "interview": ("interview_cmd",
            "Ask a villager of SOURCE (a run's log, or a scenario) QUESTION at tick --at, or "
            'a battery.'),
    "log": ("log_cmd", "Check and read a run's append-only event log."),
    "minds": ("minds_cmd",
            "Print how much of what RUN's minds said means something (default: every scenario "
            'of the home with a recording). RUN is a log, or a scenario, which is replayed '
            'with no model.'),
    "model": ("model_cmd",
            "Show the embedded backend's models: each one's GGUF, its sha256 pin and where it "
            "is."),
    "news": ("news_cmd",
            'Print how each piece of news in LOG spread: holders per day, who told whom, and '
            'who was at the place and day it names. The log is only read.'),
    "plot": ("plot_cmd",
            'Draw one figure of RUN (a log, or a scenario, which is replayed first) as a PNG.'),
    "reflect": ("reflect_cmd",
            'Show one reflection of a committed scenario, replayed from its recording, with '
            'no model.'),
    "replay": ("run_cmd",
            "Replay the home's scenarios (default: every one) and compare each head hash with "
            'its digest.'),
    "report": ("report_cmd",
            'Write one HTML page of RUN (a log, or a scenario, which is replayed first).'),
    "run": ("run_cmd", "Run SCENARIO (a folder, or a name in the home's fixtures/) for its ticks."),
    "scenarios": ("scenarios_cmd",
            "Print what each of the home's scenarios is and what its recording did (default: "
            'every one).'),
    "sql": ("store_cmd",
            "Run one SQL QUERY over LOG's index (rebuilt first if missing or stale) and print "
            'it aligned.'),
    "sweep": ("sweep_cmd",
            "Run every combination of SPEC's scenarios, world seeds and overrides as a Ray "
            'task.'),
    "world": ("world_cmd", 'The village world: run it into a log.'),
}
"""Every command of `village`: its name, the module under `kernel.cli` that holds it (as an
attribute of the same name in its `COMMANDS`), and the first paragraph of its help, which `village -h` shortens as click does. A command's
module is imported only when that command runs (or its own help is asked for), so the program
starts with click and msgpack alone; a test holds each line to the command's own short help."""


class LazyGroup(VillageGroup):
    """The top group: lists every command from `COMMANDS` and imports a command's module only
    when it is asked for (click's lazy loading of subcommands)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        if name not in self.commands:
            from importlib import import_module

            mod = import_module(f"kernel.cli.{COMMANDS[name][0]}")
            for c in getattr(mod, "COMMANDS", ()):
                self.commands.setdefault(c.name, c)
        return self.commands.get(name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of `village -h`, from `COMMANDS`: no command's module is imported."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(n) for n in names)
        rows = [(n, click.Command(n, help=COMMANDS[n][1]).get_short_help_str(limit))
                for n in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def every_command(self) -> dict[str, click.Command]:
        """Every command, each module imported: for the docs' and help's own tests."""
        ctx = click.Context(self)
        return {name: self.get_command(ctx, name) for name in self.list_commands(ctx)}


@click.group(cls=LazyGroup, context_settings=CONTEXT)
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


_LATE: list[int] = []
"""A signal that came once the command was done, as the program shut down."""


def _late(signum: int, frame) -> None:
    """Once the command is done: keep the signal; the last thing the program does (`_last`) says
    so and exits with its number. What the command wrote is whole: it had finished."""
    if not _LATE:
        _LATE.append(signum)


def _last() -> None:
    """The program's last step (the first exit hook registered, so the last run): from here a
    signal takes its default action, and one kept by `_late` ends the process with its code."""
    with _SENDING:
        _ENDED.append(True)
    for s in SIGNALS:
        if signal.getsignal(s) is _late:
            signal.signal(s, signal.SIG_DFL)
    if _PENDING and not _LATE:
        _LATE.append(_PENDING[0])
    if _LATE:   # read after the defaults are back: a signal before them was kept, one after kills
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        os.write(2, b"interrupted as the command ended; what it wrote is whole\n")
        os._exit(128 + _LATE[0])


atexit.register(_last)


_QUIET: list[bool] = []


def _quiet_at_exit() -> None:
    """Once a command is done, a signal while the program shuts down (its atexit hooks) is
    ignored rather than shown as a traceback: what the command wrote is whole."""
    if not _QUIET:
        _QUIET.append(True)
        atexit.register(_handle, _already_stopping)


if not _AS_PROGRAM:
    _restore(_LOADING)   # imported by a program of its own: its handlers are its own again
# As the `village` program the loading handler stays until `VillageGroup.main` puts the
# command's in its place: put back here, a signal between this line and that one would meet
# Python's own handler and end in a traceback of this line.
