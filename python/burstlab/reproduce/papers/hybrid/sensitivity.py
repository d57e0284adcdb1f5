"""hybrid: how the number of flows N of a scaled-down run moves the aggregate goodput.

Read first: :func:`n_points`, then :func:`analyse_n`. A scaled run carries
``N_run/N_paper`` of the flows on ``N_run/N_paper`` of the line rate
(:func:`.experiments.line_rate_scale`), and its aggregate is scaled back to the paper's N.
That is exact only if a flow's behaviour does not depend on N; but the edge assembles
each class in one mixed-flow queue, so a burst holds the segments of all N flows and a
lost burst hits more flows at larger N. The sweep runs each class at the key points
(p = 1e-3; the slow class at Wm = 512, the fast one at Wm = 64 and 512) for several N,
each as long as the mode's grid run, and reports the aggregate at the paper's N against
the run at the paper's N.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from burstlab.reproduce.framework import Context, Experiment
from burstlab.reproduce.papers.hybrid.experiments import (
    CLASSES,
    MSS,
    PAPER,
    Mode,
    scenario,
)

#: (class, Wm, p) of the sweep, and N as fractions of the paper's.
KEY_POINTS = (("slow", 512, 1e-3), ("fast", 64, 1e-3), ("fast", 512, 1e-3))
N_FRACTIONS: dict[str, dict[str, tuple[float, ...]]] = {
    "full": {"slow": (0.1, 0.25, 0.5, 1.0), "fast": (0.1, 0.25, 0.5, 1.0)},
    # Quick runs the fast class at the paper's N, so only the slow class's scaling
    # (N = 8 against 20) is measured; full mode's record has the whole sweep.
    "quick": {"slow": (0.1, 0.25), "fast": ()},
    "smoke": {"slow": (0.05, 0.1), "fast": (0.05, 0.1)},
}


def n_points(m: Mode) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    out = []
    for cls, wm, p in KEY_POINTS:
        n_paper = int(CLASSES[cls]["n"])
        for f in N_FRACTIONS.get(m.name, {}).get(cls, (0.25, 1.0)):
            n = max(2, round(n_paper * f))
            out.append(({"path_class": cls, "Wm": wm, "p_loss": p, "n_flows": n,
                         "rto_mode": "floor", "experiment": "n_sensitivity"},
                        scenario(cls, wm, p, n, m.duration(cls, p),
                                 rate_scale=n / n_paper)))
    return out


def analyse_n(ctx: Context) -> pd.DataFrame:
    """Aggregate goodput at the paper's N per (class, Wm, p, N), and its change against
    the largest N run (the paper's N where the mode runs it)."""
    sw = ctx.results["n_sensitivity"]
    t = sw.table
    rows = []
    for i, (params, sc) in enumerate(n_points(ctx.mode)):
        g = t[t["point"] == i]
        cls, n = params["path_class"], int(params["n_flows"])
        n_paper = int(CLASSES[cls]["n"])
        agg = float(g["goodput_segps"].sum()) * MSS * 8.0
        rows.append({"class": cls, "wm": int(params["Wm"]), "p": float(params["p_loss"]),
                     "n": n, "n_paper": n_paper,
                     "duration_s": float(sc["sim"]["duration"]),
                     "aggregate_at_paper_n_Gbps": agg / 1e9 * n_paper / n,
                     "segments_per_flow_per_burst": float(g["segments_per_burst"].mean()),
                     "to_events_per_flow": float(g["to_events"].sum()) / n})
    df = pd.DataFrame(rows)
    if df.empty:
        return df
    ref = df.sort_values("n").groupby(["class", "wm", "p"])["aggregate_at_paper_n_Gbps"] \
        .transform("last")
    df["vs_largest_n_pct"] = 100.0 * (df["aggregate_at_paper_n_Gbps"] / ref - 1.0)
    return df


PAPER.experiments.append(Experiment("n_sensitivity", lambda ctx: n_points(ctx.mode)))

_analyse = PAPER.analyse


def _analyse_with_sensitivity(ctx: Context) -> None:
    _analyse(ctx)
    t = analyse_n(ctx)
    ctx.values["n_sensitivity"] = t
    ctx.tables["sensitivity_n"] = t.assign(**ctx.stamp)


PAPER.analyse = _analyse_with_sensitivity
