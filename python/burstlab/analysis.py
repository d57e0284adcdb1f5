"""From results to answers: reopen what a run or sweep wrote, compare two configurations
under common random numbers (the plots are :meth:`burstlab.Result.plot_cwnd` and
:meth:`burstlab.SweepResult.plot`, in :mod:`burstlab.plot`).

    >>> import burstlab
    >>> sw = burstlab.sweep("examples/single_flow.toml", {"link.1.loss_ab": [1e-3, 1e-2]},
    ...                     cases=[{"flow.0.variant": "reno"},
    ...                            {"flow.0.variant": "sack", "flow.0.cc": "cubic"}],
    ...                     replications=5)                  # doctest: +SKIP
    >>> burstlab.compare(sw.case(1), sw.case(0))             # doctest: +SKIP
    >>> sw.to_dir("out/cmp"); burstlab.load("out/cmp")       # doctest: +SKIP

(CUBIC/SACK against Reno, paired; then the same SweepResult back. :func:`load` and
:func:`compare` show shorter runs that the tests execute.)

Read :func:`load`, then :func:`compare` (its intervals are the reproductions' paired
Student-t and log-ratio intervals, ``burstlab.reproduce.verdict``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from burstlab.api import Result
    from burstlab.sweep import SweepResult

#: The columns that pair two runs under common random numbers: same seed, same
#: replication index (so the same random substreams), same flow.
PAIR_KEYS = ("seed", "replication", "flow")


# ---------------------------------------------------------------------------------------
# Reopening results.


def load(path: str | os.PathLike[str]) -> Result | SweepResult:
    """Reopens what :meth:`burstlab.Result.to_dir` (``burstlab run --out``) or
    :meth:`burstlab.SweepResult.to_dir` (``burstlab sweep --out``) wrote: a
    :class:`burstlab.Result` from a folder with ``result.json``, a
    :class:`burstlab.SweepResult` from one with ``sweep.json``; its tables equal the
    ones that were written.

    Raises:
        ValueError: ``path`` holds neither.

    >>> import tempfile
    >>> spec = burstlab.load_scenario("examples/single_flow.toml")
    >>> spec["sim"]["duration"] = "20s"
    >>> res = burstlab.run(spec, seed=3)
    >>> out = tempfile.mkdtemp()
    >>> _ = res.to_dir(out)
    >>> back = load(out)
    >>> back.flows.equals(res.flows), back.seed
    (True, 3)
    """
    d = Path(path)
    if d.is_file() and d.name in ("result.json", "sweep.json"):
        d = d.parent
    if (d / "result.json").is_file():
        return _load_run(d)
    if (d / "sweep.json").is_file():
        return _load_sweep(d)
    raise ValueError(f"{d}: no result.json (a run's --out) or sweep.json (a sweep's --out)")


def _load_run(d: Path) -> Result:
    from burstlab.api import Result

    doc = json.loads((d / "result.json").read_text(encoding="utf-8"))
    meta = doc.get("meta") or {}
    if "tables" in doc:
        tables, optional = list(doc["tables"]), list(doc.get("optional_tables", []))
    else:  # written before result.json listed its tables: the files say which
        tables = sorted({p.stem for p in [*d.glob("*.csv"), *d.glob("*.parquet")]})
        optional = []
    files: Mapping[str, str] = doc.get("files") or {}
    raw: dict[str, Any] = {}
    from_files: dict[str, tuple[str, int]] = {}
    for name in tables:
        if name in doc and isinstance(doc[name], list):
            raw[name] = doc[name]
            continue
        # A table of columns (a trace): read from its file, as a streamed trace is (a
        # Parquet file, or a CSV: streamed traces are CSV whatever the format).
        known = [d / files[name]] if name in files else []
        p = next((q for q in [*known, d / f"{name}.parquet", d / f"{name}.csv"]
                  if q.is_file()), None)
        if p is None:
            continue
        if p.suffix == ".parquet":
            import pyarrow.parquet as pq

            rows = int(pq.ParquetFile(p).metadata.num_rows)
        else:
            with p.open(encoding="utf-8") as fh:
                rows = max(sum(1 for _ in fh) - 1, 0)
        from_files[name] = (str(p), rows)
    # Result reads each such file on first access and drops its stamp columns.
    return Result(meta, raw, tables, optional, doc.get("scenario"), from_files)


def _load_sweep(d: Path) -> SweepResult:
    import pandas as pd

    from burstlab.grid import iter_points
    from burstlab.sweep import SweepResult

    info = json.loads((d / "sweep.json").read_text(encoding="utf-8"))
    dtypes: Mapping[str, Mapping[str, str]] = info.pop("dtypes", {})
    params = list(info.pop("params", []))
    metrics = list(info.pop("metrics", []))
    store = Path(info.pop("store", ":memory:"))
    stats = dict(info.pop("stats", {}))
    # The parameter values of each point, exactly as given (a CSV cannot tell 1 from "1").
    if "points" in info:
        points = [dict(p) for p in info["points"]]
    else:
        cases = info.get("cases") or [{}]
        grid = info.get("grid") or {}
        case_paths = list(dict.fromkeys(p for c in cases for p in c))
        points = [{**{p: c.get(p, "") for p in case_paths}, **g}
                  for c in cases for g in iter_points(grid)]

    def read(name: str) -> pd.DataFrame:
        p = d / f"{name}.parquet"
        if p.is_file():  # Parquet (the default) keeps the column types
            df = pd.read_parquet(p)
        else:
            p = d / f"{name}.csv"
            if not p.is_file() or p.stat().st_size <= 1:
                return pd.DataFrame()
            df = pd.read_csv(p, keep_default_na=False, na_values=["", "nan", "NaN"])
        if "point" in df.columns and len(points):
            for prm in params:
                if prm in df.columns:
                    df[prm] = pd.Series([points[int(i)].get(prm, "") for i in df["point"]],
                                        index=df.index, dtype=object)
        for col, dt in (dtypes.get(name) or {}).items():
            if col in df.columns and str(df[col].dtype) != dt:
                df[col] = df[col].astype(dt)  # type: ignore[call-overload]
            if dt == "object" and col in df.columns:  # a missing value came as None
                df[col] = df[col].where(df[col].notna(), None)
        return df

    return SweepResult(table=read("sweep"), summary=read("summary"), runs=read("runs"),
                       links=read("links"), params=params, metrics=metrics, store=store,
                       stats=stats, info=info)


# ---------------------------------------------------------------------------------------
# Paired comparison.


def _tidy(x: Any, what: str) -> pd.DataFrame:
    """``x`` as a tidy flow table (one row per run and flow)."""
    import pandas as pd

    from burstlab.api import Result
    from burstlab.sweep import SweepResult

    if isinstance(x, SweepResult):
        return x.table
    if isinstance(x, pd.DataFrame):
        return x
    runs = [x] if isinstance(x, Result) else list(x) if isinstance(x, Sequence) else None
    if runs is None or not all(isinstance(r, Result) for r in runs):
        raise TypeError(f"{what}: expected a SweepResult, a Result, a list of Results or "
                        f"a tidy DataFrame, got {type(x).__name__}")
    frames = [r.flows.assign(seed=r.seed, replication=int(r.meta["replication"]))
              for r in runs]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def compare(
    a: Any,
    b: Any,
    metrics: str | Sequence[str] = "goodput_bps",
    *,
    by: Sequence[str] | None = None,
    level: float = 0.95,
) -> pd.DataFrame:
    """Paired differences and ratios of ``a`` against ``b`` under common random numbers.

    Runs of ``a`` and ``b`` with the same seed and replication index draw the same
    random numbers, so their difference has far less noise than the difference of two
    independent means. Each flow of each such pair of runs is one pair.

    Args:
        a, b: a :class:`burstlab.SweepResult`, a :class:`burstlab.Result`, a list of
            Results, or a tidy flow table (``sw.table``, :meth:`SweepResult.case`).
        metrics: flow columns to compare (``goodput_bps``, ``td_events``, …).
        by: further columns that must match within a pair (the swept parameters both
            share); default: the swept parameters of ``a`` that ``b`` has with the same
            values (a grid both were run over).
        level: the intervals' confidence level.

    Returns:
        One row per (``by`` values, flow, metric): ``n_pairs``, ``a_mean``, ``b_mean``,
        ``diff`` = mean of a − b with its paired Student-t interval ``diff_ci_lo`` /
        ``diff_ci_hi``, and ``ratio`` = mean(a) / mean(b) with ``ratio_ci_lo`` /
        ``ratio_ci_hi`` (the paired log ratios' interval mapped back; positive pairs
        only). One pair gives no interval (NaN). Units: those of the metric (the ratio
        has none).

    Raises:
        ValueError: no pairs (``a`` and ``b`` were not run with the same seeds), a
            missing column, or several rows of one side per pair (another parameter
            varies: add it to ``by`` or filter).

    CUBIC against Reno, four pairs of 20 s runs sharing their random numbers:

    >>> spec = burstlab.load_scenario("examples/single_flow.toml")
    >>> spec["sim"]["duration"] = "20s"
    >>> sw = burstlab.sweep(spec, cases=[{"flow.0.variant": "reno"},
    ...                                  {"flow.0.variant": "sack", "flow.0.cc": "cubic"}],
    ...                     replications=4, executor="serial", progress=False)
    >>> c = compare(sw.case(1), sw.case(0))
    >>> c[["metric", "n_pairs", "ratio", "ratio_ci_lo", "ratio_ci_hi"]].round(2)
            metric  n_pairs  ratio  ratio_ci_lo  ratio_ci_hi
    0  goodput_bps        4   1.34         1.07         1.69
    """
    import pandas as pd

    from burstlab.reproduce.verdict import paired_difference, paired_ratio

    ta, tb = _tidy(a, "a"), _tidy(b, "b")
    ms = [metrics] if isinstance(metrics, str) else list(metrics)
    if by is None:
        by = [p for p in ta.attrs.get("params", getattr(a, "params", []))
              if p in ta.columns and p in tb.columns
              and set(map(repr, ta[p].unique())) == set(map(repr, tb[p].unique()))]
    keys = [*PAIR_KEYS, *by]
    for side, t in (("a", ta), ("b", tb)):
        missing = [c for c in [*keys, *ms] if c not in t.columns]
        if missing:
            raise ValueError(f"{side}: no column {', '.join(map(repr, missing))} (columns: "
                             f"{', '.join(map(str, t.columns[:15]))}, …)")
        if t.duplicated(keys).any():
            raise ValueError(f"{side}: several rows per ({', '.join(keys)}): another "
                             "parameter varies; give it in by= or select one value")
    extra = ["name"] if "name" in ta.columns else []
    m = ta[[*keys, *extra, *ms]].merge(tb[[*keys, *ms]], on=keys, suffixes=("_a", "_b"))
    if m.empty:
        raise ValueError("no pairs: a and b share no (seed, replication, flow); compare runs "
                         "made with the same seeds and replication indices")
    rows = []
    group = [*by, "flow"]
    for key, g in m.groupby(group, sort=False, dropna=False):
        kv = dict(zip(group, key if isinstance(key, tuple) else (key,), strict=True))
        for metric in ms:
            xa = pd.to_numeric(g[f"{metric}_a"], errors="coerce").to_numpy(dtype=float)
            xb = pd.to_numeric(g[f"{metric}_b"], errors="coerce").to_numpy(dtype=float)
            d = paired_difference(xa, xb, level=level)
            r = paired_ratio(xa, xb, level=level)
            rows.append({**kv, **({"name": g["name"].iloc[0]} if extra else {}),
                         "metric": metric, "n_pairs": len(g),
                         "a_mean": float(xa.mean()), "b_mean": float(xb.mean()),
                         "diff": d.estimate, "diff_ci_lo": d.lo, "diff_ci_hi": d.hi,
                         "ratio": r.estimate, "ratio_ci_lo": r.lo, "ratio_ci_hi": r.hi})
    return pd.DataFrame(rows)
