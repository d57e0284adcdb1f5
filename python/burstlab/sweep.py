"""Parameter sweeps: many runs of one scenario over a grid, in parallel, resumable.

    >>> import burstlab
    >>> res = burstlab.sweep("examples/single_flow.toml",
    ...                      grid={"link.1.loss_ab": "1e-4..1e-1:log:4",
    ...                            "flow.0.variant": "reno,newreno,sack"},
    ...                      replications=5, store="out/sweep.sqlite")
    >>> res.summary[["link.1.loss_ab", "flow.0.variant", "goodput_bps_mean", "n"]]

Read in this order: :func:`sweep` (the entry point), :class:`Store` (what is kept on
disk and how a run is identified; :mod:`burstlab.sweep_store`), the workers and
executors (``execute``, ``_iter_local``, ``_iter_dask``, ``_iter_serial``;
:mod:`burstlab.sweep_exec`), then :func:`_assemble` (the tables). Grid syntax is in
:mod:`burstlab.grid`, the statistics in :mod:`burstlab.stats`, completion times in
:mod:`burstlab.sweep_fct`, the command line in :mod:`burstlab.sweep_cli`. The names of
the store and executor modules stay importable from here.

**Runs and seeds.** A *point* is one combination of grid values applied to the base
scenario (:func:`burstlab.grid.apply`). Every point runs ``replications`` times; run ``r``
uses the base seed (``seed=``, else the scenario's ``sim.seed``, else 1) and replication
index ``r``, from which the core derives its independent random substreams; a swept
``sim.seed`` sets the base seed of its points. Seed and replication are written into
every output row. Sweeps drop ``sim.trace``: observation never changes
results, and traces would only cost memory.

**The store.** Every finished run is written, by the parent process only, to an SQLite
database in WAL mode, one transaction per run. SQLite because a committed transaction
is atomic and durable against the writer being killed at any instant (SIGKILL, Ctrl-C,
an out-of-memory kill): the journal is replayed or discarded on the next open, so the file
is never left half-written — which a CSV or Parquet file being appended to cannot promise
— and because ``sqlite3`` is in the standard library, so resumability costs no
dependency. WAL mode lets a reader (a notebook looking at partial results) open the
store while a sweep writes; ``synchronous=NORMAL`` keeps a commit cheap (no fsync per
run) and still survives a killed process (only a power loss may drop the last commits,
never corrupt the file). A run is keyed by the SHA-256 of the canonical JSON of
``(scenario of the point, seed, replication, burstlab version, core identity)``, so
re-running a sweep — or a different sweep that shares points — skips every run already in
the store, and a new burstlab version or a new core recomputes everything. The core's
identity (:func:`burstlab._core.core_identity`) hashes the core's source and locked
dependencies: any change of them, a refactor included, makes new keys, so a run is
reused only by the core that made it (docs/topics/settled-runs.md, "Records proven
current"). Rows stored before keys held the identity stay in the file and are never
reused; a sweep that meets them says so. Killing a sweep loses at most the runs in flight.

**Failures.** A run that raises (a :class:`burstlab.ScenarioError` from an invalid grid
value, a panic in the core, a worker that died) is stored with ``status = 'error'`` and
its error text; the sweep goes on. A worker process that dies (a crash, an OOM kill)
breaks the process pool and every run then in flight; the local executor reruns those
one at a time on fresh pools and stores only the run that kills its worker alone, as
``WorkerDied``. Failed runs are not retried on resume unless
``retry_errors=True`` (errors are deterministic, except for a dead worker).

**Executors.** ``"local"`` (default): a :class:`concurrent.futures.ProcessPoolExecutor`
with ``jobs`` workers (default: all usable cores); ``"dask"``: a Dask ``distributed``
cluster at ``scheduler`` (``tcp://host:8786``), or a ``LocalCluster`` with ``jobs``
workers when no scheduler is given — install ``burstlab[dask]``, and burstlab itself on
every worker; ``"serial"``: in this process, for debugging. At most ``4 × jobs`` runs are
in flight at a time, so memory stays flat for large grids.
"""

from __future__ import annotations

import copy
import inspect
import json
import math
import os
import sys
import time
import types
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack, closing
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

import pandas as pd

from burstlab import _core
from burstlab._progress import in_jupyter
from burstlab.api import Result, ScenarioLike, as_int, load_scenario, plain
from burstlab.grid import (
    GridError,
    Value,
    apply,
    check_cases,
    iter_points,
    normalise_grid,
    numeric_values,
)
from burstlab.stats import non_negative, summarise
from burstlab.sweep_exec import _EXECUTOR_FNS, Task, _SigtermAsInterrupt
from burstlab.sweep_exec import EXECUTORS as EXECUTORS
from burstlab.sweep_exec import Outcomes as Outcomes
from burstlab.sweep_exec import _iter_local as _iter_local
from burstlab.sweep_exec import execute as execute
from burstlab.sweep_store import SCHEMA_VERSION as SCHEMA_VERSION
from burstlab.sweep_store import NotStored, Store, _count_stored, _legacy_note, canonical_json, run_key
from burstlab.sweep_store import StoreError as StoreError
from burstlab.sweep_store import row_checksum as row_checksum

#: The most runs one sweep may hold (its tasks and rows live in memory).
MAX_RUNS = 1_000_000

#: Worker processes per usable core above which a sweep warns that it oversubscribes.
OVERSUBSCRIBED = 2

#: Flow-table columns that identify or configure a flow rather than measure it.
ID_COLUMNS = ("flow", "name", "kind", "variant", "cc", "profile", "src", "dst", "mss_bytes",
              "wm_segments", "b", "measured_s")


# ---------------------------------------------------------------------------------------
# Progress.


class Progress:
    """The sweep's progress bar with ETA on stderr (tqdm), or nothing when disabled.

    On a terminal it is redrawn at most 10×/s; when stderr is not a terminal, at most
    every 10 s."""

    FORMAT = "{desc} [{bar:24}] {n_fmt}/{total_fmt} runs {percentage:3.0f}%{postfix}  " \
             "elapsed {elapsed}  "

    def __init__(self, total: int, cached: int, stream: TextIO | None = None,
                 enabled: bool = True) -> None:
        from tqdm import tqdm

        self.total, self.cached, self.failed = total, cached, 0
        self.stream = stream or sys.stderr
        self.enabled = enabled
        tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.bar: Any = None
        if enabled and total:
            out: Any = self.stream if tty else _Lines(self.stream)
            make: Any = tqdm
            if stream is None and in_jupyter():  # a widget, not a line every 10 s
                import importlib

                make = importlib.import_module("tqdm.auto").tqdm
                out, tty = self.stream, True
            self.bar = make(total=total, file=out, desc="sweep", ascii=".#",
                            mininterval=0.1 if tty else 10.0, dynamic_ncols=False,
                            bar_format=self.FORMAT + "ETA {remaining}", leave=True)
            self._postfix()

    def _postfix(self) -> None:
        parts = [f"{self.cached} cached"] if self.cached else []
        if self.failed:
            parts.append(f"{self.failed} failed")
        self.bar.set_postfix_str(("  " + "  ".join(parts)) if parts else "", refresh=False)

    def update(self, ok: bool) -> None:
        if self.bar is None:
            return
        if not ok:
            self.failed += 1
            self._postfix()
        self.bar.update(1)

    def close(self) -> None:
        """Ends the bar (also after an interruption)."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def draw(self, final: bool = False) -> None:
        """Redraws; ``final`` marks the bar done and closes it."""
        if not self.enabled or not final:
            return
        if self.bar is None:
            if not self.total:
                self.stream.write(f"sweep: nothing to run, {self.cached} cached  done\n")
                self.stream.flush()
            return
        self.bar.bar_format = self.FORMAT + "done"
        self.close()  # tqdm draws the final state as it closes


class _Lines:
    """A stream for tqdm when stderr is a file or pipe: each redraw becomes one line
    (tqdm redraws in place with carriage returns, which a log file shows as one long
    line)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, s: str) -> None:
        line = s.replace("\r", "").rstrip()
        if line:
            self.stream.write(line + "\n")

    def flush(self) -> None:
        self.stream.flush()


# ---------------------------------------------------------------------------------------
# The result.


@dataclass(repr=False)
class SweepResult:
    """The tables of a sweep.

    Attributes:
        table: tidy, one row per (point, replication, flow) of the successful runs:
            ``point`` (index in grid order), one column per swept path (the value as
            given to the scenario), ``<path> [unit]`` with SI numbers for axes of unit
            strings, ``seed``, ``replication``, ``burstlab_version``, then the columns of
            :attr:`burstlab.Result.flows`; OBS runs add ``segments_per_burst`` (yu's S),
            ``data_bursts``, ``data_bursts_lost`` and ``burst_loss_prob`` (the flow's
            data bursts lost per data burst sent) from :attr:`burstlab.Result.obs_flows`.
        summary: one row per (point, flow): ``n`` and, per metric ``m``, ``m_mean``,
            ``m_std``, ``m_ci_lo``, ``m_ci_hi`` (95 % Student-t interval) and ``m_n``.
        runs: one row per run (successful or not): parameters, seed, replication,
            ``status``, ``error``, ``wall_s`` (time inside the worker), ``host``, ``key``.
        links: like ``table`` for :attr:`burstlab.Result.links`.
        params: the swept paths, in grid order.
        metrics: the summarised flow columns.
        stats: counts and timings of this call (``total``, ``cached``, ``ran``,
            ``failed``, ``wall_s``, ``executor``, ``jobs``).
        fct, fct_summary: completion times of the finite TCP flows (empty without
            any): per run, workload (``*``: all) and flow-size bin (``all``: every
            size) the run's FCT mean and percentiles, slowdowns, completed fraction and
            Jain's index, and their means and 95 % intervals across replications per
            point (:mod:`burstlab.sweep_fct`).
        kept: with ``keep_traces=True``, every successful run as a
            :class:`burstlab.Result` (traces included), keyed by (point, replication);
            use :meth:`result`. A sweep whose stored rows exceed
            :data:`KEPT_TRACE_BYTES` holds none: each run is read from the store file
            when asked for.

    >>> spec = burstlab.load_scenario("examples/single_flow.toml")
    >>> spec["sim"]["duration"] = "10s"
    >>> sw = burstlab.sweep(spec, {"link.1.loss_ab": [1e-3, 1e-2]}, replications=2,
    ...                     executor="serial", progress=False)
    >>> sw
    <burstlab SweepResult: 2 rows of summary, 4 runs (0 failed), swept link.1.loss_ab; store :memory:>
    >>> len(sw.table), sw.params, len(sw.errors)
    (4, ['link.1.loss_ab'], 0)
    >>> fig = sw.plot("goodput_segps")              # burstlab.plot.plot_sweep_result
    """

    table: pd.DataFrame
    summary: pd.DataFrame
    runs: pd.DataFrame
    links: pd.DataFrame
    params: list[str]
    metrics: list[str]
    store: Path
    stats: dict[str, Any] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)
    kept: Mapping[tuple[int, int], Result] = field(default_factory=dict)
    fct: pd.DataFrame = field(default_factory=pd.DataFrame)
    fct_summary: pd.DataFrame = field(default_factory=pd.DataFrame)

    def result(self, point: int, replication: int = 0) -> Result:
        """One run of a sweep made with ``keep_traces=True``, as a :class:`Result`."""
        try:
            return self.kept[(point, replication)]
        except KeyError:
            raise KeyError(f"run (point {point}, replication {replication}) was not kept: "
                           "sweep with keep_traces=True") from None

    def __repr__(self) -> str:
        """One line: the sweep's size, what it swept and where its runs are kept (the
        tables are its attributes; Jupyter shows the summary table)."""
        params = ", ".join(self.params[:4]) + (", …" if len(self.params) > 4 else "")
        return (f"<burstlab SweepResult: {len(self.summary)} rows of summary, "
                f"{self.stats.get('total', len(self.runs))} runs "
                f"({len(self.errors) if len(self.runs) else 0} failed), "
                f"swept {params or 'nothing'}; store {self.store}>")

    def _repr_html_(self) -> str:
        """Jupyter: the summary table (and failures, if any) as HTML."""
        head = (f"<p><b>SweepResult</b>: {len(self.summary)} points, "
                f"{self.stats.get('total', len(self.runs))} runs "
                f"({self.stats.get('cached', 0)} from the store, "
                f"{len(self.errors)} failed); store <code>{self.store}</code></p>")
        cols = [c for c in self.summary.columns
                if not c.endswith(("_std", "_ci_lo", "_ci_hi", "_n"))]
        return (head + "<p>means per point (<code>.summary</code> has std and 95 % CIs)</p>"
                + self.summary[cols].to_html(max_rows=60, border=0))

    def case(self, i: int) -> pd.DataFrame:
        """The tidy rows of case ``i`` of a sweep run with ``cases=`` (for
        :func:`burstlab.compare`: ``compare(sw.case(1), sw.case(0))``)."""
        cases = self.info.get("cases") or []
        if not 0 <= i < len(cases):
            raise IndexError(f"case {i}: the sweep has {len(cases)} case(s)")
        sel = pd.Series(True, index=self.table.index)
        for path in {p for c in cases for p in c}:
            want = cases[i].get(path, "")
            sel &= self.table[path].map(repr) == repr(want)
        out = self.table[sel].reset_index(drop=True)
        out.attrs["params"] = list(self.info.get("grid") or {})
        return out

    def plot(self, metric: str = "goodput_bps", **kw: Any) -> Any:
        """A figure of ``metric`` against a swept parameter with 95 % intervals (``x``,
        ``by``, ``flow``, ``where``, ``xscale``, ``yscale``, ``title``: see
        :func:`burstlab.plot.plot_sweep_result`)."""
        from burstlab.plot import plot_sweep_result

        return plot_sweep_result(self, metric, **kw)

    @property
    def errors(self) -> pd.DataFrame:
        """The failed runs (parameters, seed, replication, error)."""
        return self.runs[self.runs["status"] == "error"].reset_index(drop=True)

    def to_dir(self, out: str | os.PathLike[str], format: str = "parquet") -> list[Path]:
        """Writes ``sweep`` (the tidy table), ``summary``, ``runs``, ``links``, ``fct``
        and ``fct_summary`` (with finite flows) as ``.parquet`` files (the default) or
        ``.csv`` (``format="csv"``), and ``sweep.json`` (grid, parameters, metrics,
        counts) into ``out``; :func:`burstlab.load` reads either back."""
        from burstlab.api import check_format

        check_format(format)
        d = Path(out)
        d.mkdir(parents=True, exist_ok=True)
        written = []
        tables = [("sweep", self.table), ("summary", self.summary), ("runs", self.runs),
                  ("links", self.links)]
        if len(self.fct):  # finite flows: their completion times (sweep_fct.py)
            tables += [("fct", self.fct), ("fct_summary", self.fct_summary)]
        for name, df in tables:
            p = d / f"{name}.{format}"
            if format == "csv":
                df.to_csv(p, index=False)
            else:
                _for_parquet(df).to_parquet(p, index=False)
            written.append(p)
        p = d / "sweep.json"
        doc = {**self.info, "params": self.params, "metrics": self.metrics, "format": format,
               "store": str(self.store), "stats": self.stats,
               # for burstlab.load: each column's type (a CSV cannot keep it)
               "dtypes": {name: {str(c): str(t) for c, t in df.dtypes.items()}
                          for name, df in (("sweep", self.table), ("summary", self.summary),
                                           ("runs", self.runs), ("links", self.links))}}
        p.write_text(json.dumps(doc, indent=2, default=str), encoding="utf-8")
        written.append(p)
        return written


def _for_parquet(df: pd.DataFrame) -> pd.DataFrame:
    # Parameter columns may mix types (1, "1ms"); Parquet wants one type per column.
    out = df.copy()
    for c in out.columns:
        if out[c].dtype == object and out[c].map(type).nunique() > 1:
            out[c] = out[c].astype(str)
    return out


# ---------------------------------------------------------------------------------------
# The entry point.


def sweep(
    base_scenario: ScenarioLike,
    grid: Mapping[str, Any] | None = None,
    *,
    cases: Sequence[Mapping[str, Any]] | None = None,
    replications: int = 1,
    store: str | os.PathLike[str] | None = None,
    executor: str = "local",
    jobs: int | None = None,
    scheduler: str | None = None,
    seed: int | None = None,
    progress: bool = True,
    retry_errors: bool = False,
) -> SweepResult:
    """Runs ``base_scenario`` at every point of ``grid``, ``replications`` times each.

    Args:
        base_scenario: a scenario file, TOML text or dict (as for :func:`burstlab.run`).
        grid: ``{path: spec}``; ``spec`` is a grid string (``"1us..100ms:log:13"``,
            ``"reno,newreno,sack"``, see :mod:`burstlab.grid`) or a list of literal values.
        cases: ``[{path: value, ...}, ...]``: configurations that are not a Cartesian
            product (``[{"flow.0.variant": "reno", "flow.0.cc": "aimd"},
            {"flow.0.variant": "sack", "flow.0.cc": "cubic"}]``); each case runs at
            every point of ``grid`` (if any), its paths become columns (``""`` where a
            case leaves a path unset). Every case uses the same seeds: runs of two
            cases with one replication index share their random numbers
            (:func:`burstlab.compare`).
        replications: runs per point; run ``r`` has replication index ``r``.
        store: SQLite file of finished runs (created if missing; reused to resume). With
            ``None`` a temporary in-memory store is used: nothing can be resumed.
        executor: ``"local"`` (process pool), ``"dask"`` or ``"serial"``.
        jobs: worker processes (default: usable cores). For ``"dask"`` with no scheduler,
            the number of LocalCluster workers.
        scheduler: a Dask scheduler address (``tcp://host:8786``); implies ``"dask"``.
        seed: base seed (default: the scenario's ``sim.seed``, else 1).
        progress: draw a progress bar with ETA on stderr.
        retry_errors: rerun runs stored as failed.

    Raises:
        ValueError: a malformed grid (naming the entry) or argument.
        ScenarioError: the base scenario cannot be read.

    >>> spec = burstlab.load_scenario("examples/single_flow.toml")
    >>> spec["sim"]["duration"] = "10s"
    >>> sw = burstlab.sweep(spec, {"link.1.loss_ab": [1e-3, 1e-2]}, replications=2,
    ...                     executor="serial", progress=False)
    >>> sw.summary[["link.1.loss_ab", "n", "goodput_segps_mean"]].round({"goodput_segps_mean": 1})
      link.1.loss_ab  n  goodput_segps_mean
    0          0.001  2               334.5
    1          0.010  2               115.9
    """
    t_start = time.perf_counter()
    if scheduler:
        if executor == "serial":
            raise ValueError("--scheduler needs the dask executor")
        executor = "dask"
    replications, jobs = _check_run_args(executor, replications, jobs)

    base = load_scenario(base_scenario)
    base = plain(base)  # plain JSON types (numpy scalars → numbers, TOML dates → str)
    sim = base.get("sim")
    if isinstance(sim, dict):
        sim.pop("trace", None)
        base_seed = sim.get("seed", 1) if seed is None else seed
    else:
        base_seed = 1 if seed is None else seed
    base_seed = _or_int(base_seed)
    if not isinstance(base_seed, int) or not 0 <= base_seed < 2**64:
        raise ValueError(f"seed must be a non-negative integer, got {base_seed!r}")

    axes = normalise_grid(grid or {})
    case_list, case_axes = check_cases(cases, axes)
    if not axes and not case_list:
        raise GridError("give a grid or cases: nothing to sweep")
    if "sim.replication" in {*axes, *case_axes}:
        raise GridError("grid entry 'sim.replication': use replications= (--reps) instead")
    n_runs = math.prod(len(v) for v in axes.values()) * replications * max(1, len(case_list))
    if n_runs > MAX_RUNS:
        sizes = " x ".join(f"{len(v)} ({k})" for k, v in axes.items())
        raise GridError(f"the grid has {sizes} points x {replications} replication(s) = "
                        f"{n_runs:,} runs, more than {MAX_RUNS:,}: split it into smaller "
                        "sweeps (they can share one --store)")
    # The seed and replication travel beside the scenario (and into the key); a swept
    # sim.seed is that point's base seed.
    for pt_seed in axes.get("sim.seed", []):
        if (not isinstance(pt_seed, int) or isinstance(pt_seed, bool)
                or not 0 <= pt_seed < 2**64):
            raise GridError(f"grid entry 'sim.seed': seeds must be non-negative integers, "
                            f"got {pt_seed!r}")

    def scenarios() -> Iterator[tuple[dict[str, Value], dict[str, Any], int]]:
        # Expanded lazily, one point at a time: each point's scenario becomes its
        # JSON text in _run_points and its dict is dropped at once.
        for case in case_list or [{}]:
            for gpt in iter_points(axes):
                pt = {**case, **gpt}
                label = {**{p: case.get(p, "") for p in case_axes}, **gpt}
                yield label, apply(base, pt), int(pt.get("sim.seed", base_seed))

    first = next(iter_points(axes), {})
    for case in case_list or [{}]:
        # a path that does not fit the scenario fails here, at once
        apply(base, {**case, **first})
    _check_axes(base, axes, {**(case_list[0] if case_list else {}), **first})
    _check_axes(base, {}, first, case_list)
    info = {"grid": {k: list(v) for k, v in axes.items()}, "replications": replications,
            "seed": base_seed, "burstlab_version": _core.__version__, "scenario": base}
    if case_list:
        info["cases"] = case_list
    all_axes = {**case_axes, **axes}
    return _run_points(scenarios(), list(all_axes), all_axes, info, replications=replications,
                       store=store, executor=executor, jobs=jobs, scheduler=scheduler,
                       progress=progress, retry_errors=retry_errors, t_start=t_start)


def _check_axes(base: Mapping[str, Any], axes: Mapping[str, Sequence[Value]],
                first: Mapping[str, Value],
                cases: Sequence[Mapping[str, Value]] = ()) -> None:
    """Validates every value of every grid entry before anything runs (each value with
    the other entries at the grid's first point) and warns on stderr, naming the entry,
    the value and the scenario's reason, about each value the scenario rejects — a
    non-integer for an integer setting, a negative rate. Those runs still go ahead and
    are recorded as failed (the other points finish), as for any failing run. Each of
    ``cases`` is checked the same way at the grid's first point.
    """
    checks: list[tuple[str, Any, dict[str, Value]]] = [
        (path, v, {**first, path: v}) for path, values in axes.items() for v in values]
    checks += [(f"cases[{i}]", c, {**c, **first}) for i, c in enumerate(cases)]
    for path, v, pt in checks:
        try:
            _core.validate(canonical_json(apply(base, pt)), "json")
        except ValueError as e:
            hint = ""
            if isinstance(v, float) and not v.is_integer() and "expected u" in str(e):
                hint = (" (the grid gives non-integers for an integer setting: choose "
                        "a..b:lin:n with (b - a)/(n - 1) whole, or list the values)")
            what = path if path.startswith("cases[") else f"grid entry '{path}' value {v!r}"
            print(f"burstlab: warning: {what} will fail: "
                  f"{e}{hint}", file=sys.stderr)


def sweep_points(
    scenarios: Sequence[tuple[Mapping[str, Value], ScenarioLike]],
    *,
    replications: int = 1,
    store: str | os.PathLike[str] | None = None,
    executor: str = "local",
    jobs: int | None = None,
    seed: int | None = None,
    progress: bool = True,
    retry_errors: bool = False,
    keep_traces: bool = False,
    scheduler: str | None = None,
    stored_only: bool = False,
) -> SweepResult:
    """Runs a list of ``(params, scenario)`` points, ``replications`` times each, like
    :func:`sweep` (same store, executors, progress bar and tables).

    Use it when the points are not a Cartesian product — e.g. when each point needs its
    own simulated duration. ``params`` (``{column: value}``) labels the point in the
    tables; every point should have the same keys. The scenarios are run as given (their
    ``sim.trace`` dropped unless ``keep_traces``); ``seed`` (default: each scenario's
    ``sim.seed``, else 1) is the base seed of every point.

    With ``keep_traces=True`` each run keeps its ``sim.trace`` and the trace tables are
    stored with it (in the run's ``meta``), so trace experiments are parallel and
    resumable like the rest; :meth:`SweepResult.result` gives each run back as a
    :class:`burstlab.Result`.

    ``scheduler`` (a Dask scheduler address, ``tcp://host:8786``) runs the points on that
    cluster, as in :func:`sweep`.

    ``stored_only`` runs nothing: the result comes from the store alone, and
    :class:`NotStored` is raised when the store lacks a run (or holds a failed one).

    >>> import copy
    >>> spec = burstlab.load_scenario("examples/single_flow.toml")
    >>> points = []
    >>> for d in ("10s", "20s"):                     # one duration per point
    ...     s = copy.deepcopy(spec)
    ...     s["sim"]["duration"] = d
    ...     points.append(({"duration": d}, s))
    >>> sw = sweep_points(points, executor="serial", progress=False)
    >>> sw.summary[["duration", "n", "goodput_segps_mean"]].round(1)
      duration  n  goodput_segps_mean
    0      10s  1                94.8
    1      20s  1                90.2
    """
    t_start = time.perf_counter()
    if scheduler:
        if executor == "serial":
            raise ValueError("--scheduler needs the dask executor")
        executor = "dask"
    replications, jobs = _check_run_args(executor, replications, jobs)
    params: list[str] = []
    triples = []
    for pt, sc in scenarios:
        for k in pt:
            if k not in params:
                params.append(k)
        spec = plain(load_scenario(sc))
        sim = spec.get("sim")
        pt_seed = seed if seed is not None else (
            sim.get("seed", 1) if isinstance(sim, dict) else 1)
        pt_seed = _or_int(pt_seed)
        if isinstance(sim, dict) and not keep_traces:
            sim.pop("trace", None)
        if not isinstance(pt_seed, int) or not 0 <= pt_seed < 2**64:
            raise ValueError(f"seed must be a non-negative integer, got {pt_seed!r}")
        triples.append((dict(pt), spec, pt_seed))
    axes: dict[str, list[Value]] = {p: [t[0].get(p, "") for t in triples] for p in params}
    info = {"points": [t[0] for t in triples], "replications": replications, "seed": seed,
            "burstlab_version": _core.__version__}
    return _run_points(triples, params, axes, info, replications=replications, store=store,
                       executor=executor, jobs=jobs, scheduler=scheduler,
                       progress=progress, retry_errors=retry_errors, t_start=t_start,
                       keep_traces=keep_traces, stored_only=stored_only)


def _or_int(v: Any) -> Any:
    """``v`` as an int if it is an integer of any kind (numpy too), else ``v``."""
    i = as_int(v)
    return v if i is None else i


def _check_run_args(executor: str, replications: int,
                    jobs: int | None) -> tuple[int, int]:
    """Checks the run arguments shared by :func:`sweep` and :func:`sweep_points`;
    returns the replications and the number of workers (all usable cores when ``jobs``
    is None), as ints (numpy integers are accepted)."""
    if executor not in EXECUTORS:
        raise ValueError(f"executor must be one of {', '.join(EXECUTORS)}, got {executor!r}")
    replications = _or_int(replications)
    if jobs is not None:
        jobs = _or_int(jobs)
    if not isinstance(replications, int) or isinstance(replications, bool) or replications < 1:
        raise ValueError(f"replications must be a positive integer, got {replications!r}")
    if jobs is None:
        jobs = _usable_cores()
    if not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, got {jobs!r}")
    return replications, jobs


def _run_points(
    scenarios: Iterable[tuple[Mapping[str, Value], dict[str, Any], int]],
    params: list[str],
    axes: Mapping[str, Sequence[Value]],
    info: dict[str, Any],
    *,
    replications: int,
    store: str | os.PathLike[str] | None,
    executor: str,
    jobs: int,
    scheduler: str | None,
    progress: bool,
    retry_errors: bool,
    t_start: float,
    keep_traces: bool = False,
    stored_only: bool = False,
) -> SweepResult:
    """Runs ``(params, scenario, seed)`` points and assembles the tables (arguments
    already checked by :func:`_check_run_args`); with ``stored_only``, runs nothing and
    raises :class:`NotStored` unless the store holds every run, successful."""
    version = _core.__version__
    core = _core.core_identity()
    tasks: list[Task] = []
    legacy_keys: dict[str, str] = {}  # key -> the key without the core's identity
    point_params: list[dict[str, Value]] = []
    seen: set[str] = set()
    for i, (pt, sc0, pt_seed) in enumerate(scenarios):
        sc = copy.deepcopy(sc0)
        if isinstance(sc.get("sim"), dict):
            sc["sim"].pop("seed", None)
            sc["sim"].pop("replication", None)
        try:
            text = canonical_json(sc)
        except ValueError as e:
            raise GridError(f"grid point {pt}: {e}") from None
        point_params.append(dict(pt))
        for r in range(replications):
            key = run_key(sc, pt_seed, r, version, core)
            legacy_keys[key] = run_key(sc, pt_seed, r, version)
            if key in seen:
                raise GridError(f"grid point {pt} repeats an earlier point")
            seen.add(key)
            tasks.append(Task(key, i, text, pt_seed, r, keep_traces))

    st = Store(store) if store is not None else Store(":memory:")
    with ExitStack() as stack:
        stack.callback(st.close)
        done = st.finished((t.key for t in tasks),
                           include_errors=not (retry_errors or stored_only))
        todo = [t for t in tasks if t.key not in done]
        legacy = _count_stored(st, [legacy_keys[t.key] for t in todo])
        if stored_only and todo:
            raise NotStored(len(tasks) - len(todo), len(tasks), legacy)
        if legacy:
            print(f"burstlab: note: {store}: {legacy} of these runs {_legacy_note(legacy)}; "
                  "they are run again", file=sys.stderr)
        bar = Progress(len(todo), len(tasks) - len(todo), enabled=progress)
        bar.draw(final=not todo)
        stack.callback(bar.close)
        n_failed = 0
        run_s = 0.0
        t_runs = time.perf_counter()
        if todo:
            by_key = {t.key: t for t in todo}
            stack.enter_context(_SigtermAsInterrupt())
            # Never more workers than runs (a worker is a process, with its own memory).
            jobs = min(jobs, len(todo))
            _warn_if_oversubscribed(executor, jobs, scheduler)
            outcomes = _EXECUTOR_FNS[executor](todo, jobs, scheduler)
            # closing(): on Ctrl-C the executor stops its workers at once, not at exit
            for rec in stack.enter_context(closing(outcomes)):
                task = by_key[rec["key"]]
                rec = {**rec, "params": canonical_json(point_params[task.point]),
                       "scenario": task.text, "seed": task.seed,
                       "replication": task.replication, "version": version,
                       "finished_utc": datetime.now(UTC).isoformat()}
                st.put(rec)
                ok = rec["status"] == "ok"
                n_failed += 0 if ok else 1
                run_s += rec["wall_s"] or 0.0
                bar.update(ok)
            bar.draw(final=True)
        t_end_runs = time.perf_counter()
        # A trace sweep's traces stay in memory when its stored rows total at most
        # KEPT_TRACE_BYTES; otherwise they stay in the store, read back one run at a
        # time by SweepResult.result. An in-memory store closes with this call: they stay.
        keys = [t.key for t in tasks]
        in_memory = store is None or str(store) == ":memory:"
        hold = (in_memory or not keep_traces
                or st.meta_bytes(keys) <= KEPT_TRACE_BYTES)
        stored = {rec["key"]: _without_traces(rec, hold) for rec in st.rows(keys)}

    table, runs, links, kept, traced = _assemble(tasks, stored, point_params, params, axes)
    result_of: Mapping[tuple[int, int], Result] = (
        kept if hold else _KeptRuns(Path(store), traced))  # type: ignore[arg-type]
    skip = {*ID_COLUMNS, *params, *_stamp_cols(params, axes)}
    metrics = [c for c in table.columns if c not in skip and _is_metric(table[c])]
    group = ["point", *params, *_si_cols(params, axes), "flow", "name", "kind"]
    group = [c for c in group if c in table.columns]
    summary = (summarise(table, group, metrics, lower=non_negative(table, metrics))
               if len(table) else pd.DataFrame(columns=group))
    from burstlab.sweep_fct import tables as fct_tables

    fct, fct_summary = fct_tables(runs, stored)
    stats = {
        "total": len(tasks), "cached": len(tasks) - len(todo), "ran": len(todo),
        "failed": int((runs["status"] == "error").sum()) if len(runs) else 0,
        "failed_now": n_failed, "wall_s": time.perf_counter() - t_start,
        "runs_wall_s": t_end_runs - t_runs, "sum_run_s": run_s,
        "executor": executor, "jobs": jobs, "scheduler": scheduler,
    }
    return SweepResult(table=table, summary=summary, runs=runs, links=links, params=params,
                       metrics=metrics, store=Path(store) if store else Path(":memory:"),
                       stats=stats, info=info, kept=result_of, fct=fct,
                       fct_summary=fct_summary)


def _is_metric(col: pd.Series) -> bool:
    return bool(pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col))


def _warn_if_oversubscribed(executor: str, workers: int, scheduler: str | None) -> None:
    """Says so on stderr when a sweep starts far more worker processes (over
    :data:`OVERSUBSCRIBED` per usable core) than this machine has cores."""
    cores = _usable_cores()
    if executor != "serial" and not scheduler and workers > OVERSUBSCRIBED * cores:
        print(f"burstlab: warning: starting {workers} worker processes on {cores} usable "
              f"core(s): they share the cores and each holds its own memory; --jobs "
              f"{cores} runs as fast", file=sys.stderr)


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _si_cols(params: Sequence[str], axes: Mapping[str, Sequence[Value]]) -> list[str]:
    out = []
    for p in params:
        nv = numeric_values(axes[p])
        if nv is not None:
            out.append(f"{p} [{nv[1]}]")
    return out


def _stamp_cols(params: Sequence[str], axes: Mapping[str, Sequence[Value]]) -> set[str]:
    return {"point", "seed", "replication", "burstlab_version", *_si_cols(params, axes)}


def _assemble(
    tasks: Sequence[Task],
    stored: Mapping[str, Mapping[str, Any]],
    point_params: Sequence[Mapping[str, Value]],
    params: Sequence[str],
    axes: Mapping[str, Sequence[Value]],
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, dict[tuple[int, int], Result],
           dict[tuple[int, int], str]]:
    """Builds the tidy flow table, the per-run table, the tidy link table, the runs
    stored with traces ((point, replication) → key) and, for those whose row in
    ``stored`` still holds its traces, their :class:`Result`."""
    si: dict[str, tuple[dict[str, float], str]] = {}
    for p in params:
        nv = numeric_values(axes[p])
        if nv is not None:
            si[p] = ({repr(v): x for v, x in zip(axes[p], nv[0], strict=True)}, nv[1])

    def stamp(t: Task, version: str) -> dict[str, Any]:
        row: dict[str, Any] = {"point": t.point}
        pp = point_params[t.point]
        for p in params:
            row[p] = pp[p]
        for p, (conv, unit) in si.items():
            row[f"{p} [{unit}]"] = conv[repr(pp[p])]
        row.update(seed=t.seed, replication=t.replication, burstlab_version=version)
        return row

    flow_rows: list[dict[str, Any]] = []
    link_rows: list[dict[str, Any]] = []
    run_rows: list[dict[str, Any]] = []
    kept: dict[tuple[int, int], Result] = {}
    traced: dict[tuple[int, int], str] = {}
    for t in tasks:
        rec = stored.get(t.key)
        if rec is None:  # only when another process deleted it meanwhile
            continue
        s = stamp(t, rec["version"])
        run_rows.append({**s, "status": rec["status"], "error": rec["error"],
                         "wall_s": rec["wall_s"], "host": rec["host"], "key": t.key})
        if rec["status"] != "ok":
            continue
        meta = dict(rec["meta"])
        traces = meta.pop("traces", None)
        if t.keep_traces and rec["has_traces"]:
            traced[(t.point, t.replication)] = t.key
            if traces is not None:  # an in-memory store: the traces came with the row
                kept[(t.point, t.replication)] = _kept_result(rec, meta, traces)
        obs = {o.get("flow"): o for o in meta.get("obs_flows", [])}
        est = {e.get("flow"): e for e in meta.get("cwnd_estimates", [])}
        for f in json.loads(rec["flows"]):
            o = obs.get(f.get("flow"))
            extra = {} if o is None else {
                "segments_per_burst": o.get("mean_segments_per_burst"),
                "data_bursts": o.get("data_bursts"),
                "data_bursts_lost": o.get("data_bursts_lost"),
                "burst_loss_prob": o.get("burst_loss_prob"),
            }
            e = est.get(f.get("flow"))
            if e is not None:
                extra["cwnd_est_abs_err_segments"] = e.get("mean_abs_err_segments")
                extra["cwnd_est_rel_err"] = e.get("mean_rel_err")
            flow_rows.append({**s, **f, **extra})
        for ln in json.loads(rec["links"]):
            link_rows.append({**s, **ln})
    table = pd.DataFrame(flow_rows)
    for c in ("mean_rtt_s", "mean_cwnd_segments", "mean_rto_s", "segments_per_burst",
              "burst_loss_prob"):
        if c in table.columns:  # JSON carries NaN as null
            table[c] = pd.to_numeric(table[c], errors="coerce").astype(float)
    return table, pd.DataFrame(run_rows), pd.DataFrame(link_rows), kept, traced


def _without_traces(rec: dict[str, Any], keep: bool) -> dict[str, Any]:
    """A stored row with its ``meta`` parsed and, unless ``keep``, its traces dropped;
    ``has_traces`` says whether the run was stored with them."""
    meta = json.loads(rec["meta"]) if rec.get("meta") else {}
    traces = meta.pop("traces", None)
    if keep and traces is not None:
        meta["traces"] = traces
    return {**rec, "meta": meta, "has_traces": traces is not None}


#: The most stored bytes (the rows' JSON) of a trace sweep whose traces its
#: :class:`SweepResult` holds in memory; a bigger sweep's runs are read from the store
#: one at a time when asked for. Parsed and tabled, traces take about 6 times their
#: stored bytes: hybrid's quick mode (0.6 GB stored) peaks at 3.3 GB held; its full mode
#: (3.5 GB stored) peaked at 13.4 GB held and 2.1 GB read run by run
#: (docs/topics/limits.md).
KEPT_TRACE_BYTES = 1 << 30


class _KeptRuns(Mapping[tuple[int, int], Result]):
    """:attr:`SweepResult.kept` of a trace sweep too big to hold (``KEPT_TRACE_BYTES``):
    (point, replication) → the run's :class:`burstlab.Result`, read from the store each
    time it is asked for."""

    def __init__(self, store: Path, keys: dict[tuple[int, int], str]) -> None:
        self._store, self._keys = store, keys

    def __getitem__(self, pr: tuple[int, int]) -> Result:
        key = self._keys[pr]
        with Store(self._store) as st:
            rec = st.get([key]).get(key)
        if rec is None:
            raise KeyError(f"run {pr} (key {key}) is no longer in the store {self._store}")
        meta = json.loads(rec["meta"])
        return _kept_result(rec, meta, meta.pop("traces"))

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


def _kept_result(rec: Mapping[str, Any], meta: dict[str, Any],
                 traces: Mapping[str, Any]) -> Result:
    """A stored run (with its traces) as a :class:`Result`, as :func:`burstlab.run`
    would have returned it (the OBS tables other than ``obs_flows`` are not stored)."""
    meta = dict(meta)  # the caller still reads obs_flows from its own copy
    raw = {"flows": rec["flows"], "links": rec["links"],
           "obs_flows": meta.pop("obs_flows", []), "cwnd_trace": traces["cwnd"],
           "packet_trace": traces["packets"], "burst_trace": traces["bursts"],
           "goodput_trace": traces.get("goodput") or {}}
    tables = meta.pop("tables", None) or list(raw)
    optional = meta.pop("optional_tables", None) or [t for t in tables
                                                    if t not in ("flows", "links")]
    return Result(meta, raw, tables, optional, json.loads(rec["scenario"]))


class _CallableModule(types.ModuleType):
    """This module, callable as :func:`sweep`: ``burstlab.sweep(...)`` runs a sweep and
    ``burstlab.sweep.sweep_points``, ``burstlab.sweep.Store`` … are this module's."""

    def __call__(self, *args: Any, **kwargs: Any) -> SweepResult:
        return sweep(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
# inspect.signature(burstlab.sweep) and help() show the function's
__signature__ = inspect.signature(sweep)
