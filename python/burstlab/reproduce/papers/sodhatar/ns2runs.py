"""ns-2.35's own numbers for the packet-switched dumbbell: every point's scenario is
exported (:func:`burstlab.export.export_ns2`, which writes the paper's ``queue-limit 5``
back from ``queue_pkts = 4``) and run with ``ns``, with its packet trace.

Read first: :func:`run_all`. Each run is cached under ``OUT/sodhatar/ns2/`` by the hash
of its script, so a repeated reproduction does not run ns-2 again. Without ``ns`` every
ns-2 column is empty and the report says so; burstlab's claims still run.

From the trace: the segments (``tcp``, the SYN, seqno 0, included, as burstlab numbers and
counts it under the ``ns2`` profile) received
(``r``) at the flow's destination node, the same quantity as burstlab's
``segments_received``; from the agents: ``ack_``, ``ndatapack_``, ``nrexmitpack_``,
``nrexmit_`` (:class:`burstlab.export.ns2trace.Ns2Flow`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from burstlab.export.ns2trace import Ns2Flow, ns_binary
from burstlab.reproduce import ns2cache
from burstlab.reproduce.framework import Context
from burstlab.reproduce.papers.sodhatar.experiments import (
    DURATION_S,
    REFERENCE_PATTERN,
    VARIANTS,
)

#: ns-2 columns added to the per-run table.
NS2_COLUMNS = ("ns2_throughput_Mbps", "ns2_goodput_Mbps", "ns2_segments_received",
               "ns2_acked_segments", "ns2_segments_sent", "ns2_retransmits", "ns2_timeouts")


#: Bumped whenever what a cached run records changes.
CACHE_VERSION = 2


def available() -> bool:
    return ns_binary() is not None


def _extract(scenario: Mapping[str, Any], flows: dict[int, Ns2Flow],
             tr: pd.DataFrame) -> dict[str, Any]:
    """The agents' counters and each flow's arrival times at its destination."""
    names = [str(n["name"]) for n in scenario["node"]]
    received: dict[str, list[float]] = {}
    for i, f in enumerate(scenario["flow"]):
        dst = names.index(str(f["dst"]))
        r = tr[(tr.event == "r") & (tr.to_node == dst) & (tr.kind == "tcp")
               & (tr.flow == i) & (tr.seqno >= 0)]
        received[str(i)] = [float(x) for x in r.time_s]
    return {"flows": {str(i): {"acked": f.acked_segments, "sent": f.data_packets,
                               "retransmits": f.retransmitted_packets,
                               "timeouts": f.timeouts} for i, f in flows.items()},
            "received_times_s": received}


def run_one(scenario: Mapping[str, Any], cache: Path) -> dict[str, Any]:
    """Runs one exported scenario with ns-2 (or reads its cached result)."""
    # CACHE_VERSION: what is read from the trace (2: the SYN is counted).
    return ns2cache.run_cached(scenario, cache, version=CACHE_VERSION, extract=_extract)


def run_all(ctx: Context,
            points: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]]
            ) -> dict[tuple[str, int], dict[str, Any]]:
    """ns-2's result per (pattern, size) of the packet network, ``{}`` without ``ns``.
    Also puts the reference pattern's arrival times into ``ctx.values['ns2_times']``."""
    if not available():
        return {}
    recs = ns2cache.run_many([pt[1] for pt in points], ctx.out_dir / "ns2",
                             version=CACHE_VERSION, extract=_extract)
    out = {(str(p["pattern"]), int(p["size_B"])): r
           for (p, _), r in zip(points, recs, strict=True)}
    times = {}
    for (pat, size), r in out.items():
        if pat == REFERENCE_PATTERN:
            for i, v in enumerate(VARIANTS):
                times[(size, v)] = np.asarray(r["received_times_s"][str(i)], float)
    ctx.values["ns2_times"] = times
    return out


def merge(runs: pd.DataFrame, ns: Mapping[tuple[str, int], Mapping[str, Any]]) -> pd.DataFrame:
    """Adds :data:`NS2_COLUMNS` to the per-run table (NaN where ns-2 did not run)."""
    out = runs.copy()
    for c in NS2_COLUMNS:
        out[c] = np.nan
    for idx, row in out.iterrows():
        if row["network"] != "packet":
            continue
        rec = ns.get((str(row["pattern"]), int(row["size_B"])))
        if rec is None:
            continue
        i = VARIANTS.index(str(row["variant"]))
        f = rec["flows"][str(i)]
        n_recv = len(rec["received_times_s"][str(i)])
        bits = int(row["size_B"]) * 8.0
        out.loc[idx, "ns2_segments_received"] = n_recv
        out.loc[idx, "ns2_throughput_Mbps"] = n_recv * bits / DURATION_S / 1e6
        out.loc[idx, "ns2_acked_segments"] = f["acked"]
        out.loc[idx, "ns2_goodput_Mbps"] = f["acked"] * bits / DURATION_S / 1e6
        out.loc[idx, "ns2_segments_sent"] = f["sent"]
        out.loc[idx, "ns2_retransmits"] = f["retransmits"]
        out.loc[idx, "ns2_timeouts"] = f["timeouts"]
    return out
