"""The demo job: the four TCP variants on one lossy path, a results table and a cwnd plot.

Each variant runs alone over the path of ``examples/single_flow.toml`` (base RTT 100 ms,
``Wm`` = 50, independent loss p = 0.01 on data packets), with the same seed.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pandas as pd

from burstlab.api import Result, run

VARIANTS = ("tahoe", "reno", "newreno", "sack")


def path_scenario(
    variant: str, p: float = 0.01, duration_s: float = 200.0, wm: int = 50, trace: bool = True
) -> dict[str, Any]:
    """A bulk flow over src–r1–r2–dst with loss ``p`` on the middle link (data direction)."""
    return {
        "name": f"path-{variant}-p{p:g}",
        "sim": {
            "duration": duration_s,
            "seed": 1,
            "trace": {"cwnd": trace, "end": min(duration_s, 60.0)},
        },
        "node": [
            {"name": "src", "kind": "host"},
            {"name": "r1"},
            {"name": "r2"},
            {"name": "dst", "kind": "host"},
        ],
        "link": [
            {"a": "src", "b": "r1", "rate": "1Gb/s", "delay": "10ms"},
            {"a": "r1", "b": "r2", "rate": "1Gb/s", "delay": "30ms", "loss_ab": p},
            {"a": "r2", "b": "dst", "rate": "1Gb/s", "delay": "10ms"},
        ],
        "flow": [
            {"type": "tcp", "src": "src", "dst": "dst", "variant": variant, "wm": wm,
             "mss": "1000B", "profile": "ns2"}
        ],
    }


def demo(out: Path, duration_s: float = 200.0) -> pd.DataFrame:
    """Runs the demo, prints the table, writes CSVs and ``cwnd.png`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    results: dict[str, Result] = {}
    t0 = time.perf_counter()
    for v in VARIANTS:
        res = run(path_scenario(v, duration_s=duration_s), seed=1)
        results[v] = res
        res.to_dir(out / v)
        rows.append(res.flows.iloc[0])
    table = pd.DataFrame(rows)[
        ["variant", "goodput_segps", "goodput_bps", "segments_sent", "retransmits",
         "td_events", "to_events", "mean_rtt_s", "mean_cwnd_segments"]
    ]
    try:
        from burstlab import models  # type: ignore[attr-defined,unused-ignore]

        pftk = float(models.pftk_throughput_full(0.01, rtt=0.1, rto=0.2, wm=50, b=1))
        table["pftk_model_segps"] = pftk
    except (ImportError, AttributeError, TypeError):
        pass
    wall = time.perf_counter() - t0
    print(f"burstlab demo: one bulk flow, base RTT 100 ms, Wm 50, p = 0.01, "
          f"{duration_s:g} s simulated per variant, seed 1 ({wall:.1f} s wall-clock)")
    print(table.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    table.to_csv(out / "summary.csv", index=False)
    _plot_cwnd(results, out / "cwnd.png")
    print(f"wrote {out / 'summary.csv'} and {out / 'cwnd.png'}")
    return table


def _plot_cwnd(results: dict[str, Result], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(results), 1, figsize=(8, 2.2 * len(results)), sharex=True)
    for ax, (v, res) in zip(axes, results.items(), strict=True):
        c = res.cwnd
        if not c.empty:
            ax.step(c["time_s"], c["cwnd_segments"], where="post", lw=0.8, label="cwnd")
            ax.step(c["time_s"], c["ssthresh_segments"].clip(upper=60), where="post",
                    lw=0.8, ls="--", label="ssthresh (clipped at 60)")
        ax.set_ylabel("segments")
        ax.set_title(f"{v}", fontsize=9, loc="left")
    axes[0].legend(loc="upper right", fontsize=7)
    axes[-1].set_xlabel("time (s)")
    fig.suptitle("Congestion window, one flow, p = 0.01, RTT0 = 100 ms, Wm = 50", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


