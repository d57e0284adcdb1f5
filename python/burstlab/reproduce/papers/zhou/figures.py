"""zhou's figures, each registered on :data:`PAPER` where it is drawn.

Read first: the registered functions at the bottom; each draws one PNG of the report
from the tables :func:`.experiments.analyse` put in ``ctx.values``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from burstlab.reproduce.framework import Context
from burstlab.reproduce.papers.zhou.experiments import PAPER
from burstlab.reproduce.papers.zhou.testbed import setups

#: zhou §2.2's largest burst loss probability: the end of the colour scale.
PB_MAX = 0.008


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def draw_curves(ax: Any, df: pd.DataFrame, *, models: bool, logx: bool) -> None:
    """Goodput (Mb/s) vs assembly period (µs), one colour per Pb: simulation with 95 %
    CIs, and (``models``) the set-up variant's yu model dashed."""
    cmap = _plt().get_cmap("viridis")
    for pb in sorted(df["pb"].unique()):
        g = df[df["pb"] == pb].sort_values("tb_us")
        # One colour per Pb in every panel; Pb = 0 (no loss) in black.
        c = "k" if pb <= 0 else cmap(min(1.0, 0.15 + 0.85 * float(pb) / PB_MAX))
        y = g["goodput_Mbps_mean"].to_numpy(float)
        err = np.vstack([y - g["goodput_Mbps_ci_lo"].to_numpy(float),
                         g["goodput_Mbps_ci_hi"].to_numpy(float) - y])
        ax.errorbar(g["tb_us"], y, yerr=np.nan_to_num(err), fmt="o-", color=c, ms=3.5,
                    lw=1.0, capsize=2, label=f"Pb = {100 * pb:g} %")
        if models:
            ax.plot(g["tb_us"], g["model_variant_Mbps"], "--", color=c, lw=0.9)
    if models:
        ax.plot([], [], "k--", lw=0.9, label="yu model (eq. 26/28, 34; eq. 29 at Pb = 0)")
    if logx:
        ax.set_xscale("log")
    ax.axvline(250, color="grey", ls=":", lw=0.8)
    ax.set_xlabel("assembly period Tb (µs)")
    ax.set_ylabel("TCP goodput (Mb/s)")
    ax.grid(True, which="both", alpha=0.3)


@PAPER.figure("fig2", "Fig. 2: TCP goodput vs assembly period for each burst loss "
                      "probability Pb (base set-up; dotted line: the paper's 250 µs "
                      "optimum; left log x, right linear x)")
def draw_fig2(ctx: Context, path: Path) -> None:
    plt = _plt()
    df = ctx.values["fig2"]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8))
    for ax, logx in zip(axes, (True, False), strict=True):
        draw_curves(ax, df, models=True, logx=logx)
    axes[0].legend(fontsize=7, loc="best")
    axes[0].set_title("log period axis", fontsize=9)
    axes[1].set_title("linear period axis", fontsize=9)
    fig.suptitle(PAPER.figure_named("fig2").caption.split(" (")[0], fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


@PAPER.figure("sensitivity", "Sensitivity: goodput vs assembly period on each set-up "
                             "(one unknown of the testbed changed at a time)")
def draw_sensitivity(ctx: Context, path: Path) -> None:
    plt = _plt()
    sens = ctx.values["sens"]
    names = [n for n in setups() if n in set(sens["setup"])]
    ncols = 3
    nrows = int(np.ceil(len(names) / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.6 * ncols, 3.6 * nrows),
                             squeeze=False)
    st = setups()
    for ax, name in zip(axes.flat, names, strict=False):
        draw_curves(ax, sens[sens["setup"] == name], models=False, logx=True)
        ax.set_title(f"{name}: {st[name].why}"[:70], fontsize=8)
    for ax in list(axes.flat)[len(names):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


@PAPER.figure("fig5", "Fig. 5: (a) burst loss probability of the bursts carrying TCP and "
                      "(b) TCP goodput per flow vs offered load of the core fibre, for "
                      "conventional assembly and each R_MAX; (c) the share of ACKs in "
                      "bursts (95 % CIs over replications)")
def draw_fig5(ctx: Context, path: Path) -> None:
    from burstlab.reproduce.papers.zhou.ackratio import CONVENTIONAL

    plt = _plt()
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
            err = np.vstack([y - g[f"{m}_ci_lo"].to_numpy(float),
                             g[f"{m}_ci_hi"].to_numpy(float) - y])
            if logy:
                y = np.where(y > 0, y, np.nan)
            ax.errorbar(g["load"], y, yerr=np.nan_to_num(err), fmt="s--" if conv else "o-",
                        color=c, ms=3.5, lw=1.4 if conv else 1.0, capsize=2,
                        label="conventional" if conv else f"R_MAX = {lab}")
        if logy:
            ax.set_yscale("log")
        ax.set_xlabel("offered load of the core fibre ρ")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_title("(a)", fontsize=9)
    axes[1].set_title("(b)", fontsize=9)
    axes[2].set_title("(c)", fontsize=9)
    axes[1].legend(fontsize=7)
    fig.suptitle(PAPER.figure_named("fig5").caption.split(": (a)")[0], fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
