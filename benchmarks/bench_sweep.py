"""Sweep benchmark: parallel speed-up and scheduling overhead per run.

A 100-point sweep (``link.1.loss_ab`` over 1e-4..1e-1, one replication) of a short UDP
run (CBR + exponential on/off over a lossy 2-hop path; 300 s simulated, ~50 ms of CPU)
on the local process pool with 1 worker and with 2 workers, alternating, ``--repeats``
times each, every sweep into a fresh store. Reported per worker count (medians):

- ``wall_s``: the whole ``burstlab.sweep`` call (pool start, runs, store writes, tables);
- ``sum_run_s``: the sum of the run times measured inside the workers;
- ``overhead_ms_per_run`` = (``jobs`` × ``wall_s`` − ``sum_run_s``) / runs: worker time
  not spent simulating, per run (process start, pickling, the store commit, waiting);
- ``worker_utilisation`` = ``sum_run_s`` / (``jobs`` × ``wall_s``): the share of worker
  time spent simulating;
- ``speedup`` = median wall with 1 worker / median wall with 2.

On a shared machine other load slows every run (``mean_run_ms`` grows with 2 workers)
and caps the speed-up whatever the scheduler does; ``background_cpu_busy_*`` records it,
and the utilisation and overhead show the sweep's own share.

Targets: speed-up ≥ 1.8 on 2 cores, overhead < 50 ms per run.

    python benchmarks/bench_sweep.py [--points 100] [--duration 300s] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import burstlab

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_path import cpu_model  # noqa: E402  (the shared machine description)

SCENARIO: dict[str, Any] = {
    "name": "bench-sweep",
    "sim": {"duration": "300s", "seed": 1},
    "node": [{"name": "src", "kind": "host"}, {"name": "r1"}, {"name": "dst", "kind": "host"}],
    "link": [
        {"a": "src", "b": "r1", "rate": "1Gb/s", "delay": "10ms"},
        {"a": "r1", "b": "dst", "rate": "200Mb/s", "delay": "10ms", "loss_ab": 0.01},
    ],
    "flow": [
        {"type": "cbr", "src": "src", "dst": "dst", "rate": "10Mb/s",
         "packet_size": "1000B"},
        {"type": "onoff", "src": "src", "dst": "dst", "rate": "50Mb/s",
         "packet_size": "1000B", "mean_on": "10ms", "mean_off": "90ms"},
    ],
}


def background_busy(seconds: float = 2.0) -> float | None:
    """Fraction of all CPUs busy while this process sleeps (Linux /proc/stat): other
    load on the machine, which slows both sweeps and caps the speed-up."""

    def snap() -> tuple[int, int]:
        f = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
        idle = f[3] + f[4]
        return sum(f[:8]) - idle, sum(f[:8])

    try:
        b0, t0 = snap()
        time.sleep(seconds)
        b1, t1 = snap()
    except (OSError, ValueError, IndexError):
        return None
    return (b1 - b0) / max(1, t1 - t0)


def once(jobs: int, points: int, duration: str) -> dict[str, float]:
    sc = {**SCENARIO, "sim": {**SCENARIO["sim"], "duration": duration}}
    with tempfile.TemporaryDirectory() as d:
        res = burstlab.sweep(sc, {"link.1.loss_ab": f"1e-4..1e-1:log:{points}"},
                             store=Path(d) / "store.sqlite", jobs=jobs, progress=False)
    st = res.stats
    assert st["ran"] == points and st["failed"] == 0, st
    return {
        "wall_s": st["wall_s"],
        "sum_run_s": st["sum_run_s"],
        "mean_run_ms": 1e3 * st["sum_run_s"] / points,
        "overhead_ms_per_run": 1e3 * (jobs * st["wall_s"] - st["sum_run_s"]) / points,
        "worker_utilisation": st["sum_run_s"] / (jobs * st["wall_s"]),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--points", type=int, default=100)
    ap.add_argument("--duration", default="300s",
                    help="simulated time per run (300s: ~50 ms of CPU)")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    busy_before = background_busy()
    once(1, 4, args.duration)  # warm the page cache and imports
    # Interleave 1- and 2-worker sweeps so that background load hits both alike.
    rs: dict[int, list[dict[str, float]]] = {1: [], 2: []}
    for _ in range(args.repeats):
        for jobs in (1, 2):
            rs[jobs].append(once(jobs, args.points, args.duration))
    med = {j: {k: statistics.median(r[k] for r in rs[j]) for k in rs[j][0]} for j in rs}
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 0
    report = {
        "machine": f"{cpu_model()}, {cores} usable cores, {platform.system()} "
                   f"{platform.machine()}, Python {platform.python_version()}",
        "burstlab": burstlab.__version__,
        "background_cpu_busy_before": busy_before,
        "background_cpu_busy_after": background_busy(),
        "points": args.points,
        "simulated_per_run": args.duration,
        "repeats": args.repeats,
        "median_1_worker": med[1],
        "median_2_workers": med[2],
        "speedup_2_vs_1": med[1]["wall_s"] / med[2]["wall_s"],
        "speedups_per_repeat": [a["wall_s"] / b["wall_s"] for a, b in zip(rs[1], rs[2],
                                                                          strict=True)],
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
