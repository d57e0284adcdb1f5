"""ozsarac's figures, each registered on :data:`PAPER` where it is drawn from the tables
:func:`.experiments.analyse` put in ``ctx.values``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from burstlab.plot import error_bars
from burstlab.reproduce.framework import Context, pyplot
from burstlab.reproduce.papers.ozsarac.experiments import PAPER, VARIANTS
from burstlab.reproduce.papers.ozsarac.topology import t_max_s


def _err(g: pd.DataFrame) -> np.ndarray:
    """Error bars of the goodput's 95 % interval, cut at 0 (a goodput is ≥ 0; the cut
    interval keeps its coverage, docs/topics/verdicts.md)."""
    return error_bars(g["goodput_Mbps_mean"], g["goodput_Mbps_ci_lo"], g["goodput_Mbps_ci_hi"],
                      lower=0)


@PAPER.figure("fig3", "Fig. 3 (linear): goodput of the FTP flow vs the timer period for "
                      "Reno, NewReno and SACK (95 % CIs), CWBA's goodput as lines")
def fig3(ctx: Context) -> Any:
    plt = pyplot()
    df: pd.DataFrame = ctx.values["linear"]
    gains = ctx.data["table1.gain"]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for v, c in zip(VARIANTS, ("C0", "C1", "C2"), strict=True):
        g = df[(df["kind"] == "timer") & (df["variant"] == v)].sort_values("tb_ms")
        ax.errorbar(g["tb_ms"], g["goodput_Mbps_mean"], yerr=_err(g), fmt="o-", color=c,
                    ms=3.5, capsize=2, label=f"timer, {v}")
        cw = df[(df["kind"] == "cwba") & (df["variant"] == v)]
        if len(cw):
            ax.axhline(float(cw["goodput_Mbps_mean"].iloc[0]), color=c, ls="--", lw=1,
                       label=f"CWBA, {v}")
        # Table 1's printed gain of CWBA over the best timer, applied to burstlab's
        # best timer: where the paper's CWBA would stand (a star above that timer).
        if len(g) and g["goodput_Mbps_mean"].notna().any():
            i = int(np.nanargmax(g["goodput_Mbps_mean"].to_numpy(float)))
            gain = gains.at(float(VARIANTS.index(v)))
            ax.plot([float(g["tb_ms"].iloc[i])],
                    [float(g["goodput_Mbps_mean"].iloc[i]) * (1 + gain / 100)], "*",
                    color=c, mec="k", ms=11, ls="none",
                    label=f"CWBA, {v}: paper (Table 1, {gain:+.2f} % over the best timer)")
    ax.axvline(float(ctx.data["fig5.timer_opt_reno"].value), color="k", ls=":", lw=1,
               label="optimum timer, Reno: paper (8 ms)")
    ax.set_xscale("log")
    plain = plt.FuncFormatter(lambda v, _: f"{v:g}")  # 4, 6, 10 rather than 4 × 10⁰
    ax.xaxis.set_major_formatter(plain)
    ax.xaxis.set_minor_formatter(plain)
    ax.set_xlabel("assembly period (ms)")
    ax.set_ylabel("goodput (Mb/s)")
    ax.set_title("Fig. 3 (linear): burstlab, timer vs CWBA (95 % CIs, cut at 0)",
                 fontsize=9)
    ax.legend(fontsize=7)
    return fig


@PAPER.figure("figs4_5", "Figs 4–5 (linear, Reno): cwnd from the start with CWBA and with "
                         "the 8 ms timer")
def figs4_5(ctx: Context) -> Any:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for kind, c in (("cwba", "C3"), ("timer", "C0")):
        cw = ctx.values["traces"].get(kind)
        if cw is not None and len(cw):
            ax.step(cw["time_s"], cw["cwnd_segments"], where="post", color=c, lw=1,
                    label="CWBA" if kind == "cwba" else "timer 8 ms")
    ax.set_yscale("log")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (segments)")
    ax.legend()
    return fig


@PAPER.figure("fig9", "Fig. 9 (linear, Reno): MCWBA vs its timer cap, CWBA as a line, "
                      "T_max dotted")
def fig9(ctx: Context) -> Any:
    plt = pyplot()
    mc: pd.DataFrame = ctx.values["mcwba"].sort_values("tb_ms")
    lin: pd.DataFrame = ctx.values["linear"]
    cw = lin[(lin["kind"] == "cwba") & (lin["variant"] == "reno")]
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ax.errorbar(mc["tb_ms"], mc["goodput_Mbps_mean"], yerr=_err(mc), fmt="o-", ms=3.5,
                capsize=2, label="MCWBA, burstlab")
    if len(cw):
        ax.axhline(float(cw["goodput_Mbps_mean"].iloc[0]), color="k", ls="--", lw=1,
                   label="CWBA, burstlab")
    ax.axvline(1e3 * t_max_s(), color="grey", ls=":",
               label=f"T_max: §3.4's formula ({1e3 * t_max_s():.1f} ms; paper prints "
                     f"{float(ctx.data['mcwba.t_max'].value):g} ms)")
    ax.set_xlabel("MCWBA timer (ms)")
    ax.set_ylabel("goodput (Mb/s)")
    ax.set_title("Fig. 9 (linear, Reno): MCWBA vs its timer cap (burstlab, 95 % CIs)",
                 fontsize=9)
    ax.legend(fontsize=7)
    return fig


@PAPER.figure("mesh_figs6_7_8_12", "Figs 6, 7, 8 and 12 (mesh, static flows): total "
                                   "goodput, burst loss probability and mean burst "
                                   "length vs the period (timer with 10 % jitter, "
                                   "MCWBA), CWBA as lines")
def mesh_figs(ctx: Context) -> Any:
    plt = pyplot()
    df: pd.DataFrame = ctx.values["mesh"]
    fig, axs = plt.subplots(1, 3, figsize=(12, 3.8))
    cw = df[df["kind"] == "cwba"]
    for kind, c in (("timer", "C0"), ("mcwba", "C1")):
        g = df[df["kind"] == kind].sort_values("tb_ms")
        axs[0].errorbar(g["tb_ms"], g["goodput_Mbps_mean"], yerr=_err(g), fmt="o-",
                        color=c, ms=3.5, capsize=2, label=f"{kind}, burstlab")
        axs[1].plot(g["tb_ms"], g["burst_loss_prob"], "o-", color=c,
                    label=f"{kind}, burstlab")
        axs[2].plot(g["tb_ms"], g["mean_burst_segments"], "o-", color=c,
                    label=f"{kind}, burstlab")
    for ax, col in zip(axs, ("goodput_Mbps_mean", "burst_loss_prob",
                             "mean_burst_segments"), strict=True):
        if len(cw):
            ax.axhline(float(cw[col].iloc[0]), color="k", ls="--", lw=1,
                       label="CWBA, burstlab")
        ax.set_xlabel("period (ms)")
    # §3.3's printed gain of CWBA over the best timer (fig. 6), applied to burstlab's
    # best timer, and §3.5's MCWBA relative to CWBA (fig. 12), applied to burstlab's
    # CWBA: where the paper's values would stand.
    tm = df[df["kind"] == "timer"].sort_values("tb_ms")
    y = tm["goodput_Mbps_mean"].to_numpy(float)
    if np.isfinite(y).any():
        gain = float(ctx.data["mesh.fig6.gain"].value)
        i = int(np.nanargmax(y))
        axs[0].plot([float(tm["tb_ms"].iloc[i])], [y[i] * (1 + gain / 100)], "*",
                    color="gold", mec="k", ms=11, ls="none",
                    label=f"CWBA: paper ({gain:+g} % on best timer)")
    mc = df[df["kind"] == "mcwba"]
    if len(cw) and len(mc):
        rel = float(ctx.data["mesh.fig12.mcwba_vs_cwba"].value)
        axs[0].plot(mc["tb_ms"], [float(cw["goodput_Mbps_mean"].iloc[0]) * (1 + rel / 100)]
                    * len(mc), "*", color="C1", mec="k", ms=11, ls="none",
                    label=f"MCWBA: paper ({rel:+g} % on CWBA)")
    # Table 2's printed optimum timer for the total goodput (§3.3).
    axs[0].axvline(float(ctx.data["mesh.table2.ap_opt"].value), color="grey", ls=":",
                   label="best timer: paper "
                         f"({float(ctx.data['mesh.table2.ap_opt'].value):g} ms)")
    for ax in axs:
        ax.legend(fontsize=6.5, loc="upper right" if ax is axs[0] else "best")
    axs[0].set_title("Figs 6, 12: total goodput (95 % CIs)", fontsize=9)
    axs[1].set_title("Fig. 7: burst loss probability", fontsize=9)
    axs[2].set_title("Fig. 8: mean burst length", fontsize=9)
    axs[0].set_ylabel("total goodput (Mb/s)")
    axs[1].set_ylabel("burst loss probability")
    axs[2].set_ylabel("mean burst length (segments)")
    return fig


@PAPER.figure("figs10_11", "Figs 10–11 (linear, Reno): MCWBA vs its timer cap in single "
                           "runs — the replication where MCWBA gains most (optimistic) "
                           "and least (pessimistic) — with that run's CWBA goodput")
def figs10_11(ctx: Context) -> Any:
    plt = pyplot()
    mc: pd.DataFrame = ctx.values["mcwba_reps"]
    fig, axs = plt.subplots(1, 2, figsize=(11, 3.9), sharey=True)
    order = (mc.drop_duplicates("replication")
             .sort_values("mean_gain_below_tmax_pct", ascending=False)["replication"].tolist())
    picks = [("Fig. 10 (optimistic)", order[0] if order else None),
             ("Fig. 11 (pessimistic)", order[-1] if order else None)]
    for ax, (title, rep) in zip(axs, picks, strict=True):
        if rep is not None:
            g = mc[mc["replication"] == rep].sort_values("tb_ms")
            ax.plot(g["tb_ms"], g["mcwba_goodput_Mbps"], "o-", ms=3.5, label="MCWBA")
            ax.axhline(float(g["cwba_goodput_Mbps"].iloc[0]), color="k", ls="--", lw=1,
                       label="CWBA (same run)")
            title += f": replication {rep}"
        ax.axvline(1e3 * t_max_s(), color="grey", ls=":", label="T_max")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("MCWBA timer (ms)")
        ax.legend(fontsize=7)
    axs[0].set_ylabel("goodput (Mb/s)")
    return fig


#: The mesh flow of figs 13–14 (the paper's "fourth TCP flow").
FLOW4 = "flow4"


@PAPER.figure("figs13_14_15", "Figs 13, 14 and 15 (mesh, static flows): flow 4's goodput "
                              "under MCWBA vs the cap; burst loss probability of flow 4 "
                              "and of all flows; mean burst length of all flows — CWBA "
                              "as dashed lines")
def figs13_14_15(ctx: Context) -> Any:
    plt = pyplot()
    pf: pd.DataFrame = ctx.values["mesh_per_flow"]
    mesh_pts: pd.DataFrame = ctx.values["mesh"]
    fig, axs = plt.subplots(1, 3, figsize=(13, 3.9))
    f4 = pf[pf["name"] == FLOW4]
    mc4 = f4[f4["kind"] == "mcwba"].sort_values("tb_ms")
    cw4 = f4[f4["kind"] == "cwba"]
    axs[0].plot(mc4["tb_ms"], mc4["goodput_Mbps"], "o-", ms=3.5, color="C1",
                label="MCWBA, flow 4")
    if len(cw4):
        axs[0].axhline(float(cw4["goodput_Mbps"].iloc[0]), color="k", ls="--", lw=1,
                       label="CWBA, flow 4")
    axs[0].set_ylabel("goodput of flow 4 (Mb/s)")
    axs[0].set_title("Fig. 13", fontsize=9)
    mc_all = mesh_pts[mesh_pts["kind"] == "mcwba"].sort_values("tb_ms")
    cw_all = mesh_pts[mesh_pts["kind"] == "cwba"]
    axs[1].plot(mc4["tb_ms"], mc4["burst_loss_prob"], "o-", ms=3.5, color="C1",
                label="MCWBA, flow 4")
    axs[1].plot(mc_all["tb_ms"], mc_all["burst_loss_prob"], "s-", ms=3.5, color="C0",
                label="MCWBA, all flows")
    if len(cw4):
        axs[1].axhline(float(cw4["burst_loss_prob"].iloc[0]), color="C1", ls="--", lw=1,
                       label="CWBA, flow 4")
    if len(cw_all):
        axs[1].axhline(float(cw_all["burst_loss_prob"].iloc[0]), color="C0", ls="--", lw=1,
                       label="CWBA, all flows")
    axs[1].set_ylabel("burst loss probability")
    axs[1].set_title("Fig. 14", fontsize=9)
    axs[2].plot(mc_all["tb_ms"], mc_all["mean_burst_segments"], "s-", ms=3.5, color="C0",
                label="MCWBA, all flows")
    if len(cw_all):
        axs[2].axhline(float(cw_all["mean_burst_segments"].iloc[0]), color="k", ls="--",
                       lw=1, label="CWBA, all flows")
    axs[2].set_ylabel("mean burst length (segments)")
    axs[2].set_title("Fig. 15", fontsize=9)
    for ax in axs:
        ax.set_xlabel("MCWBA timer (ms)")
        ax.legend(fontsize=7)
    return fig


#: Figs 16–18: the measurement window of each panel.
DYN_WINDOWS = (("all", "Fig. 16: t ∈ [0, T)"), ("first", "Fig. 17: t ∈ [0, T/2)"),
               ("second", "Fig. 18: t ∈ [T/2, T)"))
#: Figs 16–18: the paper's printed gain of CWBA over the best timer in each window.
DYN_GAINS = {"all": ("dynamic.table4.gain", "Table 4"),
             "first": ("dynamic.table5.gain", "Table 5"),
             "second": ("dynamic.table6.gain", "Table 6")}


@PAPER.figure("figs16_18", "Figs 16, 17 and 18 (mesh, dynamic flows): total goodput of "
                           "all flows vs the timer period (10 % jitter) over the whole "
                           "run, its first half and its second half; CWBA as dashed lines")
def figs16_18(ctx: Context) -> Any:
    plt = pyplot()
    tot: pd.DataFrame | None = ctx.values.get("dynamic_totals")
    fig, axs = plt.subplots(1, 3, figsize=(13, 3.9))
    for ax, (win, title) in zip(axs, DYN_WINDOWS, strict=True):
        ax.set_title(f"{title}, T = {ctx.mode.dyn_s:g} s", fontsize=9)
        ax.set_xlabel("assembly period (ms)")
        ax.set_ylabel("total goodput (Mb/s)")
        if tot is None:  # a --stored-only run without the dynamic-flow runs
            ax.text(0.5, 0.5, "dynamic-flow runs not in the store", ha="center",
                    transform=ax.transAxes)
            continue
        g = tot[tot["window"] == win]
        tm = g[g["kind"] == "timer"].sort_values("tb_ms")
        cw = g[g["kind"] == "cwba"]
        ax.plot(tm["tb_ms"], tm["total_goodput_Mbps"], "o-", ms=3.5, label="timer, burstlab")
        if len(cw):
            ax.axhline(float(cw["total_goodput_Mbps"].iloc[0]), color="k", ls="--", lw=1,
                       label="CWBA, burstlab")
        # The paper's printed gain of CWBA over the best timer, applied to burstlab's
        # best timer (a star above it).
        y = tm["total_goodput_Mbps"].to_numpy(float)
        if np.isfinite(y).any():
            key, table = DYN_GAINS[win]
            gain = float(ctx.data[key].value)
            i = int(np.nanargmax(y))
            ax.plot([float(tm["tb_ms"].iloc[i])], [y[i] * (1 + gain / 100)], "*",
                    color="gold", mec="k", ms=11, ls="none",
                    label=f"CWBA: paper ({table}, {gain:+g} % over the best timer)")
        ax.legend(fontsize=7)
    return fig


@PAPER.figure("ecwba_error", "ECWBA (linear, Reno): the passive estimate's error against "
                             "the sender's true cwnd per time window — mean absolute "
                             "error (segments) and mean relative error (%), with the mean "
                             "true cwnd")
def ecwba_error(ctx: Context) -> Any:
    plt = pyplot()
    ew: pd.DataFrame = ctx.values["ecwba_windows"]
    fig, axs = plt.subplots(1, 2, figsize=(11, 3.9))
    edges = np.append(ew["window_from_s"].to_numpy(float), ew["window_to_s"].iloc[-1]) \
        if len(ew) else np.array([0.0, 1.0])
    def steps(col: str) -> np.ndarray:
        v = ew[col].to_numpy(float)
        return np.append(v, v[-1]) if len(v) else np.array([np.nan, np.nan])
    axs[0].step(edges, steps("est_mean_abs_err_segments"), where="post", color="C3",
                label="mean |estimate − true| (segments)")
    axs[0].step(edges, steps("mean_true_cwnd_segments"), where="post", color="C0",
                ls="--", label="mean true cwnd (segments)")
    axs[0].set_yscale("symlog", linthresh=0.01)
    axs[0].set_ylabel("segments")
    axs[1].step(edges, steps("est_mean_rel_err_pct"), where="post", color="C3",
                label="mean relative error")
    axs[1].axhspan(5, 15, color="grey", alpha=0.2, label="5–15 % (paper, for [27])")
    axs[1].set_yscale("symlog", linthresh=0.001)
    axs[1].set_ylabel("relative error (%)")
    for ax in axs:
        ax.set_xscale("symlog", linthresh=1.0)
        ax.set_xlabel("time since the start (s; steps = measurement windows)")
        ax.legend(fontsize=7)
    return fig


@PAPER.figure("table2_shares", "Table 2 (mesh, static flows, CWBA): each flow's share of "
                               "the total goodput — burstlab on each reading of fig. 2 "
                               "(95 % CIs over start sets) beside the paper's", dpi=120)
def table2_shares(ctx: Context) -> Any:
    from burstlab.reproduce.papers.ozsarac.topology import MESH_READING

    plt = pyplot()
    sm: pd.DataFrame = ctx.values["mesh_share_summary"]
    cw = sm[sm["kind"] == "cwba"]
    readings = [MESH_READING] + sorted(set(cw["mesh_reading"]) - {MESH_READING})
    fig, ax = plt.subplots(figsize=(6.8, 4.0))
    flows = np.arange(1, 10)
    w = 0.8 / (len(readings) + 1)
    for k, rd in enumerate(readings):
        g = cw[cw["mesh_reading"] == rd].set_index("flow").reindex(flows)
        y = g["share_pct"].to_numpy(float)
        err = error_bars(y, g["share_ci_lo_pct"], g["share_ci_hi_pct"], lower=0, upper=100)
        ax.bar(flows - 0.4 + (k + 0.5) * w, y, w, yerr=err, capsize=2,
               color=f"C{k}", label=f"burstlab, reading `{rd}`"
               + (" (used)" if rd == MESH_READING else ""))
    paper = ctx.data["mesh.table2.contribution"].value
    ax.bar(flows - 0.4 + (len(readings) + 0.5) * w, [float(x) for x in paper], w,
           color="0.6", hatch="//", edgecolor="k", label="paper (Table 2)")
    ax.set_xticks(flows)
    ax.set_xlabel("flow")
    ax.set_ylabel("share of the total goodput under CWBA (%)")
    ax.set_title("Per-flow shares in the mesh: burstlab vs paper")
    ax.legend(fontsize=8)
    return fig
