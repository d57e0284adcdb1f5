"""A study beyond the five papers: TCP flows over OBS on NSFNET, their completion times
against the assembly period, by flow size. A page of its own,
``OUT/nsfnet_study/report.html`` (docs/topics/nsfnet-study.md).

The question the papers leave open at network scale: a longer assembly period makes each
burst carry more of a flow's window. A lost burst then takes a whole window, which a
sender sees as one loss (a timeout, or one fast recovery) instead of many: the
*correlation gain* of yu and zhou. But every segment also waits up to the period at the
ingress, which a short flow, finished in a few round trips, pays on each of them. Which
wins, and for which flows?

Set-up (:func:`scenario`): NSFNET (``burstlab.topologies.nsfnet``: 14 core nodes, 21
fibres of 312–3 408 km at 5 µs/km), one host per node behind its edge node on a
1 Gb/s access link, 4 data wavelengths of 10 Gb/s per fibre, routes the shortest by
km, JET reservations with the core's default offsets; timer assembly with period
``Tb``, one queue per egress edge shared by all flows (``per_egress``); every burst
lost with probability ``P_LOSS`` on top of contention (the papers' model of OBS loss,
so that losses do not vanish at this light load).
TCP flows (SACK, ns-2.35 semantics, ``wm`` = 1000 segments of 1 000 bytes) arrive as a
Poisson process at ``RATE_PER_S`` between hosts drawn uniformly (source ≠ destination),
with bounded Pareto sizes (shape 1.2, 10 kB … 10 MB, mean ≈ 44 kB: most flows short,
most bytes in long flows), generated inside the core by a ``[[workload]]``
(docs/guide/workloads.md). Arrivals stop at ``ARRIVALS_S``; the run continues
``DRAIN_S`` so that flows finish. Flows that start in the first ``SKIP_S`` (the empty
network's transient) are left out.

Measurement: one replication is one run of a seed; its statistic per size bin is the
mean completion time of the completed flows in the bin, and their mean slowdown
(``fct_s / ideal_fct_s``, the ideal being the flow alone on its path with the same
period: docs/guide/completion-times.md). Replications are independent, so a bin's mean
over replications has a Student-t interval. The same seed gives the same arrivals,
pairs and sizes at every period (named substreams), so periods are compared pairwise
under common random numbers (``verdict.paired_ratio``). Replications are added
(``REPS_START``, then one at a time) until every bin's interval at every period is
within ``TARGET`` of its mean, or ``REPS_CAP`` is reached; a point that did not settle
says so. Unfinished flows are counted, never averaged.

Run: ``python -m burstlab.reproduce.nsfnet_study --out OUT [--quick]``; also part of
``burstlab reproduce all``.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

#: Assembly periods compared, ms (full mode; quick mode: ``QUICK_TBS_MS``).
TBS_MS = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0)
QUICK_TBS_MS = (0.1, 1.0, 5.0, 20.0)
#: Flow-size bins, bytes: [10 kB, 100 kB), [100 kB, 1 MB), [1 MB, 10 MB].
BINS = (10e3, 100e3, 1e6, 10e6 + 1)
BIN_NAMES = ("short (10–100 kB)", "medium (0.1–1 MB)", "long (1–10 MB)")
P_LOSS = 0.01
RATE_PER_S = 300.0
SIZE = {"type": "pareto", "shape": 1.2, "lower": "10kB", "upper": "10MB"}
MSS_B = 1000
WM = 1000
#: Arrivals during [0, ARRIVALS_S), the run lasts ARRIVALS_S + DRAIN_S; flows that start
#: before SKIP_S are left out (full, quick).
ARRIVALS_S, QUICK_ARRIVALS_S = 120.0, 30.0
DRAIN_S = 60.0
SKIP_S = 1.0
#: Replications: first batch, cap, and the target relative half-width (full, quick).
REPS_START, REPS_CAP = 4, 30
QUICK_REPS_START, QUICK_REPS_CAP = 3, 8
TARGET = 0.10


def scenario(tb_ms: float, seed: int, *, arrivals_s: float = ARRIVALS_S,
             drain_s: float = DRAIN_S, rate_per_s: float = RATE_PER_S,
             p_loss: float = P_LOSS) -> dict[str, Any]:
    """The study's scenario at assembly period ``tb_ms`` and master seed ``seed``."""
    from burstlab.topologies import nsfnet

    obs: dict[str, Any] = {"classifier": "per_egress",
                           "assembly": {"type": "timer", "tb": f"{tb_ms * 1000:g}us"}}
    if p_loss > 0:
        obs["loss"] = {"p": p_loss}
    s = nsfnet(hosts=1, access="1Gb/s", core_rate="10Gb/s", wavelengths=4, obs=obs,
               duration=f"{arrivals_s + drain_s:g}s", seed=seed)
    s["name"] = "nsfnet_study"
    s["routing"] = {"metric": "km"}
    hosts = [n["name"] for n in s["node"] if n["kind"] == "host"]
    s["workload"] = [{
        "name": "web", "src": hosts, "dst": hosts, "arrivals": "poisson",
        "rate": f"{rate_per_s:g}/s", "stop": f"{arrivals_s:g}s", "size": dict(SIZE),
        "variant": "sack", "mss": MSS_B, "wm": WM,
    }]
    return s


@dataclass(kw_only=True)
class Rep:
    """One replication at one period: per size bin, the flows kept, completed, their
    mean FCT and mean slowdown; and the run's totals."""
    tb_ms: float
    seed: int
    bin: int
    flows: int
    completed: int
    fct_mean_s: float
    slowdown_mean: float
    to_events: int
    td_events: int
    cpu_s: float


def run_rep(tb_ms: float, seed: int, arrivals_s: float) -> list[Rep]:
    """One replication: run the scenario, summarise its ``fct`` table by size bin."""
    import burstlab

    t0 = time.process_time()
    res = burstlab.run(scenario(tb_ms, seed, arrivals_s=arrivals_s))
    cpu = time.process_time() - t0
    f = res.fct
    f = f[f["start_s"] >= SKIP_S]
    out = []
    for i in range(len(BINS) - 1):
        b = f[(f["size_bytes"] >= BINS[i]) & (f["size_bytes"] < BINS[i + 1])]
        done = b[b["completed"]]
        out.append(Rep(tb_ms=tb_ms, seed=seed, bin=i, flows=len(b), completed=len(done),
                       fct_mean_s=float(done["fct_s"].mean()) if len(done) else math.nan,
                       slowdown_mean=float(done["slowdown"].mean()) if len(done) else math.nan,
                       to_events=int(b["to_events"].sum()), td_events=int(b["td_events"].sum()),
                       cpu_s=cpu))
    return out


def _run(args: tuple[float, int, float]) -> list[Rep]:
    return run_rep(*args)


@dataclass(kw_only=True)
class Point:
    """One (period, size bin) over the replications: mean FCT and slowdown with their
    95 % intervals, and the ratio of the mean FCT to that at the smallest period
    (paired over seeds)."""
    tb_ms: float
    bin: int
    reps: int
    flows: int
    unfinished: int
    fct_mean_s: float
    fct_lo_s: float
    fct_hi_s: float
    slowdown_mean: float
    slowdown_lo: float
    slowdown_hi: float
    vs_smallest: float
    vs_smallest_lo: float
    vs_smallest_hi: float
    to_events: int
    td_events: int
    settled: bool


def points(reps: Sequence[Rep]) -> list[Point]:
    """The points of a set of replications (each period and bin)."""
    from burstlab.reproduce.verdict import mean_interval, paired_ratio

    df = pd.DataFrame([asdict(r) for r in reps])
    tb0 = float(df["tb_ms"].min())
    out = []
    for tb, b in sorted({(float(t), int(x)) for t, x in zip(df["tb_ms"], df["bin"], strict=True)}):
        g = df[(df["tb_ms"] == tb) & (df["bin"] == b)].sort_values("seed")
        base = df[(df["tb_ms"] == tb0) & (df["bin"] == b)].sort_values("seed")
        fct = mean_interval(g["fct_mean_s"], lower=0.0)
        sd = mean_interval(g["slowdown_mean"], lower=0.0)
        ok = (np.isfinite(g["fct_mean_s"].to_numpy()) & np.isfinite(base["fct_mean_s"].to_numpy()))
        vs = paired_ratio(g["fct_mean_s"].to_numpy()[ok], base["fct_mean_s"].to_numpy()[ok])
        settled = bool(fct.defined and fct.half_width <= TARGET * fct.estimate)
        out.append(Point(tb_ms=tb, bin=b, reps=len(g), flows=int(g["flows"].sum()),
                         unfinished=int((g["flows"] - g["completed"]).sum()),
                         fct_mean_s=fct.estimate, fct_lo_s=fct.lo, fct_hi_s=fct.hi,
                         slowdown_mean=sd.estimate, slowdown_lo=sd.lo, slowdown_hi=sd.hi,
                         vs_smallest=vs.estimate, vs_smallest_lo=vs.lo, vs_smallest_hi=vs.hi,
                         to_events=int(g["to_events"].sum()), td_events=int(g["td_events"].sum()),
                         settled=settled))
    return out


def run_study(*, quick: bool = False, jobs: int | None = None,
              log: Any = sys.stderr) -> tuple[list[Point], list[Rep]]:
    """Runs replications at every period until every point settles or the cap."""
    tbs = QUICK_TBS_MS if quick else TBS_MS
    arrivals = QUICK_ARRIVALS_S if quick else ARRIVALS_S
    start, cap = (QUICK_REPS_START, QUICK_REPS_CAP) if quick else (REPS_START, REPS_CAP)
    jobs = jobs or min(os.cpu_count() or 1, len(tbs))
    reps: list[Rep] = []
    seeds = list(range(1, start + 1))
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        while True:
            for batch in pool.map(_run, [(tb, s, arrivals) for s in seeds for tb in tbs]):
                reps.extend(batch)
            pts = points(reps)
            n = max(r.seed for r in reps)
            open_ = [p for p in pts if not p.settled]
            print(f"nsfnet_study: {n} replications, {len(pts) - len(open_)} of {len(pts)} "
                  "points settled", file=log, flush=True)
            if not open_ or n >= cap:
                return pts, reps
            seeds = [n + 1]


def _ms(x: float) -> str:
    return f"{x * 1e3:.0f} ms" if x >= 0.1 else f"{x * 1e3:.1f} ms"


def _tb(tb_ms: float) -> str:
    return f"{tb_ms:g} ms"


def sentences(pts: Sequence[Point]) -> list[str]:
    """What the points say, computed: per size bin, the period of least mean FCT, the
    FCT at the smallest and the largest period and their paired ratio; and how losses
    were recovered (fast recovery against timeouts) as the period grows."""
    out = []
    by = pd.DataFrame([asdict(p) for p in pts])
    tb0, tb1 = float(by["tb_ms"].min()), float(by["tb_ms"].max())
    for b, name in enumerate(BIN_NAMES):
        g = by[by["bin"] == b].sort_values("tb_ms")
        if g.empty or not np.isfinite(g["fct_mean_s"]).any():
            out.append(f"{name}: no completed flow.")
            continue
        best = g.iloc[int(np.nanargmin(g["fct_mean_s"].to_numpy()))]
        first, last = g.iloc[0], g.iloc[-1]
        ratio = (f"{last['vs_smallest']:.2f}× [{last['vs_smallest_lo']:.2f}, "
                 f"{last['vs_smallest_hi']:.2f}]")
        sig = ("longer" if last["vs_smallest_lo"] > 1 else
               "shorter" if last["vs_smallest_hi"] < 1 else "not significantly different")
        s = (f"{name}: mean FCT {_ms(first['fct_mean_s'])} at Tb = {_tb(tb0)} and "
             f"{_ms(last['fct_mean_s'])} at {_tb(tb1)}, a paired ratio of {ratio} "
             f"({sig}); least at Tb = {_tb(best['tb_ms'])} ({_ms(best['fct_mean_s'])}")
        if best["tb_ms"] != tb0:
            s += (f", {best['vs_smallest']:.2f}× [{best['vs_smallest_lo']:.2f}, "
                  f"{best['vs_smallest_hi']:.2f}] the smallest period's")
        s += (f"). Mean slowdown (against the flow alone on its path at the same period): "
              f"{first['slowdown_mean']:.2f} at {_tb(tb0)}, {last['slowdown_mean']:.2f} at "
              f"{_tb(tb1)}. {int(g['unfinished'].sum())} flows of the bin did not complete.")
        out.append(s)
    tot = by.groupby("tb_ms")[["to_events", "td_events"]].sum().sort_index()
    t0, t1 = tot.iloc[0], tot.iloc[-1]
    frac = [float(r["td_events"] / max(1, r["to_events"] + r["td_events"])) for r in (t0, t1)]
    out.append(f"Losses recovered by fast retransmit (not a timeout): {100 * frac[0]:.1f} % at "
               f"Tb = {_tb(tb0)}, {100 * frac[1]:.1f} % at {_tb(tb1)}: a longer period puts "
               "more of a window into one burst, and a lost burst more often takes all of it.")
    unsettled = [p for p in pts if not p.settled]
    if unsettled:
        out.append(f"{len(unsettled)} of {len(pts)} points did not reach the target precision "
                   f"(95 % interval within {TARGET:.0%} of the mean) by the replication cap: "
                   + ", ".join(f"{BIN_NAMES[p.bin].split(' ')[0]} at {_tb(p.tb_ms)}"
                               for p in unsettled) + ".")
    return out


def figure(pts: Sequence[Point], path: Path) -> None:
    """Mean FCT (left) and mean slowdown (right) against the period, one line per size
    bin, with 95 % intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from burstlab.plot import error_bars

    by = pd.DataFrame([asdict(p) for p in pts])
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for b, name in enumerate(BIN_NAMES):
        g = by[by["bin"] == b].sort_values("tb_ms")
        if g.empty:
            continue
        axes[0].errorbar(g["tb_ms"], g["fct_mean_s"] * 1e3,
                         yerr=error_bars(g["fct_mean_s"] * 1e3, g["fct_lo_s"] * 1e3,
                                         g["fct_hi_s"] * 1e3),
                         marker="o", capsize=3, label=name)
        axes[1].errorbar(g["tb_ms"], g["slowdown_mean"],
                         yerr=error_bars(g["slowdown_mean"], g["slowdown_lo"], g["slowdown_hi"]),
                         marker="o", capsize=3, label=name)
    axes[0].set_ylabel("mean flow completion time (ms)")
    axes[0].set_yscale("log")
    axes[1].set_ylabel("mean slowdown (FCT / ideal FCT)")
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlabel("assembly period Tb (ms)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"TCP SACK over OBS on NSFNET: Poisson arrivals {RATE_PER_S:g}/s, bounded "
                 f"Pareto sizes, burst loss p = {P_LOSS:g} (95 % intervals over replications)",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _table_md(pts: Sequence[Point]) -> str:
    rows = ["| Tb (ms) | size bin | replications | flows | unfinished | mean FCT (ms) [95 %] "
            "| vs smallest Tb (paired) | mean slowdown [95 %] | timeouts | fast recoveries "
            "| settled |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for p in sorted(pts, key=lambda p: (p.bin, p.tb_ms)):
        rows.append(
            f"| {p.tb_ms:g} | {BIN_NAMES[p.bin]} | {p.reps} | {p.flows} | {p.unfinished} | "
            f"{p.fct_mean_s * 1e3:.1f} [{p.fct_lo_s * 1e3:.1f}, {p.fct_hi_s * 1e3:.1f}] | "
            f"{p.vs_smallest:.3f} [{p.vs_smallest_lo:.3f}, {p.vs_smallest_hi:.3f}] | "
            f"{p.slowdown_mean:.2f} [{p.slowdown_lo:.2f}, {p.slowdown_hi:.2f}] | "
            f"{p.to_events} | {p.td_events} | {'yes' if p.settled else 'no'} |")
    return "\n".join(rows)


def write_page(out: Path, *, quick: bool = False, jobs: int | None = None) -> tuple[Path, float]:
    """Runs the study and writes ``out/nsfnet_study/report.html`` with its figure and
    CSVs (``points.csv``, ``replications.csv``). Returns the page and the CPU seconds
    of the runs (the sum of their processes' CPU time)."""
    import burstlab
    from burstlab.reproduce.report import markdown_to_html, render_page

    d = out / "nsfnet_study"
    d.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    pts, reps = run_study(quick=quick, jobs=jobs)
    wall = time.perf_counter() - t0
    cpu = float(sum({(r.tb_ms, r.seed): r.cpu_s for r in reps}.values()))
    pd.DataFrame([asdict(p) for p in pts]).to_csv(d / "points.csv", index=False)
    pd.DataFrame([asdict(r) for r in reps]).to_csv(d / "replications.csv", index=False)
    figure(pts, d / "fct_vs_tb.png")
    mode = "quick" if quick else "full"
    md = "\n\n".join([
        "# TCP over OBS on NSFNET: completion times against the assembly period",
        "An extension beyond the five papers (no paper verdicts). " + " ".join(
            (__doc__ or "").split("\n\n")[1:3]).replace("\n", " "),
        "## What the runs say",
        "\n".join(f"- {s}" for s in sentences(pts)),
        "![mean FCT and slowdown against the assembly period](fct_vs_tb.png)",
        "## Every point",
        _table_md(pts),
        f"Mode: {mode}; periods {', '.join(_tb(t) for t in sorted({p.tb_ms for p in pts}))}; "
        f"arrivals for {QUICK_ARRIVALS_S if quick else ARRIVALS_S:g} s at {RATE_PER_S:g}/s "
        f"per replication; {max(r.seed for r in reps)} replications (seeds 1…); "
        f"{wall:.0f} s wall, {cpu:.0f} CPU-s; burstlab {burstlab.__version__}, core "
        f"{burstlab._core.core_identity()}. Data: `points.csv`, `replications.csv`.",
    ])
    page = d / "report.html"
    page.write_text(render_page("TCP over OBS on NSFNET", markdown_to_html(md),
                                nav=(("../index.html", "all papers"),)), encoding="utf-8")
    return page, cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m burstlab.reproduce.nsfnet_study",
                                 description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--out", default="out", help="output root (default: out)")
    ap.add_argument("--quick", action="store_true",
                    help=f"{len(QUICK_TBS_MS)} periods, {QUICK_ARRIVALS_S:g} s of arrivals, "
                         f"at most {QUICK_REPS_CAP} replications")
    ap.add_argument("--jobs", type=int, default=None, help="worker processes (default: cores)")
    args = ap.parse_args(argv)
    if args.jobs is not None and args.jobs < 1:
        ap.error("--jobs: must be at least 1")
    page, cpu = write_page(Path(args.out), quick=args.quick, jobs=args.jobs)
    print(f"nsfnet_study: {page}; {cpu:.0f} CPU-s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
