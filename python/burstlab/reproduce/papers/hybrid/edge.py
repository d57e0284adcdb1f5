"""hybrid: the ingress edge model, buffered (every run's) against bufferless.

Read first: :func:`edge_runs` (one row per run and edge model), :func:`edge_summary`
(means, intervals, paired differences) and :func:`edge_sentence`.

The paper's edge (§II, fig. 1) ends in "output interfaces, equipped with a scheduler":
an assembled burst "must be transmitted" / "is scheduled for transmission", and §IV.A,
§IV.B add that "no queueing delays are considered". Its only loss is the burst loss
probability p. So every run of the paper's experiments has a buffered edge
(``[obs.ingress]``, a burst waits at most :data:`.experiments.EDGE_MAX_WAIT` in the
electronic domain for the earliest free wavelength), the paper's scheduler. The
bufferless edge, with 4 wavelengths per fibre, is measured here beside the grid, on the
points where it loses most bursts to contention: at N = 320 the fast class's flows send
in step (a delivered burst carries one segment of ≈ 46 flows, whose ACKs return
together), up to 320 segments reach E1 within a microsecond, several 25 KB bursts close
at once and the fifth finds every wavelength busy: a contention loss on top of p.

Both edge models are read over the first ``edge_s`` seconds of their runs (the grid's
runs are at least that long) from their burst traces: bursts lost to contention and at
random, and the rate of TCP payload in delivered bursts (segments × 512 B, at the
paper's N; retransmissions included: the burst trace does not tell them apart).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from burstlab.plot import error_bars
from burstlab.reproduce import verdict as V
from burstlab.reproduce.framework import Context, Experiment, pyplot
from burstlab.reproduce.papers.hybrid.experiments import (
    CLASSES,
    EDGE_MAX_WAIT,
    MSS,
    PAPER,
    edge_points,
    grid,
)
from burstlab.reproduce.report import fmt


def _window(b: pd.DataFrame, t_end: float, scale: float) -> dict[str, Any]:
    """Losses by reason and the delivered payload rate of a burst trace over
    ``[0, t_end]``."""
    b = b[b["time_s"] <= t_end]
    lost = b[b["event"] == "lost"]
    d = b[b["event"] == "delivered"]
    return {"contention_losses": int((lost["reason"] == "contention").sum()),
            "random_losses": int((lost["reason"] == "random").sum()),
            "other_losses": int((~lost["reason"].isin(["contention", "random"])).sum()),
            "delivered_Gbps_at_paper_n": float(d["pkts"].sum()) * MSS * 8.0 / t_end / 1e9
            * scale}


def edge_runs(ctx: Context) -> pd.DataFrame:
    """One row per (point, replication, edge model)."""
    m = ctx.mode
    if "edge" not in ctx.results:
        return pd.DataFrame()
    sw_e, sw_g = ctx.results["edge"], ctx.results["grid"]
    gp = grid(m)
    rows = []
    for i, (params, sc) in enumerate(edge_points(m)):
        wm, p, n = int(params["Wm"]), float(params["p_loss"]), int(params["n_flows"])
        j = next(k for k, (q, _) in enumerate(gp) if q["path_class"] == "fast"
                 and int(q["Wm"]) == wm and math.isclose(float(q["p_loss"]), p))
        t_end = float(sc["sim"]["duration"])
        if float(gp[j][1]["sim"]["duration"]) < t_end:
            raise ValueError(f"edge point Wm {wm}, p {p:g}: the grid's run is shorter than "
                             f"edge_s = {t_end:g} s")
        scale = CLASSES["fast"]["n"] / n
        for rep in range(m.replications):
            for edge, res in (("buffered", sw_g.result(j, rep)),
                              ("bufferless", sw_e.result(i, rep))):
                rows.append({"wm": wm, "p": p, "n": n, "replication": rep, "edge": edge,
                             "window_s": t_end,
                             **_window(res.burst_trace, t_end, scale)})
    return pd.DataFrame(rows)


def edge_summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Per point and edge model: losses (sum over replications), the delivered rate's
    mean and 95 % interval, and for the bufferless edge the paired difference from the
    buffered one, the grid's (same seed per replication)."""
    rows = []
    if runs.empty:
        return pd.DataFrame()
    for key, g in runs.groupby(["wm", "p"], sort=False):
        wm, p = (float(x) for x in key)  # type: ignore[arg-type]
        base = g[g["edge"] == "buffered"].sort_values("replication")
        for edge in ("buffered", "bufferless"):
            x = g[g["edge"] == edge].sort_values("replication")
            iv = V.mean_interval(x["delivered_Gbps_at_paper_n"].to_numpy(float), lower=0.0)
            row = {"wm": int(wm), "p": float(p), "edge": edge,
                   "replications": len(x), "window_s": float(x["window_s"].iloc[0]),
                   "contention_losses": int(x["contention_losses"].sum()),
                   "random_losses": int(x["random_losses"].sum()),
                   "delivered_Gbps_at_paper_n": iv.estimate,
                   "delivered_ci_lo_Gbps": iv.lo, "delivered_ci_hi_Gbps": iv.hi,
                   "vs_buffered_Gbps": math.nan, "vs_buffered_ci_lo_Gbps": math.nan,
                   "vs_buffered_ci_hi_Gbps": math.nan}
            if edge == "bufferless":
                d = V.paired_difference(x["delivered_Gbps_at_paper_n"].to_numpy(float),
                                        base["delivered_Gbps_at_paper_n"].to_numpy(float))
                row.update(vs_buffered_Gbps=d.estimate, vs_buffered_ci_lo_Gbps=d.lo,
                           vs_buffered_ci_hi_Gbps=d.hi)
            rows.append(row)
    return pd.DataFrame(rows)


#: :data:`.experiments.EDGE_MAX_WAIT` as the report writes it.
EDGE_WAIT_TEXT = EDGE_MAX_WAIT.replace("us", " µs")


def edge_sentence(summary: pd.DataFrame, paper: dict[tuple[int, float], float] | None = None
                  ) -> str:
    """The report's sentence on the edge models, from :func:`edge_summary`; ``paper``:
    the paper's printed aggregate (Gb/s) per (Wm, p) where it gives one."""
    if summary.empty:
        return "This mode does not run the edge sensitivity."
    parts = []
    for key, g in summary.groupby(["wm", "p"], sort=False):
        wm, p = (float(x) for x in key)  # type: ignore[arg-type]
        a = g[g["edge"] == "bufferless"].iloc[0]
        b = g[g["edge"] == "buffered"].iloc[0]

        def iv(lo: float, hi: float) -> str:
            return f" [{fmt(lo)}, {fmt(hi)}]" if math.isfinite(lo) else ""

        parts.append(
            f"at Wm {wm:g}, p {p:g} ({int(a['replications'])} replications, first "
            f"{fmt(a['window_s'])} s) the bufferless edge lost {int(a['contention_losses'])} "
            f"bursts to contention and {int(a['random_losses'])} at random, the buffered "
            f"edge {int(b['contention_losses'])} and {int(b['random_losses'])}; delivered "
            f"payload {fmt(a['delivered_Gbps_at_paper_n'])}"
            f"{iv(a['delivered_ci_lo_Gbps'], a['delivered_ci_hi_Gbps'])} Gb/s bufferless, "
            f"{fmt(b['delivered_Gbps_at_paper_n'])}"
            f"{iv(b['delivered_ci_lo_Gbps'], b['delivered_ci_hi_Gbps'])} Gb/s buffered "
            f"(paired difference bufferless − buffered {float(a['vs_buffered_Gbps']):+.3g}"
            f"{iv(a['vs_buffered_ci_lo_Gbps'], a['vs_buffered_ci_hi_Gbps'])} Gb/s)"
            + next((f", against the paper's printed {fmt(v)} Gb/s (the buffered edge is "
                    + ("closer to it" if abs(float(b["delivered_Gbps_at_paper_n"]) - v)
                       < abs(float(a["delivered_Gbps_at_paper_n"]) - v)
                       else "further from it") + ")"
                    for (w, q), v in (paper or {}).items()
                    if w == wm and math.isclose(q, p)), ""))
    return (f"The grid's ingress edge with a {EDGE_WAIT_TEXT} electronic buffer against a "
            "bufferless edge (fast class, N = 320): " + "; ".join(parts) + ".")


PAPER.experiments.append(Experiment("edge", lambda ctx: edge_points(ctx.mode),
                                    keep_traces=True,
                                    replications=lambda ctx: ctx.mode.replications))

_analyse = PAPER.analyse


def _analyse_with_edge(ctx: Context) -> None:
    _analyse(ctx)
    runs = edge_runs(ctx)
    s = edge_summary(runs)
    ctx.values["edge_runs"] = runs
    ctx.values["edge"] = s
    if not s.empty:
        ctx.tables["edge_model"] = s.assign(**ctx.stamp)


PAPER.analyse = _analyse_with_edge


def paper_values(ctx: Context) -> dict[tuple[int, float], float]:
    """The paper's printed fast aggregates (Gb/s) at the edge points."""
    out = {}
    for wm, p in ctx.mode.edge_points:
        v = _paper_value(ctx, wm, p)
        if math.isfinite(v):
            out[(wm, p)] = v
    return out


def _paper_value(ctx: Context, wm: int, p: float) -> float:
    """The paper's printed fast aggregate at (Wm, p) in Gb/s, NaN where it prints none."""
    keys = {(128, 1e-4): "fast.p1e-4_wm128", (64, 1e-2): "fast.p1e-2_wm64"}
    k = next((v for (w, q), v in keys.items() if w == wm and math.isclose(q, p)), None)
    if k is None and math.isclose(p, 1e-3):
        k = "fast.throughput_p1e-3"
    return float(ctx.data[k].value) / 1e9 if k else math.nan


@PAPER.figure("edge", "Ingress edge model (fast class, N = 320): delivered TCP payload "
                      "rate over the first seconds of each run, buffered edge (the "
                      "grid's) and bufferless edge, mean and 95 % interval over "
                      "replications, with the paper's printed aggregate where it gives one")
def draw_edge(ctx: Context) -> Any:
    plt = pyplot()
    s: pd.DataFrame = ctx.values.get("edge", pd.DataFrame())
    fig, ax = plt.subplots(figsize=(7, 4.0))
    if s.empty:
        ax.text(0.5, 0.5, "not run in this mode", ha="center", transform=ax.transAxes)
    else:
        pts = list(dict.fromkeys(zip(s["wm"], s["p"], strict=True)))
        x = np.arange(len(pts))
        for k, (edge, mk, dx) in enumerate((("bufferless", "o", -0.12),
                                             ("buffered", "s", 0.12))):
            g = s[s["edge"] == edge].set_index(["wm", "p"]).loc[pts]
            y = g["delivered_Gbps_at_paper_n"].to_numpy(float)
            err = error_bars(y, g["delivered_ci_lo_Gbps"], g["delivered_ci_hi_Gbps"], lower=0)
            ax.errorbar(x + dx, y, yerr=err, fmt=mk, capsize=3, color=f"C{k}",
                        label=f"burstlab, {edge} edge")
        pv = [_paper_value(ctx, int(w), float(p)) for w, p in pts]
        ax.plot(x, pv, "*", color="gold", mec="k", ms=12, ls="none",
                label="paper (§IV.B, printed)")
        ax.set_xticks(x, [f"Wm {int(w)}\np = {float(p):g}" for w, p in pts])
        ax.set_xlim(-0.6, len(pts) - 0.4)
        ax.legend(fontsize=7)
    ax.set_xlabel("fast grid point")
    ax.set_ylabel("delivered payload rate at N = 320 (Gb/s)")
    ax.grid(True, alpha=0.3)
    return fig
