"""hybrid's figures, each registered on :data:`PAPER` where it is drawn.

Read first: the registered functions; each draws one PNG of the report from the tables
:func:`.experiments.analyse` put in ``ctx.values``. Aggregate throughputs are at the
paper's N (burstlab's sum × N_paper / N_run; equal to the sum in full mode). The
paper's figures survive as captions only: every paper value drawn is a number or a
statement printed in its text (labelled "printed" or "stated"); none is digitised.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from burstlab.plot import error_bars
from burstlab.reproduce.framework import Context, pyplot
from burstlab.reproduce.papers.hybrid.experiments import CWND_FIGS, PAPER, PS, WMS
from burstlab.stats import t_ppf


@PAPER.figure("fig3", "Fig. 3: aggregate average throughput (from t = 0) vs time at "
                      "p = 1e-3, for Wm = 64…512; slow (left) and fast (right) "
                      "connections, at the paper's N (the runs' lengths differ: slow "
                      "bursts are ≈ 100 times rarer)")
def draw_fig3(ctx: Context) -> Any:
    plt = pyplot()
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
    return fig


@PAPER.figure("fig4", "Fig. 4: slow connections, aggregate throughput vs Wm for each "
                      "burst loss probability: burstlab (markers, solid) beside yu's SACK "
                      "model (eq. 26/28, dashed) as the paper applies it")
def draw_fig4(ctx: Context) -> Any:
    plt = pyplot()
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
    # The one value of fig. 4's set-up the paper prints (§IV.A): the ideal aggregate at
    # Wm = 512; its curves are not in the text (captions only), so none is digitised.
    v = ctx.data["slow.ideal"]
    ax.errorbar([512], [float(v.value) / 1e9], yerr=[float(v.precision or 0.0) / 1e9],
                fmt="*", color="gold", mec="k", ms=12,
                label="paper: ideal at Wm = 512, 5.592 Gb/s (§IV.A, printed)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("Wm (segments)")
    ax.set_ylabel("aggregate throughput (Gb/s)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    return fig


#: What the paper says about each cwnd figure (figs 5–12 survive as captions only, so
#: no curve is digitised; these are its printed statements and numbers, §IV.A, §IV.B).
_CWND_PAPER: dict[tuple[str, int, float], str] = {
    ("slow", 512, 1e-3): "losses always end in RTO, cwnd back to 1 MSS; 12 360 segments "
                         "per burst, ≈ 154 of a flow (§IV.A, printed)",
    ("slow", 512, 1e-4): "Wm = 512 can be reached (§IV.A, stated)",
    ("slow", 512, 1e-2): "not enough to completely open the window to Wm (§IV.A, stated)",
    ("fast", 512, 1e-3): "cwnd never reaches Wm; 44 segments per burst; losses mostly "
                         "TD (§IV.B, printed)",
    ("fast", 128, 1e-3): "cwnd never reaches Wm = 128 either (§IV.B, stated)",
    ("fast", 64, 1e-3): "most losses detected by TD, cwnd halves (§IV.B, stated)",
    ("fast", 64, 1e-2): "aggregate 298 Mb/s for this set-up (§IV.B, printed)",
    ("fast", 128, 1e-4): "aggregate 9.2 Gb/s for this set-up (§IV.B, printed)",
}


def _draw_cwnd(ctx: Context, cls: str, wm: int, p: float) -> Any:
    plt = pyplot()
    c: pd.DataFrame = ctx.values["cwnd"]
    g = c[(c["class"] == cls) & (c["wm"] == wm) & (c["p"] == p)]
    fig, ax = plt.subplots(figsize=(7, 3.2))
    if len(g):
        ax.step(g["time_s"], g["cwnd_segments"], where="post", lw=0.8,
                label="burstlab, cwnd of flow 0")
    else:
        ax.text(0.5, 0.5, "not run in this mode", ha="center", transform=ax.transAxes)
    ax.axhline(wm, color="grey", ls=":", lw=0.8, label=f"Wm = {wm}")
    note = _CWND_PAPER.get((cls, wm, p))
    if note:
        ax.text(0.01, 0.97, f"paper: {note}", transform=ax.transAxes, fontsize=7,
                va="top", bbox={"facecolor": "lightyellow", "alpha": 0.9, "lw": 0.5})
    ax.legend(fontsize=7, loc="lower right")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (segments)")
    ax.set_title(f"{cls} connection, Wm = {wm}, p = {p:g} (flow 0)", fontsize=9)
    ax.grid(True, alpha=0.3)
    return fig


def _register_cwnd(name: str, cls: str, wm: int, p: float) -> None:
    @PAPER.figure(name, f"Fig. {name[3:]}: cwnd of one TCP source vs time over a {cls} "
                        f"connection, Wm = {wm}, p = {p:g} (dotted: Wm)")
    def draw(ctx: Context) -> Any:
        return _draw_cwnd(ctx, cls, wm, p)


for _name, _cls, _wm, _p in CWND_FIGS:
    _register_cwnd(_name, _cls, _wm, _p)


@PAPER.figure("fig13", "Fig. 13: aggregate average throughput vs burst loss probability, "
                       "fast (Wm = 64) vs slow (Wm = 512), at the paper's N")
def draw_fig13(ctx: Context) -> Any:
    plt = pyplot()
    r: pd.DataFrame = ctx.values["runs"]
    r = r[r["rto"] == "floor"]
    fig, ax = plt.subplots(figsize=(8, 5.4))
    for cls, wm, mk in (("fast", 64, "s-"), ("slow", 512, "o-"), ("fast", 128, "^")):
        g = r[(r["class"] == cls) & (r["wm"] == wm)]
        if cls == "fast" and wm == 128:
            g = g[g["p"] == 1e-4]
        if g.empty:
            continue
        # Mean over replications with its 95 % interval (t over replications).
        a = g.groupby("p")["aggregate_at_paper_n_Gbps"]
        mean, sd, k = a.mean(), a.std(ddof=1).fillna(0.0), a.count()
        h = np.array([t_ppf(0.975, int(n) - 1) * float(s) / float(n) ** 0.5 if n > 1 else 0.0
                      for s, n in zip(sd, k, strict=True)])
        y = mean.to_numpy(float)
        ax.errorbar(mean.index, y, yerr=error_bars(y, y - h, y + h, lower=0), fmt=mk, capsize=3,
                    mfc="none" if wm == 128 else None,
                    label=f"{cls}, Wm = {wm}, burstlab (mean, 95 % interval)")
    # The paper's printed aggregates (§IV.B), drawn beside burstlab's: 2.2 Gb/s at
    # p = 1e-3 (any Wm), 298 Mb/s at 1e-2 (Wm 64), 9.2 Gb/s at 1e-4 (Wm 128).
    pts = [(1e-3, float(ctx.data["fast.throughput_p1e-3"].value)),
           (1e-2, float(ctx.data["fast.p1e-2_wm64"].value)),
           (1e-4, float(ctx.data["fast.p1e-4_wm128"].value))]
    ax.plot([x for x, _ in pts], [y / 1e9 for _, y in pts], "*", color="gold", mec="k",
            ms=12, ls="none", label="fast, paper (§IV.B, printed: any Wm at 1e-3, "
                                    "Wm 64 at 1e-2, Wm 128 at 1e-4)")
    ideal = float(ctx.data["slow.ideal"].value) / 1e9
    ax.axhline(ideal, color="grey", ls="--", lw=0.8,
               label=f"slow, paper: ideal at Wm = 512, {ideal:g} Gb/s (§IV.A, printed)")
    ax.set_xscale("log")
    ax.set_xlabel("burst loss probability p")
    ax.set_ylabel("aggregate average throughput (Gb/s)")
    ax.grid(True, which="both", alpha=0.3)
    # Below the axes: inside, the legend would cover one of the paper's points.
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
    return fig
