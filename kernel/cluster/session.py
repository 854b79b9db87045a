"""Ray, joined or started once: where a pool's workers and a sweep's runs live.

This module owns importing Ray (an optional extra, `[cluster]`), starting a
local Ray of N CPUs for one machine or joining a running cluster by address,
and letting go of what it started. It must not know what runs on the
workers. Ray is imported on first use, so the rest of the kernel works where
it is not installed.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

from kernel.errors import ClusterError, VillageError
from kernel.oracle.base import needed

EXTRA = "village-kernel[cluster]"

REACH_TIMEOUT_S = 5.0
"""How long joining a cluster waits for its address to accept a TCP connection."""

JOIN_TIMEOUT_S = 20.0
"""How long joining a cluster waits for its address to answer as Ray's control store (GCS)."""

# Ray retries an address that does not answer for a minute or more, saying little but
# warnings, and ray.init cannot be stopped once it waits. So an address is tried first: a
# TCP connect, then, in a child process killed at JOIN_TIMEOUT_S, Ray's own GCS client
# asking for the cluster's id. Ray's own session settings are left as they are.
_PROBE = """import sys
try:
    from ray._raylet import GcsClient
except ImportError:
    sys.exit(3)
try:
    GcsClient(address=sys.argv[1])
except Exception as e:
    print(type(e).__name__ + ": " + " ".join(str(e).split()))
    sys.exit(1)
"""


def ray() -> Any:
    """The ray module, or one line saying how to install it."""
    return needed("ray", ClusterError,
                  f"--workers and --ray need Ray: run `pip install '{EXTRA}'` (make setup does)")


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
    if address is not None:
        reachable(address)
    if r.is_initialized():
        return False
    try:
        with _signals_held() as pending:
            if address is not None:
                r.init(address=address, log_to_driver=False, configure_logging=False)
            else:
                r.init(num_cpus=workers, include_dashboard=False, log_to_driver=False,
                       configure_logging=False)
            if pending():
                # A signal while Ray started: Ray is let go of whole before the program's
                # handler takes the signal (its one line, or a stop where nobody handles it).
                r.shutdown()
    except ConnectionError as e:
        raise ClusterError(f"no Ray cluster answers at {address!r}: start one with "
                           f"`ray start --head`, or use --workers N for a local one ({e})") from None
    except (RuntimeError, ValueError) as e:
        where = f"join the Ray cluster at {address!r}" if address else \
            f"start a local Ray of {workers} CPUs"
        raise ClusterError(f"could not {where}: {' '.join(str(e).split())}") from None
    return True


@contextlib.contextmanager
def _signals_held() -> Iterator[Callable[[], bool]]:
    """SIGINT and SIGTERM held back while Ray starts or stops, and taken by the program's own
    handlers after it (`pending()` says whether one came meanwhile).

    ray.init gives both signals to Ray's core, which prints a stack and kills the process;
    a signal that stops ray.init halfway leaves a Ray that crashes the process as it exits;
    and ray.shutdown puts SIGTERM back to killing the process at once. The program stops a
    command with its one line instead, and leaves what it wrote as it should be: so the
    signals wait, blocked, until Ray is whole or gone and the handlers are the program's."""
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False
        return
    both = {signal.SIGINT, signal.SIGTERM}
    had = {s: signal.getsignal(s) for s in both}
    # The block holds a signal back from this thread only; the kernel may give one to a
    # thread started before it (a native pool's), and the handler then runs here, halfway
    # through ray.init. So while the signals are held their handler only notes them, and
    # ray.init's own SIGTERM handler, sys.exit(signum), is taken for the signal it is.
    caught: list[int] = []
    for s in both:
        signal.signal(s, lambda signum, frame: caught.append(signum))
    signal.pthread_sigmask(signal.SIG_BLOCK, both)
    try:
        yield lambda: bool(caught) or bool(signal.sigpending() & both)
    except SystemExit as e:
        if e.code not in both:
            raise
        caught.append(e.code)
        with contextlib.suppress(Exception):
            ray().shutdown()        # Ray, stopped halfway, is let go of whole
    finally:
        for s, h in had.items():
            if h is not None:
                signal.signal(s, h)
        # A signal noted while held waits, blocked, for the program's own handler.
        for s in dict.fromkeys(caught):
            signal.pthread_kill(threading.main_thread().ident, s)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, both)


def _bootstrap(address: str) -> tuple[str, int] | None:
    """The host and port joining `address` connects to first; None where Ray finds none itself.

    "auto" is the cluster `ray start` left word of on this machine (or RAY_ADDRESS), as
    ray.init reads it; "ray://host:port" is a Ray client server.
    """
    a = address.strip()
    if a.startswith("ray://"):
        a = a[len("ray://"):].split("/", 1)[0]
    else:
        try:
            from ray._private.services import canonicalize_bootstrap_address
            a = canonicalize_bootstrap_address(a)
        except ValueError:
            raise ClusterError(f"Expected a Ray address (host:port, ray://host:port or auto) but "
                               f"got --ray {address!r}") from None
        except ConnectionError as e:
            raise ClusterError(f"--ray {address}: {' '.join(str(e).split())}") from None
        except (ImportError, AttributeError):
            pass    # a Ray without this helper: the address is taken as written
        if a is None:
            return None
    host, sep, port = a.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ClusterError(f"Expected a Ray address (host:port, ray://host:port or auto) but got "
                           f"--ray {address!r}")
    return host.strip("[]"), int(port)


def reachable(address: str, timeout: float = REACH_TIMEOUT_S,
              join_timeout: float = JOIN_TIMEOUT_S) -> None:
    """Refuse, in one line and within about `timeout + join_timeout` seconds, a Ray address
    where no cluster answers."""
    at = _bootstrap(address)
    if at is None:
        return      # "auto" with no cluster recorded here: ray.init says so at once
    host, port = at
    where = f"{host}:{port}"
    hint = "start one there with `ray start --head`, or use --workers N for a local one"
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as e:
        why = (f"no answer within {timeout:g} s" if isinstance(e, TimeoutError)
               else (e.strerror or type(e).__name__).lower())
        raise ClusterError(f"no Ray cluster answers at --ray {address} ({where}: {why}): "
                           f"{hint}") from None
    if address.strip().startswith("ray://"):
        return      # a Ray client server, not the control store: ray.init's client bounds its wait
    try:
        done = subprocess.run([sys.executable, "-c", _PROBE, where], capture_output=True,
                              text=True, timeout=join_timeout, check=False)
    except subprocess.TimeoutExpired:
        raise ClusterError(f"no Ray cluster answers at --ray {address} ({where} took the "
                           f"connection and gave no cluster id within {join_timeout:g} s): "
                           f"{hint}") from None
    if done.returncode == 1:
        said = (done.stdout.strip().splitlines() or ["no reason given"])[-1]
        raise ClusterError(f"no Ray cluster answers at --ray {address} ({where} is not a Ray "
                           f"cluster's control store: {said}): {hint}")


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
            with _signals_held():
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
