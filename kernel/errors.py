"""The one root exception of the kernel, and the few kinds under it.

Every error a user can meet says the rule it enforces and shows the value
that broke it, in one line. Code at the edges (the CLI) turns these into
one-line messages; nothing catches them to carry on quietly.
"""


class VillageError(Exception):
    """Root of every error the kernel raises on purpose."""


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


class Refused(VillageError):
    """A model's answer was refused whole by Shaped (not the shape asked for)."""
