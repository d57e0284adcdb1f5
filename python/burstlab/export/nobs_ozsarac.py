"""ozsarac's timer-based baseline in its own group's simulator: the linear topology
(:func:`burstlab.topologies.ozsarac_linear`) run in burstlab and, exported, in nOBS v2.1,
side by side as one CSV table.

    python -m burstlab.export.nobs_ozsarac [--tb 1ms,2ms,5ms,10ms] [--duration 50]
                                          [--warmup 10] [--seeds 1,2,3] [--out F.csv]

Columns: ``tb_ms``, ``seed``, ``simulator`` (burstlab / nobs), ``duration_s``,
``goodput_mbps`` (the FTP flow's data delivered, segments × MSS × 8 / counted span),
``data_bursts`` and ``bursts_lost`` (the FTP ingress E1's bursts, its losses to
contention with the real-time source's bursts downstream), ``burst_loss_prob``,
``retransmits``, ``timeouts``.

Differences of the export that matter here (docs/topics/nobs.md): ACKs bypass the core
on a link of their own in burstlab (Σ fibre delays, one transmission, a FIFO queue); in
nOBS (``ackdontburst 1``) each crosses the fibres at once as a burst of its own, without
offset or reservation; nOBS uses ``SWITCHTIME`` as a guard between bursts on a wavelength;
burstlab's assembly queue limit (100 000 packets) has no nOBS counterpart (never reached
here). Runs stay below nOBS's floating-point abort (about 200 simulated s, see the docs).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from burstlab.units import parse_size, parse_time


def _row(tb: str, seed: int, sim: str, duration: float, segs: int, mss: int,
         bursts: int, lost: int, retx: int, tos: int) -> dict[str, Any]:
    return {"tb_ms": parse_time(tb) * 1e3, "seed": seed, "simulator": sim,
            "duration_s": duration, "goodput_mbps": segs * mss * 8 / duration / 1e6,
            "data_bursts": bursts, "bursts_lost": lost,
            "burst_loss_prob": lost / bursts if bursts else float("nan"),
            "retransmits": retx, "timeouts": tos}


#: The line the script prints at the end of the warm-up (flow 0's counters then).
WARM_TAG = "burstlab-nobs-warm"


def run_pair(tb: str, seed: int, duration: float, workdir: Path | None = None,
             warmup: float = 0.0) -> list[dict[str, Any]]:
    """One timer value and seed in both simulators: two rows. With ``warmup`` (s), both
    count only what happens after it (burstlab's ``sim.warmup``; nOBS's counters read
    at the warm-up's end are subtracted, its bursts counted from then on)."""
    import tempfile

    import burstlab
    from burstlab.export import export_nobs
    from burstlab.export.nobstrace import longest_hop_s, longest_line_s, nobs_bursts, run_nobs
    from burstlab.topologies import ozsarac_linear

    spec = ozsarac_linear(tb, duration=f"{duration}s", seed=seed)
    if warmup > 0:
        spec["sim"]["warmup"] = f"{warmup}s"
    span = duration - warmup
    mss = int(parse_size(spec["flow"][0]["mss"]))
    res = burstlab.run(spec)
    fl = res.flows.iloc[0]
    b = res.bursts
    q = b[b.edge == "E1"].iloc[0]
    rows = [_row(tb, seed, "burstlab", span, int(fl.segments_delivered), mss,
                 int(q.data_bursts), int(q.bursts_lost), int(fl.retransmits),
                 int(fl.to_events))]
    script = export_nobs(spec, trace="trace.tr", trace_fibres_only=True)
    tcl = script.tcl
    if warmup > 0:
        # Braces: the counters are read when the event runs, not when it is scheduled.
        tcl = tcl.replace("\n$ns run\n", f'\n$ns at {warmup!r} {{puts "{WARM_TAG} '
                          '[$tcp(0) set ack_] [$tcp(0) set nrexmitpack_] '
                          '[$tcp(0) set nrexmit_]"}\n$ns run\n')
    with tempfile.TemporaryDirectory() as tmp:
        nb = run_nobs(tcl, workdir=workdir or Path(tmp), trace=True)
    warm = [0, 0, 0]
    if warmup > 0:
        lines = [x for x in nb.stdout.splitlines() if x.startswith(WARM_TAG)]
        if len(lines) != 1:
            raise RuntimeError(f"nOBS printed no {WARM_TAG} line")
        warm = [int(float(x)) for x in lines[0].split()[1:4]]
    ids = script.node_ids
    path = [ids[n] for n in script.paths[0]]
    nbur = (nobs_bursts(nb.trace, path, lost_after_s=longest_hop_s(spec),
                        control_wait_s=longest_line_s(spec))
            if nb.trace is not None else None)
    if nbur is not None and len(nbur):
        nbur = nbur[nbur.bcp_time_s >= warmup]
    n0 = nb.flows[0]
    sent = len(nbur) if nbur is not None else 0
    lost = int((nbur.fate == "lost").sum()) if nbur is not None and sent else 0
    rows.append(_row(tb, seed, "nobs", span, n0.acked_segments - warm[0], mss, sent, lost,
                     n0.retransmitted_packets - warm[1], n0.timeouts - warm[2]))
    return rows


def main(argv: list[str] | None = None) -> int:
    import pandas as pd

    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tb", default="1ms,2ms,5ms,10ms")
    ap.add_argument("--duration", type=float, default=50.0,
                    help="simulated seconds (nOBS aborts past about 64 s)")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--out", default="ozsarac_nobs.csv")
    ap.add_argument("--warmup", type=float, default=0.0,
                    help="simulated seconds left out of every count (settled runs)")
    args = ap.parse_args(argv)
    rows: list[dict[str, Any]] = []
    for tb in args.tb.split(","):
        for seed in (int(x) for x in args.seeds.split(",")):
            rows += run_pair(tb, seed, args.duration, warmup=args.warmup)
            print(pd.DataFrame(rows[-2:]).to_string(index=False), file=sys.stderr)
    df = pd.DataFrame(rows)
    df.to_csv(args.out, index=False)
    print(df.groupby(["tb_ms", "simulator"])[["goodput_mbps", "burst_loss_prob"]]
          .agg(["mean", "std"]).unstack().to_string())
    paired = df.pivot_table(index=["tb_ms", "seed"], columns="simulator",
                            values=["goodput_mbps", "burst_loss_prob"])
    for col in ("goodput_mbps", "burst_loss_prob"):
        d = paired[col]["nobs"] - paired[col]["burstlab"]
        if len(d) > 1:
            t = d.mean() / (d.std() / len(d) ** 0.5)
            print(f"{col}: nOBS − burstlab over {len(d)} pairs: mean {d.mean():.4g}, "
                  f"sd {d.std():.4g}, t = {t:.2f}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
