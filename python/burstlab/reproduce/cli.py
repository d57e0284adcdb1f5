"""``burstlab reproduce <paper>``: run a paper's experiments and write its report.

    burstlab reproduce yu [--quick] [--jobs N] [--out DIR]

Writes ``DIR/yu/`` (CSV per figure/table, PNG figures, ``report.md``, ``report.html``).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from burstlab.reproduce import PAPERS


def _cmd(args: argparse.Namespace) -> int:
    from burstlab.cli import CliError
    from burstlab.reproduce import yu

    if args.jobs is not None and args.jobs < 1:
        raise CliError(f"--jobs must be a positive integer, got {args.jobs}")
    mode = "smoke" if args.smoke else ("quick" if args.quick else "full")
    t0 = time.perf_counter()
    res = yu.reproduce(args.out, mode=mode, jobs=args.jobs, progress=not args.no_progress)
    wall = time.perf_counter() - t0
    print(f"wrote {len(res.files)} files under {res.out_dir}/ "
          f"(report: {res.out_dir / 'report.md'}, {res.out_dir / 'report.html'})")
    print(f"total wall time {wall:.1f} s ({mode} mode, {res.sweep.stats['jobs']} jobs)")
    sys.stdout.flush()
    return 0


def add_parser(subparsers: Any) -> None:
    """Registers ``reproduce`` on the ``burstlab`` command line."""
    r = subparsers.add_parser(
        "reproduce", help="reproduce a paper's figures and tables (simulation, model, paper)"
    )
    r.add_argument("paper", choices=PAPERS, help="which paper (yu: figs 5-11, tables I-II)")
    r.add_argument("--quick", action="store_true",
                   help="fewer points and shorter runs (about two minutes on 2 cores)")
    r.add_argument("--jobs", type=int, default=None,
                   help="worker processes (default: all usable cores)")
    r.add_argument("--out", default="out", help="output root; writes OUT/<paper>/ (default out)")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    r.add_argument("--smoke", action="store_true", help=argparse.SUPPRESS)
    r.set_defaults(func=_cmd)
