"""ozsarac's figures, each registered on :data:`PAPER` where it is drawn from the tables
:func:`.experiments.analyse` put in ``ctx.values``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from burstlab.reproduce.framework import Context
from burstlab.reproduce.papers.ozsarac.experiments import PAPER, VARIANTS
from burstlab.reproduce.papers.ozsarac.topology import t_max_s


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _err(g: pd.DataFrame) -> np.ndarray:
    y = g["goodput_Mbps_mean"].to_numpy(float)
    return np.nan_to_num(np.vstack([y - g["goodput_Mbps_ci_lo"].to_numpy(float),
                                    g["goodput_Mbps_ci_hi"].to_numpy(float) - y]))


@PAPER.figure("fig3", "Fig. 3 (linear): goodput of the FTP flow vs the timer period for "
                      "Reno, NewReno and SACK (95 % CIs), CWBA's goodput as lines")
def fig3(ctx: Context, path: Path) -> None:
    plt = _plt()
    df: pd.DataFrame = ctx.values["linear"]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for v, c in zip(VARIANTS, ("C0", "C1", "C2"), strict=True):
        g = df[(df["kind"] == "timer") & (df["variant"] == v)].sort_values("tb_ms")
        ax.errorbar(g["tb_ms"], g["goodput_Mbps_mean"], yerr=_err(g), fmt="o-", color=c,
                    ms=3.5, capsize=2, label=f"timer, {v}")
        cw = df[(df["kind"] == "cwba") & (df["variant"] == v)]
        if len(cw):
            ax.axhline(float(cw["goodput_Mbps_mean"].iloc[0]), color=c, ls="--", lw=1,
                       label=f"CWBA, {v}")
    ax.set_xscale("log")
    ax.set_xlabel("assembly period (ms)")
    ax.set_ylabel("goodput (Mb/s)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


@PAPER.figure("figs4_5", "Figs 4–5 (linear, Reno): cwnd from the start with CWBA and with "
                         "the 8 ms timer")
def figs4_5(ctx: Context, path: Path) -> None:
    plt = _plt()
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
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


@PAPER.figure("fig9", "Fig. 9 (linear, Reno): MCWBA vs its timer cap, CWBA as a line, "
                      "T_max dotted")
def fig9(ctx: Context, path: Path) -> None:
    plt = _plt()
    mc: pd.DataFrame = ctx.values["mcwba"].sort_values("tb_ms")
    lin: pd.DataFrame = ctx.values["linear"]
    cw = lin[(lin["kind"] == "cwba") & (lin["variant"] == "reno")]
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ax.errorbar(mc["tb_ms"], mc["goodput_Mbps_mean"], yerr=_err(mc), fmt="o-", ms=3.5,
                capsize=2, label="MCWBA")
    if len(cw):
        ax.axhline(float(cw["goodput_Mbps_mean"].iloc[0]), color="k", ls="--", lw=1,
                   label="CWBA")
    ax.axvline(1e3 * t_max_s(), color="grey", ls=":", label="T_max")
    ax.set_xlabel("MCWBA timer (ms)")
    ax.set_ylabel("goodput (Mb/s)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


@PAPER.figure("mesh_figs6_7_8_12", "Figs 6, 7, 8 and 12 (mesh, static flows): total "
                                   "goodput, burst loss probability and mean burst "
                                   "length vs the period (timer with 10 % jitter, "
                                   "MCWBA), CWBA as lines")
def mesh_figs(ctx: Context, path: Path) -> None:
    plt = _plt()
    df: pd.DataFrame = ctx.values["mesh"]
    fig, axs = plt.subplots(1, 3, figsize=(12, 3.8))
    cw = df[df["kind"] == "cwba"]
    for kind, c in (("timer", "C0"), ("mcwba", "C1")):
        g = df[df["kind"] == kind].sort_values("tb_ms")
        axs[0].errorbar(g["tb_ms"], g["goodput_Mbps_mean"], yerr=_err(g), fmt="o-",
                        color=c, ms=3.5, capsize=2, label=kind)
        axs[1].plot(g["tb_ms"], g["burst_loss_prob"], "o-", color=c, label=kind)
        axs[2].plot(g["tb_ms"], g["mean_burst_segments"], "o-", color=c, label=kind)
    for ax, col in zip(axs, ("goodput_Mbps_mean", "burst_loss_prob",
                             "mean_burst_segments"), strict=True):
        if len(cw):
            ax.axhline(float(cw[col].iloc[0]), color="k", ls="--", lw=1, label="CWBA")
        ax.set_xlabel("period (ms)")
        ax.legend(fontsize=7)
    axs[0].set_ylabel("total goodput (Mb/s)")
    axs[1].set_ylabel("burst loss probability")
    axs[2].set_ylabel("mean burst length (segments)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
