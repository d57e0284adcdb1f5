"""Run an exported nOBS script and set its bursts and flows beside burstlab's.

Read first: :func:`compare`, then :func:`nobs_bursts` / :func:`burstlab_bursts`.

Where nOBS is found (:func:`nobs_binary`): the environment variable ``BURSTLAB_NOBS``
(the ``ns`` binary built with nOBS), else ``target/nobs/ns-2.35/ns`` under the
repository root, which ``make nobs`` builds from ``../shared/refsim``.

What nOBS's packet trace (``trace-all``, times rounded to 1 µs) shows of a burst, as its
sources make it (``optical/op-sragent.cc``, ``optical/op-delay.cc``): the control packet
(``OP_BURST``, ``BURST_HEADER`` bytes) is enqueued on the first fibre when the burst is
sent; the data burst (its payload, uid one less than its control packet's) is enqueued
there one offset later, and received at each later node when its *tail* arrives
(transmission time counted on the first fibre, propagation only after it). A burst that
finds no reservation, or is dropped by an error model, shows as ``d`` lines.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from burstlab import _core
from burstlab.export.nobs import DONE_TAG, SUMMARY_TAG, NobsScript
from burstlab.export.ns2trace import TRACE_COLUMNS

if TYPE_CHECKING:
    import pandas as pd

#: Environment variable naming the nOBS ``ns`` binary.
NOBS_ENV = "BURSTLAB_NOBS"


def repo_root() -> Path:
    """The repository's root (three levels above this package's ``export`` folder)."""
    return Path(__file__).resolve().parents[3]


def default_binary() -> Path:
    """Where ``make nobs`` builds nOBS's ``ns``."""
    return repo_root() / "target" / "nobs" / "ns-2.35" / "ns"


def nobs_binary() -> str | None:
    """The nOBS ``ns`` binary (``$BURSTLAB_NOBS`` or :func:`default_binary`), or None."""
    env = os.environ.get(NOBS_ENV)
    if env:
        return env if os.access(env, os.X_OK) else None
    p = default_binary()
    return str(p) if os.access(p, os.X_OK) else None


@dataclass
class NobsFlow:
    """One flow's counters as nOBS's ns-2 agents report them at the end of the run (the
    same meaning as :class:`burstlab.export.ns2trace.Ns2Flow`)."""

    flow: int
    acked_segments: int
    data_packets: int
    retransmitted_packets: int
    timeouts: int


@dataclass
class NobsRun:
    flows: dict[int, NobsFlow]
    trace: pd.DataFrame | None
    stdout: str
    #: Per finite TCP flow that completed: the time (s) its ``done`` fired, the ACK of
    #: its last segment reaching its sender (:func:`burstlab.export.nobs._write_done`).
    ends: dict[int, float] = field(default_factory=dict)


def run_nobs(script: NobsScript | str, *, workdir: str | Path | None = None,
             trace: bool = False, timeout_s: float = 600.0) -> NobsRun:
    """Runs a script with nOBS in its own directory (nOBS writes ``stat.txt`` and others
    into the working directory) and returns its per-flow summary and, if the script was
    exported with ``trace="trace.tr"`` and ``trace`` is true, its packet trace.

    Raises:
        RuntimeError: nOBS is not built, failed, or printed no summary.
    """
    ns = nobs_binary()
    if ns is None:
        raise RuntimeError(f"nOBS is not built: run `make nobs` or set {NOBS_ENV}")
    tcl = script.tcl if isinstance(script, NobsScript) else script
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(workdir) if workdir is not None else Path(tmp)
        d.mkdir(parents=True, exist_ok=True)
        for stale in ("stat.txt", "cont.txt", "not-arr-cont.txt"):
            (d / stale).unlink(missing_ok=True)
        path = d / "scenario.tcl"
        path.write_text(tcl, encoding="utf-8")
        proc = subprocess.run([ns, str(path)], cwd=d, capture_output=True, text=True,
                              timeout=timeout_s, check=False)
        tr = read_trace(d / "trace.tr") if trace and (d / "trace.tr").exists() else None
    flows: dict[int, NobsFlow] = {}
    ends: dict[int, float] = {}
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) == 6 and parts[0] == SUMMARY_TAG:
            i, *vals = (int(float(x)) for x in parts[1:])
            flows[i] = NobsFlow(i, *vals)
        elif len(parts) == 3 and parts[0] == DONE_TAG:
            ends[int(parts[1])] = float(parts[2])
    if proc.returncode != 0 or not flows:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
        msg = f"nOBS failed (exit {proc.returncode}): {' | '.join(tail)}"
        if "BIG PROBLEM: wrong delay" in proc.stdout:
            msg += (" -- nOBS's own abort: optical/op-sragent.cc compares a burst's "
                    "floating-point arrival with its reservation's end to 1e-14 s, which "
                    "rounding exceeds once simulated time passes 64 s (one ulp is 1.4e-14 "
                    "s there); run shorter (--duration), docs/topics/nobs.md")
        raise RuntimeError(msg)
    return NobsRun(flows, tr, proc.stdout, ends)


def read_trace(path: str | Path) -> pd.DataFrame:
    """nOBS's packet trace as a table with ns-2's wired-trace columns."""
    import pandas as pd

    return pd.read_csv(path, sep=" ", header=None, names=TRACE_COLUMNS,
                       usecols=range(len(TRACE_COLUMNS)))


def nobs_bursts(trace: pd.DataFrame, path: list[int], fid: int | None = None,
                header_bytes: int = 0, lost_after_s: float | None = None,
                control_wait_s: float = 0.0) -> pd.DataFrame:
    """The data bursts whose control packet was sent on the first fibre of ``path`` (node
    ids, ingress to egress), in sending order: one row per burst with ``burst`` (0-based
    index on that fibre), ``bcp_time_s`` (control packet sent), ``send_time_s`` (data
    burst enqueued at the ingress, or dropped there), ``bytes``, ``arrive_<k>_s`` (tail
    received at the ``k``-th node after the ingress, NaN if it never was) and ``fate``
    (``delivered`` / ``lost`` / ``in_flight`` at the end) with ``lost_at`` (the node id of the first drop).
    With ``fid``, only the bursts of that flow id (nOBS labels a burst with its packets'
    flow id when it has several flow queues, ``MAX_FLOW_QUEUE`` > 1).

    Without ``d`` lines (the fibres-only trace) a loss shows only as a missing arrival.
    A burst missing at the egress counts as lost when a later burst of the path
    arrived, and, with ``lost_after_s`` (the longest a burst can take from one node to
    the next: the largest fibre delay plus the longest delay line), also when the
    trace goes on for more than that after its last arrival at a node, or for more
    than ``control_wait_s`` (the longest delay line: nOBS holds a control packet that
    long) after its control packet reached a core node that did not send it on, so
    that bursts lost after a flow's last delivered burst are not read as in flight.
    """
    import numpy as np
    import pandas as pd

    ob = trace[trace.kind == "OP_BURST"]
    first = ob[(ob.from_node == path[0]) & (ob.to_node == path[1])]
    if fid is not None:
        first = first[first.flow == fid]
    # Control packets are the BURST_HEADER-sized OP_BURSTs (0 bytes in burstlab's
    # export); each data burst's uid is one less than its control packet's.
    ctrl = first[first.event.isin(["+", "d"]) & (first.bytes == header_bytes)]
    ctrl = ctrl.drop_duplicates(subset="uid", keep="first")
    data_uids = ctrl.uid.to_numpy() - 1
    g = ob[ob.uid.isin(data_uids)]
    sent = g[(g.from_node == path[0]) & g.event.isin(["+", "d"])].drop_duplicates("uid")
    sent = sent.set_index("uid")
    arr = g[g.event == "r"].drop_duplicates(["uid", "to_node"])
    arr = arr.pivot(index="uid", columns="to_node", values="time_s")
    drops = g[g.event == "d"].drop_duplicates("uid").set_index("uid")
    out = pd.DataFrame({"burst": range(len(ctrl)), "bcp_time_s": ctrl.time_s.to_numpy(),
                        "uid": data_uids})
    out["send_time_s"] = sent.time_s.reindex(data_uids).to_numpy()
    out["bytes"] = sent.bytes.reindex(data_uids).fillna(-1).astype(int).to_numpy()
    for j, node in enumerate(path[1:], start=1):
        col = arr[node] if node in arr.columns else pd.Series(dtype=float)
        out[f"arrive_{j}_s"] = col.reindex(data_uids).to_numpy()
    lost = drops.from_node.reindex(data_uids)
    arrived = ~np.isnan(out[f"arrive_{len(path) - 1}_s"].to_numpy())
    # A burst that never reached the egress while a later one on the path did was lost
    # (nOBS traces a reservation failure only with trace-all, not with trace-queue).
    later_arrived = np.flip(np.maximum.accumulate(np.flip(arrived)))
    later_arrived = np.append(later_arrived[1:], False) if len(arrived) else later_arrived
    gone = lost.notna().to_numpy() | (~arrived & later_arrived)
    if lost_after_s is not None and len(out):
        end = float(trace.time_s.max())
        # A data burst is received (``r``) at the node that then drops it.
        seen = out[[f"arrive_{j}_s" for j in range(1, len(path))]]
        last_seen = seen.max(axis=1, skipna=True).to_numpy()
        gone |= ~arrived & (last_seen + lost_after_s < end)
        # A control packet received at a core node and never sent on from it failed
        # its reservation there: its burst is lost even if the run ends before the
        # burst reaches that node.
        cu = ctrl.uid.to_numpy()
        oc = ob[ob.uid.isin(cu)]
        for j in range(1, len(path) - 1):
            got = oc[(oc.event == "r") & (oc.to_node == path[j])].drop_duplicates("uid")
            on = oc[(oc.event == "+") & (oc.from_node == path[j])
                    & (oc.to_node == path[j + 1])].uid
            failed = got[~got.uid.isin(on) & (got.time_s + control_wait_s < end)].uid
            gone |= np.isin(cu, failed.to_numpy())
    out["fate"] = np.where(gone, "lost", np.where(arrived, "delivered", "in_flight"))
    out["lost_at"] = lost.fillna(-1).astype(int).to_numpy()
    return out


def burstlab_bursts(bursts: pd.DataFrame, queue: int, offset_s: float,
                    fibre_delays_s: list[float], rate_bps: float) -> pd.DataFrame:
    """burstlab's bursts of assembly queue ``queue`` in the shape of :func:`nobs_bursts`,
    from its burst trace (``formed`` / ``delivered`` / ``lost`` events, exact times).

    ``send_time_s`` is the formed time plus the offset; the egress arrival is burstlab's
    own ``delivered`` time; the tail's arrival at the intermediate nodes is burstlab's
    timeline (``core_node.rs``: head at ``t0 + T + Σ d``, tail ``L/R`` later).
    """
    import pandas as pd

    b = bursts[bursts.queue == queue]
    formed = b[b.event == "formed"].drop_duplicates("burst").set_index("burst")
    done = b[b.event != "formed"].drop_duplicates("burst").set_index("burst")
    idx = formed.index
    out = pd.DataFrame({"burst": idx.to_numpy(), "bcp_time_s": formed.time_s.to_numpy()})
    out["send_time_s"] = out.bcp_time_s + offset_s
    out["bytes"] = formed.bytes.astype(int).to_numpy()
    tx = out.bytes * 8 / rate_bps
    acc = out.send_time_s.copy()
    for j in range(1, len(fibre_delays_s) + 1):
        acc = acc + fibre_delays_s[j - 1]
        out[f"arrive_{j}_s"] = acc + tx
    end = done.event.reindex(idx)
    out["fate"] = end.fillna("in_flight").astype(str).to_numpy()
    h = len(fibre_delays_s)
    got = (end == "delivered").to_numpy()
    out.loc[got, f"arrive_{h}_s"] = done.time_s.reindex(idx).to_numpy()[got]
    out["reason"] = done.reason.reindex(idx).where(~got, "").fillna("").astype(str).to_numpy()
    return out


def compare(scenario: Any, *, seed: int | None = None, replication: int | None = None,
            workdir: str | Path | None = None, duration: str | None = None
            ) -> pd.DataFrame:
    """Runs an OBS scenario in burstlab and in nOBS and returns one row per flow with
    both simulators' counters side by side (``*_burstlab`` / ``*_nobs``), and, per flow,
    the bursts its data queue sent, delivered and lost in each.

    A finite TCP flow (``segments``) also has its completion time in each,
    ``fct_s_burstlab`` and ``fct_s_nobs``: from its start to the ACK of its last
    segment reaching its sender (burstlab's ``res.fct``; nOBS's agent's ``done``), NaN
    when it did not complete within the run, and for other flows."""
    import math

    import pandas as pd

    from burstlab.api import load_scenario, run
    from burstlab.export import export_nobs
    from burstlab.fct import as_table
    from burstlab.units import parse_time

    spec = load_scenario(scenario)
    if duration is not None:
        spec = {**spec, "sim": {**dict(spec.get("sim", {})), "duration": duration}}
    script = export_nobs(spec, seed=seed, replication=replication, trace="trace.tr",
                         trace_fibres_only=True)
    nb = run_nobs(script, workdir=workdir, trace=True)
    spec2 = dict(spec)
    sim = dict(spec2.get("sim", {}))
    sim["trace"] = {**dict(sim.get("trace", {})), "bursts": True}
    spec2["sim"] = sim
    res = run(spec2, seed=seed, replication=replication)
    # Completion times of the finite flows (burstlab's fct rows, the flows' starts).
    fct: dict[int, dict[Any, Any]] = {
        int(r["flow"]): r for r in as_table(res.fct).to_dict("records")}
    flow_specs = list(spec.get("flow", []))

    span_s = float(res.meta["duration_s"])
    ids = script.node_ids
    bt = res.burst_trace
    hop_s, line_s = longest_hop_s(spec), longest_line_s(spec)
    # nOBS labels bursts with their flow id only with several flow queues (per_flow).
    per_flow = str((spec.get("obs") or {}).get("classifier", "per_flow")) == "per_flow"
    rows = []
    for fl in res.flows.to_dict("records"):
        i = int(fl["flow"])
        n = nb.flows.get(i)
        if n is None:
            raise _core.ScenarioError(f"flow[{i}]: nOBS reported nothing")
        tcp = fl["kind"] == "tcp"
        path = [ids[x] for x in script.paths[i]]
        nbur = (nobs_bursts(nb.trace, path, i if per_flow else None, lost_after_s=hop_s,
                            control_wait_s=line_s)
                if nb.trace is not None else pd.DataFrame())
        q = _queue_of(res.bursts, i, script.paths[i][0], script.paths[i][-1])
        bl = bt[bt.queue == q] if bt is not None and q is not None else None
        finite = tcp and "segments" in flow_specs[i]
        start_s = parse_time(flow_specs[i].get("start", 0))
        done = finite and i in fct and bool(fct[i]["completed"])
        rows.append({
            "flow": i, "name": fl["name"], "kind": fl["kind"],
            "size_segments": int(flow_specs[i]["segments"]) if finite else None,
            "fct_s_burstlab": float(fct[i]["fct_s"]) if done else math.nan,
            "fct_s_nobs": nb.ends[i] - start_s if finite and i in nb.ends else math.nan,
            "goodput_segps_burstlab": int(fl["segments_delivered"]) / span_s,
            "goodput_segps_nobs": n.acked_segments / span_s,
            "segments_sent_burstlab": fl["segments_sent"] if tcp else None,
            "segments_sent_nobs": n.data_packets if tcp else None,
            "retransmits_burstlab": fl["retransmits"] if tcp else None,
            "retransmits_nobs": n.retransmitted_packets if tcp else None,
            "timeouts_burstlab": fl["to_events"] if tcp else None,
            "timeouts_nobs": n.timeouts if tcp else None,
            "data_bursts_burstlab": int((bl.event == "formed").sum()) if bl is not None
            else None,
            "data_bursts_nobs": len(nbur),
            "bursts_lost_burstlab": int((bl.event == "lost").sum()) if bl is not None
            else None,
            "bursts_lost_nobs": int((nbur.fate == "lost").sum()) if len(nbur) else 0,
        })
    return pd.DataFrame(rows)


def longest_line_s(spec: Any) -> float:
    """The longest fibre delay line of ``spec`` (``obs.contention.fdl``), 0 without."""
    from burstlab.units import parse_time

    cont = (spec.get("obs") or {}).get("contention") or {}
    return max((parse_time(str(d)) for d in cont.get("fdl", [])), default=0.0)


def longest_hop_s(spec: Any) -> float:
    """The longest a data burst takes from one node's arrival to the next's: the
    largest fibre delay plus the longest delay line (``obs.contention.fdl``)."""
    from burstlab.units import parse_time

    def delay(f: Any) -> float:  # the core's 5 µs/km for a fibre given by length_km
        return parse_time(str(f["delay"])) if "delay" in f else float(f.get("length_km", 0)) * 5e-6

    fibre = max((delay(f) for f in spec.get("fibre", [])), default=0.0)
    return fibre + longest_line_s(spec)


def _queue_of(bursts: pd.DataFrame, flow: int, ingress: str, egress: str) -> int | None:
    """The assembly queue carrying flow ``flow``'s data from ``ingress`` to ``egress``
    (burstlab's ``bursts`` table: its own queue when per-flow, else the egress's)."""
    if bursts is None or len(bursts) == 0:
        return None
    m = bursts[(bursts.edge == ingress) & (bursts.egress == egress)]
    if (m.flow == flow).any():
        m = m[m.flow == flow]
    return int(m["queue"].iloc[0]) if len(m) else None
