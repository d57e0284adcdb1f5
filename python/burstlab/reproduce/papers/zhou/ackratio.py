"""zhou §3.2 (figs 4, 5): ACK-ratio assembly in a six-edge, two-core OBS network.

Read first: :func:`network` (the scenario), then :data:`CORE` and :func:`udp_rate_bps`
(what "load" means and the traffic that creates contention).

What zhou §3.2 gives, and how it maps onto burstlab:

- "two core nodes (CN) and six edge nodes (EN)" (fig. 4, whose drawing is not in the
  text): three edges on each core node, ``E1, E2, E3 – C1 ═ C2 – E4, E5, E6``, with a
  host behind every edge; edge pair ``i`` is ``(E_i, E_{i+3})``, so every burst crosses
  the one core fibre C1 ═ C2, where bursts of the three ingress edges contend;
- "TCP segment size 512 byte, RTT = 600 ms, sending window Wm = 128, access bandwidth
  200 Mb/s": ``mss = 512 B`` (+ 40 B of headers), ``wm = 128``, access links of
  200 Mb/s, and one-way propagation 10 + 20 + 240 + 20 + 10 ms = 300 ms, i.e. a
  propagation RTT of 600 ms (assembly adds up to ``2·Tmax``);
- "maximum burst length 200 Kbyte, minimum 30 Kbyte, mean 100 Kbyte": hybrid
  time–volume assembly (the paper's "conventional timer-based" assembler) with
  ``lmax = 200 KB``, ``lmin = 30 KB`` (padding) and ``Tmax`` chosen so that a queue
  at the middle load collects 100 KB on average (:data:`TMAX`); the realised means are
  in the report;
- ACK-ratio assembly: the same trigger with ``ack_ratio_max = R_MAX``
  (``burstlab.obs`` "ACK-ratio assembly"); "conventional" is the plain hybrid assembler;
- ACKs share bursts with data: TCP flows in both directions of every pair and mixed
  assembly per egress (``classifier = "per_egress"``), so the queue E_i → E_{i+3}
  carries the forward flows' data, the reverse flows' ACKs and the contention traffic;
  an ACK is lost when its burst is lost (``ack_mode = "assemble"``, real contention, no
  random loss).

Our choices for what the paper does not give (reasons in the report):

- **Load** ``ρ``: the mean offered bit rate on each direction of the core fibre C1 ═ C2
  divided by its capacity (:data:`CORE`: 4 data wavelengths of 25 Mb/s). The TCP flows
  contribute at most their window-limited rate (``Wm·552 B`` data and ``Wm·40 B`` of
  ACKs per RTT each); the rest is **contention traffic**: per pair and direction one
  UDP on/off source (exponential on and off periods, 1500-B packets at 100 Mb/s while
  on), whose mean rate makes up ``ρ`` (:func:`udp_rate_bps`). The core is scaled down
  (100 Mb/s per direction, not tens of Gb/s) so that TCP is a visible share of each
  burst and a run lasts seconds; burst loss depends on ``ρ``, the number of wavelengths
  and the burst-length distribution, not on the absolute rate;
- **TCP**: ns-2's NewReno agent (``profile = "ns2"``) with one ACK per segment (b = 1,
  ns-2's default sink), two flows per pair and direction (12 flows);
- JET with LAUC-VF and full wavelength conversion; BCP processing 10 µs per node,
  switching 10 µs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from burstlab.reproduce import verdict as V
from burstlab.reproduce.framework import DIFFERS, NOT_COMPARABLE, worst_of
from burstlab.reproduce.papers.zhou.checks import Check
from burstlab.reproduce.papers.zhou.testbed import DATA

#: zhou §3.2 (``setup3.tcp`` in paper.toml): segment size, RTT, window, access rate.
_MSS, RTT_S, _WM, ACCESS_BPS = DATA["setup3.tcp"].value
MSS_BYTES = int(_MSS)
HEADER_BYTES = 40
ACK_BYTES = 40
WM_SEGMENTS = int(_WM)
ACCESS = f"{ACCESS_BPS / 1e6:g}Mb/s"
#: One-way propagation (ms): access, edge–core fibre, core fibre (sums to RTT/2).
ACCESS_DELAY_MS = 10.0
EDGE_FIBRE_MS = 20.0
CORE_FIBRE_MS = 240.0

#: zhou §3.2 (``setup3.burst_length``): burst length bounds and mean (bytes).
_LMIN, MEAN_BURST_BYTES, _LMAX = DATA["setup3.burst_length"].value
LMAX = f"{_LMAX / 1e3:g}KB"
LMIN = f"{_LMIN / 1e3:g}KB"

#: Our choice (module docstring): the core fibre C1 ═ C2, per direction.
CORE_WAVELENGTHS = 4
CORE_WAVELENGTH_BPS = 25e6
CORE = CORE_WAVELENGTHS * CORE_WAVELENGTH_BPS

#: TCP flows per edge pair and direction; edge pairs (zhou §3.2: six edge nodes).
FLOWS_PER_DIRECTION = 2
PAIRS = int(DATA["setup3.network"].value[1]) // 2

#: Contention traffic: on/off UDP, 1500-B packets at 100 Mb/s while on, mean on 10 ms.
UDP_PACKET_BYTES = 1500
UDP_PEAK_BPS = 100e6
UDP_MEAN_ON_S = 0.010

#: The load at which a queue collects :data:`MEAN_BURST_BYTES` in ``Tmax`` on average.
REFERENCE_LOAD = 0.3


def tcp_offered_bps() -> float:
    """Bit rate the TCP flows offer to one direction of the core fibre at their window
    limit: each forward flow's data and each reverse flow's ACKs, ``Wm`` per RTT."""
    per_flow = WM_SEGMENTS / RTT_S * 8.0
    data = per_flow * (MSS_BYTES + HEADER_BYTES)
    acks = per_flow * ACK_BYTES
    return PAIRS * FLOWS_PER_DIRECTION * (data + acks)


def udp_rate_bps(load: float) -> float:
    """Mean rate of each UDP contention source (one per pair and direction) so that the
    core fibre's offered load is ``load`` (TCP counted at its window limit)."""
    if not 0.0 < load < 1.0:
        raise ValueError(f"load: must lie in (0, 1), got {load}")
    rest = load * CORE - tcp_offered_bps()
    if rest <= 0:
        raise ValueError(f"load: {load} is below what the TCP flows alone offer "
                         f"({tcp_offered_bps() / CORE:.3f})")
    return rest / PAIRS


def tmax_s() -> float:
    """Tmax: the time a queue takes to collect 100 KB at :data:`REFERENCE_LOAD`."""
    per_queue = REFERENCE_LOAD * CORE / PAIRS / 8.0
    return MEAN_BURST_BYTES / per_queue


#: The assembly timer (s), about 80 ms.
TMAX = round(tmax_s(), 4)

#: Seconds of burst trace per run (after the warm-up): thousands of bursts, enough for
#: the realised mean burst size.
BURST_WINDOW_S = 20.0


def network(load: float, r_max: float | None, *, duration: float = 60.0,
            warmup: float = 10.0, seed: int = 1) -> dict[str, Any]:
    """zhou fig. 4's network at offered load ``load`` with ACK-ratio assembly of
    ``R_MAX = r_max`` (``None``: the conventional assembler)."""
    if r_max is not None and not 0.0 <= r_max <= 1.0:
        raise ValueError(f"r_max: must lie in [0, 1], got {r_max}")
    udp = udp_rate_bps(load)
    duty = udp / UDP_PEAK_BPS
    mean_off = UDP_MEAN_ON_S * (1.0 - duty) / duty
    edges = [f"E{i}" for i in range(1, 2 * PAIRS + 1)]
    hosts = [f"h{i}" for i in range(1, 2 * PAIRS + 1)]
    nodes: list[dict[str, Any]] = [{"name": "C1", "kind": "core"},
                                   {"name": "C2", "kind": "core"}]
    nodes += [{"name": e, "kind": "edge"} for e in edges]
    nodes += [{"name": h, "kind": "host"} for h in hosts]
    links = [{"a": h, "b": e, "rate": ACCESS, "delay": f"{ACCESS_DELAY_MS:g}ms"}
             for h, e in zip(hosts, edges, strict=True)]
    edge_fibre = {"rate": f"{CORE_WAVELENGTH_BPS:g}", "delay": f"{EDGE_FIBRE_MS:g}ms",
                  "wavelengths": CORE_WAVELENGTHS}
    fibres = [{"a": e, "b": "C1" if i < PAIRS else "C2", **edge_fibre}
              for i, e in enumerate(edges)]
    fibres.append({"a": "C1", "b": "C2", "rate": f"{CORE_WAVELENGTH_BPS:g}",
                   "delay": f"{CORE_FIBRE_MS:g}ms", "wavelengths": CORE_WAVELENGTHS})
    assembly: dict[str, Any] = {"type": "hybrid", "tmax": TMAX, "lmax": LMAX, "lmin": LMIN}
    if r_max is not None:
        assembly["ack_ratio_max"] = r_max
    flows: list[dict[str, Any]] = []
    for p in range(PAIRS):
        a, b = hosts[p], hosts[p + PAIRS]
        for src, dst, tag in ((a, b, "fwd"), (b, a, "rev")):
            for k in range(FLOWS_PER_DIRECTION):
                flows.append({
                    "type": "tcp", "name": f"tcp{p}{tag}{k}", "src": src, "dst": dst,
                    "variant": "newreno", "profile": "ns2", "mss": MSS_BYTES,
                    "header_bytes": HEADER_BYTES, "ack_bytes": ACK_BYTES,
                    "wm": WM_SEGMENTS, "b": 1,
                    # Staggered starts: the flows do not slow-start in lockstep.
                    "start": round(0.05 * (len(flows) + 1), 3)})
            flows.append({
                "type": "onoff", "name": f"udp{p}{tag}", "src": src, "dst": dst,
                "rate": f"{UDP_PEAK_BPS:g}", "packet_size": UDP_PACKET_BYTES,
                "mean_on": UDP_MEAN_ON_S, "mean_off": round(mean_off, 6)})
    return {
        "name": f"zhou-fig4-load{load:g}-r{'conv' if r_max is None else f'{r_max:g}'}",
        # The burst trace over a window after the warm-up (at most BURST_WINDOW_S long)
        # gives the realised mean burst size (the paper's 100 KB).
        "sim": {"duration": duration, "warmup": warmup, "seed": seed,
                "trace": {"bursts": True, "start": warmup,
                          "end": min(duration, warmup + BURST_WINDOW_S)}},
        "node": nodes,
        "link": links,
        "fibre": fibres,
        "obs": {
            "assembly": assembly,
            "classifier": "per_egress",
            "ack_mode": "assemble",
            "scheduler": "laucvf",
            "signalling": "jet",
            "bcp_processing": "10us",
            "switch_setup": "10us",
        },
        "flow": flows,
    }


# ---------------------------------------------------------------------------------------
# The grid and the analysis of fig. 5.

#: The conventional assembler's label in the ``rmax`` column.
CONVENTIONAL = "conv"


def rmax_label(r_max: float | None) -> str:
    return CONVENTIONAL if r_max is None else f"{r_max:g}"


def rmax_value(label: str) -> float | None:
    return None if label == CONVENTIONAL else float(label)


def points(loads: tuple[float, ...], rmaxes: tuple[float | None, ...], *,
           duration: float, warmup: float, seed: int
           ) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Fig. 5's grid: every load × every R_MAX (``None``: conventional)."""
    return [({"experiment": "fig5", "load": float(ld), "rmax": rmax_label(r),
              "duration_s": duration},
             network(ld, r, duration=duration, warmup=warmup, seed=seed))
            for ld in loads for r in rmaxes]


def run_row(flows: pd.DataFrame, obs_flows: pd.DataFrame,
            burst_trace: pd.DataFrame | None = None) -> dict[str, float]:
    """One run's fig. 5 numbers from its ``flows`` and ``obs_flows`` tables.

    - ``p_tcp_bursts``: of the bursts carrying TCP packets (data or ACKs) of a flow,
      the fraction lost, counted per (flow, burst) — fig. 5(a)'s burst loss probability
      as TCP sees it;
    - ``p_udp_bursts``: the same for the contention traffic's bursts (nearly every
      burst at high load);
    - ``goodput_Mbps``: mean goodput per TCP flow (fig. 5(b)); ``to_per_flow``,
      ``td_per_flow``; ``rtt_s`` (mean over flows that measured one);
    - ``ack_share``: ACKs / packets over all bursts formed;
    - ``mean_burst_KB``: the realised mean burst (bytes, padding included) over the
      bursts formed in the traced window (the paper's mean is 100 KB).
    """
    tcp = flows[flows["name"].str.startswith("tcp")]
    o = obs_flows
    ot = o[o["name"].str.startswith("tcp")]
    ou = o[o["name"].str.startswith("udp")]

    def ratio(a: float, b: float) -> float:
        return float(a) / float(b) if b > 0 else float("nan")

    pkts = float(o["segments_in_bursts"].sum() + o["acks_in_bursts"].sum())
    return {
        "goodput_Mbps": float(tcp["goodput_bps"].mean()) / 1e6,
        "p_tcp_bursts": ratio(ot["data_bursts_lost"].sum() + ot["ack_bursts_lost"].sum(),
                              ot["data_bursts"].sum() + ot["ack_bursts"].sum()),
        "p_udp_bursts": ratio(ou["data_bursts_lost"].sum(), ou["data_bursts"].sum()),
        "to_per_flow": float(tcp["to_events"].mean()),
        "td_per_flow": float(tcp["td_events"].mean()),
        "rtt_s": float(tcp["mean_rtt_s"].astype(float).mean()),
        "ack_share": ratio(o["acks_in_bursts"].sum(), pkts),
        "mean_burst_KB": _mean_burst_kb(burst_trace),
    }


METRICS = ("goodput_Mbps", "p_tcp_bursts", "p_udp_bursts", "to_per_flow", "td_per_flow",
           "rtt_s", "ack_share", "mean_burst_KB")
def _mean_burst_kb(trace: pd.DataFrame | None) -> float:
    if trace is None or not len(trace):
        return float("nan")
    formed = trace[trace["event"] == "formed"]
    return float(formed["bytes"].astype(float).mean()) / 1e3 if len(formed) else float("nan")


#: The metrics that are proportions (their intervals lie in [0, 1]); the others are
#: non-negative (their intervals lie in [0, ∞)).
PROPORTIONS = ("p_tcp_bursts", "p_udp_bursts", "ack_share")


def summarise(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per (load, rmax): per metric the mean and a 95 % Student-t CI over the
    replications (NaN-free runs only), cut to the metric's range (:data:`PROPORTIONS` in
    [0, 1], the others ≥ 0; :func:`burstlab.reproduce.verdict.mean_interval`)."""

    rows = []
    for key, g in runs.groupby(["load", "rmax"], sort=False):
        load, rmax = key if isinstance(key, tuple) else (key, "")
        row: dict[str, Any] = {"load": float(g["load"].iloc[0]), "rmax": str(rmax),
                               "n": len(g)}
        for m in METRICS:
            iv = V.mean_interval(g[m].to_numpy(float), lower=0.0,
                                 upper=1.0 if m in PROPORTIONS else None)
            row.update({f"{m}_mean": iv.estimate, f"{m}_ci_lo": iv.lo, f"{m}_ci_hi": iv.hi})
        rows.append(row)
    out = pd.DataFrame(rows)
    order = {r: i for i, r in enumerate(sorted(out["rmax"].unique(), key=_rmax_order))}
    out["_o"] = out["rmax"].map(order)
    return out.sort_values(["_o", "load"]).drop(columns="_o").reset_index(drop=True)


def _rmax_order(label: str) -> float:
    """Conventional first, then R_MAX from 1 down to 0."""
    return -1.0 if label == CONVENTIONAL else 1.0 - float(label)


# ---------------------------------------------------------------------------------------
# Fig. 5's claims as pure checks on :func:`summarise`'s table.

def _pct(x: float) -> str:
    return f"{100 * x:+.0f} %"


def _curve(s: pd.DataFrame, label: str) -> pd.DataFrame:
    return s[s["rmax"] == label].set_index("load").sort_index()


def _iv(row: pd.Series, m: str) -> V.Interval:
    lo = 0.0
    hi = 1.0 if m in PROPORTIONS else None
    return V.summary_interval(float(row[f"{m}_mean"]), float(row[f"{m}_ci_lo"]),
                              float(row[f"{m}_ci_hi"]), int(row.get("n", 0)), lower=lo,
                              upper=hi)


def _worst(vs: list[V.Verdict]) -> V.Verdict:
    return worst_of(vs)


def check_rmax1(s: pd.DataFrame) -> Check:
    """zhou §3.2: R_MAX = 1 coincides with the conventional assembler: per load, goodput
    at R_MAX = 1 over conventional judged against 1 with the ``ratio`` kind (exactly 1
    when the runs are identical); the claim takes the worst load."""

    conv, one = _curve(s, CONVENTIONAL), _curve(s, "1")
    loads = conv.index.intersection(one.index)
    if not len(loads):
        return Check(NOT_COMPARABLE, "–", "R_MAX = 1 or conventional not simulated")
    dg = (one.loc[loads, "goodput_Mbps_mean"] - conv.loc[loads, "goodput_Mbps_mean"]).abs()
    dp = (one.loc[loads, "p_tcp_bursts_mean"] - conv.loc[loads, "p_tcp_bursts_mean"]).abs()
    value = (f"largest difference over {len(loads)} loads: goodput {dg.max():.3g} Mb/s, "
             f"burst loss {dp.max():.3g}")
    vs = []
    for ld in loads:
        a, b = one.loc[ld], conv.loc[ld]
        same = all(float(a[f"{m}_{k}"]) == float(b[f"{m}_{k}"]) or
                   (np.isnan(float(a[f"{m}_{k}"])) and np.isnan(float(b[f"{m}_{k}"])))
                   for m in METRICS if f"{m}_mean" in a.index
                   for k in ("mean", "ci_lo", "ci_hi"))
        r = V.exact(1.0) if same else V.ratio_interval(_iv(a, "goodput_Mbps"),
                                                        _iv(b, "goodput_Mbps"))
        vs.append(V.judge(r, 1.0, kind="ratio"))
    v = _worst(vs)
    if float(dg.max()) == 0.0 and float(dp.max()) == 0.0:
        return Check(v.verdict, value, "identical at every load: with R_MAX = 1 the "
                     "extra queue never holds an ACK, so the runs are the conventional "
                     "ones bit for bit")
    return Check(v.verdict, value, f"worst load: {v.note}")


def intermediate_table(s: pd.DataFrame) -> pd.DataFrame:
    """Per intermediate R_MAX (0 < R_MAX < 1) and load: goodput and burst loss relative
    to conventional assembly, and whether the difference is beyond both 95 % CIs."""

    conv = _curve(s, CONVENTIONAL)
    rows = []
    for label in s["rmax"].unique():
        if label == CONVENTIONAL or not 0.0 < float(label) < 1.0:
            continue
        c = _curve(s, label)
        for load in c.index.intersection(conv.index):
            a, b = c.loc[load], conv.loc[load]
            rows.append({
                "rmax": label, "load": float(load),
                "goodput_rel": a["goodput_Mbps_mean"] / b["goodput_Mbps_mean"] - 1.0,
                "goodput_higher_sig": bool(a["goodput_Mbps_ci_lo"] > b["goodput_Mbps_ci_hi"]),
                "goodput_lower_sig": bool(a["goodput_Mbps_ci_hi"] < b["goodput_Mbps_ci_lo"]),
                "p_rel": a["p_tcp_bursts_mean"] / b["p_tcp_bursts_mean"] - 1.0,
                "p_lower_sig": bool(a["p_tcp_bursts_ci_hi"] < b["p_tcp_bursts_ci_lo"]),
                "p_higher_sig": bool(a["p_tcp_bursts_ci_lo"] > b["p_tcp_bursts_ci_hi"]),
            })
    return pd.DataFrame(rows)


def _range(x: pd.Series, f: Any = None) -> str:
    lo, hi = float(x.min()), float(x.max())
    f = f or (lambda v: f"{v:.3g}")
    return f(lo) if f(lo) == f(hi) else f"{f(lo)} … {f(hi)}"


def intermediate_cause(s: pd.DataFrame, rmax: str) -> str:
    """What the runs measured where ``rmax`` loses goodput to conventional assembly beyond
    both CIs: its TCP burst loss against conventional's (the gain zhou §3.2 expects),
    and per flow its fast retransmits, timeouts and round trip against conventional's,
    with the ACK share of bursts and the mean burst size."""
    conv, c = _curve(s, CONVENTIONAL), _curve(s, rmax)
    loads = c.index.intersection(conv.index)
    worse = [ld for ld in loads
             if float(c.loc[ld, "goodput_Mbps_ci_hi"]) < float(conv.loc[ld, "goodput_Mbps_ci_lo"])]
    if not worse:
        return ""
    a, b = c.loc[worse], conv.loc[worse]

    def ratio(m: str) -> str:
        return _range(a[f"{m}_mean"] / b[f"{m}_mean"], lambda v: f"×{v:.3g}")

    td = a["td_per_flow_mean"] / b["td_per_flow_mean"]
    lower = int((a["p_tcp_bursts_ci_hi"] < b["p_tcp_bursts_ci_lo"]).sum())
    summary = (f" — R_MAX = {rmax} lowers the burst loss beyond the CIs at {lower} of these "
               f"{len(worse)} loads, while its flows fast-retransmit at least ×"
               f"{float(td.min()):.3g} as often" if float(td.min()) > 1 else "")

    return (f"at the loads where R_MAX = {rmax} loses goodput beyond the CIs ("
            + ", ".join(f"{ld:g}" for ld in worse)
            + f": {_range(a['goodput_Mbps_mean'] / b['goodput_Mbps_mean'] - 1, _pct)}), its "
            f"TCP burst loss differs by "
            f"{_range(a['p_tcp_bursts_mean'] / b['p_tcp_bursts_mean'] - 1, _pct)} from "
            f"conventional's ({_range(100 * b['p_tcp_bursts_mean'])} %), while per "
            f"flow its fast retransmits change {ratio('td_per_flow')}, its timeouts "
            f"{ratio('to_per_flow')} and its RTT {ratio('rtt_s')}; the ACK share of its "
            f"bursts is {_range(a['ack_share_mean'])} against "
            f"{_range(b['ack_share_mean'])}, its mean burst "
            f"{_range(a['mean_burst_KB_mean'])} KB against "
            f"{_range(b['mean_burst_KB_mean'])} KB{summary}")


def check_intermediate(s: pd.DataFrame) -> Check:
    """zhou §3.2: an intermediate R_MAX lowers the burst loss probability and raises
    TCP throughput. Judged on the R_MAX with the best mean relative goodput over the
    loads, as an ordering claim (:func:`verdict.judge_order`) over every load: its goodput
    lead over conventional assembly and conventional's burst loss minus its own, each
    with an interval from the two independent sets of replications."""

    t = intermediate_table(s)
    if not len(t):
        return Check(NOT_COMPARABLE, "–", "no intermediate R_MAX simulated")
    best = str(t.groupby("rmax")["goodput_rel"].mean().idxmax())
    b = t[t["rmax"] == best]
    n = len(b)
    up, down = int(b["goodput_higher_sig"].sum()), int(b["goodput_lower_sig"].sum())
    plo, phi = int(b["p_lower_sig"].sum()), int(b["p_higher_sig"].sum())
    value = (f"best R_MAX = {best}: goodput {_pct(b['goodput_rel'].min())} … "
             f"{_pct(b['goodput_rel'].max())} vs conventional (higher beyond the CIs at "
             f"{up} of {n} loads, lower at {down}); burst loss {_pct(b['p_rel'].min())} … "
             f"{_pct(b['p_rel'].max())} (lower beyond the CIs at {plo}, higher at {phi})")
    conv, c = _curve(s, CONVENTIONAL), _curve(s, best)
    diffs = []
    for ld in c.index.intersection(conv.index):
        diffs.append((f"goodput lead at load {ld:g} (Mb/s)", V.difference_interval(
            _iv(c.loc[ld], "goodput_Mbps"), _iv(conv.loc[ld], "goodput_Mbps"))))
        diffs.append((f"burst-loss reduction at load {ld:g}", V.difference_interval(
            _iv(conv.loc[ld], "p_tcp_bursts"), _iv(c.loc[ld], "p_tcp_bursts"))))
    v = V.judge_order(diffs)
    short = v.note.split(" (")[0]
    cause = intermediate_cause(s, best) if v.verdict == DIFFERS else ""
    return Check(v.verdict, value, f"{short} ({len(diffs)} comparisons over {n} loads; "
                                   "R_MAX chosen by its mean goodput on the same runs)"
                 + (f"; {cause}" if cause else ""))


def check_rmax0_starves(s: pd.DataFrame) -> Check:
    """zhou §3.2: with R_MAX = 0 no ACK is ever assembled, so TCP cannot proceed: per
    load, R_MAX = 0's goodput against conventional's as a change, against −100 % with
    the ``change`` kind; the claim takes the worst load."""

    conv, zero = _curve(s, CONVENTIONAL), _curve(s, "0")
    loads = conv.index.intersection(zero.index)
    if not len(loads):
        return Check(NOT_COMPARABLE, "–", "R_MAX = 0 or conventional not simulated")
    frac = zero.loc[loads, "goodput_Mbps_mean"] / conv.loc[loads, "goodput_Mbps_mean"]
    acks = zero.loc[loads, "ack_share_mean"]
    value = (f"goodput at R_MAX = 0: {zero.loc[loads, 'goodput_Mbps_mean'].max():.3g} "
             f"Mb/s per flow at most ({100 * frac.max():.2f} % of conventional); ACK share "
             f"of bursts {acks.max():.3g}")
    # R_MAX = 0's goodput against conventional's as a change (ratio − 1, at least −100 %;
    # a ratio is not a proportion: R_MAX = 0 could in principle do better), and TCP that
    # "cannot proceed" is a change of −100 %.
    vs = [V.judge(V.ratio_interval(_iv(zero.loc[ld], "goodput_Mbps"),
                                   _iv(conv.loc[ld], "goodput_Mbps")).scaled(1.0, -1.0),
                  -1.0, kind="change")
          for ld in loads]
    v = _worst(vs)
    return Check(v.verdict, value, f"goodput change from conventional, worst load: {v.note}"
                 + ("; no ACK leaves the extra queue, so each sender stalls after its first "
                    "window" if float(acks.max()) == 0.0 else ""))


def check_rmax0_loss_one(s: pd.DataFrame) -> Check:
    """zhou §3.2: "in the case of R_MAX = 0 … the burst loss probability will always be
    equal to one". The paper counts an ACK that never arrives as lost ("no TCP
    connection is set up"): at R_MAX = 0 no ACK is ever assembled, so every ACK is lost
    in its sense. burstlab's burst loss probability counts bursts that were sent and
    then dropped in the core; ACKs held at the edge are in no burst. The two are
    different quantities, so the claim is ``not comparable``; the value gives
    burstlab's measured burst loss and the share of ACKs that reached a burst, which
    the paper's reading turns into a loss of 1."""

    zero = _curve(s, "0")
    if not len(zero):
        return Check(NOT_COMPARABLE, "–", "R_MAX = 0 not simulated")
    p = zero["p_tcp_bursts_mean"]
    a = zero["ack_share_mean"]
    value = (f"burst loss probability (bursts sent, then lost) at R_MAX = 0: "
             f"{p.min():.3g} … {p.max():.3g} over {len(p)} loads; ACK share of bursts "
             f"{a.min():.3g} … {a.max():.3g}")
    conv = _curve(s, CONVENTIONAL)
    loads = zero.index.intersection(conv.index)
    why = ""
    if len(loads):
        pc = conv.loc[loads, "p_tcp_bursts_mean"]
        why = (f"; conventional assembly at the same loads loses {pc.min():.3g} … "
               f"{pc.max():.3g} of its TCP bursts")
    held = "every ACK stays at the edge" if float(a.max()) == 0.0 else \
        f"ACKs still make up up to {a.max():.3g} of the packets in bursts"
    return Check(NOT_COMPARABLE, value,
                 "different quantities: the paper's 1 counts ACKs that never arrive as "
                 "lost, burstlab's probability counts only bursts that were sent and "
                 f"dropped; at R_MAX = 0 {held} (ACK share of bursts {a.max():.3g}), so "
                 f"in the paper's counting every ACK is lost{why}")
