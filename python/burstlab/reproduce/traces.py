"""Packet-trace helpers for yu figs 8–10: choosing the burst to drop, cutting the trace
window around it, and summarising how the sender recovered.

Read first: :func:`pick_drop_burst` (how the dropped burst is chosen), then
:func:`trace_window` (the table behind each trace plot: sequence number mod 60 against
time, yu §V.B.1) and :func:`recovery_summary`.

Inputs are the tables of :class:`burstlab.Result`: ``packets`` (time_s, flow, seq, event
sent/received/dropped, retransmit), ``cwnd`` (time_s, flow, cwnd_segments,
ssthresh_segments) and ``burst_trace`` (time_s, queue, burst, event, pkts, …).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

#: yu plots "the packets' number mod 60" (§V.B.1).
SEQ_MOD = 60


@dataclass(frozen=True)
class DropChoice:
    """The data burst chosen for deterministic dropping.

    Attributes:
        burst: 0-based index of the burst in its assembly queue (``obs.drop_burst``).
        time_s: when that burst was formed (and, once dropped, lost).
        w_reached_s: when cwnd first reached the target window ``W``.
    """

    burst: int
    time_s: float
    w_reached_s: float


def pick_drop_burst(
    cwnd: pd.DataFrame,
    burst_trace: pd.DataFrame,
    *,
    w: float,
    data_queue: int = 0,
    settle_s: float = 1.0,
    flow: int = 0,
) -> DropChoice:
    """The first data burst formed at least ``settle_s`` after cwnd first reached ``w``.

    Run the scenario once without drops and with ``Wm = W`` (so cwnd climbs to ``W``
    and stays there), with the cwnd and burst traces on; the burst returned is then
    dropped in a second, otherwise identical run: both runs are identical up to that
    burst, so the window at the loss is ``W``.

    Raises:
        ValueError: cwnd never reached ``w``, or no data burst was formed afterwards.
    """
    c = cwnd[cwnd["flow"] == flow] if "flow" in cwnd.columns else cwnd
    at_w = c[c["cwnd_segments"] >= w]
    if at_w.empty:
        top = float(c["cwnd_segments"].max()) if len(c) else math.nan
        raise ValueError(f"cwnd never reached W = {w:g} (maximum {top:g}); run longer")
    t_w = float(at_w["time_s"].iloc[0])
    bt = burst_trace
    formed = bt[(bt["queue"] == data_queue) & (bt["event"] == "formed")
                & (bt["time_s"] >= t_w + settle_s)]
    if formed.empty:
        raise ValueError(f"no data burst formed after t = {t_w + settle_s:g} s; run longer")
    row = formed.iloc[0]
    return DropChoice(burst=int(row["burst"]), time_s=float(row["time_s"]), w_reached_s=t_w)


def trace_window(
    packets: pd.DataFrame,
    t0: float,
    *,
    before: float = 1.0,
    after: float = 6.0,
    flow: int = 0,
    mod: int = SEQ_MOD,
) -> pd.DataFrame:
    """The packet events of ``flow`` in ``[t0 − before, t0 + after]``.

    Columns: ``time_s`` (absolute), ``t_rel_s`` (time since ``t0``), ``seq``,
    ``seq_mod`` (``seq mod mod``, yu's y axis), ``event`` (sent / received / dropped),
    ``retransmit`` (bool). Rows keep the trace's order (time, then emission order).
    """
    if before < 0 or after < 0:
        raise ValueError("before and after must be non-negative")
    p = packets
    if "flow" in p.columns:
        p = p[p["flow"] == flow]
    sel = p[(p["time_s"] >= t0 - before) & (p["time_s"] <= t0 + after)]
    out = pd.DataFrame({
        "time_s": sel["time_s"].astype(float),
        "t_rel_s": sel["time_s"].astype(float) - t0,
        "seq": sel["seq"].astype(int),
        "seq_mod": sel["seq"].astype(int) % mod,
        "event": sel["event"].astype(str),
        "retransmit": sel["retransmit"].astype(bool),
    })
    return out.reset_index(drop=True)


def timeouts(cwnd: pd.DataFrame, *, flow: int = 0) -> list[float]:
    """Times at which cwnd fell to 1 segment from above (a retransmission timeout)."""
    c = cwnd[cwnd["flow"] == flow] if "flow" in cwnd.columns else cwnd
    w = c["cwnd_segments"].to_numpy(dtype=float)
    t = c["time_s"].to_numpy(dtype=float)
    return [float(t[i]) for i in range(1, len(w)) if w[i] <= 1.0 < w[i - 1]]


def recovery_summary(
    packets: pd.DataFrame, cwnd: pd.DataFrame, t_drop: float, *, horizon: float = 10.0,
    flow: int = 0,
) -> dict[str, float | int]:
    """How the sender recovered from the losses at or after ``t_drop``.

    Returns ``segments_dropped`` (dropped data segments in ``[t_drop, t_drop + horizon]``),
    ``retransmissions`` (retransmitted segments sent in that window), ``timeouts``
    (cwnd falls to 1 in that window), ``first_timeout_rel_s`` (NaN if none),
    ``new_segments_after`` (segments above the highest sequence sent before ``t_drop``
    first sent in the window: the new data the sender managed despite the loss),
    ``first_retransmit_rel_s`` / ``first_repair_rel_s`` (when the first retransmission
    left the sender / the first lost segment first reached the receiver),
    ``repaired_rel_s`` (when the last of the dropped segments finally reached the
    receiver, relative to ``t_drop``; NaN if not within the window), ``cwnd_before``
    (cwnd just before ``t_drop``) and ``cwnd_min_after`` (smallest cwnd in the window).
    """
    win = trace_window(packets, t_drop, before=0.0, after=horizon, flow=flow)
    dropped = win[win["event"] == "dropped"]
    lost = set(dropped["seq"].tolist())
    recv = win[(win["event"] == "received") & win["seq"].isin(lost)]
    repaired = math.nan
    if lost and set(recv["seq"].tolist()) >= lost:
        repaired = float(recv.groupby("seq")["t_rel_s"].min().max())
    to = [t for t in timeouts(cwnd, flow=flow) if t_drop <= t <= t_drop + horizon]
    c = cwnd[cwnd["flow"] == flow] if "flow" in cwnd.columns else cwnd
    prior = c[c["time_s"] < t_drop]
    after = c[(c["time_s"] >= t_drop) & (c["time_s"] <= t_drop + horizon)]
    pk = packets[packets["flow"] == flow] if "flow" in packets.columns else packets
    before = pk[(pk["time_s"] < t_drop) & (pk["event"] == "sent")]
    top = int(before["seq"].max()) if len(before) else -1
    sent = win[(win["event"] == "sent") & ~win["retransmit"]]
    rtx = win[(win["event"] == "sent") & win["retransmit"]]
    return {
        "segments_dropped": len(lost),
        "first_retransmit_rel_s": float(rtx["t_rel_s"].min()) if len(rtx) else math.nan,
        "first_repair_rel_s": float(recv["t_rel_s"].min()) if len(recv) else math.nan,
        "new_segments_after": int((sent["seq"] > top).sum()),
        "retransmissions": int(((win["event"] == "sent") & win["retransmit"]).sum()),
        "timeouts": len(to),
        "first_timeout_rel_s": (to[0] - t_drop) if to else math.nan,
        "repaired_rel_s": repaired,
        "cwnd_before": float(prior["cwnd_segments"].iloc[-1]) if len(prior) else math.nan,
        "cwnd_min_after": float(after["cwnd_segments"].min()) if len(after) else math.nan,
    }
