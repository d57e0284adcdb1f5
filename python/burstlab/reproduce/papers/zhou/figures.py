"""zhou's figures, each registered on :data:`PAPER` where it is drawn.

Read first: the registered functions at the bottom; each draws one PNG of the report
from the tables :func:`.experiments.analyse` put in ``ctx.values``.
"""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np
import pandas as pd

from burstlab.plot import error_bars
from burstlab.reproduce.framework import Context, pyplot
from burstlab.reproduce.papers.zhou.experiments import PAPER
from burstlab.reproduce.papers.zhou.testbed import DATA, setups

#: zhou §2.2's largest burst loss probability: the end of the colour scale.
PB_MAX = max(DATA["setup.pb_values"].value)
#: zhou §2.2's optimum period and the end of its sweep (µs), as the tables round them.
OPT_US = round(DATA["fig2.optimal_period"].value * 1e6, 3)
END_US = round(DATA["setup.max_period"].value * 1e6, 3)



def draw_curves(ax: Any, df: pd.DataFrame, *, models: bool, logx: bool,
                drops: dict[float, tuple[float, float]] | None = None) -> None:
    """Goodput (Mb/s) vs assembly period (µs), one colour per Pb: burstlab with 95 %
    CIs (cut at 0), and (``models``) the set-up variant's yu model dashed. ``drops``
    (Pb → the paper's printed fractional drop from :data:`OPT_US` to :data:`END_US` and
    its precision) draws the paper's value there implied by burstlab's own at the
    optimum."""
    cmap = pyplot().get_cmap("viridis")
    for pb in sorted(df["pb"].unique()):
        g = df[df["pb"] == pb].sort_values("tb_us")
        # One colour per Pb in every panel; Pb = 0 (no loss) in black.
        c = "k" if pb <= 0 else cmap(min(1.0, 0.15 + 0.85 * float(pb) / PB_MAX))
        y = g["goodput_Mbps_mean"].to_numpy(float)
        err = error_bars(y, g["goodput_Mbps_ci_lo"], g["goodput_Mbps_ci_hi"], lower=0)
        ax.errorbar(g["tb_us"], y, yerr=err, fmt="o-", color=c, ms=3.5,
                    lw=1.0, capsize=2, label=f"burstlab, Pb = {100 * pb:g} %")
        if models:
            ax.plot(g["tb_us"], g["model_variant_Mbps"], "--", color=c, lw=0.9)
        at = dict(zip(g["tb_us"].round(3), y, strict=True))
        for key, (drop, prec) in (drops or {}).items():
            if abs(key - pb) < 1e-12 and OPT_US in at and END_US in at:
                ax.errorbar([END_US], [at[OPT_US] * (1 - drop)], yerr=[at[OPT_US] * prec],
                            fmt="*", color=c, mec="k", ms=11, capsize=2,
                            label=f"paper, Pb = {100 * pb:g} %: {100 * drop:.0f} % "
                                  f"below {OPT_US:g} µs (§2.2)")
    if models:
        ax.plot([], [], "k--", lw=0.9, label="yu model (eq. 26/28, 34; eq. 29 at Pb = 0)")
    if logx:
        ax.set_xscale("log")
        # decade labels only: minor labels overlap on a one-decade axis
        ax.xaxis.set_minor_formatter(pyplot().NullFormatter())
    ax.axvline(OPT_US, color="grey", ls=":", lw=0.8,
               label=f"optimum period: paper ({OPT_US:g} µs)")
    ax.set_xlabel("assembly period Tb (µs)")
    ax.set_ylabel("TCP goodput (Mb/s)")
    ax.grid(True, which="both", alpha=0.3)


@PAPER.figure("fig2", "Fig. 2: TCP goodput vs assembly period for each burst loss "
                      "probability Pb (base set-up; dotted line: the paper's 250 µs "
                      "optimum; left log x, right linear x)")
def draw_fig2(ctx: Context) -> Any:
    plt = pyplot()
    df = ctx.values["fig2"]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8))
    v = ctx.data["fig2.drop_to_3000us"]
    drops = {float(pb): (float(d), float(v.precision or 0.0))
             for pb, d in zip(v.x, v.value, strict=True)}
    for ax, logx in zip(axes, (True, False), strict=True):
        draw_curves(ax, df, models=True, logx=logx, drops=drops)
    axes[0].legend(fontsize=7, loc="best")
    axes[0].set_title("log period axis", fontsize=9)
    axes[1].set_title("linear period axis", fontsize=9)
    fig.suptitle(PAPER.figure_named("fig2").caption.split(" (")[0], fontsize=10)
    return fig


@PAPER.figure("sensitivity", "Sensitivity: goodput vs assembly period on each set-up "
                             "(one unknown of the testbed changed at a time)", dpi=100)
def draw_sensitivity(ctx: Context) -> Any:
    plt = pyplot()
    sens = ctx.values["sens"]
    names = [n for n in setups() if n in set(sens["setup"])]
    ncols = 3
    nrows = int(np.ceil(len(names) / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.6 * ncols, 3.6 * nrows),
                             squeeze=False)
    st = setups()
    for ax, name in zip(axes.flat, names, strict=False):
        draw_curves(ax, sens[sens["setup"] == name], models=False, logx=True)
        ax.set_title(textwrap.fill(f"{name}: {st[name].why}", 60), fontsize=8)
    for ax in list(axes.flat)[len(names):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    return fig


@PAPER.figure("fig5", "Fig. 5: (a) burst loss probability of the bursts carrying TCP and "
                      "(b) TCP goodput per flow vs offered load of the core fibre, for "
                      "conventional assembly and each R_MAX; (c) the share of ACKs in "
                      "bursts (95 % CIs over replications)")
def draw_fig5(ctx: Context) -> Any:
    from burstlab.reproduce.papers.zhou.ackratio import CONVENTIONAL

    plt = pyplot()
    s: pd.DataFrame = ctx.values["fig5"]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6))
    labels = list(dict.fromkeys(s["rmax"]))
    cmap = plt.get_cmap("plasma")
    panels = (("p_tcp_bursts", "burst loss probability (bursts carrying TCP)", True),
              ("goodput_Mbps", "TCP goodput per flow (Mb/s)", False),
              ("ack_share", "ACKs / packets in bursts", False))
    for ax, (m, ylabel, logy) in zip(axes, panels, strict=True):
        for i, lab in enumerate(labels):
            g = s[s["rmax"] == lab].sort_values("load")
            conv = lab == CONVENTIONAL
            c = "k" if conv else cmap(0.85 * i / max(1, len(labels) - 1))
            y = g[f"{m}_mean"].to_numpy(float)
            # Goodput ≥ 0; a probability and a share lie in [0, 1].
            err = error_bars(y, g[f"{m}_ci_lo"], g[f"{m}_ci_hi"], lower=0,
                             upper=None if m == "goodput_Mbps" else 1)
            if logy:
                y = np.where(y > 0, y, np.nan)
            ax.errorbar(g["load"], y, yerr=err, fmt="s--" if conv else "o-",
                        color=c, ms=3.5, lw=1.4 if conv else 1.0, capsize=2,
                        label="burstlab, conventional" if conv
                        else f"burstlab, R_MAX = {lab}")
        if logy:
            ax.set_yscale("log")
        ax.set_xlabel("offered load of the core fibre ρ")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_title("(a) burst loss probability", fontsize=9)
    axes[1].set_title("(b) TCP goodput per flow", fontsize=9)
    axes[2].set_title("(c) share of ACKs in bursts", fontsize=9)
    axes[1].legend(fontsize=7)
    # §3 prints no value of fig. 5 (its numbers are not in the text): burstlab only.
    fig.suptitle("Fig. 5: ACK-ratio (R_MAX) assembly vs conventional assembly, by offered "
                 "load (burstlab, 95 % CIs; the paper prints no value of fig. 5)",
                 fontsize=10)
    return fig
