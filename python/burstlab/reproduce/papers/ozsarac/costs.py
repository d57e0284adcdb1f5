"""What the full ozsarac reproduction costs: measured wall time of representative runs,
scaled by the full mode's run list.

Read first: :func:`measure` (times one run of each kind on one core), then
:func:`full_mode_total` (sums measured seconds-per-simulated-second over every run of
the full mode). Run it as ``python -m burstlab.reproduce.papers.ozsarac.costs OUT.json``;
docs/reproductions/ozsarac.md quotes its output (``--reuse FILE`` takes earlier
measurements from the JSON lines it printed on stderr). Measuring the full mode itself (~17 h)
is not practical; the mesh and dynamic runs are timed on shortened runs at two durations
each (:data:`MESH_S`, :data:`DYNAMIC_S`) to show that CPU time grows linearly with
simulated time, which is what the scaling assumes: each class is priced at the rate of
its longest timed run. The linear rates do not depend on the mesh reading and may be
reused (``--reuse``).
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from burstlab.reproduce.papers.ozsarac.experiments import (
    FIRST_HALF,
    MODES,
    SECOND_HALF,
    SEED,
    Mode,
    dynamic_points,
    ecwba_window_points,
    linear_points,
    mesh_points,
    mesh_reading_points,
    mesh_starts,
)
from burstlab.reproduce.papers.ozsarac.topology import MESH_READING, assembly, linear, mesh

#: Representative runs: (experiment, assembler class, simulated seconds, scenario).
#: "timer" stands for the timer-assembled points, "window" for CWBA/MCWBA/ECWBA.

#: Simulated seconds of the timed dynamic runs: two durations, to show the cost grows
#: linearly with simulated time (a 10 000 s run takes far longer than is practical to
#: time here).
DYNAMIC_S = (100.0, 200.0)
#: Simulated seconds of the timed static mesh runs (full mode: 300 s): two durations,
#: shortened like the dynamic ones; the rate of the longer one prices the 300 s runs.
MESH_S = (60.0, 120.0)


def _dynamic(kind: str, tb_ms: float, duration: float) -> dict[str, Any]:
    half = MODES["full"].dyn_s / 2
    active: dict[int, tuple[float, float | None]] = {}
    for i, (t0, _) in mesh_starts(0).items():
        if i in FIRST_HALF:
            active[i] = (t0, half)
        elif i in SECOND_HALF:
            active[i] = (half + t0, None)
        else:
            active[i] = (t0, None)
    asm = assembly(kind, tb_ms / 1e3 if tb_ms else None,
                   jitter=0.1 if kind == "timer" else 0.0)
    return mesh(asm, "reno", duration=duration, seed=SEED, active=active)


def representative(full: Mode) -> list[tuple[str, str, float, dict[str, Any]]]:
    """One run per (experiment, assembler class) at full-mode settings; the dynamic runs
    at :data:`DYNAMIC_S` seconds of the paper's 10 000 s scenario (six flows are active
    in either half: 3, 6, 7 with 1, 5, 8 and then with 2, 4, 9)."""
    m = full

    def _mesh(kind: str, d: float, reading: str = MESH_READING) -> dict[str, Any]:
        asm = (assembly("timer", 26e-3, jitter=0.1) if kind == "timer"
               else assembly("cwba"))
        return mesh(asm, "reno", duration=d, warmup=min(m.mesh_warmup_s, d / 2), seed=SEED,
                    active=mesh_starts(0), reading=reading)

    return [
        ("linear", "timer", m.linear_s,
         linear(assembly("timer", 8e-3), "reno", duration=m.linear_s,
                warmup=m.linear_warmup_s, seed=SEED)),
        ("linear", "window", m.linear_s,
         linear(assembly("cwba"), "reno", duration=m.linear_s, warmup=m.linear_warmup_s,
                seed=SEED)),
        *[("mesh", cls, d, _mesh(kind, d)) for cls, kind in
          (("timer", "timer"), ("window", "cwba")) for d in MESH_S],
        *[("mesh_reading", cls, MESH_S[0], _mesh(kind, MESH_S[0], reading))
          for reading in m.mesh_readings
          for cls, kind in (("timer", "timer"), ("window", "cwba"))],
        *[("dynamic", cls, d, _dynamic(kind, tb, d)) for cls, kind, tb in
          (("timer", "timer", 28.0), ("window", "cwba", 0.0)) for d in DYNAMIC_S],
    ]


def measure(runs: Sequence[tuple[str, str, float, dict[str, Any]]],
            reuse: Sequence[dict[str, Any]] = ()) -> list[dict[str, Any]]:
    """Time of each run, one after another in this process (one core): the process's
    CPU seconds (what the run costs a core to itself; on a shared, loaded machine the
    wall time is longer by the competition) and the wall seconds, with the load."""
    from burstlab.api import run

    out = []
    done = {(r["experiment"], r["assembler"], float(r["simulated_s"])): r for r in reuse}
    for exp, cls, sim_s, sc in runs:
        if (exp, cls, float(sim_s)) in done:  # measured earlier (``--reuse``)
            out.append(done[(exp, cls, float(sim_s))])
            continue
        t0, c0 = time.perf_counter(), time.process_time()
        res = run(sc)
        wall = time.perf_counter() - t0
        cpu = time.process_time() - c0
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        out.append({"experiment": exp, "assembler": cls, "simulated_s": sim_s,
                    "cpu_s": round(cpu, 2), "wall_s": round(wall, 2),
                    "cpu_per_simulated_s": cpu / sim_s,
                    "events": int(res.meta.get("events", 0)),
                    "load_avg_1min_after": round(load, 2)})
        print(json.dumps(out[-1]), file=sys.stderr, flush=True)
    return out


def settle_rounds(full: Mode) -> list[float]:
    """The durations a linear point runs under run-length control if it settles only at
    the cap: ``linear_s``, doubled up to ``linear_cap_s`` (the worst case; a point that
    settles earlier stops earlier)."""
    out = [float(full.linear_s)]
    while out[-1] < full.linear_cap_s:
        out.append(min(2 * out[-1], float(full.linear_cap_s)))
    return out


def full_mode_runs(full: Mode) -> list[tuple[str, str, float]]:
    """Every run of the full mode: (experiment, assembler class, simulated seconds); the
    settled linear runs (and the UDP on/off sensitivity) at their worst case, every
    round of :func:`settle_rounds`."""
    from burstlab.reproduce.papers.ozsarac.sensitivity import udp_on_points

    rows: list[tuple[str, str, float]] = []
    rounds = settle_rounds(full)
    for p, _ in linear_points(full):
        cls = "timer" if p["assembler"] == "timer" else "window"
        rows += [("linear", cls, d) for d in rounds] * full.reps
    for p, _ in udp_on_points(full):
        cls = "timer" if p["assembler"] == "timer" else "window"
        rows += [("linear", cls, d) for d in rounds] * full.sens_reps
    for p, _ in mesh_points(full):
        rows.append(("mesh", "timer" if p["assembler"] == "timer" else "window",
                     float(p["duration_s"])))
    for p, _ in mesh_reading_points(full):
        rows.append(("mesh_reading", "timer" if p["assembler"] == "timer" else "window",
                     float(p["duration_s"])))
    for p, _ in dynamic_points(full):
        rows.append(("dynamic", "timer" if p["assembler"] == "timer" else "window",
                     float(p["duration_s"])))
    for p, _ in ecwba_window_points(full):
        rows.append(("linear", "window", float(p["duration_s"])))
    return rows


def full_mode_total(measured: Sequence[dict[str, Any]], full: Mode) -> dict[str, Any]:
    """Sum over the full mode's runs of (measured CPU seconds per simulated second of
    its experiment and assembler class, the longest measured run of that class) ×
    (its simulated seconds); one core's time, then divided by 2 for two cores (the
    runs are independent; the sweep's speed-up on 2 workers is 1.93×, docs/benchmarks.md)."""
    rate: dict[tuple[str, str], float] = {}
    longest: dict[tuple[str, str], float] = {}
    for r in measured:
        k = (r["experiment"], r["assembler"])
        if r["simulated_s"] >= longest.get(k, 0.0):
            longest[k] = r["simulated_s"]
            rate[k] = r["cpu_per_simulated_s"]
    by: dict[str, dict[str, float]] = {}
    for exp, cls, sim_s in full_mode_runs(full):
        d = by.setdefault(exp, {"runs": 0, "simulated_s": 0.0, "cpu_s": 0.0})
        d["runs"] += 1
        d["simulated_s"] += sim_s
        d["cpu_s"] += rate[(exp, cls)] * sim_s
    cpu = sum(d["cpu_s"] for d in by.values())
    return {"by_experiment": by, "cpu_h": cpu / 3600, "wall_h_2_cores": cpu / 2 / 3600}


#: The measurement the report and docs/reproductions/ozsarac.md quote (written by :func:`main`).
COST_FILE = Path(__file__).with_name("full_mode_cost.json")


def load() -> dict[str, Any] | None:
    """The committed measurement, or None."""
    if not COST_FILE.is_file():
        return None
    doc: dict[str, Any] = json.loads(COST_FILE.read_text(encoding="utf-8"))
    # The rates were measured once; the run list is this code's (settled linear runs at
    # their worst case, one dynamic run per configuration), so the total is recomputed.
    doc["total_as_measured"] = doc.get("total")
    doc["total"] = full_mode_total(doc["measured"], MODES["full"])
    return doc


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    reuse: list[dict[str, Any]] = []
    if "--reuse" in args:  # --reuse FILE: JSON lines of earlier measurements (stderr)
        i = args.index("--reuse")
        for line in Path(args[i + 1]).read_text(encoding="utf-8").splitlines():
            if line.startswith("{"):
                reuse.append(json.loads(line))
        del args[i:i + 2]
    full = MODES["full"]
    measured = measure(representative(full), reuse)
    doc = {"machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                       "processor": _cpu_model()},
           "when": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
           "measured": measured, "total": full_mode_total(measured, full)}
    text = json.dumps(doc, indent=2)
    if args:
        with open(args[0], "w", encoding="utf-8") as f:
            f.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
