"""Helpers shared by the benchmark scripts: timing one whole process (wall clock, CPU time
and peak resident memory from the kernel's accounting of that one child), counting its
instructions and cache misses under valgrind's cachegrind, scenario variants with another
simulated duration, and the machine's load."""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Proc:
    """One finished process: its output and what it cost."""

    stdout: str
    stderr: str
    returncode: int
    wall_s: float  #: from just before the fork to the reap
    cpu_s: float  #: user + system time of the process (and any children it waited for)
    peak_rss_kib: int  #: the process's VmHWM, last read at most ``POLL_S`` before it ended


#: How often the peak memory of a running child is read.
POLL_S = 0.005


def _vm_hwm_kib(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def timed(cmd: Sequence[str], cwd: str | Path | None = None) -> Proc:
    """Runs ``cmd`` to completion in a fresh process and measures it from outside.

    Wall time runs from just before the fork to the reap and CPU time is ``wait4``'s
    user + system time of that child. Peak memory is not ``wait4``'s ``ru_maxrss``: on
    Linux that includes the high-water mark of the (Python) parent's memory the child had
    before ``exec``, tens of MiB here. A thread instead reads the child's own ``VmHWM``
    (a high-water mark, so only growth in its last ``POLL_S`` can be missed) while the
    main thread blocks in ``wait4``, which keeps the wall time exact."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(list(cmd), cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        peak = [0]
        done = threading.Event()

        def poll() -> None:
            while not done.is_set():
                v = _vm_hwm_kib(p.pid)
                if v is not None and v > peak[0]:
                    peak[0] = v
                done.wait(POLL_S)

        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        done.set()
        poller.join()
        p.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        return Proc(out.read(), err.read(), p.returncode, wall, ru.ru_utime + ru.ru_stime, peak[0])


_DURATION = re.compile(r"^(\s*duration\s*=).*$", re.MULTILINE)


def with_duration(toml_text: str, duration_s: float) -> str:
    """The scenario text with its first ``duration = ...`` line (``[sim]``'s in every
    benchmark file) set to ``duration_s`` seconds."""
    text, n = _DURATION.subn(lambda m: f"{m.group(1)} {duration_s!r}", toml_text, count=1)
    if n != 1:
        raise ValueError("scenario has no 'duration = ...' line to replace")
    return text


def median(xs: Sequence[float]) -> float:
    return float(statistics.median(xs))


def load() -> str:
    """The 1/5/15-minute load averages and the number of CPUs, for the printout."""
    try:
        a, b, c = os.getloadavg()
    except OSError:
        return "load unknown"
    return f"load average {a:.2f}, {b:.2f}, {c:.2f} on {os.cpu_count()} CPUs"


def cachegrind(cmd: Sequence[str], ll_kib: int | None = None,
               cwd: str | Path | None = None) -> dict[str, int]:
    """Runs ``cmd`` once under valgrind's cachegrind and returns its whole-process counts:
    ``Ir`` (instructions) always; with ``ll_kib`` also the simulated cache misses ``D1mr``,
    ``D1mw`` (first-level data) and ``DLmr``, ``DLmw`` (last level, modelled as ``ll_kib``
    KiB, 8-way, 64-byte lines: pass the size of one core's L2 to count the misses that
    leave it). Counts do not depend on the machine's load; cachegrind does not model
    hardware prefetching, so misses of sequential streams are overstated. Raises
    ``RuntimeError`` if valgrind is missing or the process fails."""
    if shutil.which("valgrind") is None:
        raise RuntimeError("counting instructions needs valgrind (apt-get install valgrind)")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp, "cg.out")
        vg = ["valgrind", "--tool=cachegrind", f"--cachegrind-out-file={out}"]
        vg += ["--cache-sim=yes", f"--LL={ll_kib * 1024},8,64"] if ll_kib else ["--cache-sim=no"]
        p = subprocess.run(vg + list(cmd), capture_output=True, text=True, cwd=cwd)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed under cachegrind: {p.stderr.strip()[-500:]}")
        events: list[str] = []
        for line in out.read_text().splitlines():
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("summary:"):
                return dict(zip(events, (int(x) for x in line.split()[1:]), strict=True))
    raise RuntimeError("cachegrind wrote no summary line")
