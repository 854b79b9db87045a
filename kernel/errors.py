"""Every error the kernel raises on purpose: one root, one base for usage errors, and each kind.

Every error a user can meet says the rule it enforces and shows the value
that broke it, in one line. Code at the edges (the CLI) turns these into
one-line messages; nothing catches them to carry on quietly. This module
owns the error classes and nothing else: it imports nothing from the
kernel, so any module may raise one. A module that raises a kind keeps its
name importable where it always was (`kernel.laws.LawError`,
`kernel.seam.SeamError`, `kernel.oracle.ReplayStopped`, ...), imported from
here. The kinds, by what went wrong:

    VillageError            the root
      UsageError            the kernel was asked for what its rules do not allow: a caller's
                            bad argument or request, not damage in a file nor a model's fault
        LawError            a law called outside its domain (also a ValueError)
          PerceptionError   events that cannot be a frame of one run's log
        SeamError           the seam called with what it cannot use
          TemplateError     a template missing, not parsing, or short of a key
        OracleUsageError    an oracle called with arguments it cannot use
        WorldError          the world asked to break its rules
        ServeArgument       a server launcher argument llama.cpp would fail on (its model, port, host)
        ForkError           a fork that cannot be made as asked
        IndexPathError      an index path that would replace a log or cannot hold an index
        CalendarError       a calendar asked about a tick before tick 0, or with days of no ticks
      ConfigError           a config file missing, not JSON, or not its schema
      Unstrict              a JSON text the strict reader refuses (its `why`: the rule, the value)
      LogError              a log that cannot be opened, read or written as asked
        LogCorrupt          damage that is not a torn tail (its frame and offset)
        LogLocked           another writer holds the log
      EventError            an event of no known kind, or a payload that does not fit it
      OracleError           a model not reached, or not answering
        ReplayMismatch      a call that is not the next recorded one
          ReplayStopped     where a replay stopped (call, purpose, both digests)
      Refused               a model's answer refused whole by Shaped
      StoreError            an index that could not be built or read
      QueryError            SQL over an index that did not run
      ClusterError          Ray missing or unreachable, or a pool or sweep not usable as asked

and, outside the tree, since it is no fault of anyone's:

    Interrupted             SIGINT or SIGTERM stopped a command (a BaseException, like
                            KeyboardInterrupt: nothing that catches Exception swallows it)
"""


class VillageError(Exception):
    """Root of every error the kernel raises on purpose."""


class UsageError(VillageError):
    """The kernel was asked for what its rules do not allow (a caller's mistake, not the data's)."""


class LawError(UsageError, ValueError):
    """A law was called with an argument outside the law's domain."""


class PerceptionError(LawError):
    """The events handed to perception cannot be a frame of one run's log."""


class SeamError(UsageError):
    """The seam was called with something it cannot use (a bad schema, a bad count)."""


class TemplateError(SeamError):
    """A template is missing, does not parse, or needs a key the call did not give."""


class OracleUsageError(UsageError):
    """An oracle was called with arguments it cannot use (a bug in the caller, not the model)."""


class WorldError(UsageError):
    """The world was asked to do something its rules do not allow."""


class ForkError(UsageError):
    """A fork that cannot be made as asked: one line naming the rule and the value."""


class ServeArgument(UsageError):
    """An argument the OpenAI-protocol server launcher would fail on, refused before it starts."""


class IndexPathError(UsageError):
    """An index path that would replace a log, or is not a place an index file can go."""


class ConfigError(VillageError):
    """A config file is missing, is not JSON, or does not match its schema."""


class LogError(VillageError):
    """The event log cannot be opened, read or written as asked."""


class LogCorrupt(LogError):
    """The log holds damage that is not a torn tail: it is refused, never repaired.

    `frame` is the index of the first frame that does not check (the header is
    frame 0) and `offset` the byte offset where that frame starts.
    """

    def __init__(self, message: str, *, frame: int, offset: int):
        super().__init__(message)
        self.frame = frame
        self.offset = offset


class LogLocked(LogError):
    """Another writer holds the log."""


class EventError(VillageError):
    """An event is not of a known kind, or its payload does not fit its kind."""


class OracleError(VillageError):
    """A model could not be reached or did not answer; the run stops here."""


class ReplayMismatch(OracleError):
    """A call did not match the next recorded one: the recording is not of this code."""


class ReplayStopped(ReplayMismatch):
    """A replayed call was not the recorded one: where (1-based `call`, `purpose`) and the two digests."""

    def __init__(self, message: str, *, call: int, purpose: str, here: str = "",
                 recorded: str = ""):
        super().__init__(message)
        self.call = call
        self.purpose = purpose
        self.here = here
        self.recorded = recorded


class Refused(VillageError):
    """A model's answer was refused whole by Shaped (not the shape asked for)."""


class StoreError(VillageError):
    """The index could not be built or read."""


class QueryError(VillageError):
    """The SQL did not run."""


class ClusterError(VillageError):
    """Ray is missing, cannot be reached, or a pool or sweep cannot be used as asked."""


class CalendarError(UsageError, ValueError):
    """A calendar asked about a tick before tick 0, or made with days of no ticks."""


class Unstrict(VillageError):
    """A JSON text refused by the strict reader; `why` (a jsonstrict.Why) says which rule and
    the value."""

    def __init__(self, why):
        super().__init__(f"not strict JSON: {why}")
        self.why = why


class Interrupted(BaseException):
    """A signal (SIGINT or SIGTERM) stopped a command; `signum` is its number, and `tick`, where a
    run's log was being written, how many whole ticks the log holds (None: nothing written).

    Its line says what is on disk, and its `code` is the shell's for a death by that signal
    (130 for SIGINT, 143 for SIGTERM). A command that leaves something else than a log
    (a sweep's finished runs) says what, as `left`.
    """

    def __init__(self, signum: int, tick: int | None = None, left: str | None = None):
        super().__init__(signum, tick, left)
        self.signum = signum
        self.tick = tick
        self.left = left

    @property
    def code(self) -> int:
        return 128 + self.signum

    def __str__(self) -> str:
        if self.left is not None:
            return f"interrupted; {self.left}"
        if self.tick is None:
            return "interrupted; nothing written"
        return f"interrupted at tick {self.tick}; the log holds ticks 0 to {self.tick - 1}"
