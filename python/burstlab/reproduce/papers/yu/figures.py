"""yu's figures, each registered on :data:`PAPER` where it is drawn.

Read first: the registered functions at the bottom; each draws one PNG of the report
from the tables :func:`.experiments.analyse` put in ``ctx.values``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from burstlab.plot import error_bars
from burstlab.reproduce.framework import Context, pyplot
from burstlab.reproduce.papers.yu.experiments import FIGURES, PAPER, TracePanel

COLORS = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]
VCOL = {"reno": "tab:red", "newreno": "tab:blue", "sack": "tab:green"}



# ---------------------------------------------------------------------------------------
# Plots.


def plot_throughput(df: pd.DataFrame, title: str,
                    optima: Sequence[tuple[float, float, str]] = ()) -> Any:
    """Goodput vs Tb (log–log): simulation with 95 % CIs (cut at 0), the model with
    measured RTT0 and RTO (solid) and with the nominal RTT0 = 0.1 s (dotted); each of
    ``optima`` (Tb in s, relative precision, label) is a paper's optimum Tb drawn as a
    vertical line with its precision shaded."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 5))
    for i, (p, g) in enumerate(df.groupby("p", sort=True)):
        g = g.sort_values("tb_s")
        c = COLORS[i % len(COLORS)]
        y = g["goodput_segps_mean"].to_numpy(float)
        err = error_bars(y, g["goodput_segps_ci_lo"], g["goodput_segps_ci_hi"], lower=0)
        ax.errorbar(g["tb_s"], y, yerr=err, fmt="o", color=c, ms=4,
                    capsize=2, label=f"burstlab, p = {p:g}")
        ax.plot(g["tb_s"], g["model_segps"], "-", color=c, lw=1.2,
                label=f"model eq. 26/28, measured RTT0/RTO, p = {p:g}")
        ax.plot(g["tb_s"], g["model_nominal_segps"], ":", color=c, lw=1.0)
    ax.plot([], [], "k:", label="model eq. 26/28, nominal RTT0 = 0.1 s")
    styles = ("--", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 2)))
    for (tb, prec, lab), ls in zip(optima, styles, strict=False):
        ax.axvline(tb, color="k", ls=ls, lw=1.0, label=lab)
        ax.axvspan(tb / (1 + prec), tb * (1 + prec), color="grey", alpha=0.12)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("assembly time Tb (s)")
    ax.set_ylabel("goodput (segments/s, 1 segment = 1 KB)")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6.5, ncol=2, loc="best")
    return fig


def plot_fig11(df: pd.DataFrame) -> Any:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 5))
    for v, g in df.groupby("variant", sort=False):
        g = g.sort_values("tb_s")
        c = VCOL.get(str(v), "k")
        y = g["goodput_segps_mean"].to_numpy(float)
        err = error_bars(y, g["goodput_segps_ci_lo"], g["goodput_segps_ci_hi"], lower=0)
        ax.errorbar(g["tb_s"], y, yerr=err, fmt="o-", color=c, ms=4,
                    capsize=2, lw=0.8, label=f"burstlab, {v}")
        ax.plot(g["tb_s"], g["model_segps"], "--", color=c, lw=1.0,
                label=f"model, {v} (measured RTT0/RTO)")
    ax.set_xscale("log")
    ax.set_xlabel("assembly time Tb (s)")
    ax.set_ylabel("goodput (segments/s)")
    ax.set_title("Fig. 11: Reno, NewReno, SACK vs Tb (p = 0.03, λ = 125 MB/s, Wm = 50)",
                 fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    return fig


def plot_tables(tables: dict[int, pd.DataFrame]) -> Any:
    plt = pyplot()
    fig, axes = plt.subplots(1, len(tables), figsize=(6 * len(tables), 4.2), squeeze=False)
    for ax, (s, t) in zip(axes[0], sorted(tables.items()), strict=True):
        for j, (name, g) in enumerate(t.groupby("ratio_name", sort=False)):
            c = "tab:blue" if str(name).startswith("NewReno") else "tab:green"
            x = g["log10_p"].to_numpy(float) + (j - 0.5) * 0.06
            y = g["ratio"].to_numpy(float)
            err = error_bars(y, g["ratio_ci_lo"], g["ratio_ci_hi"], lower=0)
            ax.errorbar(x, y, yerr=err, fmt="o", color=c, capsize=3,
                        label=f"{name}, burstlab")
            ax.plot(g["log10_p"], g["paper_ratio"], "x--", color=c, lw=0.8,
                    label=f"{name}, yu (paper)")
        ax.axhline(1.0, color="k", lw=0.6)
        ax.set_xlabel("log10 p (burst loss probability)")
        ax.set_ylabel("throughput ratio (goodput / Reno goodput)")
        ax.set_title(f"Table {'I' if s == 5 else 'II'}: S = {s}, λ = 125 KB/s, Wm = 50",
                     fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    return fig


def plot_traces(panels: Sequence[TracePanel], title: str, ncols: int) -> Any:
    plt = pyplot()
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.6 * ncols, 3.4 * nrows),
                             squeeze=False)
    for ax, pn in zip(axes.flat, panels, strict=False):
        w = pn.window
        sent = w[(w["event"] == "sent") & ~w["retransmit"]]
        rtx = w[(w["event"] == "sent") & w["retransmit"]]
        drop = w[w["event"] == "dropped"]
        ax.plot(sent["time_s"], sent["seq_mod"], ".", ms=2, color="tab:blue",
                label="sent (new)")
        ax.plot(rtx["time_s"], rtx["seq_mod"], "x", ms=5, color="tab:orange",
                label="retransmitted")
        ax.plot(drop["time_s"], drop["seq_mod"], "s", ms=4, mfc="none", color="tab:red",
                label="lost in a burst")
        for t in pn.timeouts:
            if w["time_s"].min() <= t <= w["time_s"].max():
                ax.axvline(t, color="k", ls=":", lw=0.8)
        ax.set_title(pn.label, fontsize=9)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("sequence number mod 60")
        ax.set_ylim(-2, 61)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    axes.flat[0].plot([], [], "k:", lw=0.8, label="timeout (cwnd → 1)")
    axes.flat[0].legend(fontsize=6.5, loc="lower right")
    fig.suptitle(title, fontsize=10)
    return fig


# ---------------------------------------------------------------------------------------
# The registered figures: each function draws one file of the report.


def _throughput_figure(fig: str) -> None:
    spec = FIGURES[fig]

    @PAPER.figure(fig, f"Fig. {fig[3:]}: SACK goodput vs Tb, λ = {spec['access']} "
                       f"({spec['title']}), Wm = 50")
    def draw(ctx: Context) -> Any:
        optima: list[tuple[float, float, str]] = []
        if fig == "fig5":
            # The paper's optimum Tb at p = 0.01: read off fig. 5(a) (± half a decade)
            # and eq. 32's printed value.
            for key, lab in (("fig5.optimal_tb", "optimum Tb, p = 0.01: paper (fig. 5a, "
                                                 "read off)"),
                             ("eq32.optimal_tb", "optimum Tb: model eq. 32 (paper, "
                                                 "printed)")):
                v = ctx.data[key]
                optima.append((float(v.value), float(v.precision or 0.0),
                               f"{lab} ≈ {1e3 * float(v.value):g} ms"))
        if fig == "fig7":
            # The paper's LRI range (Tb < 10^0.5 s, ± half a decade) and eq. 30's Tb_opt
            # with its measured RTT0 (at the edge of the ATI range, §V.A).
            v = ctx.data["fig7.lri_range"]
            optima.append((float(v.value), float(v.precision or 0.0),
                           "LRI range ends: paper, Tb = 10^0.5 s"))
            eq30 = ctx.data["fig7.eq30_at_ati_edge"]
            optima += [(tb, 0.0, f"eq. 30 Tb_opt, p = {p:g}: paper ({tb:g} s)")
                       for p, tb in zip(eq30.x, eq30.value, strict=True)]
        return plot_throughput(ctx.values["figs"][fig], PAPER.figure_named(fig).caption,
                               optima)


for _fig in ("fig5", "fig6", "fig7"):
    _throughput_figure(_fig)


@PAPER.figure("fig11", "Fig. 11: Reno, NewReno, SACK vs Tb (p = 0.03, λ = 125 MB/s, Wm = 50)")
def draw_fig11(ctx: Context) -> Any:
    return plot_fig11(ctx.values["figs"]["fig11"])


@PAPER.figure("tables", "Tables I and II: throughput ratios over Reno, burstlab beside yu")
def draw_tables(ctx: Context) -> Any:
    return plot_tables(ctx.values["tables"])


@PAPER.figure("fig8", "Fig. 8: Reno, one burst of S = 5 lost when cwnd = W (λ = 125 KB/s)")
def draw_fig8(ctx: Context) -> Any:
    return plot_traces(ctx.values["traces"]["fig8"], PAPER.figure_named("fig8").caption, 3)


@PAPER.figure("fig9", "Fig. 9: one burst lost at W = 40 (rows: S = 5, S = 25)")
def draw_fig9(ctx: Context) -> Any:
    return plot_traces(ctx.values["traces"]["fig9"], PAPER.figure_named("fig9").caption, 3)


@PAPER.figure("fig10", "Fig. 10: random burst losses, S = 5 (rows: medium-high, medium-low p)")
def draw_fig10(ctx: Context) -> Any:
    return plot_traces(ctx.values["traces"]["fig10"], PAPER.figure_named("fig10").caption, 3)


@PAPER.figure("tables_profiles", "Tables I and II on both TCP profiles: rfc (hollow) and "
                                 "ns-2-exact (filled, the reproduction's) beside yu")
def draw_tables_profiles(ctx: Context) -> Any:
    plt = pyplot()
    mv: pd.DataFrame = ctx.values["moved_tables"]
    ss = sorted(set(mv["S"].astype(int)))
    fig, axes = plt.subplots(1, len(ss), figsize=(6 * len(ss), 4.2), squeeze=False)
    for ax, s in zip(axes[0], ss, strict=True):
        t = mv[mv["S"] == s]
        for j, (name, g) in enumerate(t.groupby("ratio_name", sort=False)):
            c = "tab:blue" if str(name).startswith("NewReno") else "tab:green"
            x = g["log10_p"].to_numpy(float)
            for k, (col, mfc, lab) in enumerate((("rfc", "none", "rfc profile"),
                                                 ("ns2", c, "ns-2-exact profile"))):
                v = g["rfc" if col == "rfc" else "ns2_exact"].to_numpy(float)
                lo = g[f"{col}_ci_lo"].to_numpy(float)
                hi = g[f"{col}_ci_hi"].to_numpy(float)
                ax.errorbar(x + (2 * j + k - 1.5) * 0.04, v,
                            yerr=error_bars(v, lo, hi, lower=0), fmt="o",
                            color=c, mfc=mfc, capsize=3, label=f"{name}, {lab}")
            ax.plot(x, g["paper"], "x--", color=c, lw=0.8, label=f"{name}, yu (paper)")
        ax.axhline(1.0, color="k", lw=0.6)
        vals = np.concatenate([t[c].to_numpy(float) for c in ("rfc", "ns2_exact", "paper")])
        vals = vals[np.isfinite(vals)]
        if len(vals):  # CIs of the noisiest points (p = 10^-0.5) run off the axes
            ax.set_ylim(min(0.5, float(vals.min()) - 0.2), max(2.0, float(vals.max()) + 0.3))
        ax.set_xlabel("log10 p (burst loss probability)")
        ax.set_ylabel("throughput ratio (goodput / Reno goodput)")
        ax.set_title(f"Table {'I' if s == 5 else 'II'}: S = {s}, λ = 125 KB/s, Wm = 50",
                     fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=6.5)
    return fig


@PAPER.figure("figs8_9_ns2", "Figs 8–9 on the same path as a packet network: ns-2.35's "
                             "send sequence (grey circles) over burstlab's (dots: new "
                             "segments, crosses: retransmissions), the same scripted loss")
def draw_figs8_9_ns2(ctx: Context) -> Any:
    plt = pyplot()
    seqs = ctx.values["packet_path_sends"]
    pp: pd.DataFrame = ctx.values["packet_path"]
    n = len(seqs)
    ncols = 4
    nrows = max(1, math.ceil(n / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.4 * ncols, 3.4 * nrows), squeeze=False)
    for ax, (label, e) in zip(axes.flat, seqs.items(), strict=False):
        t0, t1 = e["t_drop"] - 1.0, e["t_drop"] + e["after"]
        row = pp[pp["panel"] == label].iloc[0]
        ns = e.get("ns2")
        if ns is not None:
            w = ns[(ns["time_s"] >= t0) & (ns["time_s"] <= t1)]
            ax.plot(w["time_s"], w["seq"] % 60, "o", ms=5, mfc="none", color="0.55",
                    label="ns-2.35")
        b = e["burstlab"]
        w = b[(b["time_s"] >= t0) & (b["time_s"] <= t1)]
        new = w[~w["retransmit"]]
        rtx = w[w["retransmit"]]
        ax.plot(new["time_s"], new["seq"] % 60, ".", ms=2, color="tab:blue",
                label="burstlab, sent (new)")
        ax.plot(rtx["time_s"], rtx["seq"] % 60, "x", ms=5, color="tab:orange",
                label="burstlab, retransmitted")
        lost = w[w["seq"].isin(e["lost"]) & ~w["retransmit"]]
        ax.plot(lost["time_s"], lost["seq"] % 60, "s", ms=4, mfc="none", color="tab:red",
                label="dropped (scripted)")
        to_b = int(row["burstlab_timeouts"])
        to_n = row.get("ns2_timeouts", math.nan)
        ax.set_title(f"{label}\nTO: burstlab {to_b}, ns-2 "
                     + ("–" if not np.isfinite(to_n) else f"{int(to_n)}"), fontsize=8.5)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("sequence number mod 60")
        ax.set_ylim(-2, 61)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=6, loc="lower right")
    fig.suptitle(PAPER.figure_named("figs8_9_ns2").caption, fontsize=9.5)
    return fig


@PAPER.figure("figs8_9_outcomes", "Figs 8–9: new segments sent in the window after the "
                                  "loss and timeouts — burstlab on the OBS path, burstlab "
                                  "and ns-2.35 on the packet path")
def draw_figs8_9_outcomes(ctx: Context) -> Any:
    plt = pyplot()
    pp: pd.DataFrame = ctx.values["packet_path"]
    obs = {pn.label: pn.summary for f in ("fig8", "fig9") for pn in ctx.values["traces"][f]}
    labels = pp["panel"].tolist()
    x = np.arange(len(labels))
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.4))
    series = [("burstlab, OBS path", [obs[lb]["new_segments_after"] for lb in labels],
               [obs[lb]["timeouts"] for lb in labels], "tab:purple"),
              ("burstlab, packet path", pp["burstlab_new_segments_after"].tolist(),
               pp["burstlab_timeouts"].tolist(), "tab:blue")]
    if "ns2_new_segments_after" in pp.columns:
        series.append(("ns-2.35, packet path", pp["ns2_new_segments_after"].tolist(),
                       pp["ns2_timeouts"].tolist(), "0.5"))
    wdt = 0.8 / len(series)
    for k, (name, new, tos, c) in enumerate(series):
        axes[0].bar(x + (k - (len(series) - 1) / 2) * wdt, new, wdt, color=c, label=name)
        axes[1].bar(x + (k - (len(series) - 1) / 2) * wdt, tos, wdt, color=c, label=name)
    # The paper's stated outcomes: fig. 8's timeout or not, fig. 9's rankings.
    f8 = [(k, lb) for k, lb in enumerate(labels) if str(lb).startswith("(")]
    for k, lb in f8:  # yu: W = 20 times out, W = 200 does not
        axes[1].plot(k, 0.0 if "W = 200" in str(lb) else 1.0, "k*", ms=11,
                     label="yu (paper, stated)" if k == f8[0][0] else None)
    axes[0].text(0.01, 0.98, "yu's ranking after the loss (stated):\nS = 5: "
                 f"{ctx.data['fig9a.ranking'].value}\nS = 25: "
                 f"{ctx.data['fig9b.ranking'].value}", transform=axes[0].transAxes,
                 va="top", fontsize=7, bbox={"fc": "white", "ec": "0.7"})
    axes[0].set_ylabel("new segments sent after the loss (segments)")
    axes[1].set_ylabel("retransmission timeouts")
    for ax in axes:
        ax.set_xticks(x)
        ax.set_xticklabels(labels, rotation=35, ha="right", fontsize=7)
        ax.legend(fontsize=7)
        ax.grid(True, axis="y", alpha=0.3)
    return fig
