"""What the ingress-edge and control-plane mechanisms do to TCP goodput
(docs/topics/contention-study.md, the ingress/control part).

Scenario: examples/ingress_buffer.toml (two Reno flows from two hosts behind edge E0
share E0's single wavelength towards C1; 2 ms timers). Per replication r the second
flow starts at a time drawn uniformly in [0, 2 ms) (numpy seed r), so the two flows'
bursts collide at the ingress in a different phase. Settings:

- bufferless ingress (the default), and `obs.ingress.max_wait = 800us`;
- control-packet loss p ∈ {1e-3, 1e-2} per fibre with the buffered ingress;
- p = 1e-2 with burst retransmission (R = 2, copies held 50 ms);
- a 10 Mb/s control wavelength (100 B BCPs, 80 µs each) with the buffered ingress,
  with the default offset (20 µs) and with 200 µs more.

Prints one row per setting: aggregate goodput (Mb/s) mean and 95 % t-interval over the
replications, bursts lost per reason. Run: `python benchmarks/control_plane_study.py
[--reps 8] [--duration 20s] [--out FILE.csv]`.
"""

from __future__ import annotations

import argparse
import copy
from typing import Any

import numpy as np
from scipy import stats

import burstlab
from burstlab.api import load_scenario
from burstlab.units import parse_time

SETTINGS: dict[str, dict[str, Any]] = {
    "bufferless": {},
    "buffered (max_wait 800 us)": {"ingress": {"max_wait": "800us"}},
    "buffered + control loss 1e-3": {"ingress": {"max_wait": "800us"},
                                     "control": {"loss": 1e-3}},
    "buffered + control loss 1e-2": {"ingress": {"max_wait": "800us"},
                                     "control": {"loss": 1e-2}},
    "buffered + control channel 10 Mb/s (100 B BCPs)": {
        "ingress": {"max_wait": "800us"}, "control": {"rate": "10Mb/s"}},
    "same + extra_offset 200 us": {
        "ingress": {"max_wait": "800us"}, "control": {"rate": "10Mb/s"},
        "extra_offset": "200us"},
    "buffered + control loss 1e-2 + retransmit R=2": {
        "ingress": {"max_wait": "800us"}, "control": {"loss": 1e-2},
        "retransmit": {"max": 2, "hold": "50ms"}},
}


def one(base: dict[str, Any], obs: dict[str, Any], rep: int, duration: str) -> dict[str, Any]:
    s = copy.deepcopy(base)
    s["obs"].pop("ingress", None)
    s["obs"].update(obs)
    s["sim"] = {**s["sim"], "duration": duration, "replication": rep}
    start_us = float(np.random.default_rng(rep).uniform(0, 2000))
    s["flow"][1]["start"] = f"{start_us:.3f}us"
    r = burstlab.run(s)
    secs = parse_time(duration)
    bits = float(r.flows.segments_delivered.sum()) * 1000 * 8
    b = r.bursts
    return {"goodput_Mbps": bits / secs / 1e6,
            "lost_contention": int(b.lost_contention.sum()),
            "lost_control": int(b.lost_control.sum()),
            "lost_offset": int(b.lost_offset_too_short.sum()),
            "bursts_sent": int(b.bursts_sent.sum())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=8)
    ap.add_argument("--duration", default="20s")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    import pandas as pd

    base = load_scenario("examples/ingress_buffer.toml")
    rows = []
    for name, obs in SETTINGS.items():
        for rep in range(a.reps):
            rows.append({"setting": name, "replication": rep,
                         **one(base, obs, rep, a.duration)})
    df = pd.DataFrame(rows)
    if a.out:
        df.to_csv(a.out, index=False)
    print(f"| setting | goodput (Mb/s), mean [95 % CI], n={a.reps} | bursts lost: "
          "contention | control_lost | offset_too_short | bursts sent |")
    print("|---|---|---|---|---|---|")
    for label, g in df.groupby("setting", sort=False):
        x = g.goodput_Mbps.to_numpy()
        m = float(x.mean())
        h = float(stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x)))
        print(f"| {label} | {m:.2f} [{m - h:.2f}, {m + h:.2f}] | "
              f"{g.lost_contention.sum()} | {g.lost_control.sum()} | {g.lost_offset.sum()} | "
              f"{g.bursts_sent.sum()} |")


if __name__ == "__main__":
    main()
