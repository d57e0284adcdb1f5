"""Run an exported ns-2 script and set its output beside burstlab's.

Read first: :func:`compare`. ns-2 prints one ``burstlab-ns2-flow`` line per flow at the
end of an exported script (its agents' counters); with a packet trace (``trace-all``) the
segments each TCP source puts on its first link are read back as a send sequence. The
``ns2`` profile numbers segments as ns-2 does (segment 0 is the SYN), so the numbers
compare directly.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from burstlab import _core
from burstlab.export.ns2 import DONE_TAG, SUMMARY_TAG, Ns2Script

if TYPE_CHECKING:
    import pandas as pd

#: Columns of an ns-2 wired trace line (ns-2 manual §26.4, "Trace/Var" aside).
TRACE_COLUMNS = ["event", "time_s", "from_node", "to_node", "kind", "bytes", "flags",
                 "flow", "src_addr", "dst_addr", "seqno", "uid"]


@dataclass
class Ns2Flow:
    """One flow's counters as ns-2 reports them at the end of the run.

    For TCP: ``acked_segments`` is the sender's ``ack_`` (highest cumulative ACK; with the
    SYN at seqno 0 it counts data segments), ``data_packets`` its ``ndatapack_``,
    ``retransmitted_packets`` its ``nrexmitpack_`` and ``timeouts`` its ``nrexmit_``.
    For UDP: ``acked_segments`` is the packets the LossMonitor received. ``end_s``: for
    a finite TCP flow that completed, when its agent's ``done`` fired (the ACK of its
    last segment reaching it, :func:`burstlab.export.ns2.write_done`); else None.
    """

    flow: int
    acked_segments: int
    data_packets: int
    retransmitted_packets: int
    timeouts: int
    end_s: float | None = None


def ns_binary() -> str | None:
    """The ``ns`` command, or None when ns-2 is not installed."""
    return shutil.which("ns")


def run_ns2(script: Ns2Script | str, *, workdir: str | Path | None = None,
            timeout_s: float = 600.0) -> dict[int, Ns2Flow]:
    """Runs a script with ns-2 and returns its per-flow summary.

    Raises:
        RuntimeError: ns-2 is not installed, failed, or printed no summary.
    """
    ns = ns_binary()
    if ns is None:
        raise RuntimeError("ns-2 is not installed (Debian/Ubuntu: apt-get install ns2)")
    tcl = script.tcl if isinstance(script, Ns2Script) else script
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(workdir) if workdir is not None else Path(tmp)
        d.mkdir(parents=True, exist_ok=True)
        path = d / "scenario.tcl"
        path.write_text(tcl, encoding="utf-8")
        proc = subprocess.run([ns, str(path)], cwd=d, capture_output=True, text=True,
                              timeout=timeout_s, check=False)
    flows: dict[int, Ns2Flow] = {}
    ends: dict[int, float] = {}
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) == 6 and parts[0] == SUMMARY_TAG:
            i, *vals = (int(float(x)) for x in parts[1:])
            flows[i] = Ns2Flow(i, *vals)
        elif len(parts) == 3 and parts[0] == DONE_TAG:
            ends[int(parts[1])] = float(parts[2])
    for i, end in ends.items():
        if i in flows:
            flows[i].end_s = end
    if proc.returncode != 0 or not flows:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
        raise RuntimeError(f"ns-2 failed (exit {proc.returncode}): {' | '.join(tail)}")
    return flows


def read_trace(path: str | Path) -> pd.DataFrame:
    """An ns-2 wired trace (``trace-all``) as a table with :data:`TRACE_COLUMNS`."""
    import pandas as pd

    return pd.read_csv(path, sep=" ", header=None, names=TRACE_COLUMNS,
                       usecols=range(len(TRACE_COLUMNS)))


def ns2_sends(trace: pd.DataFrame, src_node: int, flow: int) -> pd.DataFrame:
    """The segments (the SYN included) flow ``flow`` hands to its first link, in order:
    columns ``time_s``, ``seq`` and ``retransmit`` (the number was sent before).

    A segment shows as an enqueue (``+``) at the source node, or, when the link's error
    model drops it before the queue (scripted drops), only as a drop (``d``) at the time
    it was sent; each packet (``uid``) counts once.
    """
    t = trace[trace.event.isin(["+", "d"]) & (trace.from_node == src_node)
              & (trace.kind == "tcp") & (trace.flow == flow) & (trace.seqno >= 0)]
    t = t.drop_duplicates(subset="uid", keep="first")
    seq = t.seqno.to_numpy()
    out = t[["time_s"]].copy()
    out["seq"] = seq
    seen = out["seq"].cummax().shift(1, fill_value=-1)
    out["retransmit"] = out["seq"] <= seen
    return out.reset_index(drop=True)


def burstlab_sends(packets: pd.DataFrame, flow: int) -> pd.DataFrame:
    """The same sequence from a burstlab packet trace (``sim.trace.packets``)."""
    p = packets[(packets.event == "sent") & (packets.flow == flow)]
    return p[["time_s", "seq", "retransmit"]].reset_index(drop=True)


def first_divergence(a: pd.DataFrame, b: pd.DataFrame, *, time_tol_s: float = 5.01e-7,
                     rel_tol: float = 1e-12) -> dict[str, Any] | None:
    """The first position where two send sequences differ in segment, retransmission
    flag or time, or None if they agree over their common length and have the same
    length. Times agree within ``max(time_tol_s, rel_tol·t)``: ns-2's trace rounds times
    to the nearest microsecond (six digits after the point), an error of at most 0.5 µs."""
    n = min(len(a), len(b))
    for k in range(n):
        ra, rb = a.iloc[k], b.iloc[k]
        t = max(abs(float(ra.time_s)), abs(float(rb.time_s)))
        if (int(ra.seq) != int(rb.seq) or bool(ra.retransmit) != bool(rb.retransmit)
                or abs(float(ra.time_s) - float(rb.time_s)) > max(time_tol_s, rel_tol * t)):
            return {"index": k, "a": ra.to_dict(), "b": rb.to_dict()}
    if len(a) != len(b):
        return {"index": n, "a": a.iloc[n].to_dict() if len(a) > n else None,
                "b": b.iloc[n].to_dict() if len(b) > n else None}
    return None


def compare(scenario: Any, *, seed: int | None = None, replication: int | None = None,
            workdir: str | Path | None = None) -> pd.DataFrame:
    """Runs a packet-network scenario in burstlab and in ns-2 and returns one row per
    flow with both simulators' counters side by side (``*_burstlab`` / ``*_ns2``).

    Goodput is in segments per second of simulated time over the whole run; burstlab's
    counts segments delivered in order to the receiver, ns-2's the highest cumulative ACK
    (they differ by the ACKs in flight at the end). A finite TCP flow (``segments``) has
    its completion time in each, ``fct_s_burstlab`` and ``fct_s_ns2`` (from its start to
    the ACK of its last segment reaching its sender; NaN when it did not complete, and
    for other flows).
    """
    import math

    import pandas as pd

    from burstlab.api import load_scenario, run
    from burstlab.export import export_ns2
    from burstlab.fct import as_table
    from burstlab.units import parse_time

    spec = load_scenario(scenario)
    script = export_ns2(spec, seed=seed, replication=replication)
    ns = run_ns2(script, workdir=workdir)
    res = run(spec, seed=seed, replication=replication)
    duration = float(res.meta["duration_s"])
    fct: dict[int, dict[Any, Any]] = {
        int(r["flow"]): r for r in as_table(res.fct).to_dict("records")}
    flow_specs = list(spec.get("flow", []))
    rows = []
    for fl in res.flows.to_dict("records"):
        i = int(fl["flow"])
        n = ns.get(i)
        if n is None:
            raise _core.ScenarioError(f"flow[{fl['flow']}]: ns-2 reported nothing")
        tcp = fl["kind"] == "tcp"
        finite = tcp and "segments" in flow_specs[i]
        start_s = parse_time(flow_specs[i].get("start", 0))
        done = finite and i in fct and bool(fct[i]["completed"])
        rows.append({
            "flow": int(fl["flow"]), "name": fl["name"], "kind": fl["kind"],
            "variant": fl["variant"],
            "size_segments": int(flow_specs[i]["segments"]) if finite else None,
            "fct_s_burstlab": float(fct[i]["fct_s"]) if done else math.nan,
            "fct_s_ns2": n.end_s - start_s if finite and n.end_s is not None else math.nan,
            "goodput_segps_burstlab": int(fl["segments_delivered"]) / duration,
            "goodput_segps_ns2": n.acked_segments / duration,
            "segments_sent_burstlab": fl["segments_sent"] if tcp else None,
            "segments_sent_ns2": n.data_packets if tcp else None,
            "retransmits_burstlab": fl["retransmits"] if tcp else None,
            "retransmits_ns2": n.retransmitted_packets if tcp else None,
            "timeouts_burstlab": fl["to_events"] if tcp else None,
            "timeouts_ns2": n.timeouts if tcp else None,
        })
    df = pd.DataFrame(rows)
    df["goodput_ratio_burstlab_to_ns2"] = (
        df.goodput_segps_burstlab / df.goodput_segps_ns2.where(df.goodput_segps_ns2 > 0))
    return df
