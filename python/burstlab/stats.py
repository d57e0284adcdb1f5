"""Small statistics for sweep summaries: Student-t quantiles (SciPy) and per-group
mean / standard deviation / confidence intervals (cut to each metric's range when it is
known; ``docs/topics/verdicts.md``)."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd


def t_ppf(q: float, df: float) -> float:
    """The ``q`` quantile of Student's t (``t_ppf(0.975, 4) = 2.776445…``; SciPy),
    remembered per ``(q, df)``: the reproductions ask for the same few quantiles
    thousands of times, and each SciPy call costs about a millisecond.

    >>> round(t_ppf(0.975, 4), 6)
    2.776445
    """
    return _t_ppf(float(q), float(df))


@functools.lru_cache(maxsize=4096)
def _t_ppf(q: float, df: float) -> float:
    if not 0.0 < q < 1.0:
        raise ValueError(f"quantile must be in (0, 1), got {q}")
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    from scipy.stats import t as student_t

    return float(student_t.ppf(q, df))


@functools.lru_cache(maxsize=1024)
def _t_half_factor(level: float, k: int) -> float:
    """t quantile for a two-sided ``level`` interval from ``k`` values (NaN if k < 2)."""
    return t_ppf(0.5 + level / 2.0, k - 1) if k > 1 else math.nan


def summarise(
    table: pd.DataFrame, by: Sequence[str], metrics: Sequence[str], level: float = 0.95,
    lower: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """Per group of ``by``: ``n`` (rows), and for each metric ``m``: ``m_mean``, ``m_std``
    (sample, ddof 1), ``m_ci_lo`` / ``m_ci_hi`` (two-sided Student-t interval at ``level``
    on the mean, NaN when fewer than two non-missing values) and ``m_n`` (non-missing).
    ``lower`` maps a metric to the smallest value it can take (0 for a goodput): its
    interval is cut there, which keeps its coverage (intersecting a confidence interval
    with the possible values; Mandelkern 2002). Groups keep their order of first
    appearance.

    >>> import pandas as pd
    >>> t = pd.DataFrame({"point": [1, 1, 2, 2], "goodput_bps": [10.0, 12.0, 20.0, 26.0]})
    >>> s = summarise(t, ["point"], ["goodput_bps"], lower={"goodput_bps": 0.0})
    >>> s[["point", "n", "goodput_bps_mean", "goodput_bps_ci_lo", "goodput_bps_ci_hi"]].round(2)
       point  n  goodput_bps_mean  goodput_bps_ci_lo  goodput_bps_ci_hi
    0      1  2              11.0                0.0              23.71
    1      2  2              23.0                0.0              61.12
    """
    by = list(by)
    vals = pd.DataFrame({m: pd.to_numeric(table[m], errors="coerce").astype(float)
                         for m in metrics}, index=table.index)
    if by:
        keys = table[by]
        g = pd.concat([keys, vals], axis=1).groupby(by, sort=False, dropna=False)
        out = g.size().rename("n").reset_index()
        mean, std, cnt = g[list(metrics)].mean(), g[list(metrics)].std(ddof=1), \
            g[list(metrics)].count()
        mean, std, cnt = (x.reset_index(drop=True) for x in (mean, std, cnt))
    else:
        out = pd.DataFrame({"n": [len(table)]})
        mean = vals.mean().to_frame().T
        std = vals.std(ddof=1).to_frame().T
        cnt = vals.count().to_frame().T
    cols: dict[str, pd.Series] = {}
    for m in metrics:
        k = cnt[m].astype(int)
        tq = k.map(lambda v: _t_half_factor(level, int(v))).astype(float)
        half: pd.Series = tq * std[m] / np.sqrt(k.where(k > 0))
        cols[f"{m}_mean"] = mean[m]
        cols[f"{m}_std"] = std[m]
        lo, hi = mean[m] - half, mean[m] + half
        if lower is not None and m in lower:
            lo, hi = lo.clip(lower=lower[m]), hi.clip(lower=lower[m])
        cols[f"{m}_ci_lo"] = lo
        cols[f"{m}_ci_hi"] = hi
        cols[f"{m}_n"] = k
    return pd.concat([out, pd.DataFrame(cols)], axis=1)


def non_negative(table: pd.DataFrame, metrics: Sequence[str]) -> dict[str, float]:
    """``{metric: 0.0}`` for the metrics whose every value is ≥ 0: burstlab's result
    columns are counts, rates, times and fractions, non-negative by definition, so their
    summary intervals are cut at 0 (a two-replication sweep no longer reports a goodput
    interval below 0). A metric with a negative value is signed and keeps its interval.

    >>> import pandas as pd
    >>> non_negative(pd.DataFrame({"goodput_bps": [1.0, 2.0], "diff_s": [-1.0, 1.0]}),
    ...              ["goodput_bps", "diff_s"])
    {'goodput_bps': 0.0}
    """
    out = {}
    for m in metrics:
        x = pd.to_numeric(table[m], errors="coerce").dropna()
        if len(x) and bool((x >= 0).all()):
            out[m] = 0.0
    return out
