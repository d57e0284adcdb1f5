"""Running a sweep's runs (:mod:`burstlab.sweep`): the task a worker gets, what a worker
does with it, and the executors that hand tasks to workers.

Read in this order: :class:`Task` (one run, its scenario as JSON), :func:`execute` (runs
it in the core; never raises), then the executors (``_iter_local``, ``_iter_dask``,
``_iter_serial``), each yielding every task's outcome in completion order, and
``_SigtermAsInterrupt`` (SIGTERM stops a sweep as Ctrl-C does). What happens when a
worker dies is in the docstring of :mod:`burstlab.sweep` ("Failures", "Executors").
The public names are also importable from :mod:`burstlab.sweep`.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import time
from collections import deque
from collections.abc import Generator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from burstlab import _core

EXECUTORS = ("local", "dask", "serial")
#: What an executor yields: one outcome dict (see :func:`execute`) per task, as they finish.
Outcomes = Generator[dict[str, Any], None, None]


@dataclass(frozen=True)
class Task:
    """One run to do. ``text`` is the point's scenario as JSON, ready for the core."""

    key: str
    point: int
    text: str
    seed: int
    replication: int
    keep_traces: bool = False


# ---------------------------------------------------------------------------------------
# What a worker does.


def _worker_signals() -> None:
    """A worker's signal dispositions. Ctrl-C goes to the whole process group; only the
    parent should react to it. A forked worker inherits the parent's SIGTERM-as-interrupt
    handler; terminating a worker must simply end it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _worker_init() -> None:
    _worker_signals()
    _exit_with_parent()


def _exit_with_parent(poll_s: float = 0.5) -> None:
    """Ends this worker when its parent dies, whatever killed it (SIGKILL included): a
    daemon thread watches the parent pid and exits the process when it changes (the
    orphan is re-parented)."""
    import threading

    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(poll_s)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="burstlab-parent-watch", daemon=True).start()


class _SigtermAsInterrupt:
    """While active (main thread only), SIGTERM — what ``timeout`` and batch schedulers
    send — stops a sweep the way Ctrl-C does: workers are terminated and the store stays
    consistent.

    A worker forked while this is active inherits the handlers until its initializer
    replaces them, and the sweep may signal it in that window (Ctrl-C reaches the whole
    process group; an interrupted sweep terminates its workers). So the handlers act only
    in the process that installed them: any other takes a worker's dispositions
    (``_worker_signals``) at once, so SIGTERM ends it, silently, and SIGINT is ignored."""

    def __enter__(self) -> _SigtermAsInterrupt:
        import threading

        self.owner = os.getpid()
        self.old_term: Any = None
        self.old_int: Any = None
        self.active = threading.current_thread() is threading.main_thread()
        if self.active:
            self.old_term = signal.signal(signal.SIGTERM, self._on_term)
            self.old_int = signal.signal(signal.SIGINT, self._on_int)
        return self

    def _on_term(self, signum: int, frame: object) -> None:
        if os.getpid() != self.owner:  # a worker not yet initialised: just end
            _worker_signals()
            os.kill(os.getpid(), signal.SIGTERM)
            return
        raise KeyboardInterrupt

    def _on_int(self, signum: int, frame: Any) -> None:
        if os.getpid() != self.owner:  # a worker not yet initialised: the parent stops it
            _worker_signals()
            return
        old = self.old_int
        if callable(old):  # Python's default handler raises KeyboardInterrupt
            old(signum, frame)
        elif old == signal.SIG_DFL:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        # SIG_IGN (or a handler not set from Python): nothing

    def __exit__(self, *exc: object) -> None:
        if self.active:  # None: a handler not set from Python; the default stands in
            for sig, old in ((signal.SIGTERM, self.old_term), (signal.SIGINT, self.old_int)):
                signal.signal(sig, signal.SIG_DFL if old is None else old)


def execute(task: Task) -> dict[str, Any]:
    """Runs one task and returns its outcome as plain data (never raises, except to
    let the interpreter exit)."""
    t0 = time.perf_counter()
    rec: dict[str, Any] = {"key": task.key}
    try:
        raw = _core.run(task.text, "json", task.seed, task.replication)
        meta = dict(raw["meta"])
        meta["tables"] = list(raw["tables"])
        meta["optional_tables"] = list(raw.get("optional_tables", ()))
        obs_flows = raw.get("obs_flows")
        if obs_flows:  # OBS: keep each flow's burst statistics (yu's S) with the run
            meta["obs_flows"] = json.loads(obs_flows)
        est = json.loads(raw.get("cwnd_estimates") or "[]")
        if est:  # ECWBA: the estimator's error per flow
            meta["cwnd_estimates"] = est
        from burstlab.sweep_fct import run_rows as fct_run_rows

        fct = fct_run_rows(raw)
        if fct:  # finite flows: their completion-time summaries (sweep_fct.py)
            meta["fct"] = fct
        if task.keep_traces:  # trace experiments: the traces are stored with the run
            meta["traces"] = {"cwnd": raw.get("cwnd_trace") or {},
                              "packets": raw.get("packet_trace") or {},
                              "bursts": raw.get("burst_trace") or {},
                              "goodput": raw.get("goodput_trace") or {}}
        rec.update(status="ok", error=None, flows=raw["flows"], links=raw["links"],
                   meta=json.dumps(meta))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # noqa: B036 - pyo3 panics derive from BaseException
        rec.update(status="error", error=f"{type(e).__name__}: {e}", flows=None, links=None,
                   meta=None)
    rec.update(wall_s=time.perf_counter() - t0, host=socket.gethostname(), pid=os.getpid())
    return rec


def _failed(task: Task, why: str) -> dict[str, Any]:
    return {"key": task.key, "status": "error", "error": why, "flows": None, "links": None,
            "meta": None, "wall_s": None, "host": None, "pid": None}


# ---------------------------------------------------------------------------------------
# Executors: each yields the outcome of every task, in completion order.


def _iter_serial(tasks: Sequence[Task], jobs: int, scheduler: str | None) -> Outcomes:
    for t in tasks:
        yield execute(t)


def _iter_local(tasks: Sequence[Task], jobs: int, scheduler: str | None) -> Outcomes:
    """Process pool. A worker that dies breaks the whole pool and fails every run then in
    flight; those runs become *suspects* and are rerun one at a time on fresh pools, so
    only a run that kills its worker while alone is recorded as ``WorkerDied``."""
    queue = deque(tasks)
    suspects: deque[Task] = deque()
    window = 4 * jobs
    pool: ProcessPoolExecutor | None = None
    inflight: dict[Future[dict[str, Any]], Task] = {}
    clean = False
    try:
        while queue or suspects or inflight:
            if pool is None:
                pool = ProcessPoolExecutor(max_workers=jobs, initializer=_worker_init)
            solo = bool(suspects)
            if solo:
                if not inflight:
                    t = suspects.popleft()
                    inflight[pool.submit(execute, t)] = t
            else:
                while queue and len(inflight) < window:
                    t = queue.popleft()
                    inflight[pool.submit(execute, t)] = t
            done, _ = wait(inflight, return_when=FIRST_COMPLETED)
            if any(isinstance(f.exception(), BrokenProcessPool) for f in done):
                done, _ = wait(inflight)  # the rest fail at once too: collect them all
                pool.shutdown(wait=False, cancel_futures=True)
                pool = None
            for f in done:
                t = inflight.pop(f)
                err = f.exception()
                if isinstance(err, BrokenProcessPool):
                    if solo:
                        yield _failed(t, "WorkerDied: the worker process died while running "
                                         "this run alone (a crash or an out-of-memory kill)")
                    else:
                        suspects.append(t)
                else:
                    yield f.result()
        clean = True
    finally:
        if pool is not None:
            if clean:
                pool.shutdown(wait=True)
            else:  # interrupted: do not wait for the runs in flight
                for proc in list((getattr(pool, "_processes", None) or {}).values()):
                    proc.terminate()
                # Join the pool's manager thread (bounded: an interrupt must not hang).
                # It sees the dead workers and closes the pool's wakeup pipe; left running
                # into interpreter exit, it races the exit hook that writes to that pipe,
                # and the loser prints "OSError: [Errno 9] Bad file descriptor".
                manager = getattr(pool, "_executor_manager_thread", None)
                pool.shutdown(wait=False, cancel_futures=True)
                if manager is not None:
                    manager.join(timeout=10)


def _iter_dask(tasks: Sequence[Task], jobs: int, scheduler: str | None) -> Outcomes:
    """On a Dask cluster (:mod:`burstlab._dask`; the scheduler is checked first)."""
    from burstlab._dask import iter_dask

    return iter_dask(tasks, jobs, scheduler, execute, _failed)


_EXECUTOR_FNS = {"local": _iter_local, "dask": _iter_dask, "serial": _iter_serial}
