"""The ``burstlab`` command line.

    burstlab run scenario.toml [--seed N] [--replication R] [--out DIR [--format csv]]
                 [--set KEY=VALUE]
    burstlab validate scenario.toml
    burstlab demo [--out DIR]
    burstlab export ns2 scenario.toml [--out FILE] [--compare]

Bad input prints one line on stderr and exits with code 2; no traceback. Ctrl-C stops a
run within a fraction of a second and exits with code 130.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from burstlab import _core


class CliError(Exception):
    """A user error: printed as one line, exit code 2."""


def _check_format(fmt: str) -> None:
    """``--format``: checked before a run, so that a missing pyarrow does not lose it."""
    from burstlab.api import check_format

    try:
        check_format(fmt)
    except ImportError as e:
        raise CliError(f"--format {fmt}: {e}") from None


def _cmd_run(args: argparse.Namespace) -> int:
    from burstlab._files import writable_dir
    from burstlab.api import run

    if args.out:  # checked first: a finished run is never lost to an unwritable folder
        writable_dir(args.out)
        _check_format(args.format)
    # With --out the traces stream into it while the run goes (bounded memory), unless
    # the scenario streams them elsewhere (sim.trace.dir; to_dir copies them then).
    trace_dir = args.out if args.out and not _has_trace_dir(args.scenario) else None
    scenario: Any = args.scenario
    if args.set:
        scenario = with_sets(args.scenario, args.set)
    res = run(scenario, seed=args.seed, replication=args.replication,
              trace_dir=trace_dir, progress=False if args.no_progress else None)
    print(res.summary())
    if args.out:
        written = res.to_dir(args.out, format=args.format)
        print(f"wrote {', '.join(str(p) for p in written)}")
    return 0


#: A ``--set`` value TOML cannot read but that is plainly one word of text (``sack``,
#: ``10ms``, ``1Gb/s``) is taken as that text, unquoted.
_BARE_WORD = re.compile(r"[^\s\"'\[\]{},=#]+")
_DOTTED_KEY = re.compile(r"[A-Za-z_][\w-]*(\.[\w-]+)*")


def parse_set(entry: str) -> tuple[str, Any]:
    """``--set KEY=VALUE``: the dotted key (``flow[0].variant`` is ``flow.0.variant``)
    and the value read as TOML (``10``, ``1e-3``, ``true``, ``"a b"``, ``[1, 2]``), or
    as text when it is one bare word (``sack``, ``10ms``). Raises CliError naming the
    key."""
    import tomllib

    if "=" not in entry:
        raise CliError(f"--set {entry!r}: expected KEY=VALUE, e.g. sim.duration=10s")
    key, text = (x.strip() for x in entry.split("=", 1))
    path = re.sub(r"\[(\d+)\]", r".\1", key)
    if not _DOTTED_KEY.fullmatch(path):
        raise CliError(f"--set {key!r}: not a dotted key (e.g. sim.duration, "
                       "flow.0.variant or flow[0].variant)")
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        if not _BARE_WORD.fullmatch(text):
            raise CliError(f"--set {key}: {text!r} is not a TOML value (quote text: "
                           f"{key}='\"...\"')") from None
        value = text
    return path, value


def with_sets(scenario: str, entries: Sequence[str]) -> dict[str, Any]:
    """The scenario file as a dict with every ``--set`` entry applied in order."""
    from burstlab.api import load_scenario
    from burstlab.grid import GridError, set_path

    spec = load_scenario(scenario)
    for entry in entries:
        path, value = parse_set(entry)
        try:
            set_path(spec, path, value)
        except GridError as e:
            why = str(e).split(": ", 1)[-1]
            raise CliError(f"--set {path}: {why}") from None
    return spec


def _has_trace_dir(scenario: str) -> bool:
    from burstlab.api import load_scenario

    sim = load_scenario(scenario).get("sim")
    trace = sim.get("trace") if isinstance(sim, dict) else None
    return isinstance(trace, dict) and trace.get("dir") is not None


def _cmd_validate(args: argparse.Namespace) -> int:
    from burstlab import hooks
    from burstlab.api import _scenario_dir, _text_and_format

    text, fmt = _text_and_format(args.scenario)
    factory = (hooks.Factory(_scenario_dir(args.scenario))
               if hooks.has_python_assembly(text) else None)
    _core.validate(text, fmt, factory)
    print(f"{args.scenario}: ok")
    print("\n".join(_core.memory_estimate(text, fmt)["lines"]))
    print("\n".join(_core.event_estimate(text, fmt)["lines"]))
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from burstlab._files import writable_dir
    from burstlab.demo import demo

    writable_dir(args.out)
    demo(Path(args.out), duration_s=args.duration)
    return 0


def _u64(text: str) -> int:
    """argparse type: an integer from 0 to 2^64 - 1 (seeds, replication indices)."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if not 0 <= v < 2**64:
        raise argparse.ArgumentTypeError(f"must be from 0 to 2^64 - 1, got {v}")
    return v


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command-line parser. With ``command`` (one of the built-in commands), the
    other modules' commands are registered as stand-ins without importing them."""
    p = argparse.ArgumentParser(
        prog="burstlab",
        description="Simulation and models of TCP over optical burst switching.",
    )
    p.add_argument("--version", action="version", version=f"burstlab {_core.__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("run", help="run one scenario and print a summary table")
    r.add_argument("scenario", help="scenario file (.toml or .json)")
    r.add_argument("--seed", type=_u64, default=None,
                   help="master seed, 0 to 2^64-1 (overrides sim.seed)")
    r.add_argument("--replication", type=_u64, default=None, help="replication index")
    r.add_argument("--out", default=None,
                   help="directory for the result tables and result.json (traces stream "
                        "into it as CSV while the run goes)")
    r.add_argument("--format", choices=["parquet", "csv"], default="parquet",
                   help="the tables' file format with --out (default parquet)")
    r.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a scenario key: a dotted key (sim.duration, "
                        "flow.0.variant or flow[0].variant) and a TOML value (10, 1e-3, "
                        "true, \"text\"; one bare word such as sack or 10ms is text); "
                        "repeatable")
    r.add_argument("--no-progress", action="store_true",
                   help="no progress line (drawn on a terminal once a run has taken 2 s)")
    r.set_defaults(func=_cmd_run)

    v = sub.add_parser("validate", help="check a scenario without running it")
    v.add_argument("scenario")
    v.set_defaults(func=_cmd_validate)

    d = sub.add_parser("demo", help="run the demo: four TCP variants, table and cwnd plot")
    d.add_argument("--out", default="out/demo", help="output directory (default out/demo)")
    d.add_argument("--duration", type=float, default=200.0, help="simulated seconds per run")
    d.set_defaults(func=_cmd_demo)

    for name, (commands, helps) in _COMMAND_MODULES.items():
        if command is not None and command not in commands:
            # Not the command being run: a stand-in keeps it in the usage and the list
            # of commands without importing its module (numpy, pandas, …), so that a
            # small `burstlab run` starts in a fraction of a second.
            for c, h in zip(commands, helps, strict=True):
                sub.add_parser(c, help=h, add_help=False)
            continue
        try:
            mod = __import__(name, fromlist=["add_parser"])
        except ImportError:
            continue
        mod.add_parser(sub)
    return p


#: The modules that register further commands: (commands, one-line helps).
_COMMAND_MODULES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "burstlab.models.cli": (("model",), ("analytical TCP-over-OBS models (yu eqs. 26-61, "
                                         "PFTK)",)),
    "burstlab.sweep_cli": (("sweep", "plot"), ("run a scenario over a parameter grid (parallel, resumable)",
                                               "plot a metric against a swept parameter")),
    "burstlab.reproduce.cli": (("reproduce",), ("reproduce papers' figures, tables and claims (simulation, "
                                                "model, paper)",)),
    "burstlab.export.cli": (("export",), ("write a scenario for another simulator (ns-2)",)),
}


def _command_of(argv: Sequence[str]) -> str | None:
    """The sub-command named in ``argv`` (its first word not starting with '-'), if it is
    one of the built-in ones; ``None`` (register everything) otherwise."""
    for a in argv:
        if not a.startswith("-"):
            return a if a in ("run", "validate", "demo") else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_command_of(argv))
    try:
        args = parser.parse_args(argv)
        rc = args.func(args)
        return int(rc or 0)
    except SystemExit as e:  # argparse: usage errors exit 2 with their own message
        return int(e.code) if isinstance(e.code, int) else 2
    except (_core.ScenarioError, CliError, ValueError, FileNotFoundError) as e:
        print(f"burstlab: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # a file or folder that cannot be read or written
        where = f"{e.filename}: " if e.filename else ""
        print(f"burstlab: error: {where}{e.strerror or e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("burstlab: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    # ``python -m burstlab.cli`` runs this file as ``__main__``: take main from the
    # package's module, so that the sub-commands' ``burstlab.cli.CliError`` is the class
    # main catches (else it escapes as a traceback with exit code 1).
    from burstlab.cli import main as _main

    sys.exit(_main())
