"""burstlab against ns-2.35 on the same scenarios (docs/benchmarks.md).

Three packet-network scenarios, each run by both simulators for the same simulated time
on TCP's ``ns2`` profile (ns-2.35's agents, so both deliver nearly the same segments):

* ``path``: ``benchmarks/path_5hop.toml`` (one SACK flow, 5 hops of 1 Gb/s, 10 ms,
  p = 0.01 on one hop's data direction, ``Wm`` 50);
* ``dumbbell-10`` and ``dumbbell-160``: ``make_dumbbell.py``'s dumbbell (N SACK senders
  on 100 Mb/s access links, an N × 50 Mb/s bottleneck with one bandwidth-delay product of
  drop-tail buffer, ``Wm`` 1000).

Each scenario is written with the chosen duration to a scratch directory and exported to
Tcl by burstlab's own exporter (``burstlab.export.export_ns2``, what ``burstlab export
ns2 SCENARIO`` prints). The exported script writes no packet trace unless asked
(``--trace``), and this benchmark checks that it traces nothing: ns-2 runs with tracing
off, and prints only its one summary line per flow at the end.

Both simulators run as whole processes, measured from outside the same way (wall clock
from fork to reap, user + system CPU time from ``wait4``, peak memory from the child's VmHWM):
ns-2 as ``ns SCRIPT.tcl`` (Debian's ns2 package) and burstlab as the release binary
``target/release/burstlab-bench SCENARIO.toml`` (parses the TOML, runs, prints one JSON
line; no Python); with ``--pgo`` also its profile-guided build (``benchmarks/pgo.py``),
each build against the same ns-2 runs. A round runs ns-2 and each burstlab build once,
and the order rotates from round to round; each figure is the median over ``--runs``
rounds, and the ratio is the median of the per-round ratios of cost per
delivered segment (each simulator's time divided by the segments it
delivered: burstlab's ``segments_delivered``, ns-2's ``ack_``, summed over flows).
Set-up (ns-2's Tcl start and route computation, 3 s of CPU on the 160-flow dumbbell) is
part of each process; it is also measured alone (1 ms simulated) and the CPU ratio
without it is printed.

The totals agree to a few per cent, not exactly: ns-2's ``ack_`` misses the ACKs in
flight at the end; the path's losses are drawn by different generators; and on the
dumbbells, where N flows share one drop-tail queue, the two simulators' runs part ways
(each flow's share differs, the aggregate stays close; ``burstlab export ns2 SCENARIO
--compare`` lists the flows).

Time ratios move between sessions on shared machines: ns-2's own cost per segment on the
10-flow dumbbell has ranged from 2,355 to 3,693 ns with the same binary, while burstlab's
stayed within a few per cent. ``--instructions`` adds a measure that does not move: each
simulator runs once more under valgrind's cachegrind (whole run, and the 1 ms set-up
run), and the table gives instructions per delivered segment and their ratio, with and
without set-up. It is a proxy, not the time ratio (ns-2 also waits longer on memory per
instruction); under valgrind each run takes 30–60 times as long, so use ``--quick``
(about 10 minutes for all three scenarios and both builds).

    python benchmarks/bench_ns2.py [--runs 5] [--quick] [--only path,dumbbell-10]
                                   [--keep DIR] [--json] [--pgo] [--instructions]

Exits 2 with a message if ``ns`` is not installed (Debian/Ubuntu: apt-get install ns2).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_path import ROOT, build, cpu_model, label
from benchutil import Proc, cachegrind, load, median, timed, with_duration
from make_dumbbell import dumbbell

from burstlab.export import export_ns2
from burstlab.export.ns2 import SUMMARY_TAG

#: Simulated seconds of the set-up runs.
SETUP_S = 0.001


@dataclass
class Case:
    name: str
    text: str  #: the scenario TOML
    duration_s: float  #: simulated seconds, full mode
    quick_s: float  #: simulated seconds, --quick


def cases() -> list[Case]:
    """The scenarios and their simulated durations: ns-2 takes some seconds of CPU on
    each (about 7–13 s in full mode, 1.5–7 s in quick mode, on a 2-core EPYC; 3 s of the
    160-flow dumbbell's is its set-up, mostly routing)."""
    path = (ROOT / "benchmarks" / "path_5hop.toml").read_text(encoding="utf-8")
    return [
        Case("path", path, 20000.0, 4000.0),
        Case("dumbbell-10", dumbbell(10), 20.0, 5.0),
        Case("dumbbell-160", dumbbell(160), 1.0, 0.4),
    ]


def ns2_delivered(p: Proc) -> int:
    """The data segments ns-2's senders saw acknowledged (``ack_``), summed over flows."""
    total, flows = 0, 0
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) == 6 and parts[0] == SUMMARY_TAG:
            total += int(float(parts[2]))
            flows += 1
    if p.returncode != 0 or flows == 0:
        tail = " | ".join((p.stderr or p.stdout).strip().splitlines()[-5:])
        raise RuntimeError(f"ns-2 failed (exit {p.returncode}): {tail}")
    return total


def prepare(case: Case, duration_s: float, workdir: Path, suffix: str = "") -> tuple[Path, Path]:
    """Writes the scenario variant and its ns-2 script; returns both paths."""
    toml_path = workdir / f"{case.name}{suffix}.toml"
    toml_path.write_text(with_duration(case.text, duration_s), encoding="utf-8")
    script = export_ns2(toml_path)
    for line in script.tcl.splitlines():
        code = line.split(";#", 1)[0].split("#", 1)[0] if not line.lstrip().startswith("#") else ""
        if "trace-all" in code or "namtrace" in code or "trace-queue" in code:
            raise RuntimeError(f"{case.name}: the exported script traces ({line.strip()!r})")
    tcl_path = workdir / f"{case.name}{suffix}.tcl"
    tcl_path.write_text(script.tcl, encoding="utf-8")
    return toml_path, tcl_path


def measure(case: Case, duration_s: float, runs: int, ns: str, binaries: dict[str, Path],
            workdir: Path, instructions: bool = False) -> list[dict[str, Any]]:
    """One row per burstlab build in ``binaries`` (name: binary), each against the same
    ns-2 runs: every round runs ns-2 and each build once, the order rotating by round."""
    toml_path, tcl_path = prepare(case, duration_s, workdir)
    bls: dict[str, list[tuple[Proc, int]]] = {b: [] for b in binaries}  # (process, segments)
    nsr: list[tuple[Proc, int]] = []
    who_all = ["ns2", *binaries]
    for r in range(runs):
        k = r % len(who_all)
        for who in who_all[k:] + who_all[:k]:
            if who == "ns2":
                p = timed([ns, str(tcl_path)], cwd=workdir)
                nsr.append((p, ns2_delivered(p)))
            else:
                p = timed([str(binaries[who]), str(toml_path)])
                if p.returncode != 0:
                    raise RuntimeError(f"burstlab-bench failed on {toml_path}: {p.stderr.strip()}")
                bls[who].append((p, int(json.loads(p.stdout)["delivered_segments"])))
        times = ", ".join(f"{b} {bls[b][-1][0].wall_s:.2f} s" for b in binaries)
        print(f"  {case.name} round {r + 1}/{runs}: ns-2 {nsr[-1][0].wall_s:.2f} s, {times}",
              file=sys.stderr, flush=True)
    # Set-up (reading the scenario, building the network and routes, and for ns-2 the
    # Tcl interpreter): one run of each simulator with 1 ms simulated, before any flow
    # has sent much.
    toml0, tcl0 = prepare(case, SETUP_S, workdir, suffix="-setup")
    ns_setup = timed([ns, str(tcl0)], cwd=workdir)
    ns2_delivered(ns_setup)
    if instructions:
        # Each simulator once more under cachegrind, whole run and set-up run: counts of
        # executed instructions do not depend on the machine's load. Both simulators are
        # deterministic (the rounds above delivered the same segments every time).
        print(f"  {case.name}: counting instructions (cachegrind)", file=sys.stderr, flush=True)
        ns_ir = cachegrind([ns, str(tcl_path)], cwd=workdir)["Ir"]
        ns_ir0 = cachegrind([ns, str(tcl0)], cwd=workdir)["Ir"]
    rows = []
    for build_name, bl in bls.items():
        bl_setup = timed([str(binaries[build_name]), str(toml0)])
        pairs = list(zip(nsr, bl, strict=True))
        ratio_wall = [(pn.wall_s / sn) / (pb.wall_s / sb) for (pn, sn), (pb, sb) in pairs]
        ratio_cpu = [(pn.cpu_s / sn) / (pb.cpu_s / sb) for (pn, sn), (pb, sb) in pairs]
        row: dict[str, Any] = {
            "scenario": case.name,
            "build": build_name,
            "flows": case.text.count("[[flow]]"),
            "simulated_s": duration_s,
            "runs": runs,
            "burstlab_segments": median([s for _, s in bl]),
            "ns2_segments": median([s for _, s in nsr]),
            "burstlab_wall_s": median([p.wall_s for p, _ in bl]),
            "ns2_wall_s": median([p.wall_s for p, _ in nsr]),
            "burstlab_ns_per_segment": median([p.wall_s / s * 1e9 for p, s in bl]),
            "ns2_ns_per_segment": median([p.wall_s / s * 1e9 for p, s in nsr]),
            "burstlab_cpu_ns_per_segment": median([p.cpu_s / s * 1e9 for p, s in bl]),
            "ns2_cpu_ns_per_segment": median([p.cpu_s / s * 1e9 for p, s in nsr]),
            "burstlab_peak_rss_mib": median([p.peak_rss_kib for p, _ in bl]) / 1024,
            "ns2_peak_rss_mib": median([p.peak_rss_kib for p, _ in nsr]) / 1024,
            "burstlab_setup_wall_s": bl_setup.wall_s,
            "ns2_setup_wall_s": ns_setup.wall_s,
            "burstlab_setup_cpu_s": bl_setup.cpu_s,
            "ns2_setup_cpu_s": ns_setup.cpu_s,
            "ratio_cpu_without_setup": median(
                [
                    ((pn.cpu_s - ns_setup.cpu_s) / sn) / ((pb.cpu_s - bl_setup.cpu_s) / sb)
                    for (pn, sn), (pb, sb) in pairs
                ]
            ),
            "ratio_wall": median(ratio_wall),
            "ratio_cpu": median(ratio_cpu),
            "ratio_wall_min": min(ratio_wall),
            "ratio_wall_max": max(ratio_wall),
        }
        if instructions:
            sb, sn = row["burstlab_segments"], row["ns2_segments"]
            bl_ir = cachegrind([str(binaries[build_name]), str(toml_path)])["Ir"]
            bl_ir0 = cachegrind([str(binaries[build_name]), str(toml0)])["Ir"]
            row["burstlab_instructions_per_segment"] = bl_ir / sb
            row["ns2_instructions_per_segment"] = ns_ir / sn
            row["ratio_instructions"] = (ns_ir / sn) / (bl_ir / sb)
            row["ratio_instructions_without_setup"] = ((ns_ir - ns_ir0) / sn) / ((bl_ir - bl_ir0) / sb)
        rows.append(row)
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    head = ("| scenario | burstlab build | simulated | segments delivered (burstlab / ns-2) | burstlab wall "
            "| ns-2 wall | ns per segment, wall (burstlab / ns-2) | ns per segment, CPU (burstlab / ns-2) "
            "| peak memory (burstlab / ns-2) | **ns-2 ÷ burstlab** per segment, wall (CPU) |")
    out = [head, "|" + "---|" * 10]
    for r in rows:
        out.append(
            f"| {r['scenario']} | {r['build']} | {r['simulated_s']:g} s "
            f"| {r['burstlab_segments']:,.0f} / {r['ns2_segments']:,.0f} "
            f"| {r['burstlab_wall_s']:.2f} s | {r['ns2_wall_s']:.2f} s "
            f"| {r['burstlab_ns_per_segment']:,.0f} / {r['ns2_ns_per_segment']:,.0f} "
            f"| {r['burstlab_cpu_ns_per_segment']:,.0f} / {r['ns2_cpu_ns_per_segment']:,.0f} "
            f"| {r['burstlab_peak_rss_mib']:.1f} / {r['ns2_peak_rss_mib']:.1f} MiB "
            f"| **{r['ratio_wall']:.1f}×** ({r['ratio_cpu']:.1f}×) |"
        )
    return "\n".join(out)


def instruction_table(rows: list[dict[str, Any]]) -> str:
    """Instructions per delivered segment (cachegrind), which do not depend on the load."""
    out = ["| scenario | burstlab build | instructions per segment (burstlab / ns-2) "
           "| **ns-2 ÷ burstlab**, instructions | the same without set-up |", "|---|---|---|---|---|"]
    for r in rows:
        out.append(
            f"| {r['scenario']} | {r['build']} "
            f"| {r['burstlab_instructions_per_segment']:,.0f} / {r['ns2_instructions_per_segment']:,.0f} "
            f"| **{r['ratio_instructions']:.1f}×** | {r['ratio_instructions_without_setup']:.1f}× |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=None, help="paired runs per scenario (default 5; --quick: 3)")
    ap.add_argument("--quick", action="store_true", help="shorter simulated durations, 3 pairs")
    ap.add_argument("--only", default=None, help="comma-separated scenario names (path, dumbbell-10, dumbbell-160)")
    ap.add_argument("--duration", type=float, default=None, help="simulated seconds for every scenario")
    ap.add_argument("--keep", type=Path, default=None, help="keep the scenario files and Tcl scripts here")
    ap.add_argument("--json", action="store_true", help="also print the results as JSON")
    ap.add_argument("--instructions", action="store_true",
                    help="also count instructions per segment under cachegrind (minutes; use --quick)")
    ap.add_argument("--pgo", action="store_true",
                    help="also measure the profile-guided build (benchmarks/pgo.py) in the same rounds")
    args = ap.parse_args(argv)

    ns = shutil.which("ns")
    if ns is None:
        print("bench_ns2: ns-2 (`ns`) is not installed; this benchmark runs it beside burstlab.\n"
              "Install Debian's package: apt-get install ns2", file=sys.stderr)
        return 2
    runs = args.runs or (3 if args.quick else 5)
    chosen = cases()
    if args.only:
        want = {s.strip() for s in args.only.split(",")}
        unknown = want - {c.name for c in chosen}
        if unknown:
            ap.error(f"--only: unknown scenario(s) {sorted(unknown)}")
        chosen = [c for c in chosen if c.name in want]
    binaries = {"release": build()}
    if args.pgo:
        binaries["pgo"] = build(pgo=True)
    print(f"# burstlab vs ns-2.35: {cpu_model()}; {load()} at start", file=sys.stderr)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench_ns2_") as tmp:
        workdir = args.keep or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        for case in chosen:
            d = args.duration or (case.quick_s if args.quick else case.duration_s)
            rows += measure(case, d, runs, ns, binaries, workdir, args.instructions)
    names = ", ".join(f"{b}: {label(p)}" for b, p in binaries.items())
    print(f"burstlab ({names}) vs ns-2.35 (`{ns}`), whole processes, "
          f"median of {runs} rounds, the order rotating; {cpu_model()}; {load()} at end")
    print()
    print(table(rows))
    print()
    for r in rows:
        diff = r["burstlab_segments"] / r["ns2_segments"] - 1 if r["ns2_segments"] else float("nan")
        print(
            f"{r['scenario']} ({r['build']}): burstlab delivered {r['burstlab_segments']:,.0f}, ns-2 acknowledged "
            f"{r['ns2_segments']:,.0f} segments ({diff:+.2%}); per-round wall ratios "
            f"{r['ratio_wall_min']:.1f}–{r['ratio_wall_max']:.1f}×; set-up ({SETUP_S * 1e3:g} ms simulated) "
            f"CPU burstlab {r['burstlab_setup_cpu_s']:.3f} s, ns-2 {r['ns2_setup_cpu_s']:.3f} s; "
            f"CPU ratio without set-up {r['ratio_cpu_without_setup']:.1f}×"
        )
    print(
        "burstlab counts segments delivered in order at the receivers, ns-2 those its senders saw acknowledged "
        "(ack_),\nso they differ at least by the ACKs in flight at the end. The path's losses come from different "
        "random generators\n(agreement in distribution only), and on the dumbbells the flows sharing one drop-tail "
        "queue part ways between\nthe two simulators (per-flow shares differ: `burstlab export ns2 SCENARIO "
        "--compare`), so the totals agree to a few per cent."
    )
    if args.instructions:
        print()
        print(instruction_table(rows))
    if args.json:
        print(json.dumps({"machine": cpu_model(), "results": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
