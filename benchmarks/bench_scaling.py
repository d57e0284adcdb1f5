"""Scaling in the number of flows (docs/benchmarks.md).

Two scenario families at N = 10, 40, 160 and 320 flows:

* ``dumbbell``: ``make_dumbbell.py`` (N SACK senders, ``Wm`` 1000, 100 Mb/s access
  links, an N × 50 Mb/s bottleneck with one bandwidth-delay product of drop-tail buffer);
* ``obs-mixed``: ``make_obs_mixed.py`` (the same N senders through ingress edge – core –
  egress edge, 8 wavelengths of N × 50 Mb/s / 8 per fibre, hybrid assembly with
  Tmax 1 ms / Lmax 25 KB into one burst queue per egress, so bursts mix flows).

Both grow the packets in flight with N (the buffer is one bandwidth-delay product of the
N × 50 Mb/s bottleneck). On request, a third family keeps them fixed:

* ``dumbbell-fixed-packets``: the dumbbell with every delay × 32 / N
  (``make_dumbbell.py --delay-scale``), so the bandwidth-delay product and the buffer
  are 4,800 packets at every N (about 9,600 in flight, under the flows' 10 × ``Wm``
  at N = 10): the cost of the flows alone. Its ratio is printed without the goal's
  verdict, which is about the issue's scenarios.

Every N simulates ``--base`` × 320 / N seconds (default 2 s at N = 320, 64 s at N = 10;
``--quick``: 0.5 s and 16 s), so each run delivers a similar number of segments and the
small N are not timed on a few hundred milliseconds. Flows start 1 ms apart, so at
N = 320 the last one starts at 0.32 s: a shorter base times mostly slow start. The
release binary ``burstlab-bench`` (``--pgo``: its profile-guided build) runs in
``--runs`` rounds, each a fresh process of every point, in ascending order in even rounds
and descending in odd ones; the table gives medians over the rounds of wall-clock seconds
per simulated second, delivered segments per wall-clock second, wall (and CPU)
nanoseconds per delivered segment, peak resident memory (the process's high-water mark)
and events per delivered segment. The ratio of CPU ns per segment at the largest N to
the smallest (goal: at most 1.5 from N = 10 to 320) is paired: each round gives one, from
two processes run within that round (about 10 s with the default families), and the
verdict is on their median, printed with a 95 % percentile-bootstrap interval and the
rounds' range. A
ratio of two medians each taken over all rounds would put minutes between the two ends,
and the machine's speed drifts over minutes (three unpaired runs of 3–5 processes on
2026-11-26 gave the dumbbell 1.70, 1.58 and 1.75).

Wall and CPU times move by 15-40 % between runs on shared machines. ``--instructions``
adds, per point, one more process run under valgrind's cachegrind (30-80 times slower
than a plain run: with ``--quick`` about 15 minutes for both families) and reports
instructions, first-level data-cache misses and misses of a modelled ``--l2-kib`` cache
(default 512, one core's L2 on this project's machines) per delivered segment: counts
that do not depend on the load, so two revisions or two N compare exactly. Cachegrind
does not model hardware prefetching, so misses of sequential streams (a long queue read in
order) are overstated.

    python benchmarks/bench_scaling.py [--runs 3] [--quick] [--n 10,40,160,320]
                                       [--family dumbbell,obs-mixed] [--base 2.0] [--json]
                                       [--instructions [--l2-kib 512]] [--pgo]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_path import add_pgo_arg, build, cpu_model, label
from benchutil import cachegrind, load, median, timed, with_duration
from make_dumbbell import dumbbell
from make_obs_mixed import obs_mixed

#: Scenario family -> TOML text of N flows and D simulated seconds.
FAMILIES: dict[str, Callable[[int, float], str]] = {
    "dumbbell": lambda n, d: with_duration(dumbbell(n), d),
    "obs-mixed": obs_mixed,
    "dumbbell-fixed-packets": lambda n, d: with_duration(dumbbell(n, delay_scale=32 / n), d),
}

#: The families run by default (the goal's scenarios).
DEFAULT_FAMILIES = ("dumbbell", "obs-mixed")

#: The goal of issue 15: ns per delivered segment at the largest N within this factor of
#: the smallest N's.
GOAL_RATIO = 1.5


def run_once(binary: Path, path: Path) -> dict[str, float]:
    """One fresh process of ``binary`` on ``path``: its wall and CPU time and the
    simulation's own counts (the binary's JSON line)."""
    p = timed([str(binary), str(path)])
    if p.returncode != 0:
        raise RuntimeError(f"burstlab-bench failed on {path}: {p.stderr.strip()}")
    j = json.loads(p.stdout)
    # The whole process's wall (fork to reap) and CPU time; the binary's JSON gives the
    # simulation's segments and events and the process's own VmHWM at its end.
    return {"wall": p.wall_s, "cpu": p.cpu_s, "seg": int(j["delivered_segments"]),
            "ev": int(j["events"]), "rss": int(j["peak_rss_kib"]), "sim": float(j["simulated_s"])}


def round_order(points: list[tuple[str, int]], r: int) -> list[tuple[str, int]]:
    """The order of the points in round ``r``: the given order in even rounds, reversed in
    odd ones, so that no N is always measured first or last in a round (a machine that
    speeds up or slows down within a round then hits both ends of a ratio alike)."""
    return points if r % 2 == 0 else points[::-1]


def summarize(family: str, n: int, duration_s: float, res: list[dict[str, float]],
              counts: dict[str, float]) -> dict[str, Any]:
    """One point's row: medians over its runs (``res``), and the cachegrind ``counts``."""
    cpu_ns = [x["cpu"] / x["seg"] * 1e9 for x in res]
    return counts | {
        "family": family, "n_flows": n, "simulated_s": duration_s, "runs": len(res),
        "wall_s": median([x["wall"] for x in res]),
        "wall_s_per_simulated_s": median([x["wall"] / x["sim"] for x in res]),
        "segments_per_wall_s": median([x["seg"] / x["wall"] for x in res]),
        "ns_per_segment": median([x["wall"] / x["seg"] * 1e9 for x in res]),
        "cpu_ns_per_segment": median(cpu_ns),
        "cpu_ns_per_segment_each_run": cpu_ns,
        "peak_rss_mib": median([x["rss"] for x in res]) / 1024,
        "events_per_segment": median([x["ev"] / x["seg"] for x in res]),
        "delivered_segments": median([x["seg"] for x in res]),
    }


def paired_ratios(lo: list[float], hi: list[float]) -> list[float]:
    """Per round, ``hi``'s cost over ``lo``'s: the two ends of each ratio measured in the
    same round, seconds apart, not two medians whose runs lie minutes apart."""
    if len(lo) != len(hi) or not lo:
        raise ValueError(f"paired ratios need as many runs at both ends (got {len(lo)} and {len(hi)})")
    return [h / lo_ for lo_, h in zip(lo, hi, strict=True)]


def bootstrap_median_interval(xs: list[float], level: float = 0.95, resamples: int = 4000,
                              seed: int = 15) -> tuple[float, float]:
    """A percentile bootstrap interval of the median of ``xs`` (Efron and Tibshirani
    1993, ch. 13), from a fixed seed so the printout is repeatable for the same runs.
    With a single value the interval is that value."""
    if not xs:
        raise ValueError("no values to bootstrap")
    rng = random.Random(seed)
    meds = sorted(median(rng.choices(xs, k=len(xs))) for _ in range(resamples))
    cut = (1 - level) / 2
    return meds[int(cut * (resamples - 1))], meds[int((1 - cut) * (resamples - 1))]


def table(rows: list[dict[str, Any]]) -> str:
    out = ["| scenario | N | simulated | segments delivered | wall s per simulated s "
           "| segments per wall s | ns per segment, wall (CPU) | peak memory | events per segment |",
           "|" + "---|" * 9]
    counted = bool(rows) and "instructions_per_segment" in rows[0]
    if counted:
        out[0] += (f" instructions per segment | L1 data misses per segment "
                   f"| L2 misses per segment ({rows[0]['l2_kib']} KiB modelled) |")
        out[1] += "---|" * 3
    for r in rows:
        line = (
            f"| {r['family']} | {r['n_flows']} | {r['simulated_s']:g} s | {r['delivered_segments']:,.0f} "
            f"| {r['wall_s_per_simulated_s']:.3g} | {r['segments_per_wall_s'] / 1e6:.2f} million "
            f"| {r['ns_per_segment']:,.0f} ({r['cpu_ns_per_segment']:,.0f}) "
            f"| {r['peak_rss_mib']:.1f} MiB | {r['events_per_segment']:.1f} |"
        )
        if counted:
            line += (f" {r['instructions_per_segment']:,.0f} | {r['l1_misses_per_segment']:.1f} "
                     f"| {r['l2_misses_per_segment']:.2f} |")
        out.append(line)
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=None, help="rounds: fresh processes per point (default 3; --quick: 1)")
    ap.add_argument("--quick", action="store_true", help="a quarter of the simulated time, one run per point")
    ap.add_argument("--n", default="10,40,160,320", help="flow counts (default 10,40,160,320)")
    ap.add_argument("--family", default=",".join(DEFAULT_FAMILIES),
                    help=f"comma-separated, of {', '.join(FAMILIES)} (default {','.join(DEFAULT_FAMILIES)})")
    ap.add_argument("--base", type=float, default=None,
                    help="simulated seconds at N = 320 (N flows: base × 320 / N); default 2, --quick 0.5")
    ap.add_argument("--keep", type=Path, default=None, help="keep the scenario files here")
    ap.add_argument("--json", action="store_true", help="also print the results as JSON")
    ap.add_argument("--instructions", action="store_true",
                    help="also count instructions and cache misses per segment under cachegrind (slow)")
    ap.add_argument("--l2-kib", type=int, default=512,
                    help="with --instructions: the cache size modelled as the last level (KiB, "
                         "a power of two of at least 64; default 512)")
    add_pgo_arg(ap)
    args = ap.parse_args(argv)
    if args.instructions:
        if shutil.which("valgrind") is None:
            ap.error("--instructions needs valgrind (apt-get install valgrind)")
        if args.l2_kib < 64 or args.l2_kib & (args.l2_kib - 1):
            ap.error(f"--l2-kib: {args.l2_kib} is not a power of two of at least 64")
    if args.runs is not None and args.runs < 1:
        ap.error(f"--runs: {args.runs} is not a positive number of runs")
    runs = args.runs or (1 if args.quick else 3)
    base = args.base or (0.5 if args.quick else 2.0)
    ns_ = sorted(int(x) for x in args.n.split(","))
    families = [f.strip() for f in args.family.split(",")]
    for f in families:
        if f not in FAMILIES:
            ap.error(f"--family: unknown {f!r} (known: {', '.join(FAMILIES)})")
    binary = build(args.pgo)
    print(f"# scaling in flows: {cpu_model()}; {load()} at start", file=sys.stderr)
    points = [(f, n) for f in families for n in ns_]
    durations = {n: round(base * 320 / n, 6) for n in ns_}
    runs_of: dict[tuple[str, int], list[dict[str, float]]] = {pt: [] for pt in points}
    counts: dict[tuple[str, int], dict[str, float]] = {pt: {} for pt in points}
    with tempfile.TemporaryDirectory(prefix="bench_scaling_") as tmp:
        workdir = args.keep or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        paths = {}
        for f, n in points:
            paths[f, n] = workdir / f"{f}_{n}.toml"
            paths[f, n].write_text(FAMILIES[f](n, durations[n]), encoding="utf-8")
        # Rounds: every point once per round, so each round gives one paired ratio.
        for r in range(runs):
            for f, n in round_order(points, r):
                runs_of[f, n].append(run_once(binary, paths[f, n]))
                print(f"  round {r + 1}/{runs}: {f} N={n}: {runs_of[f, n][-1]['wall']:.2f} s",
                      file=sys.stderr, flush=True)
        if args.instructions:
            for f, n in points:
                print(f"  {f} N={n}: counting under cachegrind ...", file=sys.stderr, flush=True)
                c = cachegrind([str(binary), str(paths[f, n])], ll_kib=args.l2_kib)
                seg = runs_of[f, n][0]["seg"]  # the same scenario and seed deliver the same segments every run
                counts[f, n] = {
                    "instructions_per_segment": c["Ir"] / seg,
                    "l1_misses_per_segment": (c["D1mr"] + c["D1mw"]) / seg,
                    "l2_misses_per_segment": (c["DLmr"] + c["DLmw"]) / seg,
                    "l2_kib": args.l2_kib,
                }
    rows = [summarize(f, n, durations[n], runs_of[f, n], counts[f, n]) for f, n in points]
    print(f"{label(binary)}, median of {runs} fresh process(es) per point; "
          f"{cpu_model()}; {load()} at end")
    print()
    print(table(rows))
    print()
    ratios: dict[str, dict[str, Any]] = {}
    for f in families:
        fr = [r for r in rows if r["family"] == f]
        lo, hi = fr[0], fr[-1]
        if len(fr) < 2:
            print(f"{f}: one N only, no ratio")
            continue
        ratio = hi["ns_per_segment"] / lo["ns_per_segment"]
        per_round = paired_ratios(lo["cpu_ns_per_segment_each_run"], hi["cpu_ns_per_segment_each_run"])
        ratio_cpu = median(per_round)
        ci = bootstrap_median_interval(per_round)
        ratios[f] = {"n_low": lo["n_flows"], "n_high": hi["n_flows"], "cpu_ratio_median": ratio_cpu,
                     "cpu_ratio_each_round": per_round, "cpu_ratio_interval_95": list(ci),
                     "wall_ratio_of_medians": ratio}
        # The verdict is on CPU time: wall time also counts time spent waiting for a core,
        # which on a loaded machine can make either end of the ratio arbitrarily slow. It
        # is the median of the rounds' paired ratios, each round measuring both ends.
        if f in DEFAULT_FAMILIES:
            verdict = "meets" if ratio_cpu <= GOAL_RATIO else "misses"
            verdict = f"{verdict} the ≤ {GOAL_RATIO} goal"
        else:
            verdict = "packets in flight fixed: not the goal's scenario"
        print(f"{f}: ns per segment at N = {hi['n_flows']} ÷ N = {lo['n_flows']}: {ratio_cpu:.2f} CPU "
              f"({verdict}; median of {len(per_round)} rounds' paired ratios, "
              f"95 % interval {ci[0]:.2f}–{ci[1]:.2f}, rounds {min(per_round):.2f}–{max(per_round):.2f}), "
              f"{ratio:.2f} wall (ratio of medians)")
        if args.instructions:
            print(f"{f}: per segment at N = {hi['n_flows']} ÷ N = {lo['n_flows']}: instructions "
                  f"{hi['instructions_per_segment'] / lo['instructions_per_segment']:.2f}, "
                  f"L1 data misses {hi['l1_misses_per_segment'] / lo['l1_misses_per_segment']:.2f}, "
                  f"L2 misses {hi['l2_misses_per_segment']:.2f} against {lo['l2_misses_per_segment']:.2f}")
    if args.json:
        print(json.dumps({"machine": cpu_model(), "results": rows, "ratios": ratios}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
