"""The append-only, hash-chained event log: the only truth of a run."""

from kernel.log.frame import FORMAT, MAGIC
from kernel.log.log import (
    Header,
    LogWriter,
    Recovery,
    Summary,
    Tick,
    check_new,
    fold,
    native,
    read_events,
    read_header,
    read_ticks,
    verify,
)

__all__ = ["FORMAT", "MAGIC", "Header", "LogWriter", "Recovery", "Summary", "Tick", "check_new",
           "fold", "native", "read_events", "read_header", "read_ticks", "verify"]
