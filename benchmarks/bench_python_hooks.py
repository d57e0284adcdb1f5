"""Cost of a Python assembler (docs/topics/python-hooks.md): the Python timer
(examples/python_timer.py) against the built-in timer on ``benchmarks/mesh_9flow.toml``,
paired (docs/performance.md).

Each round runs both, in alternating order, in this process through ``burstlab.run``,
and gives one ratio of wall-clock nanoseconds per delivered segment (Python / built-in);
the figure is the median ratio and the medians of each side. A third run counts the hook
calls, so that a missed goal reads as calls per segment × cost per call.

    python benchmarks/bench_python_hooks.py [--rounds 7] [--duration 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import burstlab

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

import python_timer  # noqa: E402  (examples/, put on sys.path above)


class CountingTimer(python_timer.Assembler):
    """The Python timer, counting its calls."""

    counts = {"on_packet": 0, "on_timer": 0}

    def on_packet(self, v: Any) -> Any:
        CountingTimer.counts["on_packet"] += 1
        return super().on_packet(v)

    def on_timer(self, v: Any) -> Any:
        CountingTimer.counts["on_timer"] += 1
        return super().on_timer(v)


def scenario(duration: float, obj: Any | None) -> dict[str, Any]:
    spec = tomllib.loads((ROOT / "benchmarks" / "mesh_9flow.toml").read_text("utf-8"))
    spec["sim"]["duration"] = duration
    tb = spec["obs"]["assembly"]["tb"]
    if obj is not None:
        spec["obs"]["assembly"] = {"type": "python", "object": obj, "params": {"tb": tb}}
    return spec


def once(spec: dict[str, Any]) -> tuple[float, int]:
    """(ns per delivered segment, delivered segments)."""
    t = time.perf_counter()
    res = burstlab.run(spec, progress=False)
    wall = time.perf_counter() - t
    seg = int(res.flows["segments_delivered"].sum())
    return wall * 1e9 / seg, seg


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--duration", type=float, default=20.0, help="simulated seconds")
    a = ap.parse_args(argv)
    builtin = scenario(a.duration, None)
    python = scenario(a.duration, python_timer.Assembler)
    once(builtin)  # warm up (imports, caches)
    b_ns, p_ns, ratios = [], [], []
    for r in range(a.rounds):
        order = [(builtin, b_ns), (python, p_ns)]
        for spec, out in order if r % 2 == 0 else order[::-1]:
            out.append(once(spec)[0])
        ratios.append(p_ns[-1] / b_ns[-1])
    CountingTimer.counts = {"on_packet": 0, "on_timer": 0}
    _, seg = once(scenario(a.duration, CountingTimer))
    calls = sum(CountingTimer.counts.values())
    b, p = statistics.median(b_ns), statistics.median(p_ns)
    print(f"mesh_9flow, {a.duration:g} s simulated, {a.rounds} paired rounds, {seg} segments")
    print(f"built-in timer: median {b:.0f} ns per delivered segment")
    print(f"Python timer:   median {p:.0f} ns per delivered segment")
    print(f"ratio (paired): median {statistics.median(ratios):.3f} "
          f"(min {min(ratios):.3f}, max {max(ratios):.3f})")
    print(f"hook calls: {calls / seg:.2f} per delivered segment "
          f"(on_packet {CountingTimer.counts['on_packet'] / seg:.2f}, "
          f"on_timer {CountingTimer.counts['on_timer'] / seg:.2f}); "
          f"extra cost {(p - b) * seg / calls:.0f} ns per call")
    return 0


if __name__ == "__main__":
    sys.exit(main())
