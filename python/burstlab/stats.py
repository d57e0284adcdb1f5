"""Small statistics for sweep summaries, without SciPy: Student-t quantiles and
per-group mean / standard deviation / confidence intervals.

The t distribution's CDF is evaluated through the regularised incomplete beta function
(continued fraction, Numerical Recipes 3rd ed. §6.4, modified Lentz) and inverted by
bisection, which is exact to ~1e-12 for every ν ≥ 1.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd


def _betacf(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(1.0 + aa / c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(1.0 + aa / c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
           + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T ≤ t) for Student's t with ``df`` degrees of freedom."""
    x = df / (df + t * t)
    tail = 0.5 * _betainc(df / 2.0, 0.5, x)
    return 1.0 - tail if t > 0 else tail


def t_ppf(q: float, df: float) -> float:
    """The ``q`` quantile of Student's t (``t_ppf(0.975, 4) = 2.776445…``)."""
    if not 0.0 < q < 1.0:
        raise ValueError(f"quantile must be in (0, 1), got {q}")
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    if q < 0.5:
        return -t_ppf(1.0 - q, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < q:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < q:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-13 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


@functools.lru_cache(maxsize=1024)
def _t_half_factor(level: float, k: int) -> float:
    """t quantile for a two-sided ``level`` interval from ``k`` values (NaN if k < 2)."""
    return t_ppf(0.5 + level / 2.0, k - 1) if k > 1 else math.nan


def summarise(
    table: pd.DataFrame, by: Sequence[str], metrics: Sequence[str], level: float = 0.95
) -> pd.DataFrame:
    """Per group of ``by``: ``n`` (rows), and for each metric ``m``: ``m_mean``, ``m_std``
    (sample, ddof 1), ``m_ci_lo`` / ``m_ci_hi`` (two-sided Student-t interval at ``level``
    on the mean, NaN when fewer than two non-missing values) and ``m_n`` (non-missing).
    Groups keep their order of first appearance."""
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
        cols[f"{m}_ci_lo"] = mean[m] - half
        cols[f"{m}_ci_hi"] = mean[m] + half
        cols[f"{m}_n"] = k
    return pd.concat([out, pd.DataFrame(cols)], axis=1)
