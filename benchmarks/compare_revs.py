"""Speed of two revisions of burstlab on the same benchmarks, measured in one run.

Builds the release ``burstlab-bench`` binary of each git revision (in a detached worktree
under ``target/revs/``, cached by commit), then runs every scenario alternately with the
two binaries (base, head, base, head, ...: load changes on a shared machine hit both
alike) and prints, per scenario, the median CPU time per delivered segment of each and
their ratio. With ``--instructions`` it also counts instructions per delivered segment
under valgrind's cachegrind, which does not depend on the machine's load.

    python benchmarks/compare_revs.py --base 7f75dee [--head HEAD] [--runs 5]
        [--scenario FILE[:SECONDS]]... [--instructions]

A scenario given as ``FILE:SECONDS`` runs for SECONDS of simulated time. The two
revisions may deliver different numbers of segments (a revision that changes results);
the table then says so, since a cost per segment of two different runs compares less.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from benchutil import cachegrind

ROOT = Path(__file__).resolve().parents[1]
REVS = ROOT / "target" / "revs"
DEFAULT_SCENARIOS = [
    "benchmarks/path_5hop.toml:2000",
    "benchmarks/yu_1flow.toml:2000",
    "benchmarks/mesh_9flow.toml:20",
    "benchmarks/dumbbell_320.toml:0.3",
]


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()


def binary_of(rev: str) -> Path:
    """The release bench binary of ``rev`` (built once per commit, then cached)."""
    sha = git("rev-parse", "--verify", f"{rev}^{{commit}}")
    out = REVS / f"burstlab-bench-{sha[:12]}"
    if out.exists():
        return out
    REVS.mkdir(parents=True, exist_ok=True)
    wt = REVS / f"src-{sha[:12]}"
    if not wt.exists():
        git("worktree", "add", "--detach", str(wt), sha)
    print(f"building {rev} ({sha[:12]}) ...", file=sys.stderr, flush=True)
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "burstlab-core", "--bin", "burstlab-bench"],
        cwd=wt,
        check=True,
    )
    shutil.copy2(wt / "target" / "release" / "burstlab-bench", out)
    return out


def command(binary: Path, scenario: Path, duration: str | None) -> list[str]:
    """The bench binary's command line for ``scenario`` (for ``duration`` simulated seconds)."""
    cmd = [str(binary), str(scenario)]
    if duration is not None:
        cmd += ["--duration", duration]
    return cmd


def once(binary: Path, scenario: Path, duration: str | None) -> dict[str, float]:
    """One fresh process: its JSON line plus the CPU seconds it used."""
    cmd = command(binary, scenario, duration)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    row = dict(json.loads(out))
    row["cpu_s"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return row


def instructions(binary: Path, scenario: Path, duration: str | None) -> int:
    """Instructions the whole process executed, counted by cachegrind."""
    return cachegrind(command(binary, scenario, duration))["Ir"]


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--base", required=True, help="git revision to compare against")
    ap.add_argument("--head", default="HEAD", help="git revision to measure (default HEAD)")
    ap.add_argument("--runs", type=int, default=5, help="fresh processes per revision and scenario")
    ap.add_argument(
        "--scenario",
        action="append",
        help="FILE or FILE:SECONDS (repeatable; default: the four benchmark scenarios)",
    )
    ap.add_argument(
        "--instructions",
        action="store_true",
        help="also count instructions per segment with valgrind (slow: ~50x a plain run)",
    )
    args = ap.parse_args(argv)
    if args.runs < 1:
        print("compare_revs: --runs must be at least 1", file=sys.stderr)
        return 2
    if args.instructions and shutil.which("valgrind") is None:
        print("compare_revs: --instructions needs valgrind (apt-get install valgrind)", file=sys.stderr)
        return 2
    try:
        base, head = binary_of(args.base), binary_of(args.head)
    except subprocess.CalledProcessError as e:
        print(f"compare_revs: {' '.join(map(str, e.cmd))} failed", file=sys.stderr)
        return 2
    specs = args.scenario or DEFAULT_SCENARIOS
    load0 = os.getloadavg()[0]
    rows = []
    for spec in specs:
        path_s, _, dur = spec.partition(":")
        path = Path(path_s)
        if not path.is_absolute():
            path = ROOT / path
        if not path.exists():
            print(f"compare_revs: no scenario file {path}", file=sys.stderr)
            return 2
        duration = dur or None
        runs: dict[str, list[dict[str, float]]] = {"base": [], "head": []}
        for i in range(args.runs):
            print(f"{path.name}: run {i + 1}/{args.runs}", file=sys.stderr, flush=True)
            runs["base"].append(once(base, path, duration))
            runs["head"].append(once(head, path, duration))
        med = {
            k: {
                "ns_per_seg": statistics.median(1e9 * r["cpu_s"] / max(r["delivered_segments"], 1) for r in v),
                "segs": v[0]["delivered_segments"],
            }
            for k, v in runs.items()
        }
        row = {
            "scenario": path.name + (f" ({dur} s)" if dur else ""),
            "base_ns_per_seg": med["base"]["ns_per_seg"],
            "head_ns_per_seg": med["head"]["ns_per_seg"],
            "cpu_ratio": med["head"]["ns_per_seg"] / med["base"]["ns_per_seg"],
            "same_results": med["base"]["segs"] == med["head"]["segs"],
            "base_segments": med["base"]["segs"],
            "head_segments": med["head"]["segs"],
        }
        if args.instructions:
            ib = instructions(base, path, duration) / max(med["base"]["segs"], 1)
            ih = instructions(head, path, duration) / max(med["head"]["segs"], 1)
            row.update(base_instr_per_seg=ib, head_instr_per_seg=ih, instr_ratio=ih / ib)
        rows.append(row)
    load1 = os.getloadavg()[0]
    print(
        f"\nbase {args.base}, head {args.head}; {cpu_model()}, {os.cpu_count()} CPUs; "
        f"load average {load0:.1f} at start, {load1:.1f} at end; "
        f"medians of {args.runs} alternating fresh processes (CPU time)\n"
    )
    cols = ["scenario", "base ns/seg", "head ns/seg", "head/base"]
    if args.instructions:
        cols += ["base instr/seg", "head instr/seg", "head/base (instr)"]
    cols += ["same results"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        cells = [
            r["scenario"],
            f"{r['base_ns_per_seg']:.0f}",
            f"{r['head_ns_per_seg']:.0f}",
            f"{r['cpu_ratio']:.3f}",
        ]
        if args.instructions:
            cells += [
                f"{r['base_instr_per_seg']:.0f}",
                f"{r['head_instr_per_seg']:.0f}",
                f"{r['instr_ratio']:.3f}",
            ]
        cells.append(
            "yes" if r["same_results"] else f"no ({r['base_segments']:.0f} vs {r['head_segments']:.0f} segments)"
        )
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
