"""``burstlab reproduce``: run papers' experiments and write their reports and the site.

    burstlab reproduce --list
    burstlab reproduce NAME [--quick] [--jobs N | --scheduler tcp://HOST:PORT] [--out DIR]
    burstlab reproduce all [--quick] [--jobs N | --scheduler tcp://HOST:PORT] [--out DIR]

``NAME`` writes ``DIR/NAME/`` (CSV per figure/table, PNG figures, ``claims.csv``,
``report.md``, ``report.html``); ``all`` runs every paper and adds the site's index,
``DIR/index.html``, and every paper's claims in ``DIR/claims.csv``. Locally, ``all`` runs
as many papers side by side as there are cores (``--jobs``), longest first, each with its
share of the cores: a paper drawing its report or waiting on its last long run no longer
leaves a core idle. The outputs are those of one paper at a time.

``--scheduler`` runs the simulations on a Dask cluster (as ``burstlab sweep`` does); every
run goes through the paper's store ``DIR/NAME/runs.sqlite``, so an interrupted
reproduction resumes from it, locally or on the cluster.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any


def _cmd(args: argparse.Namespace) -> int:
    from burstlab.cli import CliError
    from burstlab.reproduce import load, paper_names

    if args.list:
        for name in paper_names():
            print(f"{name}\t{load(name).title}")
        return 0
    if args.paper is None:
        raise CliError("name a paper (" + ", ".join(paper_names())
                       + ", or all); --list shows them")
    if args.jobs is not None and args.jobs < 1:
        raise CliError(f"--jobs must be a positive integer, got {args.jobs}")
    if args.scheduler is not None:
        if "://" not in args.scheduler:
            raise CliError(f"--scheduler must be a Dask scheduler address such as "
                           f"tcp://HOST:8786, got {args.scheduler!r}")
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise CliError("--scheduler needs Dask: pip install 'burstlab[dask]'") from None
        from burstlab._dask import check_scheduler

        check_scheduler(args.scheduler)  # one bounded handshake, before any work
    names = list(paper_names()) if args.paper == "all" else [args.paper]
    papers = [load(n) for n in names]  # unknown names fail here, before any run
    mode = "smoke" if args.smoke else ("quick" if args.quick else "full")
    if args.stored_only:
        if args.scheduler is not None:
            raise CliError("--stored-only runs nothing: drop --scheduler")
        for n in names:
            if not (Path(args.out) / n / "runs.sqlite").is_file():
                raise CliError(f"--stored-only: no store {Path(args.out) / n / 'runs.sqlite'} "
                               "to judge from (run the paper without it first)")
    from burstlab.reproduce.framework import Outcome, reproduce, verdict_counts

    t0 = time.perf_counter()
    outcomes = []

    def done(res: Outcome) -> None:
        outcomes.append(res)
        counts = verdict_counts(c.verdict for c in res.claims)
        sys.stdout.write(f"{res.paper.name}: {len(res.claims)} claims ("
                         + ", ".join(f"{n} {v}" for v, n in counts.items() if n)
                         + f"); report {res.out_dir / 'report.html'}; {res.wall_s:.1f} s "
                         f"wall, {res.cpu_s:.1f} s CPU\n")
        sys.stdout.flush()

    from burstlab.sweep import _usable_cores

    workers = min(len(papers), args.jobs or _usable_cores())
    if args.scheduler is None and workers >= 2 and not args.stored_only:
        run_concurrently(papers, args.out, mode, args.jobs or _usable_cores(), done)
    else:
        for paper in papers:
            try:
                res = reproduce(paper, args.out, mode=mode, jobs=args.jobs,
                                progress=not args.no_progress, scheduler=args.scheduler,
                                stored_only=args.stored_only)
            except ValueError as e:
                if args.scheduler is not None and "Dask scheduler" in str(e):
                    raise CliError(str(e)) from None
                raise
            except KeyError as e:
                if args.stored_only:  # the paper's analysis cannot leave that one out
                    raise CliError(f"--stored-only: {paper.name}'s analysis needs "
                                   f"{e}, which the store does not hold all runs of; run "
                                   "the paper without --stored-only to complete it") from None
                raise
            done(res)
    outcomes.sort(key=lambda o: names.index(o.paper.name))
    ext_cpu = 0.0
    if args.paper == "all":
        from burstlab.reproduce.site import write_site

        extensions = []
        if mode != "smoke":
            # Today's TCP on OBS (docs/topics/modern-tcp.md): about 46 CPU-s in quick
            # mode, so it is part of the site.
            from burstlab.reproduce import modern_tcp

            page, ext_cpu = modern_tcp.write_page(Path(args.out), quick=mode == "quick")
            print(f"modern_tcp (extension): {page}; {ext_cpu:.1f} s CPU")
            extensions.append(("modern_tcp/report.html",
                               "Today's TCP on OBS",
                               "CUBIC, HighSpeed, Vegas and BBR beside Reno and SACK: "
                               "goodput against the assembly period on yu's path, and "
                               "ozsarac's CWBA against the best timer"))
            # TCP flows on NSFNET (docs/topics/nsfnet-study.md): completion times against
            # the assembly period, by flow size.
            from burstlab.reproduce import nsfnet_study

            page, cpu = nsfnet_study.write_page(Path(args.out), quick=mode == "quick")
            ext_cpu += cpu
            print(f"nsfnet_study (extension): {page}; {cpu:.1f} s CPU")
            extensions.append(("nsfnet_study/report.html",
                               "TCP over OBS on NSFNET",
                               "Poisson flow arrivals with heavy-tailed sizes: flow "
                               "completion times against the assembly period, by flow size"))
        index = write_site(Path(args.out), outcomes, extensions)
        print(f"site: {index}")
    print(f"total wall time {time.perf_counter() - t0:.1f} s, CPU "
          f"{sum(o.cpu_s for o in outcomes) + ext_cpu:.1f} s ({mode} mode)")
    sys.stdout.flush()
    return 0


def _cost_hint(out: Path, name: str) -> float:
    """The CPU seconds of this paper's last run under ``out`` (0 when none): papers start
    longest first, so that the last to finish is a short one."""
    import json

    try:
        return float(json.loads((out / name / "run.json").read_text("utf-8"))["cpu_s"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0.0


def _reproduce_one(name: str, out: str, mode: str, jobs: int) -> tuple[Any, ...]:
    """One paper in a worker process of :func:`run_concurrently`: what the parent needs to
    rebuild its :class:`~burstlab.reproduce.framework.Outcome` (a paper holds functions
    that cannot be pickled, so the paper is loaded again there)."""
    from burstlab.reproduce import load
    from burstlab.reproduce.framework import reproduce

    def log(msg: str) -> None:  # one write per line: papers share the terminal
        sys.stdout.write(f"[{name}] {msg.strip()}\n")
        sys.stdout.flush()

    res = reproduce(load(name), out, mode=mode, jobs=jobs, progress=False, log=log)
    return res.claims, res.files, res.wall_s, res.cpu_s, res.ctx.stamp


def run_concurrently(papers: list[Any], out: str, mode: str, cores: int,
                     done: Any) -> None:
    """Runs several papers at once, each in its own process with ``cores // workers``
    simulation workers, longest (by its last run's CPU time) first, and calls ``done``
    with each :class:`~burstlab.reproduce.framework.Outcome` as it finishes. One paper
    after another leaves cores idle while a paper finishes its last long run or draws
    its figures and report; side by side, the papers fill them (``reproduce all``)."""
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    from burstlab.reproduce.framework import Context, Outcome

    workers = min(len(papers), cores)
    order = sorted(papers, key=lambda p: -_cost_hint(Path(out), p.name))
    by_name = {p.name: p for p in papers}
    with ProcessPoolExecutor(max_workers=workers) as pool:
        pending = {pool.submit(_reproduce_one, p.name, out, mode, max(1, cores // workers)):
                   p.name for p in order}
        try:
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for f in finished:
                    name = pending.pop(f)
                    claims, files, wall, cpu, stamp = f.result()
                    paper = by_name[name]
                    ctx = Context(paper=paper, data=paper.load_data(),
                                  mode=paper.modes[mode], out_dir=Path(out) / name,
                                  stamp=stamp)
                    done(Outcome(paper, Path(out) / name, ctx, claims, files, wall, cpu))
        except BaseException:
            for f in pending:
                f.cancel()
            raise


def add_parser(subparsers: Any) -> None:
    """Registers ``reproduce`` on the ``burstlab`` command line."""
    r = subparsers.add_parser(
        "reproduce", help="reproduce papers' figures, tables and claims (simulation, model, "
                          "paper)")
    r.add_argument("paper", nargs="?", default=None,
                   help="a paper's name, or 'all' (every paper plus the site index)")
    r.add_argument("--list", action="store_true", help="list the papers and exit")
    r.add_argument("--quick", action="store_true",
                   help="fewer points and replications (runs that must settle keep full "
                        "mode's lengths; docs/topics/settled-runs.md)")
    r.add_argument("--jobs", type=int, default=None,
                   help="worker processes (default: all usable cores)")
    r.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                   help="run the simulations on this Dask scheduler (resumable through "
                        "OUT/<paper>/runs.sqlite)")
    r.add_argument("--out", default="out", help="output root; writes OUT/<paper>/ (default out)")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    r.add_argument("--stored-only", action="store_true",
                   help="run nothing: judge the paper from the runs OUT/<paper>/runs.sqlite "
                        "already holds (an interrupted long run); experiments with runs "
                        "missing are left out, their claims not comparable, and run.json "
                        "says complete: false")
    r.add_argument("--smoke", action="store_true", help=argparse.SUPPRESS)
    r.set_defaults(func=_cmd)
