"""Past one machine: a round's independent model calls on a pool of Ray workers.

This package owns the pool oracle (`PoolOracle`: N Ray actors, each holding
its own live oracle, answering a round's independent calls and gathered in
the asks' fixed order), the recording oracle of any pool (`RecordingPool`,
kernel.oracle.record's, named here too), and the
connection to Ray (`connect`, `session`: a local Ray of N CPUs, or a running
cluster by address). The log must not care how many workers made it: the
same answers give the same bytes for 1 worker or 40. It must not render
prompts, parse answers or touch the log. Ray is an optional extra
(`pip install 'village-kernel[cluster]'`), imported on first use.
"""

from kernel.cluster.pool import LiveMaker, PoolOracle, Worker, start
from kernel.cluster.session import ClusterError, connect, cpus, ray, session, unwrap
from kernel.oracle.record import RecordingPool

__all__ = ["ClusterError", "LiveMaker", "PoolOracle", "RecordingPool", "Worker",
           "connect", "cpus", "ray", "session", "start", "unwrap"]
