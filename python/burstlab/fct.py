"""Summaries of flow completion times (``res.fct``; docs/guide/completion-times.md).

``res.fct`` has one row per finite TCP flow: its size, start and end (the arrival at its
sender of the ACK of its last segment), ``fct_s``, the ideal ``ideal_fct_s`` of the flow
alone on its path, ``slowdown = fct_s / ideal_fct_s`` and ``completed``. A flow still
running at the end of the run has ``completed = False`` and NaN times: every summary
here counts it (``unfinished``) and keeps it out of the percentiles and means, which
would otherwise be biased low (dropping it silently) or made up (counting it with the
run's length).

The functions: :func:`fct_percentiles` (FCT percentiles and mean slowdown per
flow-size bin), :func:`slowdown_summary`, :func:`jain_index` (Jain's fairness index of
a set of rates), :func:`goodput_cdf` (the empirical CDF of the flows' goodput) and
:func:`run_scalars` (the few numbers of one run a sweep compares: p50/p99 FCT, mean
slowdown, unfinished flows, fairness).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

#: The columns of ``res.fct`` (the core's ``FctRow``), in order.
FCT_COLUMNS = (
    "flow", "name", "workload", "src", "dst", "size_segments", "size_bytes", "start_s",
    "end_s", "fct_s", "ideal_fct_s", "slowdown", "completed", "segments_delivered",
    "retransmits", "td_events", "to_events", "bursts_lost",
)

#: Default flow-size bins in payload bytes: [0, 10 kB), [10 kB, 100 kB),
#: [100 kB, 1 MB), [1 MB, 10 MB), [10 MB, ∞) — the usual short / medium / long split
#: of datacentre and web transfer studies, a decade per bin.
SIZE_BINS: tuple[float, ...] = (0.0, 1e4, 1e5, 1e6, 1e7, math.inf)

#: The percentiles reported by default.
QUANTILES: tuple[float, ...] = (0.5, 0.99)


def as_table(fct: pd.DataFrame) -> pd.DataFrame:
    """``fct`` with every column of :data:`FCT_COLUMNS` (a run without finite flows
    gives an empty table without columns) and ``completed`` as bool.

    >>> import pandas as pd
    >>> t = as_table(pd.DataFrame())
    >>> len(t), t.columns[:4].tolist()
    (0, ['flow', 'name', 'workload', 'src'])
    """
    df = fct.copy()
    for c in FCT_COLUMNS:
        if c not in df.columns:
            df[c] = pd.Series(dtype=bool if c == "completed" else float)
    df["completed"] = df["completed"].astype(bool)
    return df


def _label(lo: float, hi: float) -> str:
    def b(x: float) -> str:
        if math.isinf(x):
            return "inf"
        for unit, k in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
            if x >= k:
                return f"{x / k:g}{unit}"
        return f"{x:g}B"
    return f"[{b(lo)}, {b(hi)})"


def _quantile(x: np.ndarray, q: float) -> float:
    """The ``q`` quantile of ``x`` (numpy's default linear interpolation between order
    statistics; NaN for no values)."""
    return float(np.quantile(x, q)) if len(x) else math.nan


def _qname(q: float) -> str:
    return f"p{q * 100:g}".replace(".", "_")


def fct_percentiles(fct: pd.DataFrame, bins: Sequence[float] = SIZE_BINS,
                    quantiles: Iterable[float] = QUANTILES,
                    by: Sequence[str] = ()) -> pd.DataFrame:
    """FCT percentiles per flow-size bin (``size_bytes`` in ``[lo, hi)``), and per group
    of the columns ``by`` (e.g. ``("workload",)``).

    One row per non-empty bin: ``size_bin`` (label), ``size_lo_bytes``,
    ``size_hi_bytes``, ``flows`` (all), ``completed``, ``unfinished``, then over the
    completed flows only ``fct_p50_s``, ``fct_p99_s`` (one per quantile),
    ``fct_mean_s``, ``slowdown_mean``, ``slowdown_p50``, ``slowdown_p99``.

    >>> spec = burstlab.load_scenario("examples/nsfnet_workload.toml")
    >>> spec["sim"]["duration"] = "1s"
    >>> res = burstlab.run(spec, seed=1)       # 95 flows arrive in the first second
    >>> fct_percentiles(res.fct)[["size_bin", "flows", "completed", "fct_p50_s"]].round(4)
            size_bin  flows  completed  fct_p50_s
    0     [0B, 10kB)     61         55     0.0762
    1  [10kB, 100kB)     30         24     0.0836
    2   [100kB, 1MB)      4          3     0.1594
    """
    df = as_table(fct)
    edges = [float(b) for b in bins]
    if len(edges) < 2 or any(b >= a for a, b in zip(edges[1:], edges[:-1], strict=True)):
        raise ValueError(f"bins must be at least two increasing edges, got {list(bins)}")
    qs = [float(q) for q in quantiles]
    if any(not 0.0 <= q <= 1.0 for q in qs):
        raise ValueError(f"quantiles must be in [0, 1], got {qs}")
    rows: list[dict[str, Any]] = []
    groups = df.groupby(list(by), sort=False, dropna=False) if by else [((), df)]
    for key, g in groups:
        keys = dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True))
        size = pd.to_numeric(g["size_bytes"], errors="coerce").to_numpy(float)
        for lo, hi in zip(edges[:-1], edges[1:], strict=True):
            inbin = (size >= lo) & (size < hi)
            if not inbin.any():
                continue
            sub = g[inbin]
            done = sub[sub["completed"]]
            t = pd.to_numeric(done["fct_s"], errors="coerce").dropna().to_numpy(float)
            sd = pd.to_numeric(done["slowdown"], errors="coerce").dropna().to_numpy(float)
            row: dict[str, Any] = {**keys, "size_bin": _label(lo, hi), "size_lo_bytes": lo,
                                   "size_hi_bytes": hi, "flows": len(sub),
                                   "completed": len(done), "unfinished": len(sub) - len(done)}
            for q in qs:
                row[f"fct_{_qname(q)}_s"] = _quantile(t, q)
            row["fct_mean_s"] = float(t.mean()) if len(t) else math.nan
            row["slowdown_mean"] = float(sd.mean()) if len(sd) else math.nan
            for q in qs:
                row[f"slowdown_{_qname(q)}"] = _quantile(sd, q)
            rows.append(row)
    return pd.DataFrame(rows)


def slowdown_summary(fct: pd.DataFrame,
                     quantiles: Iterable[float] = QUANTILES) -> dict[str, float]:
    """``flows``, ``completed``, ``unfinished``, and over the completed flows with an
    ideal: ``slowdown_mean`` and one ``slowdown_p<q>`` per quantile.

    >>> spec = burstlab.load_scenario("examples/nsfnet_workload.toml")
    >>> spec["sim"]["duration"] = "1s"
    >>> res = burstlab.run(spec, seed=1)       # 95 flows arrive in the first second
    >>> {k: round(v, 3) for k, v in slowdown_summary(res.fct).items()}
    {'flows': 95.0, 'completed': 82.0, 'unfinished': 13.0, 'slowdown_mean': 1.0,
     'slowdown_p50': 1.0, 'slowdown_p99': 1.0}
    """
    df = as_table(fct)
    done = df[df["completed"]]
    sd = pd.to_numeric(done["slowdown"], errors="coerce").dropna().to_numpy(float)
    out: dict[str, float] = {"flows": float(len(df)), "completed": float(len(done)),
                             "unfinished": float(len(df) - len(done)),
                             "slowdown_mean": float(sd.mean()) if len(sd) else math.nan}
    for q in quantiles:
        out[f"slowdown_{_qname(float(q))}"] = _quantile(sd, float(q))
    return out


def jain_index(rates: Iterable[float]) -> float:
    """Jain's fairness index ``(Σx)² / (n·Σx²)`` of non-negative rates (Jain, Chiu and
    Hawe 1984, eq. 1): 1 when all are equal, ``1/n`` when one takes everything. NaN for
    no values or all zero; a negative or NaN rate is an error.

    >>> jain_index([5.0, 5.0, 5.0, 5.0]), jain_index([4.0, 0.0, 0.0, 0.0])
    (1.0, 0.25)
    """
    x = np.asarray(list(rates), dtype=float)
    if len(x) == 0:
        return math.nan
    if np.isnan(x).any() or (x < 0).any():
        raise ValueError("rates must be non-negative numbers")
    s2 = float((x * x).sum())
    if s2 == 0.0:
        return math.nan
    return float(x.sum()) ** 2 / (len(x) * s2)


def goodput_cdf(flows: pd.DataFrame, column: str = "goodput_segps",
                kind: str | None = "tcp") -> pd.DataFrame:
    """The empirical CDF of the flows' goodput: one row per flow in increasing order,
    ``value`` and ``cdf`` (the fraction of flows at or below it: ``i/n`` for the ``i``-th
    smallest). ``kind`` keeps the flows of that kind (None: all). A finite flow's goodput
    is over its own life (``res.flows``).

    >>> import pandas as pd
    >>> flows = pd.DataFrame({"kind": ["tcp", "tcp", "tcp", "udp"],
    ...                       "goodput_segps": [30.0, 10.0, 20.0, 99.0]})
    >>> goodput_cdf(flows).round(3)
       value    cdf
    0   10.0  0.333
    1   20.0  0.667
    2   30.0  1.000
    """
    df = flows if kind is None or "kind" not in flows.columns else flows[flows["kind"] == kind]
    if column not in df.columns:
        raise KeyError(f"no column {column!r} in the flows table")
    v = np.sort(pd.to_numeric(df[column], errors="coerce").dropna().to_numpy(float))
    n = len(v)
    return pd.DataFrame({"value": v, "cdf": np.arange(1, n + 1, dtype=float) / n if n else v})


def run_scalars(fct: pd.DataFrame, flows: pd.DataFrame | None = None) -> dict[str, float]:
    """The numbers of one run that a sweep compares across points and replications:
    ``fct_p50_s``, ``fct_p99_s``, ``fct_mean_s`` and ``slowdown_mean`` over the
    completed flows, ``unfinished`` (flows not completed), and with ``flows`` Jain's
    index of the TCP flows' goodput (``jain_goodput``).

    >>> spec = burstlab.load_scenario("examples/nsfnet_workload.toml")
    >>> spec["sim"]["duration"] = "1s"
    >>> res = burstlab.run(spec, seed=1)       # 95 flows arrive in the first second
    >>> {k: round(v, 4) for k, v in run_scalars(res.fct).items()}
    {'fct_p50_s': 0.0796, 'fct_p99_s': 0.2715, 'fct_mean_s': 0.0951, 'slowdown_mean': 0.9997, 'unfinished': 13.0}
    """
    df = as_table(fct)
    done = df[df["completed"]]
    t = pd.to_numeric(done["fct_s"], errors="coerce").dropna().to_numpy(float)
    sd = pd.to_numeric(done["slowdown"], errors="coerce").dropna().to_numpy(float)
    out = {"fct_p50_s": _quantile(t, 0.5), "fct_p99_s": _quantile(t, 0.99),
           "fct_mean_s": float(t.mean()) if len(t) else math.nan,
           "slowdown_mean": float(sd.mean()) if len(sd) else math.nan,
           "unfinished": float(len(df) - len(done))}
    if flows is not None and len(flows):
        tcp = flows[flows["kind"] == "tcp"] if "kind" in flows.columns else flows
        out["jain_goodput"] = jain_index(
            pd.to_numeric(tcp["goodput_segps"], errors="coerce").fillna(0.0))
    return out
