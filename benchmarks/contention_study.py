"""What each contention-resolution mechanism does to TCP goodput on one scenario.

The scenario is examples/contention_core.toml (a Reno flow and an on/off UDP source
whose bursts meet at core C1 under wavelength continuity, two wavelengths) with every
mechanism removed; each row of ``ROWS`` switches one mechanism (or a combination) back
on. Every row runs the same seeds (common random numbers: the UDP source's periods are
the same in every row), and reports the mean TCP goodput with a 95 % Student-t interval
over seeds, the share of the TCP flow's data bursts lost whole, its loss events (TD +
TO) per second, and the paired difference to the baseline with its interval.

    PYTHONPATH=python python benchmarks/contention_study.py [--seeds 10] [--duration 20s]

Other mechanisms (ingress buffering, burst retransmission, the control channel, ...)
add rows to ``ROWS``: a name and a function that edits the scenario dict.
"""

from __future__ import annotations

import argparse
import copy
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "examples" / "contention_core.toml"


def _contention(**kw: Any) -> Callable[[dict[str, Any]], None]:
    def edit(s: dict[str, Any]) -> None:
        s["obs"]["contention"] = dict(kw)
    return edit


def _priority(s: dict[str, Any], mode: str) -> None:
    """The TCP flow in a class of priority 1, the UDP source in class 0 of priority 0,
    and ``preemption = mode``."""
    s["obs"]["class"] = [{"name": "udp", "priority": 0}, {"name": "tcp", "priority": 1}]
    for f in s["flow"]:
        if f["name"] == "tcp":
            f["class"] = 1
    s["obs"]["contention"] = {"preemption": mode}


def _deflection(s: dict[str, Any]) -> None:
    """examples/deflection.toml's second way to the egress (C1 -> C2 -> E2, one more
    core node, 2 ms longer) and its table: C1 deflects to C2, once per burst, with the
    20 us of extra offset the longer path's BCP processing needs. The new node and
    fibres carry nothing unless a burst is deflected (the routes stay shortest paths)."""
    s["node"].append({"name": "C2", "kind": "core"})
    for a, b in (("C1", "C2"), ("C2", "E2")):
        s["fibre"].append({"a": a, "b": b, "rate": "1Gb/s", "delay": "1ms",
                           "wavelengths": 2})
    s["obs"]["contention"] = {"deflection": [{"node": "C1", "via": ["C2"]}],
                              "max_deflections": 1, "deflection_offset": "20us"}


#: (row name, edit of the baseline scenario). The baseline has no [obs.contention].
ROWS: list[tuple[str, Callable[[dict[str, Any]], None]]] = [
    ("none (bufferless, continuity)", lambda s: None),
    ("1 converter per node", _contention(converters=1)),
    ("2 converters per node", _contention(converters=2)),
    ("FDLs 10/20/40 us, one burst each", _contention(fdl=["10us", "20us", "40us"])),
    ("FDLs 10/20/40 us, many bursts", _contention(fdl=["10us", "20us", "40us"],
                                                  fdl_capacity="many")),
    ("FDLs 100/200/400 us, one burst each", _contention(fdl=["100us", "200us", "400us"])),
    ("1 converter + FDLs (one)", _contention(converters=1, fdl=["10us", "20us", "40us"])),
    ("head-dropping segmentation", _contention(segmentation="head")),
    ("tail-dropping segmentation", _contention(segmentation="tail")),
    ("TCP class preempts UDP class (full)", lambda s: _priority(s, "full")),
    ("TCP class preempts UDP class (segment)", lambda s: _priority(s, "segment")),
    ("full conversion", lambda s: s["obs"].update(conversion=True)),
    ("deflection at C1 via C2 (+20 us offset)", _deflection),
]

T95 = {2: 12.706, 3: 4.303, 4: 3.182, 5: 2.776, 6: 2.571, 7: 2.447, 8: 2.365, 9: 2.306,
       10: 2.262, 11: 2.228, 12: 2.201, 16: 2.131, 21: 2.086, 31: 2.042}


def _t95(n: int) -> float:
    return T95.get(n, T95[max(k for k in T95 if k <= n)] if n > 1 else math.nan)


def _ci(xs: list[float]) -> tuple[float, float]:
    n = len(xs)
    m = sum(xs) / n
    if n < 2:
        return m, math.nan
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    return m, _t95(n) * sd / math.sqrt(n)


def baseline() -> dict[str, Any]:
    from burstlab.api import load_scenario

    s = copy.deepcopy(load_scenario(SCENARIO))
    s["obs"].pop("contention", None)
    return s


def run_study(seeds: int = 10, duration: str = "20s",
              only: list[int] | None = None) -> list[dict[str, Any]]:
    """One dict per row: goodput (segments/s) mean and 95 % half-width, loss, and the
    paired difference to the first row. ``only``: the row numbers to run (the
    baseline, row 0, always runs)."""
    import burstlab

    base = baseline()
    per_row: list[tuple[str, list[float], list[float], list[float]]] = []
    for i, (name, edit) in enumerate(ROWS):
        if only is not None and i != 0 and i not in only:
            continue
        spec = copy.deepcopy(base)
        spec["sim"]["duration"] = duration
        edit(spec)
        good, loss, events = [], [], []
        for seed in range(1, seeds + 1):
            res = burstlab.run(spec, seed=seed)
            fl = res.flows
            tcp = fl[fl.name == "tcp"].iloc[0]
            good.append(float(tcp.goodput_segps))
            events.append(float(tcp.td_events + tcp.to_events) / float(tcp.measured_s))
            b = res.bursts
            q = b[b.key == "tcp"]
            loss.append(float(q.bursts_lost.sum() / max(int(q.data_bursts.sum()), 1)))
        per_row.append((name, good, loss, events))
    out = []
    base_good = per_row[0][1]
    for name, good, loss, events in per_row:
        m, h = _ci(good)
        dm, dh = _ci([g - b for g, b in zip(good, base_good, strict=True)])
        lm, lh = _ci(loss)
        em, eh = _ci(events)
        out.append({"mechanism": name, "tcp_goodput_segps": m, "goodput_ci95_segps": h,
                    "goodput_gain_segps": dm, "gain_ci95_segps": dh,
                    "tcp_burst_loss": lm, "loss_ci95": lh,
                    "tcp_loss_events_per_s": em, "events_ci95_per_s": eh, "seeds": len(good)})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--duration", default="20s")
    ap.add_argument("--rows", default="",
                    help="comma-separated row numbers (0 = baseline, always run) to run only "
                         "those; every row is deterministic, so a subset gives the same "
                         "numbers as the full table")
    a = ap.parse_args()
    rows = run_study(a.seeds, a.duration,
                     [int(x) for x in a.rows.split(",") if x.strip()] or None)
    print("| mechanism | TCP goodput (seg/s) | gain vs none (seg/s) | TCP data bursts lost"
          " whole | TCP loss events (TD + TO) per s |\n|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['mechanism']} | {r['tcp_goodput_segps']:.1f} ± {r['goodput_ci95_segps']:.1f}"
              f" | {r['goodput_gain_segps']:+.1f} ± {r['gain_ci95_segps']:.1f}"
              f" | {r['tcp_burst_loss']:.4f} ± {r['loss_ci95']:.4f}"
              f" | {r['tcp_loss_events_per_s']:.2f} ± {r['events_ci95_per_s']:.2f} |")


if __name__ == "__main__":
    main()
