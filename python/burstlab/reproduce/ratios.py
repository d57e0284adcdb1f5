"""Throughput-ratio tables (yu tables I and II): variant A over variant B, paired by the
other parameters, with a propagated 95 % confidence interval.

The replications of two variants are independent runs, so the ratio of means
``r = a/b`` gets, by the delta method on the log scale, the interval
``r · exp(± sqrt((h_a / a)² + (h_b / b)²))``, where ``h_a`` and ``h_b`` are the 95 %
half-widths of the two means (Student t over the replications): to first order as wide
as the linear propagation ``r (1 ± …)``, and always above 0, since a ratio of two
goodputs is (:func:`burstlab.reproduce.verdict.ratio_interval`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd


def ratio_ci(
    a: float, a_lo: float, a_hi: float, b: float, b_lo: float, b_hi: float
) -> tuple[float, float, float]:
    """``(a/b, lo, hi)``: the ratio of two positive means and its log-scale delta-method
    95 % interval.

    ``*_lo``/``*_hi`` are each mean's 95 % interval; NaN half-widths (one replication)
    give a NaN interval; a mean ≤ 0 gives a NaN ratio interval (and a NaN ratio when
    ``b`` is 0).
    """
    if b == 0:
        return (float("nan"),) * 3
    r = a / b
    if not (a > 0 and b > 0):
        return r, float("nan"), float("nan")
    ha = (a_hi - a_lo) / 2.0
    hb = (b_hi - b_lo) / 2.0
    rel = float(np.sqrt((ha / a) ** 2 + (hb / b) ** 2))
    return r, r * float(np.exp(-rel)), r * float(np.exp(rel))


def ratio_table(
    summary: pd.DataFrame,
    *,
    num: str,
    den: str,
    by: Sequence[str],
    metric: str = "goodput_segps",
    variant_col: str = "variant",
) -> pd.DataFrame:
    """One row per combination of ``by`` present for both variants.

    ``summary`` has one row per (variant, ``by``…) with ``<metric>_mean``,
    ``<metric>_ci_lo`` and ``<metric>_ci_hi``. Returns the ``by`` columns, then
    ``<num>_segps``, ``<den>_segps``, ``ratio``, ``ratio_ci_lo``, ``ratio_ci_hi``, in the
    order of ``by`` in the numerator's rows. Rows whose partner is missing are dropped.
    """
    cols = [f"{metric}_mean", f"{metric}_ci_lo", f"{metric}_ci_hi"]
    a = summary[summary[variant_col] == num][[*by, *cols]]
    b = summary[summary[variant_col] == den][[*by, *cols]]
    m = a.merge(b, on=list(by), suffixes=("_a", "_b"), how="inner")
    rows = []
    for _, r in m.iterrows():
        ratio, lo, hi = ratio_ci(
            float(r[f"{cols[0]}_a"]), float(r[f"{cols[1]}_a"]), float(r[f"{cols[2]}_a"]),
            float(r[f"{cols[0]}_b"]), float(r[f"{cols[1]}_b"]), float(r[f"{cols[2]}_b"]),
        )
        rows.append({**{k: r[k] for k in by}, f"{num}_segps": r[f"{cols[0]}_a"],
                     f"{den}_segps": r[f"{cols[0]}_b"], "ratio": ratio,
                     "ratio_ci_lo": lo, "ratio_ci_hi": hi})
    return pd.DataFrame(rows, columns=[*by, f"{num}_segps", f"{den}_segps", "ratio",
                                       "ratio_ci_lo", "ratio_ci_hi"])
