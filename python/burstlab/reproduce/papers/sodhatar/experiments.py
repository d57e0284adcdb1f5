"""sodhatar §III–V (the dumbbell, figs 3–11): the experiments and the tables
of their results.

Read first: :data:`PAPER` (the declaration), :class:`Mode` (what ``--quick`` and
``--smoke`` change), :func:`scenario` (the dumbbell, packet-switched or with an OBS
core), :func:`start_patterns` (the start times the paper does not give), then the
tables (:func:`size_table` …), which :func:`.analysis.analyse` assembles. Figures are
in :mod:`.figures`, claims in :mod:`.claims`, the report body in :mod:`.report`; ns-2's
own runs of the same scripts in :mod:`.ns2runs`.

Setting (sodhatar §III, §IV, §V): n0, n1, n2 –(300 Mb/s, 20 ms)– n3 ═(60 Mb/s, 60 ms,
ns-2 queue-limit 5)═ n4 –(300 Mb/s, 20 ms)– n5, n6, n7; FTP over TCP Tahoe (n0 → n5),
Reno (n1 → n6) and NewReno (n2 → n7), ns-2's agents (burstlab's ``ns2`` profile),
maximum window 10 segments, packet sizes 1460, 2000, 3000 and 4000 B, 5 s.

Conventions:

- **Queue limit.** ns-2's ``queue-limit 5`` counts the packet in transmission
  (``DropTail::enque`` drops when ``length + 1 >= limit``), burstlab's ``queue_pkts``
  counts packets waiting behind it: the paper's limit 5 is ``queue_pkts = 4``
  (:data:`QUEUE_PKTS`; docs/guide/ns2.md). The export writes it back as
  ``queue-limit 5``.
- **Packet size** is ns-2's ``packetSize_``: the TCP payload (burstlab's ``mss``); 40 B of
  headers ride on top in both simulators.
- **Throughput** is what the paper's trace analysis measures (§III: "how much data can
  be transferred … in a given amount of time"): payload bits of the data segments
  arriving at the receiver (retransmitted duplicates included) per second over the 5 s.
  Goodput (in order, no duplicates) is written beside it.
- **Start times.** The paper gives none (§III: "defined by the user"). The scenario has no
  randomness, so the outcome depends only on the start times and on the order of
  same-time events. Every result is computed for fixed start patterns
  (:data:`FIXED_PATTERNS`) and for start times drawn uniformly in [0, 100 ms]
  (:func:`random_starts`); the claims use the mean over the random draws (with a 95 %
  CI over draws) and report the spread over every pattern.
- **OBS core** (issue 11): n3 and n4 become edge nodes joined by one fibre of one
  60 Mb/s wavelength and 60 ms, the bottleneck's capacity and delay. Timer assembly
  (Tb = 2 ms, a few bottleneck transmission times), ACKs assembled like data (yu's
  convention: the core carries both directions), JET + LAUC-VF, 10 µs BCP processing,
  5 µs switch set-up. Two classifiers: ``per_egress`` (the main case: all three flows
  share one egress, so one assembly queue, as an OBS edge with one destination would
  do) and ``per_flow`` (one queue per flow; the flows' bursts then contend for the
  single wavelength, which the bufferless core resolves by dropping bursts).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from burstlab.reproduce import verdict as V
from burstlab.reproduce.framework import Context, Experiment, Paper, read_modes, standard_stamp
from burstlab.reproduce.paper import PaperData

SEED = 1
VARIANTS = ("tahoe", "reno", "newreno")
#: How the report and figures name each variant.
NAMES = {"tahoe": "Tahoe", "reno": "Reno", "newreno": "NewReno"}
#: Sender and receiver node of each variant (sodhatar §III: Tahoe on n0, Reno on n1,
#: NewReno on n2; receivers n5, n6, n7).
HOSTS = {"tahoe": ("n0", "n5"), "reno": ("n1", "n6"), "newreno": ("n2", "n7")}

#: The paper's printed numbers (``paper.toml``): the set-up below is read from them.
DATA = PaperData(Path(__file__).with_name("paper.toml"))


def _link(key: str) -> tuple[str, str]:
    """A link's (rate, delay) as scenario strings from ``paper.toml``'s ``key``."""
    rate_bps, delay_s = DATA[key].value
    return f"{rate_bps / 1e6:g}Mb/s", f"{delay_s * 1e3:g}ms"


SIZES = tuple(int(b) for b in DATA["setup.packet_sizes"].value)  # B of payload (§IV)
DURATION_S = float(DATA["setup.duration"].value)  # sodhatar §III
WM = int(DATA["setup.window"].value)  # segments (sodhatar §IV)
#: sodhatar §V: ns-2 queue-limit, the packet in transmission included.
NS2_QUEUE_LIMIT = int(DATA["setup.queue_limit"].value)
#: burstlab's equivalent: packets waiting behind the one in transmission.
QUEUE_PKTS = NS2_QUEUE_LIMIT - 1
ACCESS = _link("setup.access")  # sodhatar §III
BOTTLENECK = _link("setup.bottleneck")  # sodhatar §III
TB = "2ms"  # OBS core: assembly period
#: Width of the throughput-vs-time bins (about one round-trip time, 0.2 s).
BIN_S = 0.2
#: Start times are drawn uniformly in [0, RANDOM_START_MAX_S].
RANDOM_START_MAX_S = 0.1

#: Start patterns: (Tahoe, Reno, NewReno) start times in s. With equal start times the
#: three flows' packets reach n3 at the same instants, and the order of same-time events
#: (the order the flows are declared: Tahoe, Reno, NewReno) decides who is dropped.
FIXED_PATTERNS: dict[str, tuple[float, float, float]] = {
    "simultaneous": (0.0, 0.0, 0.0),
    "staggered 10 ms": (0.0, 0.01, 0.02),
    "staggered 50 ms": (0.0, 0.05, 0.10),
    "reverse 10 ms": (0.02, 0.01, 0.0),
    "reverse 50 ms": (0.10, 0.05, 0.0),
}
#: The pattern drawn in the throughput-vs-time and cwnd-vs-time figures.
REFERENCE_PATTERN = "simultaneous"

#: Networks: the paper's packet-switched dumbbell and two OBS cores.
NETWORKS = ("packet", "obs per-egress", "obs per-flow")
NETWORK_LABEL = {
    "packet": "packet-switched bottleneck (as in the paper)",
    "obs per-egress": f"OBS core, timer {TB}, per-egress assembly, ACKs assembled",
    "obs per-flow": f"OBS core, timer {TB}, per-flow assembly, ACKs assembled",
}


@dataclass(frozen=True)
class Mode:
    """Sizes of one run of the reproduction.

    Attributes:
        name: ``full``, ``quick`` or ``smoke`` (tests only).
        patterns: fixed start patterns (keys of :data:`FIXED_PATTERNS`).
        random_draws: start-time draws, uniform in [0, 100 ms] per flow.
        sizes: packet sizes (B).
        networks: which of :data:`NETWORKS` to run.
    """

    name: str
    patterns: tuple[str, ...]
    random_draws: int
    sizes: tuple[int, ...] = SIZES
    networks: tuple[str, ...] = NETWORKS


#: The modes, from ``paper.toml`` (``[mode.full]``, ``[mode.quick]``, ``[mode.smoke]``).
MODES = read_modes(Path(__file__).with_name("paper.toml"), Mode)


def random_starts(draw: int) -> tuple[float, float, float]:
    """Start times (s) of draw ``draw``: uniform in [0, 100 ms], rounded to 1 µs;
    the same draw for every packet size and network (paired comparisons)."""
    rng = np.random.default_rng([SEED, draw])
    a, b, c = (round(float(x), 6) for x in rng.uniform(0.0, RANDOM_START_MAX_S, 3))
    return a, b, c


def start_patterns(mode: Mode) -> list[tuple[str, tuple[float, float, float]]]:
    """``(pattern name, starts)``: the fixed patterns, then ``random k``."""
    out = [(p, FIXED_PATTERNS[p]) for p in mode.patterns]
    out += [(f"random {k}", random_starts(k)) for k in range(mode.random_draws)]
    return out


def scenario(size: int, starts: tuple[float, float, float], network: str = "packet",
             trace: bool = False) -> dict[str, Any]:
    """The dumbbell of sodhatar §III (fig. 3) with packets of ``size`` B, the flows
    starting at ``starts`` (Tahoe, Reno, NewReno), as a scenario dict."""
    if network not in NETWORKS:
        raise ValueError(f"network must be one of {', '.join(NETWORKS)}, got {network!r}")
    obs = network != "packet"
    nodes = [{"name": f"n{i}", "kind": "host"} for i in (0, 1, 2)]
    nodes += [{"name": n, "kind": "edge" if obs else "router"} for n in ("n3", "n4")]
    nodes += [{"name": f"n{i}", "kind": "host"} for i in (5, 6, 7)]
    rate, delay = ACCESS
    links: list[dict[str, Any]] = [{"a": f"n{i}", "b": "n3", "rate": rate, "delay": delay}
                                   for i in (0, 1, 2)]
    sc: dict[str, Any] = {"name": f"sodhatar-dumbbell-{network.replace(' ', '-')}",
                          "sim": {"duration": DURATION_S, "seed": SEED}, "node": nodes}
    if obs:
        sc["fibre"] = [{"a": "n3", "b": "n4", "rate": BOTTLENECK[0], "delay": BOTTLENECK[1],
                        "wavelengths": 1}]
        sc["obs"] = {"assembly": {"type": "timer", "tb": TB},
                     "classifier": network.split()[1].replace("-", "_"),
                     "ack_mode": "assemble", "scheduler": "laucvf", "signalling": "jet",
                     "bcp_processing": "10us", "switch_setup": "5us"}
    else:
        # sodhatar §V "queue-limit(5)" in ns-2 = 4 packets waiting in burstlab.
        links.append({"a": "n3", "b": "n4", "rate": BOTTLENECK[0], "delay": BOTTLENECK[1],
                      "queue_pkts": QUEUE_PKTS})
    links += [{"a": "n4", "b": f"n{i}", "rate": rate, "delay": delay} for i in (5, 6, 7)]
    sc["link"] = links
    sc["flow"] = [{"type": "tcp", "name": v, "src": HOSTS[v][0], "dst": HOSTS[v][1],
                   "variant": v, "profile": "ns2", "mss": f"{size}B", "wm": WM,
                   "start": st} for v, st in zip(VARIANTS, starts, strict=True)]
    if trace:
        sc["sim"]["trace"] = {"cwnd": True, "packets": True}
    return sc


def _params(network: str, pattern: str, starts: tuple[float, float, float],
            size: int) -> dict[str, Any]:
    return {"network": network, "pattern": pattern, "size_B": size,
            "start_tahoe_s": starts[0], "start_reno_s": starts[1],
            "start_newreno_s": starts[2]}


def dumbbell_points(mode: Mode) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every (network, start pattern, packet size) point."""
    return [(_params(net, pat, st, size), scenario(size, st, net))
            for net in mode.networks for pat, st in start_patterns(mode)
            for size in mode.sizes]


def trace_points(mode: Mode) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The reference pattern with cwnd and packet traces (figs 4–11)."""
    st = FIXED_PATTERNS[REFERENCE_PATTERN]
    return [(_params(net, REFERENCE_PATTERN, st, size), scenario(size, st, net, trace=True))
            for net in mode.networks for size in mode.sizes]


# ---------------------------------------------------------------------------------------
# Analysis.


def per_run_table(sw_table: pd.DataFrame) -> pd.DataFrame:
    """One row per (network, pattern, size, variant): burstlab's counters and throughput
    in Mb/s (payload bits of segments arriving at the receiver per second)."""
    t = sw_table.copy()
    t["variant"] = t["variant"].astype(str)
    bits = t["mss_bytes"].astype(float) * 8.0
    t["throughput_Mbps"] = t["throughput_segps"] * bits / 1e6
    t["goodput_Mbps"] = t["goodput_segps"] * bits / 1e6
    t["start_s"] = np.select([t["variant"] == v for v in VARIANTS],
                             [t[f"start_{v}_s"] for v in VARIANTS], np.nan)
    keep = ["network", "pattern", "size_B", "variant", "start_s", "start_tahoe_s",
            "start_reno_s", "start_newreno_s", "throughput_Mbps", "goodput_Mbps",
            "segments_received", "segments_delivered", "segments_sent", "retransmits",
            "td_events", "to_events", "mean_rtt_s"]
    for c in ("data_bursts", "data_bursts_lost"):  # OBS runs only (NaN elsewhere)
        t[c] = pd.to_numeric(t[c], errors="coerce") if c in t.columns else np.nan
        keep.append(c)
    return t[keep].reset_index(drop=True)


def size_table(runs: pd.DataFrame, col: str = "throughput_Mbps") -> pd.DataFrame:
    """Per (network, variant, size): the mean over random start draws with its 95 % CI,
    the reference pattern's value and the min/max over all patterns, for ``col``
    (burstlab's or ns-2's)."""
    rows = []
    for (net, v, size), g in runs.groupby(["network", "variant", "size_B"], sort=False):
        rnd = g[g["pattern"].str.startswith("random")][col].to_numpy(float)
        ref = g[g["pattern"] == REFERENCE_PATTERN][col]
        allv = g[col].to_numpy(float)
        # a throughput is ≥ 0: the interval is cut there (verdict.mean_interval)
        iv = V.mean_interval(rnd, lower=0.0)
        rows.append({"network": net, "variant": v, "size_B": int(float(str(size))),
                     "random_draws": len(rnd), f"{col}_random_mean": iv.estimate,
                     f"{col}_random_ci_lo": iv.lo, f"{col}_random_ci_hi": iv.hi,
                     f"{col}_{REFERENCE_PATTERN}": float(ref.iloc[0]) if len(ref)
                     else math.nan,
                     f"{col}_min_over_patterns": float(np.nanmin(allv)) if len(allv)
                     else math.nan,
                     f"{col}_max_over_patterns": float(np.nanmax(allv)) if len(allv)
                     else math.nan})
    return pd.DataFrame(rows)


def change_table(runs: pd.DataFrame, lo: int, hi: int,
                 col: str = "throughput_Mbps") -> pd.DataFrame:
    """Relative change of ``col`` from ``lo`` to ``hi`` B per (network, variant, pattern)
    and for the mean over random draws (pattern ``random mean``, with the paired interval
    of :func:`burstlab.reproduce.verdict.paired_ratio`: draw k has the same start times
    at both sizes; the change's interval lies above −100 %)."""
    rows = []
    for (net, v), g in runs.groupby(["network", "variant"], sort=False):
        a = g[g["size_B"] == lo].set_index("pattern")[col]
        b = g[g["size_B"] == hi].set_index("pattern")[col]
        for pat in a.index.intersection(b.index):
            x, y = float(a[pat]), float(b[pat])
            rows.append({"network": net, "variant": v, "pattern": pat,
                         f"{col}_at_{lo}B": x, f"{col}_at_{hi}B": y,
                         "change": y / x - 1.0 if x > 0 else math.nan,
                         "change_ci_lo": math.nan, "change_ci_hi": math.nan})
        pats = [p for p in a.index.intersection(b.index) if str(p).startswith("random")]
        if pats:
            iv = V.paired_ratio(b[pats].to_numpy(float), a[pats].to_numpy(float))
            rows.append({"network": net, "variant": v, "pattern": "random mean",
                         f"{col}_at_{lo}B": float(a[pats].mean()),
                         f"{col}_at_{hi}B": float(b[pats].mean()),
                         "change": iv.estimate - 1.0, "change_ci_lo": iv.lo - 1.0,
                         "change_ci_hi": iv.hi - 1.0, "change_n": iv.n})
    return pd.DataFrame(rows)


def best_table(runs: pd.DataFrame, col: str = "throughput_Mbps",
               tol: float = 0.01) -> pd.DataFrame:
    """Per (network, size, pattern): the variant with the highest ``col`` (``tie`` when
    the two best are within ``tol`` of each other)."""
    rows = []
    for (net, size, pat), g in runs.groupby(["network", "size_B", "pattern"], sort=False):
        s = g.set_index("variant")[col].astype(float).sort_values(ascending=False)
        best = str(s.index[0])
        if len(s) > 1 and s.iloc[0] <= s.iloc[1] * (1 + tol):
            best = "tie"
        rows.append({"network": net, "size_B": int(float(str(size))), "pattern": pat, "best": best,
                     **{f"{v}_{col}": float(s.get(v, math.nan)) for v in VARIANTS}})
    return pd.DataFrame(rows)


def binned_throughput(times_s: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Throughput (Mb/s) per :data:`BIN_S` bin from the arrival times of data segments
    at the receiver; returns (bin centres in s, Mb/s)."""
    edges = np.arange(0.0, DURATION_S + BIN_S / 2, BIN_S)
    counts, _ = np.histogram(times_s, bins=edges)
    return (edges[:-1] + BIN_S / 2, counts * size * 8.0 / BIN_S / 1e6)


def time_series(ctx: Context) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Throughput vs time (burstlab, and ns-2 for the packet network) and cwnd vs time
    (burstlab) of the reference pattern."""
    tr = ctx.results["traces"]
    rows, cw = [], []
    for i, (params, _) in enumerate(trace_points(ctx.mode)):
        res = tr.result(i)
        net, size = params["network"], int(params["size_B"])
        pk = res.packets
        for fi, v in enumerate(VARIANTS):
            t = pk[(pk["flow"] == fi) & (pk["event"] == "received")]["time_s"].to_numpy(float)
            x, y = binned_throughput(t, size)
            rows += [{"network": net, "simulator": "burstlab", "size_B": size, "variant": v,
                      "time_s": a, "throughput_Mbps": b} for a, b in zip(x, y, strict=True)]
            c = res.cwnd[res.cwnd["flow"] == fi]
            cw += [{"network": net, "size_B": size, "variant": v, "time_s": a,
                    "cwnd_segments": b}
                   for a, b in zip(c["time_s"], c["cwnd_segments"], strict=True)]
    ns = ctx.values.get("ns2_times", {})
    for (size, v), t in ns.items():
        x, y = binned_throughput(np.asarray(t, float), size)
        rows += [{"network": "packet", "simulator": "ns-2", "size_B": size, "variant": v,
                  "time_s": a, "throughput_Mbps": b} for a, b in zip(x, y, strict=True)]
    return pd.DataFrame(rows), pd.DataFrame(cw)


#: Two cwnd values closer than this (segments) are equal (the trace prints doubles).
CWND_EPS = 1e-6


def cwnd_dynamics(cwnd: pd.DataFrame, flows: pd.DataFrame) -> dict[str, Any]:
    """What one flow's cwnd trace does (sodhatar §IV's statements, figs 5–11): every
    reduction classified as a drop to 1 segment or a halving of the window in use
    (``min(cwnd, wm) / 2``: ns-2's ``slowdown(CLOSE_CWND_HALF)`` halves ``windowd()``;
    RFC 5681 §3.2 halves the flight size), whether a halving is followed by a drop to
    1, and every increase checked against slow start (+1 segment per ACK while
    cwnd < ssthresh: doubling per round trip) and congestion avoidance (+1/cwnd per
    ACK: +1 segment per round trip), RFC 5681 §3.1, both capped at the maximum window
    ``wm`` (:data:`WM`; burstlab's ``ns2`` profile stops cwnd there). ``flows`` is the run's one-row
    flow table (its TD and TO loss events)."""
    c = cwnd.sort_values("time_s", kind="stable")
    w = c["cwnd_segments"].to_numpy(float)
    ss = c["ssthresh_segments"].to_numpy(float)
    out = {"reductions": 0, "to_one": 0, "halvings": 0, "other_reductions": 0,
           "halving_then_one": 0, "ss_increments": 0, "ss_increments_plus_one": 0,
           "ca_increments": 0, "ca_increments_one_over_cwnd": 0,
           "td_events": int(flows["td_events"].sum()),
           "to_events": int(flows["to_events"].sum())}
    last = ""
    for i in range(1, len(w)):
        a, b = w[i - 1], w[i]
        if b < a - CWND_EPS:
            out["reductions"] += 1
            half = min(a, WM) / 2.0
            if abs(b - 1.0) <= CWND_EPS and abs(half - 1.0) > CWND_EPS:
                out["to_one"] += 1
                out["halving_then_one"] += last == "half"
                last = "one"
            elif abs(b - half) <= CWND_EPS:
                out["halvings"] += 1
                last = "half"
            else:
                out["other_reductions"] += 1
                last = "other"
        elif b > a + CWND_EPS:
            if a < ss[i - 1] - CWND_EPS:
                out["ss_increments"] += 1
                out["ss_increments_plus_one"] += abs(b - min(a + 1.0, WM)) <= CWND_EPS
            else:
                out["ca_increments"] += 1
                out["ca_increments_one_over_cwnd"] += abs(b - min(a + 1.0 / a, WM)) <= CWND_EPS
    return out


def cwnd_table(ctx: Context) -> pd.DataFrame:
    """:func:`cwnd_dynamics` per (network, size, variant) of the trace runs."""
    tr = ctx.results["traces"]
    rows = []
    for i, (params, _) in enumerate(trace_points(ctx.mode)):
        res = tr.result(i)
        for fi, v in enumerate(VARIANTS):
            rows.append({"network": params["network"], "size_B": int(params["size_B"]),
                         "pattern": REFERENCE_PATTERN, "variant": v,
                         **cwnd_dynamics(res.cwnd[res.cwnd["flow"] == fi],
                                         res.flows.iloc[[fi]])})
    return pd.DataFrame(rows)


PAPER = Paper(
    name="sodhatar",
    title="sodhatar: Tahoe, Reno, NewReno on a dumbbell (and with an OBS core) reproduced",
    data_file=Path(__file__).with_name("paper.toml"),
    modes=MODES,
    stamp=lambda ctx: standard_stamp(ctx, SEED, replications=1,
                                     random_start_draws=ctx.mode.random_draws),
)
PAPER.experiments += [
    Experiment("dumbbell", lambda ctx: dumbbell_points(ctx.mode)),
    Experiment("traces", lambda ctx: trace_points(ctx.mode), keep_traces=True),
]
