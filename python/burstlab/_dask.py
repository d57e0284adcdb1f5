"""The Dask executor of :mod:`burstlab.sweep`: a scheduler is checked, then used.

Read first: :func:`check_scheduler`. ``Client(address)`` bounds only the TCP connect;
Dask's handshake that follows (each side writes a message, then reads the other's) has
no deadline, and its reader trusts the 8-byte length that opens a message. So an
address that accepts and never answers hangs a sweep forever, an HTTP port (the
dashboard's, 8787, a usual mistake) is read as a message of exabytes, and ``tls://``
without Dask's TLS settings fails with a ``TypeError``. :func:`check_scheduler` does the
same handshake under one deadline first and turns each failure into one line, as a
``ValueError`` naming the address (the CLIs print it and exit 2).
"""

from __future__ import annotations

import asyncio
import socket
import sys
import threading
from collections import deque
from collections.abc import Callable, Generator, Sequence
from typing import Any
from urllib.parse import urlsplit

#: Seconds within which a Dask scheduler must accept a connection and answer Dask's
#: handshake (docs/topics/limits.md).
SCHEDULER_TIMEOUT_S = 10.0

#: Where the dashboard usually listens, told apart from the scheduler's port.
_PORTS = "the scheduler's port is usually 8786; 8787 is its dashboard, which speaks HTTP"


def check_scheduler(address: str, timeout: float = SCHEDULER_TIMEOUT_S) -> None:
    """Connects to the Dask scheduler at ``address`` and completes Dask's handshake
    within ``timeout`` seconds, with the TLS settings ``Client`` would use.

    Raises:
        ValueError: one line naming the address and what is wrong (nothing listens,
            nothing answers, something that is not Dask answers, TLS is not set up).
    """
    from distributed.comm import connect
    from distributed.security import Security

    scheme = address.split("://", 1)[0] if "://" in address else "tcp"
    if scheme not in ("tcp", "tls"):
        return  # inproc:// and other transports: left to Client
    args = Security().get_connection_args("client")
    if scheme == "tls" and args.get("ssl_context") is None:
        raise ValueError(
            f"cannot use the Dask scheduler at {address}: tls:// needs Dask's TLS settings "
            "(distributed.comm.tls.ca-file, .client.cert and .client.key, e.g. the "
            "environment variables DASK_DISTRIBUTED__COMM__TLS__CA_FILE, "
            "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT, DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY)")
    u = urlsplit(address if "://" in address else f"tcp://{address}")
    try:
        host, port = u.hostname, u.port
        if host is None or port is None:
            raise ValueError("expected tcp://HOST:PORT")
        socket.create_connection((host, port), timeout=timeout).close()
    except (OSError, ValueError) as e:
        raise ValueError(f"cannot reach the Dask scheduler at {address}: {e}") from None

    async def handshake() -> None:
        # connect() writes Dask's handshake and reads the scheduler's with no deadline.
        comm = await asyncio.wait_for(connect(address, timeout=timeout, **args), timeout)
        comm.abort()

    outcome: list[BaseException | None] = []

    def probe() -> None:
        # Its own thread and event loop: the caller may be inside one (a notebook).
        try:
            asyncio.run(handshake())
            outcome.append(None)
        except BaseException as e:  # noqa: B036 - reported below, in the caller's thread
            outcome.append(e)

    t = threading.Thread(target=probe, name="burstlab-dask-probe", daemon=True)
    t.start()
    t.join(timeout + 5.0)
    err = outcome[0] if outcome else TimeoutError()
    if err is None:
        return
    if isinstance(err, TimeoutError):
        raise ValueError(f"{address} accepted a connection but sent no Dask handshake "
                         f"within {timeout:g} s: not a Dask scheduler? ({_PORTS})")
    raise ValueError(f"{address} is not a Dask scheduler: it answered Dask's handshake "
                     f"with something else ({type(err).__name__}; {_PORTS})")


def warn_if_plaintext_remote(address: str) -> None:
    """Dask sends pickled data, which whoever can reach the scheduler can use to run code
    in the workers: say so when the scheduler is on another host without TLS."""
    u = urlsplit(address if "://" in address else f"tcp://{address}")
    local = u.hostname in ("localhost", "127.0.0.1", "::1") or (
        u.hostname or "").startswith("127.")
    if u.scheme != "tls" and not local and u.scheme != "inproc":
        print(f"burstlab: warning: the Dask scheduler {address} is not on this machine and "
              "not TLS (tls://): Dask exchanges pickled data, which anyone who can reach "
              "it can use to run code on the workers; use TLS or an SSH tunnel",
              file=sys.stderr)


def iter_dask(tasks: Sequence[Any], jobs: int, scheduler: str | None,
              execute: Callable[[Any], dict[str, Any]],
              failed: Callable[[Any, str], dict[str, Any]]) -> Generator[dict[str, Any], None, None]:
    """Runs ``execute(task)`` for every task on the Dask cluster at ``scheduler`` (checked
    first), or on a ``LocalCluster`` of ``jobs`` workers; yields each outcome in
    completion order, ``failed(task, why)`` for a run Dask lost. At most ``4 ×`` the
    cluster's threads are in flight."""
    try:
        import logging

        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise ValueError("the dask executor needs dask.distributed: "
                         "pip install 'burstlab[dask]'") from None
    cluster = None
    if scheduler:
        warn_if_plaintext_remote(scheduler)
        check_scheduler(scheduler)
        try:
            client = Client(scheduler, timeout=f"{SCHEDULER_TIMEOUT_S:g}s")
        except OSError as e:
            raise ValueError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
    else:
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
        client = Client(cluster)
    try:
        window = 4 * max(jobs, sum(client.nthreads().values()) or 1)
        queue = deque(tasks)
        inflight: dict[Any, Any] = {}
        ac = as_completed()

        def refill() -> None:
            while queue and len(inflight) < window:
                t = queue.popleft()
                fut = client.submit(execute, t, key=f"burstlab-run-{t.key}", pure=False)
                inflight[fut] = t
                ac.add(fut)

        refill()
        for fut in ac:
            t = inflight.pop(fut)
            try:
                rec = fut.result()
            except Exception as e:  # a lost worker, a serialisation error
                rec = failed(t, f"DaskError: {type(e).__name__}: {e}")
            fut.release()
            yield rec
            refill()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
