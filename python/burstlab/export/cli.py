"""``burstlab export ns2|nobs SCENARIO``: the equivalent ns-2.35 or nOBS Tcl script.

    burstlab export ns2 scenario.toml [--out FILE] [--trace FILE] [--seed N]
    burstlab export ns2 scenario.toml --compare      # run both, flow by flow
    burstlab export nobs obs.toml [--out FILE] [--trace FILE] [--drop-as control]
    burstlab export nobs obs.toml --compare          # flows and bursts side by side
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

HOW_TO_COMPARE = """\
how to compare: run `ns {script}`; it prints one '{tag} FLOW ACKED DATA RETX TIMEOUTS'
line per flow at the end (ns-2's ack_, ndatapack_, nrexmitpack_, nrexmit_). burstlab's
counterparts are `burstlab run SCENARIO` columns segments_delivered, segments_sent,
retransmits, to_events. `burstlab export ns2 SCENARIO --compare` does both and prints
them side by side. With --trace, ns-2's packet trace can be read with
burstlab.export.ns2trace.read_trace / ns2_sends and set against a burstlab packet trace
(sim.trace.packets) with burstlab_sends and first_divergence."""


def _cmd_export_ns2(args: argparse.Namespace) -> int:
    from burstlab.export import export_ns2
    from burstlab.export.ns2 import SUMMARY_TAG

    if args.compare:
        from burstlab.export.ns2trace import compare, ns_binary

        if ns_binary() is None:
            raise ValueError("--compare needs ns-2 (`ns`); install it: apt-get install ns2")
        df = compare(args.scenario, seed=args.seed, replication=args.replication)
        print(df.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
        return 0
    script = export_ns2(args.scenario, seed=args.seed, replication=args.replication,
                        trace=args.trace)
    return _write_script(script.tcl, script.warnings, args.out, HOW_TO_COMPARE, SUMMARY_TAG)


def _write_script(tcl: str, warnings: list[str], out_arg: str | None, how_to: str,
                  tag: str) -> int:
    """Prints an exported script's warnings, writes it to ``out_arg`` (or stdout) and
    says how to compare it (``how_to`` formatted with the script's name and ``tag``)."""
    for msg in warnings:
        print(f"burstlab: warning: {msg}", file=sys.stderr)
    if out_arg:
        out = Path(out_arg)
        if out.is_dir():
            raise ValueError(f"--out: {out} is a directory; give a file name")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(tcl, encoding="utf-8")
        print(f"wrote {out}")
        print(how_to.format(script=out, tag=tag))
    else:
        sys.stdout.write(tcl)
        print(how_to.format(script="FILE.tcl", tag=tag), file=sys.stderr)
    return 0


NOBS_HOW_TO_COMPARE = """\
how to compare: run nOBS's `ns {script}` (`make nobs` builds it into target/nobs) in an
empty directory (nOBS writes stat.txt there); it prints one '{tag} FLOW ACKED DATA RETX
TIMEOUTS' line per flow at the end, and 'burstlab-nobs-done FLOW TIME' when a finite
flow (segments = N) completes. `burstlab export nobs SCENARIO --compare` does both and
prints flows, bursts and completion times side by side. With --trace, nOBS's trace can be read with
burstlab.export.nobstrace.read_trace / nobs_bursts and set against burstlab's burst trace
with burstlab_bursts (docs/topics/nobs.md)."""


def _cmd_export_nobs(args: argparse.Namespace) -> int:
    from burstlab.export import export_nobs
    from burstlab.export.nobs import SUMMARY_TAG as NOBS_TAG

    if args.compare:
        from burstlab.export.nobstrace import NOBS_ENV, compare, nobs_binary

        if nobs_binary() is None:
            raise ValueError(f"--compare needs nOBS: run `make nobs` or set {NOBS_ENV}")
        try:
            df = compare(args.scenario, seed=args.seed, replication=args.replication,
                         duration=args.duration)
        except RuntimeError as e:
            raise ValueError(str(e)) from None
        print(df.T.to_string(float_format=lambda x: f"{x:.6g}"))
        return 0
    script = export_nobs(args.scenario, seed=args.seed, replication=args.replication,
                         trace=args.trace, drop_as=args.drop_as, duration=args.duration)
    return _write_script(script.tcl, script.warnings, args.out, NOBS_HOW_TO_COMPARE, NOBS_TAG)


def add_parser(sub: Any) -> None:
    e = sub.add_parser("export", help="write a scenario for another simulator (ns-2, nOBS)")
    esub = e.add_subparsers(dest="target", required=True)
    n = esub.add_parser("ns2", help="the equivalent ns-2.35 Tcl script of a packet network")
    n.add_argument("scenario", help="scenario file (.toml or .json); no OBS sections")
    n.add_argument("--out", default=None, help="write the script here (default: stdout)")
    n.add_argument("--trace", default=None,
                   help="make the script write ns-2's packet trace to this file")
    n.add_argument("--seed", type=int, default=None, help="master seed (overrides sim.seed)")
    n.add_argument("--replication", type=int, default=None, help="replication index")
    n.add_argument("--compare", action="store_true",
                   help="run burstlab and ns-2 and print both flow by flow")
    n.set_defaults(func=_cmd_export_ns2)
    o = esub.add_parser("nobs", help="the equivalent nOBS v2.1 Tcl script of an OBS network")
    o.add_argument("scenario", help="OBS scenario file (.toml or .json)")
    o.add_argument("--out", default=None, help="write the script here (default: stdout)")
    o.add_argument("--trace", default=None,
                   help="make the script write nOBS's packet trace to this file")
    o.add_argument("--seed", type=int, default=None, help="master seed (overrides sim.seed)")
    o.add_argument("--replication", type=int, default=None, help="replication index")
    o.add_argument("--duration", default=None,
                   help="simulated time (overrides sim.duration; nOBS aborts long runs, "
                   "see docs/topics/nobs.md)")
    o.add_argument("--drop-as", choices=["data", "control"], default="data",
                   help="inject obs.drop_burst as data-burst loss (default) or as "
                   "control-packet loss on the first fibre")
    o.add_argument("--compare", action="store_true",
                   help="run burstlab and nOBS and print flows, bursts and completion "
                   "times side by side")
    o.set_defaults(func=_cmd_export_nobs)
