"""The ``burstlab model`` command: calculator, optimal assembly time and plots.

Read first: :func:`add_parser`. The top-level CLI registers the command with::

    from burstlab.models import cli as model_cli
    model_cli.add_parser(subparsers)       # subparsers = parser.add_subparsers(...)
    args = parser.parse_args(argv)
    return args.func(args)                 # an int exit code

Every handler reports bad input as one line on stderr
(``burstlab model <cmd>: error: …``) and returns exit code 2; no traceback.
:func:`main` runs the ``model`` command alone, for tests and standalone use.
"""

from __future__ import annotations

import argparse
import functools
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn, TextIO

import numpy as np

from .. import units
from . import pftk as _pftk
from .yu import optimal as _opt
from .yu.common import burst_segments
from .yu.sack import sack_throughput
from .yu.summary import VARIANTS, evaluate, throughput

EXIT_USAGE = 2

Handler = Callable[[argparse.Namespace], int]


class CliError(Exception):
    """Bad command-line input. Its message is printed as one line; the exit code is 2."""


class _OneLineParser(argparse.ArgumentParser):
    """Parser for the ``model`` sub-commands: usage errors become one line on stderr, exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see --help)\n")


def _guard(command: str) -> Callable[[Handler], Handler]:
    """Turn CliError into a one-line message on stderr and exit code 2."""

    def wrap(fn: Handler) -> Handler:
        @functools.wraps(fn)
        def run(args: argparse.Namespace) -> int:
            try:
                return fn(args)
            except CliError as exc:
                print(f"burstlab model {command}: error: {exc}", file=sys.stderr)
                return EXIT_USAGE

        return run

    return wrap


# ---------------------------------------------------------------- argument values


def _number(flag: str, text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise CliError(f"{flag}: expected a number, got {text!r}") from None
    if not math.isfinite(v):
        raise CliError(f"{flag}: expected a finite number, got {text!r}")
    return v


def _probability(flag: str, text: str) -> float:
    v = _number(flag, text)
    if not 0.0 < v < 1.0:
        raise CliError(
            f"{flag}: burst loss probability must lie strictly between 0 and 1, got {text!r}"
        )
    return v


def _probabilities(flag: str, text: str) -> list[float]:
    items = [t.strip() for t in text.split(",")]
    if not items or any(t == "" for t in items):
        raise CliError(
            f"{flag}: expected a comma-separated list such as 1e-3,1e-2, got {text!r}"
        )
    return [_probability(flag, t) for t in items]


def _time(flag: str, text: str, *, positive: bool) -> float:
    try:
        v = units.parse_time(text)
    except ValueError as exc:
        raise CliError(f"{flag}: {exc}") from None
    if positive and v <= 0:
        raise CliError(f"{flag}: must be > 0, got {text!r}")
    return v


def _rate_segments(access: str, mss: str) -> tuple[float, float, float]:
    """(λ in segments/s, access in bit/s, MSS in bytes)."""
    try:
        bps = units.parse_rate(access)
    except ValueError as exc:
        raise CliError(f"--access: {exc}") from None
    try:
        mss_b = units.parse_size(mss)
    except ValueError as exc:
        raise CliError(f"--mss: {exc}") from None
    if mss_b <= 0:
        raise CliError(f"--mss: segment size must be > 0, got {mss!r}")
    return units.segments_per_second(bps, mss_b), bps, mss_b


def _window(text: str) -> float:
    v = _number("--wm", text)
    if v < 1:
        raise CliError(f"--wm: maximum window must be >= 1 segment, got {text!r}")
    return v


def _acks(text: str) -> int:
    if text not in ("1", "2"):
        raise CliError(f"--b: segments per ACK must be 1 or 2, got {text!r}")
    return int(text)


# ---------------------------------------------------------------- output


def _table(rows: Sequence[Sequence[str]], out: TextIO) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for k, r in enumerate(rows):
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip(), file=out)
        if k == 0:
            print("  ".join("-" * w for w in widths), file=out)


def _g(x: float, digits: int = 4) -> str:
    return f"{float(x):.{digits}g}"


# ---------------------------------------------------------------- commands


@_guard("throughput")
def cmd_throughput(args: argparse.Namespace) -> int:
    """Print S, E[W], regime, Q and throughput for each TCP variant and PFTK."""
    p = _probability("--p", args.p)
    tb = _time("--tb", args.tb, positive=False)
    lam, bps, mss = _rate_segments(args.access, args.mss)
    wm = _window(args.wm)
    rtt0 = _time("--rtt0", args.rtt0, positive=True)
    rto = _time("--rto", args.rto, positive=True)
    b = _acks(args.b)
    variants = VARIANTS if args.variant == "all" else (args.variant,)
    out = sys.stdout

    s = float(burst_segments(lam, tb, wm))
    print(
        f"p={_g(p)}  Tb={units.format_time(tb)}  access={units.format_rate(bps)} "
        f"(λ={_g(lam, 6)} segments/s at MSS {_g(mss, 6)} B)  Wm={_g(wm)}  "
        f"RTT0={units.format_time(rtt0)}  RTO={units.format_time(rto)}  b={b}",
        file=out,
    )
    print(
        f"S = min(λ·Tb + 1, Wm) = {_g(s)} segments/burst;  "
        f"RTT = RTT0 + 2·Tb = {units.format_time(rtt0 + 2 * tb)}",
        file=out,
    )
    rows = [
        [
            "variant",
            "yu eq.",
            "S",
            "E[W_X]",
            "regime",
            "Q (TO/TD)",
            "segments/s",
            "bit/s",
        ]
    ]
    for v in variants:
        r = evaluate(v, p, tb, lam=lam, wm=wm, rtt0=rtt0, rto=rto, b=b)
        seg = float(r.throughput)
        rows.append(
            [
                v,
                str(r.equation),
                _g(float(r.s)),
                _g(float(r.expected_window)),
                "saturated" if bool(r.saturated) else "unsaturated",
                _g(float(r.timeout_ratio), 3),
                _g(seg, 5),
                units.format_rate(units.segments_to_bits_per_second(seg, mss)),
            ]
        )
    ew = float(_pftk.pftk_expected_window(p, b=b))
    sat = ew >= wm
    q_hat = float(_pftk.pftk_timeout_probability(wm if sat else ew, p))
    for name, fn, eq in (
        ("pftk-full", _pftk.pftk_throughput_full, "PFTK 31/32"),
        ("pftk-approx", _pftk.pftk_throughput_approx, "PFTK 30"),
    ):
        seg = float(fn(p, rtt=rtt0, rto=rto, wm=wm, b=b))
        rows.append(
            [
                name,
                eq,
                "1",
                _g(ew),
                "saturated" if sat else "unsaturated",
                _g(q_hat, 3),
                _g(seg, 5),
                units.format_rate(units.segments_to_bits_per_second(seg, mss)),
            ]
        )
    _table(rows, out)
    print(
        "pftk rows: packet-switched baseline (no assembly, RTT = RTT0, p per packet). "
        "Saturated = E[W_X] >= Wm or S = Wm, then yu eq. 28 for every variant.",
        file=out,
    )
    return 0


@_guard("optimal-tb")
def cmd_optimal_tb(args: argparse.Namespace) -> int:
    """Print the optimal assembly time of yu eqs. 30 and 32 with its S and throughput."""
    p = _probability("--p", args.p)
    lam, bps, mss = _rate_segments(args.access, args.mss)
    wm = _window(args.wm)
    rtt0 = _time("--rtt0", args.rtt0, positive=True)
    rto = _time("--rto", args.rto, positive=True)
    b = _acks(args.b)
    out = sys.stdout
    print(
        f"p={_g(p)}  access={units.format_rate(bps)} (λ={_g(lam, 6)} segments/s at MSS "
        f"{_g(mss, 6)} B)  Wm={_g(wm)}  RTT0={units.format_time(rtt0)}  RTO={units.format_time(rto)}  b={b}",
        file=out,
    )
    candidates = [
        (
            "eq. 30 (W_X < Wm)",
            float(_opt.optimal_tb_unsaturated(rtt0)),
            float(_opt.optimal_throughput_unsaturated(p, lam=lam, rtt0=rtt0, b=b)),
            "eq. 31",
        ),
        (
            "eq. 32 (W_X = Wm, as printed)",
            float(_opt.optimal_tb_saturated(p, lam=lam, wm=wm, rtt0=rtt0)),
            float(_opt.optimal_throughput_saturated(p, lam=lam, wm=wm, rtt0=rtt0)),
            "eq. 33",
        ),
        (
            "eq. 32 (derived, consistent units)",
            float(
                _opt.optimal_tb_saturated(p, lam=lam, wm=wm, rtt0=rtt0, form="derived")
            ),
            float(
                _opt.optimal_throughput_saturated(
                    p, lam=lam, wm=wm, rtt0=rtt0, form="derived"
                )
            ),
            "eq. 33 derived",
        ),
    ]
    rows = [
        [
            "rule",
            "Tb_opt",
            "λ·Tb+1",
            "S",
            "closed form",
            "segments/s",
            "SACK model seg/s",
            "SACK bit/s",
        ]
    ]
    capped = False
    for label, tb, b_closed, eq in candidates:
        raw = lam * tb + 1.0
        s = float(burst_segments(lam, tb, wm))
        capped = capped or raw > wm
        seg = float(sack_throughput(p, tb, lam=lam, wm=wm, rtt0=rtt0, rto=rto, b=b))
        rows.append(
            [
                label,
                units.format_time(tb),
                _g(raw),
                _g(s),
                eq,
                _g(b_closed, 5),
                _g(seg, 5),
                units.format_rate(units.segments_to_bits_per_second(seg, mss)),
            ]
        )
    tb_num, seg_num = best_tb_numerical(p, lam=lam, wm=wm, rtt0=rtt0, rto=rto, b=b)
    rows.append(
        [
            "numerical max of SACK model",
            units.format_time(tb_num),
            _g(lam * tb_num + 1.0),
            _g(float(burst_segments(lam, tb_num, wm))),
            "-",
            "-",
            _g(seg_num, 5),
            units.format_rate(units.segments_to_bits_per_second(seg_num, mss)),
        ]
    )
    _table(rows, out)
    print(
        "eq. 32 as printed adds RTT0 (s) to Wm/8 + 3/2 (rounds); 'derived' multiplies them. "
        "SACK model = yu eq. 26/28 evaluated at Tb_opt.",
        file=out,
    )
    if capped:
        print(
            "note: λ·Tb_opt + 1 exceeds Wm for some rules, so S is capped at Wm there and the "
            "closed forms (which assume 1 < S < Wm) do not apply; see the numerical row.",
            file=out,
        )
    return 0


def best_tb_numerical(
    p: float,
    *,
    lam: float,
    wm: float,
    rtt0: float,
    rto: float,
    b: int = 1,
    points: int = 4001,
) -> tuple[float, float]:
    """Grid-search Tb (log-spaced, 1 ns .. max(10·RTT0, 10·Wm/λ), plus 0) maximising the SACK model.

    Returns ``(Tb, throughput in segments/s)``; resolution about 0.5 % in Tb.
    """
    hi = max(10.0 * rtt0, 10.0 * wm / lam)
    tb = np.concatenate(([0.0], np.logspace(-9.0, math.log10(hi), points)))
    seg = np.asarray(sack_throughput(p, tb, lam=lam, wm=wm, rtt0=rtt0, rto=rto, b=b))
    i = int(np.argmax(seg))
    return float(tb[i]), float(seg[i])


@_guard("plot")
def cmd_plot(args: argparse.Namespace) -> int:
    """Plot throughput against Tb (log axis) for several p, like yu figs. 5(b)/6(b)/7(b)."""
    ps = _probabilities("--p", args.p)
    lam, bps, _mss = _rate_segments(args.access, args.mss)
    wm = _window(args.wm)
    rtt0 = _time("--rtt0", args.rtt0, positive=True)
    rto = _time("--rto", args.rto, positive=True)
    b = _acks(args.b)
    tb_min = _time("--tb-min", args.tb_min, positive=True)
    tb_max = _time("--tb-max", args.tb_max, positive=True)
    if tb_max <= tb_min:
        raise CliError(f"--tb-max ({args.tb_max}) must exceed --tb-min ({args.tb_min})")
    try:
        points = int(args.points)
    except ValueError:
        raise CliError(f"--points: expected an integer, got {args.points!r}") from None
    if points < 2:
        raise CliError(f"--points: need at least 2 points, got {args.points!r}")
    out_path = Path(args.out)
    fmt = out_path.suffix.lower().lstrip(".")
    if fmt not in ("png", "svg"):
        raise CliError(f"--out: file name must end in .png or .svg, got {args.out!r}")
    if not out_path.parent.exists():
        raise CliError(f"--out: directory {str(out_path.parent)!r} does not exist")

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    tb = np.logspace(math.log10(tb_min), math.log10(tb_max), points)
    fig = Figure(figsize=(6.4, 4.4))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for p in ps:
        seg = np.asarray(
            throughput(args.variant, p, tb, lam=lam, wm=wm, rtt0=rtt0, rto=rto, b=b)
        )
        ax.plot(tb, seg, label=f"p = {p:g}")
    ax.set_xscale("log")
    ax.set_xlabel("assembly time $T_b$ (s)")
    ax.set_ylabel("throughput (segments/s)")
    ax.set_title(
        f"{args.variant} (yu eq. 26/28 rule), access {units.format_rate(bps)}, "
        f"$W_m$ = {_g(wm)}, $RTT_0$ = {units.format_time(rtt0)}",
        fontsize=9,
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(title="burst loss")
    fig.tight_layout()
    try:
        fig.savefig(out_path, format=fmt)
    except OSError as exc:
        raise CliError(
            f"--out: cannot write {args.out!r}: {exc.strerror or exc}"
        ) from None
    print(f"wrote {out_path}", file=sys.stdout)
    return 0


# ---------------------------------------------------------------- parser


def _common(p: argparse.ArgumentParser, *, tb: bool) -> None:
    p.add_argument(
        "--access",
        required=True,
        metavar="RATE",
        help="access bandwidth λ, e.g. 125MB/s (bytes) or 10Gb/s, 500Mbps (bits)",
    )
    p.add_argument(
        "--mss", default="1000B", metavar="SIZE", help="segment size (default 1000B)"
    )
    p.add_argument(
        "--wm", required=True, metavar="SEGMENTS", help="maximum window Wm in segments"
    )
    p.add_argument(
        "--rtt0",
        required=True,
        metavar="TIME",
        help="round-trip time without assembly, e.g. 100ms (RTT = RTT0 + 2·Tb)",
    )
    p.add_argument(
        "--rto",
        default="1s",
        metavar="TIME",
        help="retransmission timeout (default 1s)",
    )
    p.add_argument(
        "--b",
        default="1",
        metavar="{1,2}",
        help="segments acknowledged per ACK (default 1)",
    )
    if tb:
        p.add_argument(
            "--tb", required=True, metavar="TIME", help="burst assembly time, e.g. 1ms"
        )


def add_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    """Register ``model`` and its sub-commands on ``subparsers``; each sets ``func``.

    ``args.func(args)`` runs the chosen command and returns its exit code
    (0 on success, 2 on bad input after printing one line to stderr).
    """
    model = subparsers.add_parser(
        "model",
        help="analytical TCP-over-OBS models (yu eqs. 26-61, PFTK)",
        description="Closed-form throughput of TCP SACK/NewReno/Reno over OBS (yu et al.) "
        "and the packet-switched PFTK baseline. Throughput in segments/s and bit/s.",
    )
    sub = model.add_subparsers(
        dest="model_command", metavar="COMMAND", parser_class=_OneLineParser
    )
    model.set_defaults(func=_missing_command(model))

    tp = sub.add_parser(
        "throughput",
        help="throughput of each variant for one parameter set",
        description="S, E[W], regime, TO ratio Q and throughput per TCP variant.",
    )
    tp.add_argument(
        "--variant",
        default="all",
        choices=(*VARIANTS, "all"),
        help="TCP variant (default: all three); PFTK is always shown",
    )
    tp.add_argument(
        "--p", required=True, metavar="PROB", help="burst loss probability in (0, 1)"
    )
    _common(tp, tb=True)
    tp.set_defaults(func=cmd_throughput)

    ot = sub.add_parser(
        "optimal-tb",
        help="optimal assembly time (yu eqs. 30 and 32)",
        description="Optimal Tb from yu eq. 30 (unsaturated) and eq. 32 (saturated), "
        "with the resulting S and throughput.",
    )
    ot.add_argument(
        "--p", required=True, metavar="PROB", help="burst loss probability in (0, 1)"
    )
    _common(ot, tb=False)
    ot.set_defaults(func=cmd_optimal_tb)

    pl = sub.add_parser(
        "plot",
        help="throughput vs Tb for several p (yu fig. 5(b)-7(b))",
        description="Plot model throughput against assembly time on a log axis.",
    )
    pl.add_argument(
        "--p",
        required=True,
        metavar="P1,P2,...",
        help="comma-separated burst loss probabilities",
    )
    pl.add_argument(
        "--variant", default="sack", choices=VARIANTS, help="TCP variant (default sack)"
    )
    pl.add_argument(
        "--tb-min", default="1us", metavar="TIME", help="smallest Tb (default 1us)"
    )
    pl.add_argument(
        "--tb-max", default="1s", metavar="TIME", help="largest Tb (default 1s)"
    )
    pl.add_argument(
        "--points", default="200", metavar="N", help="number of Tb values (default 200)"
    )
    pl.add_argument(
        "--out", required=True, metavar="FILE", help="output image, .png or .svg"
    )
    _common(pl, tb=False)
    pl.set_defaults(func=cmd_plot)
    return model


def _missing_command(model: argparse.ArgumentParser) -> Handler:
    def run(args: argparse.Namespace) -> int:
        model.print_usage(sys.stderr)
        print(
            "burstlab model: error: choose a command: throughput, optimal-tb or plot",
            file=sys.stderr,
        )
        return EXIT_USAGE

    return run


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``burstlab model …`` alone; returns the exit code (argparse errors give 2)."""
    parser = argparse.ArgumentParser(
        prog="burstlab", description="burstlab (model command only)"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_parser(subparsers)
    try:
        args = parser.parse_args(list(argv) if argv is not None else None)
    except SystemExit as exc:  # argparse already printed its message
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    func: Handler | None = getattr(args, "func", None)
    if func is None:
        parser.print_usage(sys.stderr)
        print("burstlab: error: choose a command: model", file=sys.stderr)
        return EXIT_USAGE
    return func(args)


if __name__ == "__main__":
    sys.exit(main())
