"""Speed and memory of flows generated inside the core (docs/performance.md).

Runs the release binary ``burstlab-bench`` on ``benchmarks/nsfnet_workload.toml``
(NSFNET, one Poisson ``[[workload]]`` of 1 000 TCP flows per second, bounded-Pareto
sizes) for 100 s and for 1 000 s of simulated time: 10^5 and 10^6 arrivals at the same
load, the ``fct`` table streamed to a temporary ``sim.trace.dir`` (a copy of the scenario
with the setting added). Each in a fresh process, ``--runs`` times; reports medians of the
peak resident memory (the ratio 10^6 / 10^5 is the issue's goal: at most 1.2), arrivals per wall
second, wall nanoseconds and events per delivered segment, beside the same figures of
``benchmarks/path_5hop.toml`` (one bulk flow) for scale.

    python benchmarks/bench_workload.py [--runs 3] [--quick]

``--quick`` runs 10 s and 100 s (10^4 and 10^5 arrivals).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
from pathlib import Path

from bench_path import build, cpu_model, label, once

ROOT = Path(__file__).resolve().parents[1]


def point(binary: Path, scenario: Path, duration: float, runs: int) -> dict[str, float]:
    rs = [once(binary, scenario, duration=duration) for _ in range(runs)]
    med = {k: statistics.median(float(r[k]) for r in rs) for k in rs[0]}
    med["ns_per_segment"] = 1e9 * med["wall_s"] / max(med["delivered_segments"], 1.0)
    med["events_per_segment"] = med["events"] / max(med["delivered_segments"], 1.0)
    med["peak_rss_mib"] = med["peak_rss_kib"] / 1024
    return med


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    binary = build()
    text = (ROOT / "benchmarks" / "nsfnet_workload.toml").read_text(encoding="utf-8")
    short, long = (10.0, 100.0) if args.quick else (100.0, 1000.0)
    with tempfile.TemporaryDirectory() as tmp:
        wl = Path(tmp) / "nsfnet_workload.toml"
        wl.write_text(text.replace("\n[obs]\n", f"\n[sim.trace]\ndir = {str(Path(tmp) / 'out')!r}\n\n[obs]\n", 1),
                      encoding="utf-8")
        a = point(binary, wl, short, args.runs)
        b = point(binary, wl, long, args.runs)
    path = point(binary, ROOT / "benchmarks" / "path_5hop.toml", 1000.0, args.runs)
    keys = ["arrivals", "arrivals_per_s", "wall_s", "delivered_segments", "ns_per_segment",
            "events_per_segment", "peak_rss_mib"]
    report = {
        "binary": label(binary),
        "machine": f"{cpu_model()}, {platform.system()} {platform.machine()}",
        "runs": args.runs,
        f"nsfnet_workload_{short:g}s": {k: a[k] for k in keys},
        f"nsfnet_workload_{long:g}s": {k: b[k] for k in keys},
        "peak_rss_ratio": b["peak_rss_mib"] / a["peak_rss_mib"],
        "path_5hop_1000s": {k: path[k] for k in keys if k in path},
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
