"""sodhatar's figures, each registered on :data:`PAPER` where it is drawn.

Read first: the registered functions at the bottom; each draws one PNG of the report
from the tables :func:`.experiments.analyse` put in ``ctx.values``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from burstlab.plot import error_bars
from burstlab.reproduce.framework import Context, pyplot
from burstlab.reproduce.papers.sodhatar.experiments import (
    DURATION_S,
    FIXED_PATTERNS,
    NAMES,
    NETWORK_LABEL,
    PAPER,
    RANDOM_START_MAX_S,
    VARIANTS,
)

VCOL = {"tahoe": "tab:red", "reno": "tab:blue", "newreno": "tab:green"}



def _grid(n: int) -> tuple[int, int]:
    return (1, n) if n <= 2 else (2, (n + 1) // 2)


def plot_time(series: pd.DataFrame, network: str, title: str) -> Any:
    """Throughput vs time per variant, one panel per packet size (sodhatar figs 4, 6, 8,
    10); ns-2's curves dashed where present."""
    plt = pyplot()
    d = series[series["network"] == network]
    sizes = sorted(d["size_B"].unique())
    r, c = _grid(len(sizes))
    fig, axes = plt.subplots(r, c, figsize=(5.2 * c, 3.6 * r), squeeze=False)
    for ax, size in zip(axes.flat, sizes, strict=False):
        for v in VARIANTS:
            for sim, ls in (("burstlab", "-"), ("ns-2", "--")):
                g = d[(d["size_B"] == size) & (d["variant"] == v) & (d["simulator"] == sim)]
                if len(g):
                    ax.step(g["time_s"], g["throughput_Mbps"], where="mid", ls=ls,
                            color=VCOL[v], lw=1.1, label=f"{NAMES[v]}, {sim}")
        ax.set_title(f"packet size {size} B", fontsize=9)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("throughput (Mb/s, 0.2 s bins)")
        ax.grid(True, alpha=0.3)
    for ax in list(axes.flat)[len(sizes):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    return fig


def plot_cwnd(cwnd: pd.DataFrame, network: str, title: str) -> Any:
    """cwnd vs time per variant, one panel per packet size (sodhatar figs 5, 7, 9, 11)."""
    plt = pyplot()
    d = cwnd[cwnd["network"] == network]
    sizes = sorted(d["size_B"].unique())
    r, c = _grid(len(sizes))
    fig, axes = plt.subplots(r, c, figsize=(5.2 * c, 3.6 * r), squeeze=False)
    for ax, size in zip(axes.flat, sizes, strict=False):
        for k, v in enumerate(VARIANTS):
            g = d[(d["size_B"] == size) & (d["variant"] == v)].sort_values("time_s")
            if len(g):
                # the trace records changes only: hold the last value to the end of the run
                t = np.append(g["time_s"].to_numpy(float), DURATION_S)
                y = g["cwnd_segments"].to_numpy(float)
                y = np.append(y, y[-1])
                # a small vertical offset keeps identical curves apart
                ax.step(t, y + 0.08 * (k - 1), where="post", color=VCOL[v], lw=1.1,
                        label=NAMES[v])
        ax.set_title(f"packet size {size} B", fontsize=9)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("cwnd (segments)")
        ax.set_ylim(0, 11.5)
        ax.grid(True, alpha=0.3)
    for ax in list(axes.flat)[len(sizes):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    fig.suptitle(title + " (curves offset by ±0.08 to stay visible)", fontsize=10)
    return fig


def plot_size(sizes: pd.DataFrame, networks: list[str],
              paper: dict[str, float] | None = None) -> Any:
    """Throughput vs packet size per variant: the mean over random start draws with its
    95 % CI, the simultaneous start (×), and ns-2 (dashed) on the packet network.
    ``paper`` (variant → §V's printed change from 1460 to 4000 B) draws, on the packet
    network (the paper's), the 4000 B throughput that change implies from burstlab's own
    1460 B mean (stars)."""
    plt = pyplot()
    fig, axes = plt.subplots(1, len(networks), figsize=(5.2 * len(networks), 4.2),
                             squeeze=False)
    for ax, net in zip(axes[0], networks, strict=True):
        d = sizes[sizes["network"] == net]
        for k, v in enumerate(VARIANTS):
            g = d[d["variant"] == v].sort_values("size_B")
            x = g["size_B"].to_numpy(float) + (k - 1) * 30
            y = g["throughput_Mbps_random_mean"].to_numpy(float)
            # the throughput's interval cut at 0 (a throughput is ≥ 0)
            err = error_bars(y, g["throughput_Mbps_random_ci_lo"],
                             g["throughput_Mbps_random_ci_hi"], lower=0)
            ax.errorbar(x, y, yerr=err, fmt="o-", color=VCOL[v], ms=4,
                        capsize=2, lw=1, label=f"{NAMES[v]}, burstlab (random starts)")
            sz = g["size_B"].to_numpy(float)
            if paper and v in paper and net == "packet" and 1460 in sz and 4000 in sz:
                y0 = float(y[sz == 1460][0])
                ax.plot(x[sz == 4000], [y0 * (1 + paper[v])], "*", color=VCOL[v], mec="k",
                        ms=12, label=f"{NAMES[v]}, paper (§V: {100 * paper[v]:+.0f} % "
                                     "from 1460 B, on burstlab's 1460 B)")
            ax.plot(x, g["throughput_Mbps_simultaneous"], "x", color=VCOL[v], ms=6)
            if "ns2_throughput_Mbps_random_mean" in g.columns \
                    and g["ns2_throughput_Mbps_random_mean"].notna().any():
                ax.plot(x, g["ns2_throughput_Mbps_random_mean"], "s--", color=VCOL[v],
                        ms=3, lw=0.8, mfc="none", label=f"{NAMES[v]}, ns-2 (random starts)")
        ax.plot([], [], "kx", label="simultaneous start (burstlab)")
        ax.set_xlabel("packet size (B)")
        ax.set_ylabel("throughput over 5 s (Mb/s)")
        ax.set_title(NETWORK_LABEL[net], fontsize=8)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=6)
    return fig


def plot_starts(changes: pd.DataFrame, paper: dict[str, float],
                networks: list[str]) -> Any:
    """The 1460 → 4000 B change per variant for each start pattern (fixed patterns as
    markers, random draws as dots, their mean with CI as a bar), the paper's value as a
    star; one panel per network."""
    plt = pyplot()
    fig, axes = plt.subplots(1, len(networks), figsize=(5.2 * len(networks), 4.2),
                             squeeze=False)
    marks = dict(zip(FIXED_PATTERNS, "os^vD", strict=True))
    for ax, net in zip(axes[0], networks, strict=True):
        d = changes[changes["network"] == net]
        for k, v in enumerate(VARIANTS):
            g = d[d["variant"] == v]
            rnd = g[g["pattern"].str.match(r"random \d")]
            jitter = np.linspace(-0.25, 0.25, max(len(rnd), 1))[:len(rnd)]
            ax.plot(k + jitter, 100 * rnd["change"], ".", color=VCOL[v], alpha=0.35, ms=4)
            m = g[g["pattern"] == "random mean"]
            if len(m):
                y = 100 * float(m["change"].iloc[0])
                # a change is ≥ −100 %: its interval cut there
                err = error_bars([y], [100 * float(m["change_ci_lo"].iloc[0])],
                                 [100 * float(m["change_ci_hi"].iloc[0])], lower=-100)
                ax.errorbar([k], [y], yerr=err, fmt="_", color="k",
                            ms=18, capsize=4)
            for pat, mk in marks.items():
                f = g[g["pattern"] == pat]
                if len(f):
                    ax.plot([k + 0.35], 100 * f["change"], mk, color=VCOL[v], mfc="none",
                            label=pat if k == 0 else None)
            ax.plot([k], [100 * paper[v]], "*", color="gold", mec="k", ms=13,
                    label="paper (§V)" if k == 0 else None)
        ax.axhline(0, color="k", lw=0.6)
        ax.set_xticks(range(len(VARIANTS)), [NAMES[v] for v in VARIANTS])
        ax.set_ylabel("throughput change 1460 → 4000 B (%)")
        ax.set_title(f"{NETWORK_LABEL[net]}\n(dots: start times uniform in "
                     f"[0, {1000 * RANDOM_START_MAX_S:.0f} ms]; bar: their mean, 95 % CI)",
                     fontsize=8)
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=6)
    return fig


# ---------------------------------------------------------------------------------------
# The registered figures.


@PAPER.figure("throughput_vs_time",
              "Figs 4, 6, 8, 10: throughput vs time per variant, packet network, "
              "simultaneous start (burstlab solid, ns-2 dashed)")
def draw_time(ctx: Context) -> Any:
    return plot_time(ctx.values["series"], "packet",
              PAPER.figure_named("throughput_vs_time").caption)


@PAPER.figure("cwnd_vs_time",
              "Figs 5, 7, 9, 11: cwnd vs time per variant, packet network, simultaneous "
              "start (burstlab)")
def draw_cwnd(ctx: Context) -> Any:
    return plot_cwnd(ctx.values["cwnd"], "packet", PAPER.figure_named("cwnd_vs_time").caption)


@PAPER.figure("throughput_vs_size",
              "§V: throughput vs packet size per variant (mean over random starts, 95 % CI; "
              "× simultaneous start; ns-2 dashed), packet network and OBS cores")
def draw_size(ctx: Context) -> Any:
    paper = {v: float(ctx.data[f"size.{v}_change"].value) for v in VARIANTS}
    return plot_size(ctx.values["sizes"], list(ctx.mode.networks), paper)


@PAPER.figure("start_sensitivity",
              "§V's packet-size effect under different start times, beside the paper's "
              "−82 %, +32 %, +43 %")
def draw_starts(ctx: Context) -> Any:
    paper = {v: float(ctx.data[f"size.{v}_change"].value) for v in VARIANTS}
    return plot_starts(ctx.values["changes"], paper, list(ctx.mode.networks))


@PAPER.figure("obs_throughput_vs_time",
              "Throughput vs time with the OBS core (per-egress assembly), simultaneous "
              "start (burstlab)")
def draw_obs_time(ctx: Context) -> Any:
    return plot_time(ctx.values["series"], "obs per-egress",
              PAPER.figure_named("obs_throughput_vs_time").caption)


@PAPER.figure("obs_cwnd_vs_time",
              "cwnd vs time with the OBS core (per-egress assembly), simultaneous start")
def draw_obs_cwnd(ctx: Context) -> Any:
    return plot_cwnd(ctx.values["cwnd"], "obs per-egress",
              PAPER.figure_named("obs_cwnd_vs_time").caption)
