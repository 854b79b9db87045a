"""Ray, joined or started once: where a pool's workers and a sweep's runs live.

This module owns importing Ray (an optional extra, `[cluster]`), starting a
local Ray of N CPUs for one machine or joining a running cluster by address,
and letting go of what it started. It must not know what runs on the
workers. Ray is imported on first use, so the rest of the kernel works where
it is not installed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from kernel.errors import VillageError

EXTRA = "village-kernel[cluster]"


class ClusterError(VillageError):
    """Ray is missing, cannot be reached, or a pool or sweep cannot be used as asked."""


def ray() -> Any:
    """The ray module, or one line saying how to install it."""
    try:
        import ray as _ray
    except ImportError:
        raise ClusterError(f"--workers and --ray need Ray: run `pip install '{EXTRA}'` "
                           f"(make setup does)") from None
    return _ray


def _check(workers: int | None, address: str | None) -> None:
    if workers is not None and (type(workers) is not int or workers < 1):
        raise ClusterError(f"Expected workers to be a whole number >= 1 but got workers={workers!r}")
    if address is not None and (not isinstance(address, str) or not address.strip()):
        raise ClusterError(f"Expected a Ray address (host:port, ray://host:port or auto) but got "
                           f"address={address!r}")


def connect(workers: int | None = None, address: str | None = None) -> bool:
    """Make sure this process is connected to Ray; True when this call started the connection.

    With `address` ("auto", "host:port" or "ray://host:port") it joins a running
    cluster; otherwise it starts a local Ray of `workers` CPUs (every CPU when
    None), with no dashboard and no worker output copied to this terminal.
    An existing connection is used as it is.
    """
    _check(workers, address)
    r = ray()
    if r.is_initialized():
        return False
    try:
        if address is not None:
            r.init(address=address, log_to_driver=False, configure_logging=False)
        else:
            r.init(num_cpus=workers, include_dashboard=False, log_to_driver=False,
                   configure_logging=False)
    except ConnectionError as e:
        raise ClusterError(f"no Ray cluster answers at {address!r}: start one with "
                           f"`ray start --head`, or use --workers N for a local one ({e})") from None
    except (RuntimeError, ValueError) as e:
        where = f"join the Ray cluster at {address!r}" if address else \
            f"start a local Ray of {workers} CPUs"
        raise ClusterError(f"could not {where}: {' '.join(str(e).split())}") from None
    return True


def cpus() -> int:
    """The CPUs the connected Ray has, across every machine (at least 1)."""
    return max(1, int(ray().cluster_resources().get("CPU", 1)))


@contextlib.contextmanager
def session(workers: int | None = None, address: str | None = None) -> Iterator[None]:
    """Connected to Ray for the block; a local Ray this started is shut down after it."""
    started = connect(workers, address)
    try:
        yield
    finally:
        if started:
            ray().shutdown()


def one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


def unwrap(e: BaseException) -> BaseException:
    """The kernel error a remote call raised, out of Ray's wrapper; else a ClusterError of one line.

    Ray wraps an exception raised on a worker in a RayTaskError whose `cause`
    is the original; a worker that died is a RayActorError or a
    WorkerCrashedError. The kernel's own errors go on to the user as they are.
    """
    cause = getattr(e, "cause", None)
    if isinstance(cause, VillageError):
        return cause
    if isinstance(e, VillageError):
        return e
    msg = one_line(cause if isinstance(cause, BaseException) else e)
    # Ray's text for a remote traceback runs to many lines; the last is the error itself.
    last = str(cause if isinstance(cause, BaseException) else e).strip().splitlines()
    if last:
        msg = last[-1].strip() or msg
    return ClusterError(f"a Ray worker failed: {msg}")
