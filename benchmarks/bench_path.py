"""Speed and memory benchmark of the packet path (docs/benchmarks.md).

Runs the release binary ``burstlab-bench`` on ``benchmarks/path_5hop.toml`` (one bulk
flow, 5 hops, p = 0.01, Wm = 50, 10^4 s simulated) five times, each in a fresh process,
and reports the median delivered segments per wall-clock second and the median peak
resident memory. It also runs 10^3 s to show that memory does not grow with simulated time.

    python benchmarks/bench_path.py [--runs 5] [--scenario FILE] [--pgo]

``--pgo`` measures the profile-guided build (``benchmarks/pgo.py``) instead.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build(pgo: bool = False) -> Path:
    """The benchmark binary: the plain release build, or with ``pgo`` the profile-guided
    one (``benchmarks/pgo.py``: built, trained and checked to give the same results)."""
    if pgo:
        from pgo import PgoError, build_pgo

        try:
            return build_pgo()
        except PgoError as e:
            sys.exit(f"--pgo: {e}")
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "burstlab-core", "--bin", "burstlab-bench"],
        cwd=ROOT, check=True,
    )
    return ROOT / "target" / "release" / "burstlab-bench"


def once(binary: Path, scenario: Path, duration: float | None = None) -> dict[str, float]:
    cmd = [str(binary), str(scenario)]
    if duration is not None:
        cmd += ["--duration", str(duration)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return dict(json.loads(out))


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def add_pgo_arg(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--pgo", action="store_true",
                    help="measure the profile-guided build (benchmarks/pgo.py) instead of the plain release build")


def label(binary: Path) -> str:
    """How an output names the binary it measured."""
    try:
        return str(binary.relative_to(ROOT))
    except ValueError:
        return str(binary)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--scenario", type=Path, default=ROOT / "benchmarks" / "path_5hop.toml")
    ap.add_argument("--no-short", action="store_true", help="skip the 10^3 s memory comparison")
    add_pgo_arg(ap)
    args = ap.parse_args(argv)
    binary = build(args.pgo)
    runs = [once(binary, args.scenario) for _ in range(args.runs)]
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    report = {
        "scenario": args.scenario.name,
        "binary": label(binary),
        "machine": f"{cpu_model()}, {platform.system()} {platform.machine()}",
        "runs": args.runs,
        "median_segments_per_s": med["segments_per_s"],
        "median_events_per_s": med["events_per_s"],
        "median_wall_s": med["wall_s"],
        "delivered_segments": med["delivered_segments"],
        "simulated_s": med["simulated_s"],
        "median_peak_rss_mib": med["peak_rss_kib"] / 1024,
    }
    if not args.no_short:
        short = [once(binary, args.scenario, duration=med["simulated_s"] / 10) for _ in range(3)]
        report["median_peak_rss_mib_tenth_duration"] = (
            statistics.median(r["peak_rss_kib"] for r in short) / 1024
        )
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
