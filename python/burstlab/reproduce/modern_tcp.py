"""Extension beyond the five papers (no paper verdicts): today's controllers on yu's OBS
path. Preliminary: a table, not yet a page of the reproduction site.

yu §V's path (one flow, per-flow timer assembly with period Tb, burst loss p on data
bursts; ``burstlab.topologies.yu_path``) with Reno and SACK (AIMD) beside CUBIC,
HighSpeed and Vegas (ns-2.35's ``Agent/TCP/Linux`` modules, the ``ns2`` profile).
``wm`` is raised to 1000 segments so that the receiver window does not hide the
controllers' differences (yu's runs use 50).

Run: ``python -m burstlab.reproduce.modern_tcp [--seeds N] [--duration 60s]``.
"""

from __future__ import annotations

import argparse
import statistics
from typing import Any

import burstlab
from burstlab.topologies import yu_path

#: (label, variant, cc) of the senders compared.
SENDERS = [("reno", "reno", "aimd"), ("sack", "sack", "aimd"), ("cubic", "sack", "cubic"),
           ("highspeed", "sack", "highspeed"), ("vegas", "sack", "vegas")]

#: Student's t quantile t(0.975, n − 1) for n = 2..10 seeds (95 % two-sided interval).
_T975 = {2: 12.706, 3: 4.303, 4: 3.182, 5: 2.776, 6: 2.571, 7: 2.447, 8: 2.365,
         9: 2.306, 10: 2.262}


def goodput_table(tbs: tuple[str, ...] = ("1ms", "5ms", "20ms"), p: float = 0.01,
                  seeds: int = 5, duration: str = "60s",
                  wm: int = 1000) -> list[dict[str, Any]]:
    """One row per (Tb, sender): mean goodput over ``seeds`` seeds with its 95 %
    t-interval half-width, segments per second."""
    if not 2 <= seeds <= 10:
        raise ValueError(f"seeds: between 2 and 10, got {seeds}")
    rows = []
    for tb in tbs:
        for label, variant, cc in SENDERS:
            g = []
            for seed in range(1, seeds + 1):
                spec = yu_path(tb=tb, p=p, variant=variant, wm=wm, duration=duration,
                               seed=seed)
                spec["flow"][0]["cc"] = cc
                g.append(float(burstlab.run(spec).flows.iloc[0].goodput_segps))
            half = _T975[seeds] * statistics.stdev(g) / seeds ** 0.5
            rows.append({"tb": tb, "sender": label, "goodput_segps": statistics.mean(g),
                         "ci95_halfwidth_segps": half, "seeds": seeds})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--duration", default="60s")
    a = ap.parse_args(argv)
    for r in goodput_table(seeds=a.seeds, duration=a.duration):
        print(f"Tb={r['tb']:>5} {r['sender']:>9}: {r['goodput_segps']:8.1f} ± "
              f"{r['ci95_halfwidth_segps']:6.1f} seg/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
