"""sodhatar's analysis: burstlab's runs (:mod:`.experiments`) beside ns-2.35's
(:mod:`.ns2runs`), as the tables every figure, claim and the report read.

It imports both; neither imports it (it is registered on :data:`PAPER` here).
"""

from __future__ import annotations

from burstlab.reproduce.framework import Context
from burstlab.reproduce.papers.sodhatar import ns2runs
from burstlab.reproduce.papers.sodhatar.experiments import (
    PAPER,
    Mode,
    best_table,
    change_table,
    cwnd_table,
    dumbbell_points,
    per_run_table,
    size_table,
    time_series,
)


def analyse(ctx: Context) -> None:
    """burstlab's and ns-2's tables: per run, per packet size, the 1460 → 4000 B changes,
    the best variant per pattern, and the time series of the reference pattern."""
    m: Mode = ctx.mode
    runs = per_run_table(ctx.results["dumbbell"].table)
    ns = ns2runs.run_all(ctx, [(p, sc) for p, sc in dumbbell_points(m)
                               if p["network"] == "packet"])
    runs = ns2runs.merge(runs, ns)
    ctx.values["ns2_available"] = ns2runs.available()
    lo, hi = min(m.sizes), max(m.sizes)
    sizes = size_table(runs)
    changes = change_table(runs, lo, hi)
    best = best_table(runs)
    pk = runs[runs["network"] == "packet"]
    has_ns = bool(pk["ns2_throughput_Mbps"].notna().any())
    if has_ns:
        sizes = sizes.merge(size_table(pk, "ns2_throughput_Mbps").drop(
            columns=["random_draws"]), on=["network", "variant", "size_B"], how="left")
        ns_ch = change_table(pk, lo, hi, "ns2_throughput_Mbps").rename(
            columns={"change": "ns2_change", "change_ci_lo": "ns2_change_ci_lo",
                     "change_ci_hi": "ns2_change_ci_hi", "change_n": "ns2_change_n"})
        changes = changes.merge(ns_ch, on=["network", "variant", "pattern"], how="left")
        ns_best = best_table(pk, "ns2_throughput_Mbps")[["network", "size_B", "pattern",
                                                         "best"]]
        best = best.merge(ns_best.rename(columns={"best": "ns2_best"}),
                          on=["network", "size_B", "pattern"], how="left")
    series, cwnd = time_series(ctx)
    dyn = cwnd_table(ctx)
    ctx.values.update(runs=runs, sizes=sizes, changes=changes, best=best, series=series,
                      cwnd=cwnd, cwnd_dynamics=dyn, lo=lo, hi=hi, has_ns2=has_ns)
    stamp = ctx.stamp
    ctx.tables["runs"] = runs.assign(**stamp)
    ctx.tables["throughput_vs_size"] = sizes.assign(**stamp)
    ctx.tables["size_change"] = changes.assign(**stamp)
    ctx.tables["best_variant"] = best.assign(**stamp)
    ctx.tables["throughput_vs_time"] = series.assign(**stamp)
    ctx.tables["cwnd_vs_time"] = cwnd.assign(**stamp)
    ctx.tables["cwnd_dynamics"] = dyn.assign(**stamp)



PAPER.analyse = analyse
