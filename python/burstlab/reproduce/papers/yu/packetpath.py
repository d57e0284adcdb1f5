"""Figs 8–9 on the same path as a packet network, in burstlab and in ns-2.35 itself.

Read first: :func:`packet_scenario` (the path without burst switching), then
:func:`packet_points` (one run per panel, dropping the segments burstlab's OBS run lost
in its dropped burst), :func:`ns2_records` (ns-2 on the exported scripts, cached, via
:mod:`burstlab.reproduce.ns2cache`) and :func:`compare_panels`.

ns-2 has no burst switching, so yu's OBS path cannot be exported as it is. The packet
path keeps everything else: sender –(λ, 10 ms)– E1 –(10 GB/s, 10 ms + Tb)– C1 –(10 GB/s,
10 ms)– C2 –(10 GB/s, 10 ms)– E2 –(λ, 10 ms)– receiver, unbounded queues, the same TCP
(ns2 profile, ``Wm = W``, seed); the assembly delay becomes Tb of extra propagation on
E1–C1 in each direction (yu's RTT = RTT0 + 2·Tb), and the dropped burst becomes a
scripted drop of the same segments (``drop_segments``, ns-2's ``ErrorModel/List`` on the
first link). Both simulators then run the identical scenario, so their send sequences
can be compared packet for packet (:func:`burstlab.export.ns2trace.first_divergence`),
and both can be set beside burstlab's OBS outcome and the paper's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from burstlab.export.ns2trace import Ns2Flow, burstlab_sends, first_divergence, ns2_sends
from burstlab.reproduce import ns2cache
from burstlab.reproduce.framework import Context, Experiment
from burstlab.reproduce.papers.yu.experiments import (
    NS2_VERSION,
    PAPER,
    SEED,
    DropPanel,
    drop_panels,
    tb_for_s,
)

#: Bumped whenever what a cached ns-2 run records changes.
CACHE_VERSION = 1

#: Node names along the path (sender is node 0, receiver node 5 in the export).
NODES = ("sender", "E1", "C1", "C2", "E2", "receiver")


def panels(ctx: Context) -> list[tuple[int, DropPanel]]:
    """The panels of figs 8–9 run on the packet path: the standard ones (not the
    min-RTO diagnostic of fig. 8(b')), with their index among :func:`drop_panels`."""
    return [(i, pn) for i, pn in enumerate(drop_panels(ctx.mode)) if pn.min_rto is None]


def packet_scenario(pn: DropPanel, drop: list[list[int]], duration: float,
                    trace: bool = True) -> dict[str, Any]:
    """yu's path as a packet network (module docs), one TCP flow, ``drop`` the
    ``[first, last]`` segment ranges to drop at their first transmission."""
    tb = tb_for_s(pn.s, "125KB/s")
    access = {"rate": "125KB/s", "delay": "10ms"}
    core = {"rate": "10GB/s", "delay": 0.01}
    sc: dict[str, Any] = {
        "name": "yu-packet-path",
        "sim": {"duration": round(duration, 6), "seed": SEED},
        "node": [{"name": "sender", "kind": "host"}, {"name": "E1"}, {"name": "C1"},
                 {"name": "C2"}, {"name": "E2"}, {"name": "receiver", "kind": "host"}],
        "link": [
            {"a": "sender", "b": "E1", **access},
            {"a": "E1", "b": "C1", "rate": "10GB/s", "delay": round(0.01 + tb, 9)},
            {"a": "C1", "b": "C2", **core},
            {"a": "C2", "b": "E2", **core},
            {"a": "E2", "b": "receiver", **access},
        ],
        "flow": [{"type": "tcp", "name": "tcp", "src": "sender", "dst": "receiver",
                  "variant": pn.variant, "mss": "1000B", "wm": pn.w,
                  "ns2_version": NS2_VERSION, "drop_segments": drop}],
    }
    if trace:
        sc["sim"]["trace"] = {"cwnd": True, "packets": True}
    return sc


def ranges(seqs: list[int]) -> list[list[int]]:
    """Sorted segment numbers as ``[first, last]`` runs."""
    out: list[list[int]] = []
    for s in sorted(set(seqs)):
        if out and s == out[-1][1] + 1:
            out[-1][1] = s
        else:
            out.append([s, s])
    return out


def packet_points(ctx: Context) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """One packet-path run per panel: the segments the OBS drop run lost in its dropped
    burst are dropped here; the run lasts as long as the OBS drop run."""
    drops = ctx.results["trace_drops"]
    choices = ctx.values["drop_choices"]
    pts = []
    for i, pn in panels(ctx):
        res = drops.result(i)
        pk = res.packets
        lost = pk[(pk["event"] == "dropped") & (pk["flow"] == 0)]["seq"].astype(int).tolist()
        duration = choices[pn.label].time_s + pn.after
        pts.append(({"panel": pn.label, "dropped_segments": len(lost)},
                    packet_scenario(pn, ranges(lost), duration)))
    return pts


def _extract(scenario: Mapping[str, Any], flows: dict[int, Ns2Flow],
             trace: pd.DataFrame) -> dict[str, Any]:
    """ns-2's send sequence of flow 0, its arrivals at the receiver and its counters."""
    s = ns2_sends(trace, 0, 0)
    dst = NODES.index("receiver")
    r = trace[(trace.event == "r") & (trace.to_node == dst) & (trace.kind == "tcp")
              & (trace.flow == 0) & (trace.seqno >= 0)]
    f = flows[0]
    return {"sends": {"time_s": s["time_s"].tolist(), "seq": s["seq"].astype(int).tolist(),
                      "retransmit": s["retransmit"].astype(bool).tolist()},
            "received": {"time_s": r["time_s"].astype(float).tolist(),
                         "seq": r["seqno"].astype(int).tolist()},
            "acked": f.acked_segments, "sent": f.data_packets,
            "retransmits": f.retransmitted_packets, "timeouts": f.timeouts}


def ns2_records(ctx: Context) -> list[dict[str, Any]]:
    """ns-2's record per packet-path point (``[]`` without ``ns``)."""
    pts = packet_points_cached(ctx)
    return ns2cache.run_many([sc for _, sc in pts], ctx.out_dir / "ns2",
                             version=CACHE_VERSION, extract=_extract)


def packet_points_cached(ctx: Context) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    if "packet_points" not in ctx.values:
        ctx.values["packet_points"] = packet_points(ctx)
    pts: list[tuple[dict[str, Any], dict[str, Any]]] = ctx.values["packet_points"]
    return pts


def summary(sends: pd.DataFrame, received: pd.DataFrame, lost: set[int], timeouts: int,
            horizon: float) -> dict[str, Any]:
    """How a sender recovered, from its send sequence (time_s, seq, retransmit) and the
    receiver's arrivals (time_s, seq): the same quantities for both simulators, from
    the first transmission of the first lost segment (``t_drop``) to ``t_drop +
    horizon``."""
    first = sends[sends["seq"].isin(lost) & ~sends["retransmit"]]
    t_drop = float(first["time_s"].min()) if len(first) else math.nan
    before = sends[sends["time_s"] < t_drop]
    top = int(before["seq"].max()) if len(before) else -1
    win = sends[(sends["time_s"] >= t_drop) & (sends["time_s"] <= t_drop + horizon)]
    rtx = win[win["retransmit"]]
    rec = received[received["seq"].isin(lost) & (received["time_s"] >= t_drop)]
    repaired = (float(rec.groupby("seq")["time_s"].min().max()) - t_drop
                if lost and set(rec["seq"].tolist()) >= lost else math.nan)
    return {"drop_time_s": t_drop, "segments_dropped": len(lost),
            "retransmissions": int(len(rtx)),
            "first_retransmit_rel_s": float(rtx["time_s"].min()) - t_drop if len(rtx)
            else math.nan,
            "new_segments_after": int((~win["retransmit"] & (win["seq"] > top)).sum()),
            "timeouts": int(timeouts), "repaired_rel_s": repaired}


def compare_panels(ctx: Context, ns: list[dict[str, Any]]) -> tuple[pd.DataFrame,
                                                                    dict[str, Any]]:
    """Per panel: burstlab on the packet path beside ns-2 on the same script (and
    whether their send sequences agree packet for packet), and the send sequences of
    both for the figure."""
    pts = packet_points_cached(ctx)
    runs = ctx.results["packet_path"]
    rows, seqs = [], {}
    for k, ((_, pn), (_, sc)) in enumerate(zip(panels(ctx), pts, strict=True)):
        res = runs.result(k)
        lost = {s for a, b in sc["flow"][0]["drop_segments"] for s in range(a, b + 1)}
        pk = res.packets
        b_sends = burstlab_sends(pk, 0)
        b_recv = pk[(pk["event"] == "received") & (pk["flow"] == 0)][["time_s", "seq"]]
        f = res.flows.iloc[0]
        row: dict[str, Any] = {"figure": pn.figure, "panel": pn.label, "variant": pn.variant,
                               "W_segments": pn.w, "S_segments": pn.s}
        b = summary(b_sends, b_recv, lost, int(f["to_events"]), pn.after)
        b_cw = res.cwnd
        b["cwnd_before"] = float(b_cw[b_cw["time_s"] < b["drop_time_s"]]
                                 ["cwnd_segments"].iloc[-1]) if len(b_cw) else math.nan
        row.update({f"burstlab_{c}": v for c, v in b.items()})
        entry = {"panel": pn.label, "burstlab": b_sends, "lost": lost,
                 "t_drop": b["drop_time_s"], "after": pn.after}
        if ns:
            rec = ns[k]
            n_sends = pd.DataFrame(rec["sends"])
            n_recv = pd.DataFrame(rec["received"])
            n = summary(n_sends, n_recv, lost, int(rec["timeouts"]), pn.after)
            row.update({f"ns2_{c}": v for c, v in n.items() if c != "segments_dropped"})
            div = first_divergence(b_sends, n_sends)
            row["sends_compared"] = int(min(len(b_sends), len(n_sends)))
            row["identical_sends"] = div is None
            row["first_divergence_index"] = -1 if div is None else int(div["index"])
            entry["ns2"] = n_sends
        rows.append(row)
        seqs[pn.label] = entry
    return pd.DataFrame(rows), seqs


def analyse(ctx: Context) -> None:
    """ns-2 on the packet path (cached), burstlab beside it; ``ctx.values['packet_path']``
    (one row per panel), ``ctx.values['packet_path_sends']`` (for the figure) and
    ``ctx.values['has_ns2']``."""
    ns = ns2_records(ctx)
    pp, seqs = compare_panels(ctx, ns)
    ctx.values.update(packet_path=pp, packet_path_sends=seqs, has_ns2=bool(ns))
    ctx.tables["figs8_9_packet_path_ns2"] = pp.assign(
        seed=ctx.stamp["seed"], burstlab_version=ctx.stamp["burstlab_version"])


PAPER.experiments.append(Experiment("packet_path", packet_points_cached, keep_traces=True,
                                    after=("trace_drops",)))
