"""SQL over a run: a DuckDB file beside the log, derived from it and rebuilt whole, never edited.

`build` reads a log once, folds perception over it, and writes `RUN.duckdb`
with tables `memory`, `events`, `villagers` and `meta` (the log's head
hash and the importance table's digest, so a stale index is seen), the
felt state, the basins, basin nights and intentions (the plans; kernel.store.basins), and who holds
each piece of news (kernel.store.news). It
loads each table in bulk from Arrow, writes to a temporary file, and
renames it into place. `ensure` rebuilds when the index is missing or
stale; `run_index` is the same index as a projection a run of a scenario
folds as it goes (`village run --index`), so the CLI never assembles it;
`query` runs one SQL statement on a read-only connection; `table` lays a
result out in aligned columns. This package must not write the log and
decides nothing about memory: the rows are perception's.
"""

from kernel.store.index import (
    IndexResult,
    IndexState,
    StoreError,
    build,
    db_path_for,
    ensure,
    memory_table,
    run_index,
    state_of,
)
from kernel.store.query import Result, query, table

__all__ = ["StoreError", "IndexResult", "IndexState", "Result", "build", "db_path_for", "ensure",
           "memory_table", "query", "run_index", "state_of", "table"]
