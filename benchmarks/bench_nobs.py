"""burstlab against nOBS v2.1 (ns-2.35 + the Bilkent OBS extension) on the same OBS
scenarios (docs/topics/nobs.md "Speed").

Scenarios (tests/_nobs_scenarios.py, exported by ``burstlab.export.export_nobs``):

* ``edge-core-edge``: one Reno flow, host – edge ==1 Gb/s, 5 ms== core ==…== edge –
  host, 2 ms timer assembly, one wavelength (the refsim example's network);
* ``two-sources``: two Reno flows sharing the fibres, one wavelength;
* ``ozsarac-linear``: ozsarac's linear topology (``burstlab.topologies.ozsarac_linear``,
  2 ms timer): a Reno flow at up to 500 Mb/s and an on/off UDP source contending on the
  core, ACKs bypassing assembly (random: the two simulators deliver different totals,
  hence the per-segment figures).

Both simulators run as whole processes, measured from outside alike (benchutil.timed:
wall clock, user + system CPU, peak memory): nOBS as ``ns SCRIPT.tcl`` (tracing off; its
per-burst ``stat.txt`` is written as always), burstlab as the release binary
``target/release/burstlab-bench SCENARIO.toml``. A round runs both once in rotating
order; each figure is the median over ``--runs`` rounds, the ratio the median of the
per-round ratios of CPU per delivered segment (burstlab's ``delivered_segments``, nOBS's
``ack_`` summed over flows). Runs stay below 200 simulated seconds: nOBS aborts long
runs ("BIG PROBLEM: wrong delay", a floating-point equality check in
``optical/op-sragent.cc``; see docs/topics/nobs.md).

    python benchmarks/bench_nobs.py [--runs 5] [--duration 50] [--json]

Exits 2 with a message if nOBS is not built (``make nobs``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from bench_path import ROOT, build, cpu_model
from benchutil import load, median, timed

from burstlab.export import export_nobs
from burstlab.export.nobs import SUMMARY_TAG
from burstlab.export.nobstrace import nobs_binary


def _value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(type(v))


def _toml(spec: dict) -> str:
    """The scenario dict as TOML (top-level keys, [tables] and [[arrays of tables]])."""
    out = [f"{k} = {_value(v)}" for k, v in spec.items() if not isinstance(v, (dict, list))]
    for k, v in spec.items():
        if isinstance(v, dict):
            out.append(f"[{k}]")
            out += [f"{kk} = {_value(x)}" for kk, x in v.items()]
        elif isinstance(v, list):
            for item in v:
                out.append(f"[[{k}]]")
                out += [f"{kk} = {_value(x)}" for kk, x in item.items()]
    return "\n".join(out) + "\n"


def scenarios(duration_s: float) -> dict[str, dict]:
    sys.path.insert(0, str(ROOT / "tests"))
    from _nobs_scenarios import edge_core_edge, two_sources

    from burstlab.topologies import ozsarac_linear

    out = {"edge-core-edge": edge_core_edge(), "two-sources": two_sources(),
           "ozsarac-linear": ozsarac_linear("2ms")}
    for s in out.values():
        s["sim"]["duration"] = f"{duration_s}s"
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--duration", type=float, default=50.0, help="simulated seconds")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--only", default=None, help="comma-separated scenario names")
    args = ap.parse_args(argv)
    ns = nobs_binary()
    if ns is None:
        print("nOBS is not built: run `make nobs` (or set BURSTLAB_NOBS)", file=sys.stderr)
        return 2
    binary = build()
    print(f"# {cpu_model()}; {load()}; {args.runs} rounds, {args.duration} simulated s")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        for name, spec in scenarios(args.duration).items():
            if args.only and name not in args.only.split(","):
                continue
            toml_path = d / f"{name}.toml"
            toml_path.write_text(_toml(spec))
            tcl_path = d / f"{name}.tcl"
            tcl_path.write_text(export_nobs(spec).tcl)
            cpu_ratio, bl_cpu, nb_cpu, bl_wall, nb_wall = [], [], [], [], []
            bl_mem, nb_mem = [], []
            seg_bl = seg_nb = 0
            for r in range(args.runs):
                order = ["bl", "nb"] if r % 2 == 0 else ["nb", "bl"]
                got = {}
                for who in order:
                    if who == "bl":
                        p = timed([str(binary), str(toml_path)])
                        if p.returncode != 0:
                            raise RuntimeError(f"burstlab-bench failed: {p.stderr.strip()}")
                        seg_bl = int(json.loads(p.stdout)["delivered_segments"])
                    else:
                        p = timed([ns, str(tcl_path)], cwd=d)
                        if p.returncode != 0:
                            raise RuntimeError(f"nOBS failed: {p.stdout[-300:]}")
                        seg_nb = sum(int(float(line.split()[2]))
                                     for line in p.stdout.splitlines()
                                     if line.startswith(SUMMARY_TAG))
                    got[who] = p
                bl_cpu.append(got["bl"].cpu_s)
                nb_cpu.append(got["nb"].cpu_s)
                bl_wall.append(got["bl"].wall_s)
                nb_wall.append(got["nb"].wall_s)
                bl_mem.append(got["bl"].peak_rss_kib)
                nb_mem.append(got["nb"].peak_rss_kib)
                cpu_ratio.append((got["nb"].cpu_s / max(seg_nb, 1))
                                 / (got["bl"].cpu_s / max(seg_bl, 1)))
            row = {
                "scenario": name, "simulated_s": args.duration,
                "segments_burstlab": seg_bl, "segments_nobs": seg_nb,
                "cpu_s_burstlab": median(bl_cpu), "cpu_s_nobs": median(nb_cpu),
                "wall_s_burstlab": median(bl_wall), "wall_s_nobs": median(nb_wall),
                "ns_per_segment_burstlab": median(bl_cpu) / max(seg_bl, 1) * 1e9,
                "ns_per_segment_nobs": median(nb_cpu) / max(seg_nb, 1) * 1e9,
                "peak_mib_burstlab": median(bl_mem) / 1024,
                "peak_mib_nobs": median(nb_mem) / 1024,
                "cpu_per_segment_ratio_nobs_to_burstlab": median(cpu_ratio),
                "ratio_min": min(cpu_ratio), "ratio_max": max(cpu_ratio),
            }
            results.append(row)
            if args.json:
                print(json.dumps(row))
            else:
                print(f"{name}: burstlab {row['ns_per_segment_burstlab']:.0f} ns/segment "
                      f"({seg_bl} segments, {row['cpu_s_burstlab']:.3f} s CPU, "
                      f"{row['peak_mib_burstlab']:.1f} MiB), nOBS "
                      f"{row['ns_per_segment_nobs']:.0f} ns/segment ({seg_nb} segments, "
                      f"{row['cpu_s_nobs']:.3f} s CPU, {row['peak_mib_nobs']:.1f} MiB); "
                      f"nOBS/burstlab CPU per segment {row['cpu_per_segment_ratio_nobs_to_burstlab']:.1f} "
                      f"({row['ratio_min']:.1f}–{row['ratio_max']:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
