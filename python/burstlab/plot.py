"""Figures from sweep tables: a metric against one swept parameter, one line per value of
another, error bars = 95 % confidence intervals of the mean over replications.

    burstlab plot out/sweep --x obs.tb --by link.1.loss_ab --logx --out tput.svg

The input is a sweep output directory (``sweep.parquet`` or ``sweep.csv`` and
``sweep.json``, written by ``burstlab sweep --out``), a tidy ``sweep.csv`` (summarised here with
:func:`burstlab.stats.summarise`) or a ``summary.csv``. Parameters swept as unit strings
(``"10ms"``) are plotted on their SI column (``obs.tb [s]``). Axis labels carry units,
taken from the column suffix (``_bps`` → b/s, scaled to kb/s, Mb/s or Gb/s; ``_segps`` →
segments/s; ``_s`` → s). The format follows the output file's extension (PNG, SVG, PDF).
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from burstlab.stats import non_negative, summarise

_UNITS = [("_segps", "segments/s"), ("_bps", "b/s"), ("_segments", "segments"),
          ("_bytes", "B"), ("_s", "s")]


def error_bars(mean: Any, lo: Any, hi: Any, *, lower: float | None = None,
               upper: float | None = None) -> np.ndarray:
    """The ``yerr`` array (2 × n, distances below and above ``mean``) of 95 % intervals
    ``[lo, hi]`` cut to the quantity's range ``[lower, upper]`` (``lower=0`` for a
    goodput, ``[0, 1]`` for a probability), as :func:`burstlab.reproduce.verdict.
    summary_interval` cuts them for the verdicts. A missing interval draws no bar.

    >>> error_bars([5.0, 5.0], [4.0, -1.0], [6.0, 7.0], lower=0)   # the second bar stops at 0
    array([[1., 5.],
           [1., 2.]])
    """
    m = np.asarray(mean, dtype=float)
    a = np.asarray(lo, dtype=float)
    b = np.asarray(hi, dtype=float)
    if lower is not None:
        a, b = np.maximum(a, lower), np.maximum(b, lower)
    if upper is not None:
        a, b = np.minimum(a, upper), np.minimum(b, upper)
    err = np.vstack([m - a, b - m])
    return np.nan_to_num(np.maximum(err, 0.0))


def load(path: str | os.PathLike[str]) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Reads a sweep directory or its table file (``sweep.parquet``, ``sweep.csv``, a
    summary); returns (table, info from sweep.json or {}).

    >>> spec = burstlab.load_scenario("examples/single_flow.toml")
    >>> spec["sim"]["duration"] = "10s"
    >>> sw = burstlab.sweep(spec, {"link.1.loss_ab": [1e-3, 1e-2]}, replications=2,
    ...                     executor="serial", progress=False)
    >>> import tempfile
    >>> out = tempfile.mkdtemp()
    >>> _ = sw.to_dir(out)
    >>> df, info = load(out)
    >>> len(df), info["params"], "goodput_bps" in df.columns
    (4, ['link.1.loss_ab'], True)
    """
    p = Path(path)
    info: dict[str, Any] = {}
    if p.is_dir():
        if (p / "sweep.json").is_file():
            info = json.loads((p / "sweep.json").read_text(encoding="utf-8"))
        # Parquet, the default; CSV written with --format csv.
        p = p / "sweep.parquet" if (p / "sweep.parquet").is_file() else p / "sweep.csv"
    elif (p.parent / "sweep.json").is_file():
        info = json.loads((p.parent / "sweep.json").read_text(encoding="utf-8"))
    if not p.is_file():
        raise ValueError(f"no sweep table at {p}")
    if p.suffix == ".parquet":
        df = pd.read_parquet(p)
    else:
        df = pd.read_csv(p)
    return df, info


@functools.cache
def _shown_figure() -> type:
    """A matplotlib Figure that Jupyter shows as its image without pyplot (a bare
    Figure otherwise shows as the text ``<Figure size …>``)."""
    from matplotlib.figure import Figure

    class ShownFigure(Figure):
        def _repr_png_(self) -> bytes:
            import io

            buf = io.BytesIO()
            self.savefig(buf, format="png", dpi=100)
            return buf.getvalue()

    return ShownFigure


def new_figure(**kw: Any) -> Any:
    """A :class:`matplotlib.figure.Figure` (without pyplot) that shows in Jupyter.

    >>> fig = new_figure(figsize=(4, 3))
    >>> ax = fig.add_subplot()
    >>> fig.get_size_inches().tolist()
    [4.0, 3.0]
    """
    return _shown_figure()(**kw)


def _safe_name(text: str) -> str:
    """``text`` reduced to letters, digits, ``.``, ``_`` and ``-`` (other runs become
    ``_``; no leading dots), for file names built from table columns."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", str(text)).lstrip(".")
    return name[:100] or "param"


def _metric_label(metric: str, values: np.ndarray) -> tuple[str, float]:
    """Axis label with unit, and the factor to divide values by."""
    for suffix, unit in _UNITS:
        if metric.endswith(suffix):
            name = metric[: -len(suffix)].replace("_", " ")
            if unit == "b/s":
                top = float(np.nanmax(np.abs(values))) if values.size else 0.0
                for pfx, f in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
                    if top >= f:
                        return f"{name} [{pfx}b/s]", f
            return f"{name} [{unit}]", 1.0
    return metric.replace("_", " "), 1.0


def _si_column(df: pd.DataFrame, param: str) -> str | None:
    """``"obs.tb [s]"`` for ``"obs.tb"`` if the table has it."""
    return next((c for c in df.columns if isinstance(c, str) and c.startswith(f"{param} [")),
                None)


def _matches(col: pd.Series, value: str) -> pd.Series:
    as_text = col.astype(str) == value
    try:
        x = float(value)
    except ValueError:
        return as_text
    num = pd.to_numeric(col, errors="coerce")
    return as_text | np.isclose(num.to_numpy(dtype=float), x, rtol=1e-9, atol=0.0)


def figure(
    data: pd.DataFrame,
    *,
    x: str,
    y: str = "goodput_bps",
    by: str | None = None,
    flow: str | None = None,
    where: Mapping[str, str] | None = None,
    logx: bool = False,
    logy: bool = False,
    title: str | None = None,
) -> Any:
    """Builds the figure (a :class:`matplotlib.figure.Figure`) of ``y`` against ``x``.

    Args:
        data: a tidy sweep table (one row per run and flow) or a summary table.
        x: the parameter on the horizontal axis (a swept path).
        y: the metric (a flow column, e.g. ``goodput_bps``, ``goodput_segps``).
        by: a parameter drawn as one line per value.
        flow: keep one flow (its index or name); by default one line per flow.
        where: ``{path: value}`` filters for the other swept parameters.

    Example (``sw`` as in :func:`burstlab.sweep.sweep`):

    >>> spec = burstlab.load_scenario("examples/single_flow.toml")
    >>> spec["sim"]["duration"] = "10s"
    >>> sw = burstlab.sweep(spec, {"link.1.loss_ab": [1e-3, 1e-2]}, replications=2,
    ...                     executor="serial", progress=False)
    >>> fig = figure(sw.table, x="link.1.loss_ab", y="goodput_segps")
    >>> ax = fig.axes[0]
    >>> ax.get_xlabel(), ax.get_ylabel(), len(ax.lines)
    ('link.1.loss_ab', 'goodput [segments/s]', 3)

    Raises:
        ValueError: a column is missing, or several rows fall on one point of a line
            (another parameter varies: fix it with ``where``).
    """
    df = data
    for col in [x, *([by] if by else []), *(where or {})]:
        if col not in df.columns:
            raise ValueError(f"no column {col!r} in the sweep table "
                             f"(columns: {', '.join(map(str, df.columns[:12]))}, …)")
    for k, v in (where or {}).items():
        df = df[_matches(df[k], v)]
    if flow is not None:
        sel = _matches(df["flow"], flow) | (df["name"].astype(str) == flow)
        df = df[sel]
    if df.empty:
        raise ValueError("no rows left to plot (check --flow / --where)")

    keys = [c for c in [by, "flow", "name"] if c and c in df.columns]
    si = _si_column(df, x)
    by_si = _si_column(df, by) if by else None
    xcol = si or x
    several = ValueError(f"several sweep points per ({', '.join(keys + [x])}): another "
                         "parameter varies; select one value with --where path=value")
    if f"{y}_mean" not in df.columns:
        if y not in df.columns:
            raise ValueError(f"no metric {y!r} in the sweep table")
        if "point" in df.columns and df.groupby([*keys, x])["point"].nunique().gt(1).any():
            raise several
        extra = [c for c in (si, by_si) if c]
        # a non-negative metric's interval is cut at 0, as in the sweep's summary.csv
        df = summarise(df, [*keys, x, *extra], [y], lower=non_negative(df, [y]))
    if by_si:  # lines in numeric order of their unit-string values
        df = df.sort_values(by_si, kind="stable")
    dup = df.duplicated([*keys, xcol])
    if dup.any():
        raise several

    ylabel, scale = _metric_label(y, df[f"{y}_mean"].to_numpy(dtype=float))
    categorical = not pd.api.types.is_numeric_dtype(df[xcol])
    cats = list(dict.fromkeys(df[xcol].astype(str))) if categorical else []
    fig = new_figure(figsize=(7, 4.5))
    ax = fig.add_subplot()
    n_flows = df["flow"].nunique() if "flow" in df.columns else 1
    groups = df.groupby(keys, sort=not by_si, dropna=False) if keys else [((), df)]
    for key, g in groups:
        key_t = key if isinstance(key, tuple) else (key,)
        kv = dict(zip(keys, key_t, strict=True))
        g = g.sort_values(xcol) if not categorical else g
        xs = (np.array([cats.index(str(v)) for v in g[xcol]], dtype=float) if categorical
              else g[xcol].to_numpy(dtype=float))
        mean = g[f"{y}_mean"].to_numpy(dtype=float) / scale
        lo = g[f"{y}_ci_lo"].to_numpy(dtype=float) / scale
        hi = g[f"{y}_ci_hi"].to_numpy(dtype=float) / scale
        err = error_bars(mean, lo, hi)  # the summary cut non-negative metrics at 0
        parts = []
        if by:
            val = kv[by]
            parts.append(f"{by} = {val:.4g}" if isinstance(val, float) else f"{by} = {val}")
        if n_flows > 1:
            parts.append(f"flow {kv.get('name', kv.get('flow'))}")
        ax.errorbar(xs, mean, yerr=err, marker="o", ms=3.5, lw=1.2, capsize=3,
                    label=", ".join(parts) or None)
    if categorical:
        ax.set_xticks(range(len(cats)), cats)
    if logx and not categorical:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xcol)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)
    if by or n_flows > 1:
        ax.legend(fontsize=8)
    if title is None:
        n_lo, n_hi = (int(df["n"].min()), int(df["n"].max())) if "n" in df.columns else (0, 0)
        runs = f"{n_lo}" if n_lo == n_hi else f"{n_lo}–{n_hi}"
        title = f"{ylabel.split(' [')[0]} vs {x}  (mean of {runs} runs, 95 % CI)"
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def plot_sweep(
    path: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
    *,
    x: str | None = None,
    y: str = "goodput_bps",
    by: str | None = None,
    flow: str | None = None,
    where: Mapping[str, str] | None = None,
    logx: bool = False,
    logy: bool = False,
    title: str | None = None,
) -> Path:
    """Reads a sweep (see :func:`load`), draws :func:`figure` and saves it.

    ``x`` defaults to the first swept parameter and ``by`` to the second (from
    ``sweep.json``); ``out`` defaults to ``<y>_vs_<x>.png`` next to the table.

    >>> spec = burstlab.load_scenario("examples/single_flow.toml")
    >>> spec["sim"]["duration"] = "10s"
    >>> sw = burstlab.sweep(spec, {"link.1.loss_ab": [1e-3, 1e-2]}, replications=2,
    ...                     executor="serial", progress=False)
    >>> import tempfile
    >>> out = tempfile.mkdtemp()
    >>> _ = sw.to_dir(out)
    >>> plot_sweep(out, logx=True).name
    'goodput_bps_vs_link.1.loss_ab.png'
    """
    df, info = load(path)
    params: Sequence[str] = info.get("params", [])
    if x is None:
        if not params:
            raise ValueError("give --x (no sweep.json to take the swept parameters from)")
        x = params[0]
        if by is None and len(params) > 1:
            by = params[1]
    fig = figure(df, x=x, y=y, by=by, flow=flow, where=where, logx=logx, logy=logy,
                 title=title)
    if out is None:
        # x and y may come from sweep.json, which is data, not a trusted file name: keep
        # only safe characters so the figure is always written inside the sweep folder.
        base = Path(path) if Path(path).is_dir() else Path(path).parent
        out = base / f"{_safe_name(y)}_vs_{_safe_name(x)}.png"
    outp = Path(out)
    if outp.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise ValueError(f"output {outp}: use a .png, .svg or .pdf file name")
    outp.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(outp, dpi=150)
    return outp


# ---------------------------------------------------------------------------------------
# The plots of a run and of a sweep in memory (matplotlib figures, without pyplot: they
# show in Jupyter and save with ``fig.savefig``): Result.plot_cwnd, SweepResult.plot.


def plot_cwnd(res: Any, flows: Sequence[int] | None = None, *,
              ssthresh: bool = False) -> Any:
    """The congestion window of each flow (or of ``flows``) against time, from the
    run's cwnd trace (``sim.trace.cwnd = true``).

    >>> spec = burstlab.load_scenario("examples/single_flow.toml")
    >>> spec["sim"].update(duration="20s", trace={"cwnd": True})
    >>> fig = plot_cwnd(burstlab.run(spec, seed=3), ssthresh=True)
    >>> [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    ['flow 0', 'flow 0 ssthresh']
    """
    if "cwnd_trace" not in res.tables or res._is_empty("cwnd_trace"):
        raise ValueError("the run has no cwnd trace: set sim.trace.cwnd = true "
                         "(burstlab run --set sim.trace.cwnd=true)")
    t = res.cwnd
    fig = new_figure(figsize=(7, 4))
    ax = fig.add_subplot()
    for f, g in t.groupby("flow", sort=True):
        if flows is not None and f not in flows:
            continue
        line = ax.step(g["time_s"], g["cwnd_segments"], where="post", lw=1,
                       label=f"flow {f}")[0]
        if ssthresh and "ssthresh_segments" in g.columns:
            ax.step(g["time_s"], g["ssthresh_segments"], where="post", lw=0.8, ls="--",
                    color=line.get_color(), label=f"flow {f} ssthresh")
    ax.set_xlabel("time [s]")
    ax.set_ylabel("cwnd [segments]")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    ax.set_title(f"{res.meta.get('scenario')}: cwnd (seed {res.seed})", fontsize=10)
    fig.tight_layout()
    return fig


def log_spaced(values: Sequence[float]) -> bool:
    """Whether a grid axis's values look log-spaced (``a..b:log:n``): three or more
    positive values spanning at least a factor 10, with equal ratios.

    >>> log_spaced([1e-3, 1e-2, 1e-1]), log_spaced([1.0, 2.0, 3.0])
    (True, False)
    """
    x = np.sort(np.asarray([v for v in values if v == v], dtype=float))
    if len(x) < 3 or x[0] <= 0 or x[-1] / x[0] < 10:
        return False
    r = np.diff(np.log(x))
    return bool(np.allclose(r, r[0], rtol=1e-6))


def plot_sweep_result(sw: Any, metric: str = "goodput_bps", *, x: str | None = None,
               by: str | None = None, flow: str | int | None = None,
               where: Mapping[str, Any] | None = None, xscale: str | None = None,
               yscale: str = "linear", title: str | None = None) -> Any:
    """``metric`` (mean and 95 % interval per point) against the swept parameter ``x``
    (default: the first grid axis), one line per value of ``by`` (default: the second
    axis, else the first path the cases set). ``xscale``
    ``"log"`` or ``"linear"``; by default log when the axis was a log grid
    (``a..b:log:n``).

    >>> spec = burstlab.load_scenario("examples/single_flow.toml")
    >>> spec["sim"]["duration"] = "10s"
    >>> sw = burstlab.sweep(spec, {"link.1.loss_ab": "1e-3..1e-1:log:3"}, replications=2,
    ...                     executor="serial", progress=False)
    >>> fig = plot_sweep_result(sw, "goodput_segps")   # as sw.plot("goodput_segps")
    >>> fig.axes[0].get_xscale()                       # from the log grid
    'log'
    """
    for name, v in (("xscale", xscale), ("yscale", yscale)):
        if v not in (None, "log", "linear"):
            raise ValueError(f"{name}: 'log' or 'linear', got {v!r}")
    # The grid's axes first (a sweep with cases= lists the cases' paths before them).
    grid = [p for p in (sw.info.get("grid") or {}) if p in sw.params] or list(sw.params)
    cases = [p for p in sw.params if p not in grid]
    if x is None:
        if not grid:
            raise ValueError("x: the sweep has no swept parameter")
        x = grid[0]
        if by is None:
            rest = [*grid[1:], *cases]
            by = rest[0] if rest else None
    if xscale is None:
        si = next((c for c in sw.table.columns if str(c).startswith(f"{x} [")), x)
        xs: list[float] = []
        if si in sw.table.columns:
            xs = list(pd.to_numeric(sw.table[si], errors="coerce").dropna().unique())
        xscale = "log" if log_spaced(xs) else "linear"
    return figure(sw.table, x=x, y=metric, by=by,
                  flow=None if flow is None else str(flow),
                  where={k: str(v) for k, v in (where or {}).items()},
                  logx=xscale == "log", logy=yscale == "log", title=title)
