"""A path no file system can hold (a NUL byte, from a config or a script) is one refusal, not a ValueError.

These are the library's own calls, as a script makes them; the command line
cannot carry a NUL byte, and the hostile suite holds the paths a config names
through the real `village` program.
"""

from __future__ import annotations

import pytest

from kernel import config
from kernel import log as vlog
from kernel.errors import VillageError
from kernel.oracle import exemplar
from kernel.store.paths import check_index_path
from kernel.store.query import query

BAD = "runs/a\x00b.log"

CALLS = {
    "config.load": lambda: config.load(BAD + ".json"),
    "log.verify": lambda: vlog.verify(BAD),
    "log.read_ticks": lambda: list(vlog.read_ticks(BAD)),
    "log.read_header": lambda: vlog.read_header(BAD),
    "LogWriter.create": lambda: vlog.LogWriter.create(BAD, config_digest="00", seed=1),
    "LogWriter.open": lambda: vlog.LogWriter.open(BAD),
    "check_index_path": lambda: check_index_path("run.log", BAD),
    "query": lambda: query(BAD, "SELECT 1"),
    "exemplar.load": lambda: exemplar.load(BAD),
}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_path_holding_a_nul_byte_is_refused_in_one_line(call):
    try:
        CALLS[call]()
    except VillageError as e:
        assert "\n" not in str(e)
        return
    pytest.fail(f"{call} accepted a path holding a NUL byte")
