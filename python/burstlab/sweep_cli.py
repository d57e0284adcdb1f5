"""The ``burstlab sweep`` and ``burstlab plot`` subcommands (loaded by burstlab.cli).

    burstlab sweep scenario.toml --grid "link.1.loss_ab=1e-4..1e-1:log:4" \\
        --grid "flow.0.variant=reno,newreno,sack" --reps 5 [--out DIR] [--store FILE] \\
        [--case "flow.0.variant=reno;flow.0.cc=aimd" --case "..."] \\
        [--jobs N] [--executor local|dask|serial] [--scheduler tcp://host:8786]
    burstlab plot DIR [--x PATH] [--by PATH] [--y METRIC] [--logx] [--logy] [--out FILE]

``sweep`` writes ``sweep``, ``summary``, ``runs``, ``links``, ``fct`` and
``fct_summary`` (finite flows' completion times) as ``.parquet`` files (``--format
csv``: ``.csv``) and ``sweep.json`` into ``--out`` (default ``out/sweep-<scenario name>``); finished runs are
kept in ``--store`` (default ``<out>/store.sqlite``), so running the same command again
resumes. Exit code 0 when every run succeeded, 1 when some failed (listed in runs.csv),
2 for bad input, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def _check_format(fmt: str) -> None:
    """``--format``: checked before the runs, so that a missing pyarrow loses none."""
    from burstlab.api import check_format

    try:
        check_format(fmt)
    except ImportError as e:
        raise CliError(f"--format {fmt}: {e}") from None


class CliError(ValueError):
    """Bad command-line input: burstlab.cli prints it as one line and exits 2."""


def _int(text: str | None, name: str, minimum: int) -> int | None:
    if text is None:
        return None
    try:
        v = int(text)
    except ValueError:
        raise CliError(f"{name}: expected an integer, got {text!r}") from None
    if v < minimum:
        raise CliError(f"{name}: must be at least {minimum}, got {v}")
    return v


def _cmd_sweep(args: argparse.Namespace) -> int:
    from burstlab._files import writable_dir
    from burstlab.grid import parse_grid_entry
    from burstlab.sweep import sweep

    grid: dict[str, Any] = {}
    for entry in args.grid:
        path, values = parse_grid_entry(entry)
        if path in grid:
            raise CliError(f"grid entry {entry!r}: {path} is swept twice")
        grid[path] = values
    if not grid and not args.case:
        raise CliError("give at least one --grid PATH=SPEC or --case \"PATH=VALUE;PATH=VALUE\"")
    cases = [parse_case(c) for c in args.case] or None
    reps = _int(args.reps, "--reps", 1)
    jobs = _int(args.jobs, "--jobs", 1)
    seed = _int(args.seed, "--seed", 0)
    if seed is not None and seed >= 2**64:
        raise CliError(f"--seed: must be from 0 to 2^64 - 1, got {seed}")
    if not Path(args.scenario).is_file():
        raise CliError(f"scenario file not found: {args.scenario}")
    out = Path(args.out) if args.out else Path("out") / f"sweep-{Path(args.scenario).stem}"
    store = Path(args.store) if args.store else out / "store.sqlite"
    writable_dir(out)
    writable_dir(store.parent, "--store")
    _check_format(args.format)
    res = sweep(args.scenario, grid, cases=cases, replications=reps or 1, store=store,
                executor=args.executor, jobs=jobs, scheduler=args.scheduler, seed=seed,
                progress=not args.no_progress, retry_errors=args.retry_errors)
    written = res.to_dir(out, format=args.format)
    s = res.stats
    print(f"burstlab sweep: {len(res.params)} parameter(s), {s['total']} runs "
          f"({s['cached']} from the store, {s['ran']} run now, {s['failed']} failed) "
          f"in {s['wall_s']:.1f} s on {s['executor']} × {s['jobs']}")
    if len(res.summary) and "goodput_bps_mean" in res.summary.columns:
        cols = [*res.params, "name", "n", "goodput_bps_mean", "goodput_bps_ci_lo",
                "goodput_bps_ci_hi"]
        view = res.summary[[c for c in cols if c in res.summary.columns]]
        text = view.to_string(index=False, float_format=lambda x: f"{x:.4g}", max_rows=30)
        print(text)
    fs = res.fct_summary
    if len(fs):  # finite flows: completion times over all of them (sweep_fct.py)
        cols = [*res.params, "n", "completed_fraction_mean", "fct_mean_s_mean",
                "fct_p99_s_mean", "fct_p99_s_ci_lo", "fct_p99_s_ci_hi", "slowdown_mean_mean"]
        view = fs[(fs["workload"] == "*") & (fs["size_bin"] == "all")]
        view = view[[c for c in cols if c in fs.columns]]
        print(view.to_string(index=False, float_format=lambda x: f"{x:.4g}", max_rows=30))
    if s["failed"]:
        first = res.errors.iloc[0]
        print(f"burstlab sweep: {s['failed']} run(s) failed, e.g. point {first['point']}: "
              f"{first['error']} (all in {out / ('runs.' + args.format)})", file=sys.stderr)
    print(f"wrote {', '.join(str(p) for p in written)}; store {store}")
    return 1 if s["failed"] else 0


def parse_case(entry: str) -> dict[str, Any]:
    """``--case "flow.0.variant=reno;flow.0.cc=aimd"``: one case, its ``PATH=VALUE``
    pairs separated by ``;``, each value read as for ``burstlab run --set`` (TOML, or one
    bare word as text)."""
    from burstlab.cli import CliError as SetError
    from burstlab.cli import parse_set

    case: dict[str, Any] = {}
    for pair in (p for p in entry.split(";") if p.strip()):
        try:
            path, value = parse_set(pair)
        except SetError as e:
            raise CliError(f"--case {entry!r}: {str(e).removeprefix('--set ')}") from None
        if path in case:
            raise CliError(f"--case {entry!r}: {path} is given twice")
        case[path] = value
    if not case:
        raise CliError(f"--case {entry!r}: expected PATH=VALUE;PATH=VALUE")
    return case


def _cmd_plot(args: argparse.Namespace) -> int:
    from burstlab.plot import plot_sweep

    where: dict[str, str] = {}
    for w in args.where:
        if "=" not in w:
            raise CliError(f"--where {w!r}: expected path=value")
        k, v = w.split("=", 1)
        where[k.strip()] = v.strip()
    out = plot_sweep(args.sweep, args.out, x=args.x, y=args.y, by=args.by, flow=args.flow,
                     where=where, logx=args.logx, logy=args.logy, title=args.title)
    print(f"wrote {out}")
    return 0


def add_parser(sub: Any) -> None:
    """Registers ``sweep`` and ``plot`` on the ``burstlab`` subcommand parser."""
    s = sub.add_parser(
        "sweep",
        help="run a scenario over a parameter grid (parallel, resumable)",
        description="Run a scenario at every point of a grid, several replications each. "
        "Grid: PATH=SPEC with PATH a dotted path into the scenario (sim.duration, "
        "flow.0.variant, link.1.loss_ab) and SPEC a..b:log:n, a..b:lin:n or a list x,y,z; "
        "units are kept (1us..100ms:log:13).",
    )
    s.add_argument("scenario", help="base scenario file (.toml or .json)")
    s.add_argument("--grid", action="append", default=[], metavar="PATH=SPEC",
                   help="a swept parameter (repeat for a Cartesian product)")
    s.add_argument("--case", action="append", default=[], metavar="PATH=VALUE;...",
                   help="one configuration, e.g. \"flow.0.variant=sack;flow.0.cc=cubic\" "
                        "(repeat for each; every case runs at every grid point, all with "
                        "the same seeds)")
    s.add_argument("--reps", default="1", help="replications per point (default 1)")
    s.add_argument("--seed", default=None, help="base seed (default: the scenario's sim.seed)")
    s.add_argument("--out", default=None, help="output directory (default out/sweep-NAME)")
    s.add_argument("--format", choices=["parquet", "csv"], default="parquet",
                   help="the tables' file format (default parquet)")
    s.add_argument("--store", default=None, help="SQLite store of finished runs "
                   "(default OUT/store.sqlite); rerunning with it resumes")
    s.add_argument("--jobs", default=None, help="worker processes (default: all cores)")
    s.add_argument("--executor", choices=("local", "dask", "serial"), default="local",
                   help="local process pool (default), a Dask cluster, or serial")
    s.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                   help="Dask scheduler address (implies --executor dask)")
    s.add_argument("--retry-errors", action="store_true", help="rerun failed runs")
    s.add_argument("--no-progress", action="store_true", help="no progress bar")
    s.set_defaults(func=_cmd_sweep)

    p = sub.add_parser("plot", help="plot a metric against a swept parameter",
                       description="Plot a sweep table: a metric vs one parameter, one line "
                       "per value of another, error bars = 95 % confidence intervals.")
    p.add_argument("sweep", help="sweep output directory, sweep.csv or summary.csv")
    p.add_argument("--x", default=None, help="parameter on the x axis (default: first swept)")
    p.add_argument("--by", default=None, help="one line per value (default: second swept)")
    p.add_argument("--y", default="goodput_bps", help="metric (default goodput_bps)")
    p.add_argument("--flow", default=None, help="only this flow (index or name)")
    p.add_argument("--where", action="append", default=[], metavar="PATH=VALUE",
                   help="fix another swept parameter")
    p.add_argument("--logx", action="store_true", help="logarithmic x axis")
    p.add_argument("--logy", action="store_true", help="logarithmic y axis")
    p.add_argument("--title", default=None)
    p.add_argument("--out", default=None, help="output file, .png/.svg/.pdf "
                   "(default DIR/<y>_vs_<x>.png)")
    p.set_defaults(func=_cmd_plot)
