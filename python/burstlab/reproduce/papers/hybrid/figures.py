"""hybrid's figures, each registered on :data:`PAPER` where it is drawn.

Read first: the registered functions; each draws one PNG of the report from the tables
:func:`.experiments.analyse` put in ``ctx.values``. Aggregate throughputs are at the
paper's N (burstlab's sum × N_paper / N_run; equal to the sum in full mode).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from burstlab.reproduce.framework import Context
from burstlab.reproduce.papers.hybrid.experiments import CWND_FIGS, PAPER, PS, WMS


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    _plt().close(fig)


@PAPER.figure("fig3", "Fig. 3: aggregate average throughput (from t = 0) vs time at "
                      "p = 1e-3, for Wm = 64…512; slow (left) and fast (right) "
                      "connections, at the paper's N (the runs' lengths differ: slow "
                      "bursts are ≈ 100 times rarer)")
def draw_fig3(ctx: Context, path: Path) -> None:
    plt = _plt()
    s: pd.DataFrame = ctx.values["series"]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.0), sharey=True)
    cmap = plt.get_cmap("viridis")
    for ax, cls in zip(axes, ("slow", "fast"), strict=True):
        for i, wm in enumerate(WMS):
            g = s[(s["class"] == cls) & (s["wm"] == wm) & (s["p"] == 1e-3)]
            if len(g):
                ax.plot(g["time_s"], g["avg_Gbps_at_paper_n"], color=cmap(i / 3.5),
                        label=f"burstlab, Wm = {wm}")
        # The paper's printed values of fig. 3: the slow curves' ideal start (§IV.A)
        # and the fast curves' common limit (§IV.B), each with its printed precision.
        key, what = (("slow.ideal", "ideal start, Wm = 512") if cls == "slow"
                     else ("fast.throughput_p1e-3", "limit, any Wm"))
        v = ctx.data[key]
        y, e = float(v.value) / 1e9, float(v.precision or 0.0) / 1e9
        ax.axhline(y, color="k", ls="--", lw=1.0,
                   label=f"paper: {what} ≈ {y:g} Gb/s (printed)")
        ax.axhspan(y - e, y + e, color="grey", alpha=0.25)
        ax.set_title(f"{cls} connections", fontsize=9)
        ax.set_xlabel("time (s)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("aggregate average throughput (Gb/s)")
    _save(fig, path)


@PAPER.figure("fig4", "Fig. 4: slow connections, aggregate throughput vs Wm for each "
                      "burst loss probability: burstlab (markers, solid) beside yu's SACK "
                      "model (eq. 26/28, dashed) as the paper applies it")
def draw_fig4(ctx: Context, path: Path) -> None:
    plt = _plt()
    m: pd.DataFrame = ctx.values["model"]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    cmap = plt.get_cmap("plasma")
    for i, p in enumerate(PS):
        g = m[m["p"] == p].sort_values("wm")
        c = cmap(i / 4)
        ax.plot(g["wm"], g["model_Gbps"], "--", color=c)
        ax.plot(g["wm"], g["burstlab_Gbps"], "o-", color=c, label=f"burstlab, p = {p:g}")
    ax.plot([], [], "k--", label="model: yu's SACK eq. 26/28 (as the paper applies it)")
    g = m[m["p"] == PS[0]].sort_values("wm")
    ax.plot(g["wm"], g["ideal_Gbps"], ":", color="grey",
            label="model: ideal MSS·Wm·N/RTT (RTT 30 ms)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("Wm (segments)")
    ax.set_ylabel("aggregate throughput (Gb/s)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    _save(fig, path)


def _draw_cwnd(ctx: Context, path: Path, cls: str, wm: int, p: float) -> None:
    plt = _plt()
    c: pd.DataFrame = ctx.values["cwnd"]
    g = c[(c["class"] == cls) & (c["wm"] == wm) & (c["p"] == p)]
    fig, ax = plt.subplots(figsize=(7, 3.2))
    if len(g):
        ax.step(g["time_s"], g["cwnd_segments"], where="post", lw=0.8,
                label="burstlab, cwnd of flow 0")
    else:
        ax.text(0.5, 0.5, "not run in this mode", ha="center", transform=ax.transAxes)
    ax.axhline(wm, color="grey", ls=":", lw=0.8, label=f"Wm = {wm}")
    ax.legend(fontsize=7, loc="lower right")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (segments)")
    ax.set_title(f"{cls} connection, Wm = {wm}, p = {p:g} (flow 0)", fontsize=9)
    ax.grid(True, alpha=0.3)
    _save(fig, path)


def _register_cwnd(name: str, cls: str, wm: int, p: float) -> None:
    @PAPER.figure(name, f"Fig. {name[3:]}: cwnd of one TCP source vs time over a {cls} "
                        f"connection, Wm = {wm}, p = {p:g} (dotted: Wm)")
    def draw(ctx: Context, path: Path) -> None:
        _draw_cwnd(ctx, path, cls, wm, p)


for _name, _cls, _wm, _p in CWND_FIGS:
    _register_cwnd(_name, _cls, _wm, _p)


@PAPER.figure("fig13", "Fig. 13: aggregate average throughput vs burst loss probability, "
                       "fast (Wm = 64) vs slow (Wm = 512), at the paper's N")
def draw_fig13(ctx: Context, path: Path) -> None:
    plt = _plt()
    r: pd.DataFrame = ctx.values["runs"]
    r = r[r["rto"] == "floor"]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for cls, wm, mk in (("fast", 64, "s-"), ("slow", 512, "o-")):
        g = r[(r["class"] == cls) & (r["wm"] == wm)].sort_values("p")
        ax.plot(g["p"], g["aggregate_at_paper_n_Gbps"], mk, label=f"{cls}, Wm = {wm}, burstlab")
    # The paper's printed aggregates (§IV.B), drawn beside burstlab's: 2.2 Gb/s at
    # p = 1e-3 (any Wm), 298 Mb/s at 1e-2 (Wm 64), 9.2 Gb/s at 1e-4 (Wm 128).
    pts = [(1e-3, float(ctx.data["fast.throughput_p1e-3"].value)),
           (1e-2, float(ctx.data["fast.p1e-2_wm64"].value)),
           (1e-4, float(ctx.data["fast.p1e-4_wm128"].value))]
    ax.plot([x for x, _ in pts], [y / 1e9 for _, y in pts], "*", color="gold", mec="k",
            ms=12, ls="none", label="fast, paper (§IV.B, printed)")
    ax.set_xscale("log")
    ax.set_xlabel("burst loss probability p")
    ax.set_ylabel("aggregate average throughput (Gb/s)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    _save(fig, path)
