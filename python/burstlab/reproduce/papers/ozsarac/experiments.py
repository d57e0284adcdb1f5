"""ozsarac §3: the experiments and the analysis of their results.

Read first: :data:`PAPER`, :class:`Mode` (what ``--quick`` changes), the point lists
(:func:`linear_points`, :func:`trace_points`, :func:`mesh_points`,
:func:`dynamic_points`), then
:func:`analyse`. The scenarios are in :mod:`.topology`; figures in :mod:`.figures`,
claims in :mod:`.claims`, the report body in :mod:`.report`.

Every run is seeded (``SEED`` plus the replication index). Timer assembly in the mesh
carries ozsarac §3.3's N(0, 10 %) jitter; the linear topology's timers do not (§3.3
introduces the jitter for the mesh). Durations: the paper does not give them for §3.1–3.5
(§3.6 runs 10 000 s); ``full`` runs 600 s (linear) and 300 s (mesh) per replication,
``quick`` 60 s and 20 s — long enough to see several contention losses and the climb
back, too short for the congestion-avoidance climb to 10 000 segments to repeat many
times, which is why ``quick``'s numbers move between seeds (the report gives the CIs).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from burstlab.reproduce.framework import Context, Experiment, Paper, read_modes, standard_stamp
from burstlab.reproduce.papers.ozsarac.topology import (
    access_ceiling_bps,
    assembly,
    cwba_ceiling_bps,
    linear,
    mesh,
)

SEED = 1
VARIANTS = ("reno", "newreno", "sack")


@dataclass(frozen=True)
class Mode:
    """Sizes of one run of the reproduction.

    Attributes:
        name: ``full``, ``quick`` or ``smoke`` (tests only).
        reps: replications per linear point (the paper: 5 for MCWBA, §3.4).
        linear_s, linear_warmup_s: simulated seconds per linear run, and warm-up.
        timer_ms: timer periods of fig. 3 (ms).
        mcwba_ms: MCWBA timer caps of figs 9–11 (ms); values above ``T_max`` check that
            MCWBA becomes CWBA.
        trace_s: simulated seconds of the cwnd-trace runs of figs 4–5.
        mesh_reps, mesh_s, mesh_warmup_s: the mesh (the paper: 3 replications).
        mesh_timer_ms, mesh_mcwba_ms: periods of figs 6–8 and 12.
        dyn_reps, dyn_s, dyn_timer_ms: §3.6's dynamic flows (the paper: 3 replications
            of 10 000 s); each configuration runs three times: the whole run (table 4),
            its first half (table 5: the same run cut at the half, deterministic), and
            the whole run measured from the half (table 6: statistics reset there).
        est_windows_s: edges of the time windows over which ECWBA's estimation error is
            measured (:func:`ecwba_window_points`); the last edge is ``linear_s``.
        linear_cap_s: run-length control of the linear runs (:func:`refine_linear`):
            each starts at ``linear_s`` and doubles until its goodput is settled, at most
            to this many simulated seconds.
        sample_s: interval of the goodput series (``sim.trace.goodput``).
        rel_precision: the settled runs' target 95 % half-width over the mean.
        udp_on_ms, sens_timer_ms, sens_reps: the sensitivity to the UDP source's mean
            on period (:mod:`.sensitivity`): its values, the timer periods run at each
            (with CWBA; Reno), and replications.
        timer_variants: the TCP variants whose timer grid (``timer_ms``) is run; CWBA
            runs for every variant. A variant without timer points has no Table 1
            value in this mode.
        mesh_readings: the readings of fig. 2 (:data:`.topology.MESH_READINGS`) other
            than the default that run CWBA and the paper's AP_opt timer (26 ms) for the
            mesh-reading sensitivity (:func:`mesh_reading_points`).
        capture_s: simulated seconds of the two-flow capture case (:mod:`.regimes`;
            nOBS aborts past about 64 s).
        meet_flows, meet_access_Mbps, meet_timer_ms, meet_sets, meet_s, meet_warmup_s:
            the sweep of flows meeting on one fibre (:func:`.regimes.meeting_points`):
            numbers of flows, access rates, the jittered timer periods run beside CWBA,
            start sets, run length and warm-up (s).
    """

    name: str
    reps: int
    linear_s: float
    linear_warmup_s: float
    timer_ms: tuple[float, ...]
    mcwba_ms: tuple[float, ...]
    trace_s: float
    mesh_reps: int
    mesh_s: float
    mesh_warmup_s: float
    mesh_timer_ms: tuple[float, ...]
    mesh_mcwba_ms: tuple[float, ...]
    dyn_reps: int
    dyn_s: float
    dyn_timer_ms: tuple[float, ...]
    est_windows_s: tuple[float, ...] = ()
    linear_cap_s: float = 0.0
    sample_s: float = 1.0
    rel_precision: float = 0.10
    udp_on_ms: tuple[float, ...] = (1.0, 10.0, 100.0)
    sens_timer_ms: tuple[float, ...] = (1, 2, 4, 8, 16, 64, 100)
    sens_reps: int = 1
    timer_variants: tuple[str, ...] = VARIANTS
    mesh_readings: tuple[str, ...] = ("ring-chords",)
    capture_s: float = 60.0
    meet_flows: tuple[int, ...] = (2, 4)
    meet_access_Mbps: tuple[float, ...] = (50.0, 100.0, 250.0, 500.0)
    meet_timer_ms: tuple[float, ...] = (2.0, 10.0, 26.0)
    meet_sets: int = 2
    meet_s: float = 40.0
    meet_warmup_s: float = 8.0


#: The modes, from ``paper.toml`` (``[mode.full]``, ``[mode.quick]``, ``[mode.smoke]``).
MODES = read_modes(Path(__file__).with_name("paper.toml"), Mode)

Point = tuple[dict[str, Any], dict[str, Any]]


def _params(topology: str, kind: str, variant: str, tb_ms: float,
            duration: float) -> dict[str, Any]:
    # Not `kind`/`variant`: those are columns of the flows table.
    return {"topology": topology, "assembler": kind, "tcp_variant": variant,
            "tb_ms": float(tb_ms), "duration_s": float(duration)}


#: A linear point's identity across run-length rounds: (assembler, variant, period ms).
LinearKey = tuple[str, str, float]


def linear_keys(m: Mode) -> list[LinearKey]:
    """Fig. 3 (timer × variant, CWBA × variant), ECWBA (Reno) and MCWBA (Reno) × cap."""
    keys: list[LinearKey] = []
    for v in VARIANTS:
        if v in m.timer_variants:
            keys += [("timer", v, float(tb)) for tb in m.timer_ms]
        keys.append(("cwba", v, 0.0))
    keys.append(("ecwba", "reno", 0.0))
    keys += [("mcwba", "reno", float(tb)) for tb in m.mcwba_ms]
    return keys


def linear_points(m: Mode, durations: dict[LinearKey, float] | None = None,
                  udp_mean_on: str | None = None) -> list[Point]:
    """The linear runs of :func:`linear_keys`, each ``durations[key]`` simulated seconds
    long (default ``linear_s``, the first round of :func:`refine_linear`), with the
    goodput series of :mod:`burstlab.reproduce.settle` (``sim.trace.goodput``)."""
    pts: list[Point] = []
    for kind, v, tb in linear_keys(m):
        d = float((durations or {}).get((kind, v, tb), m.linear_s))
        kw: dict[str, Any] = {"duration": d, "warmup": min(m.linear_warmup_s, d / 2),
                              "seed": SEED, "goodput_every": m.sample_s}
        params = _params("linear", kind, v, tb, d)
        if udp_mean_on is not None:
            kw["udp_mean_on"] = udp_mean_on
            params["udp_mean_on"] = udp_mean_on
        asm = assembly(kind, tb / 1e3) if kind in ("timer", "mcwba") else assembly(kind)
        pts.append((params, linear(asm, v, **kw)))
    return pts


def linear_settled(sw: Any, m: Mode) -> pd.DataFrame:
    """One row per linear run (point, replication): its goodput series (Mb/s of payload
    per ``sample_s``) measured after the MSER-5 warm-up (:func:`.settle.settle`):
    ``settled``, ``warmup_mser_s``, the batch-means mean and 95 % interval, and the
    reason when it did not settle."""
    from burstlab.reproduce.papers.ozsarac.topology import PAYLOAD_BYTES
    from burstlab.reproduce.settle import goodput_series, settle

    rows = []
    for _, r in sw.runs.drop_duplicates(["point", "replication"]).iterrows():
        p, rep = int(r["point"]), int(r["replication"])
        g = sw.result(p, rep).table("goodput_trace")
        g = g[g["flow"] == 0]
        t, bps = goodput_series(g["time_s"].to_numpy(float),
                                g["delivered_segments"].to_numpy(float), 8.0 * PAYLOAD_BYTES)
        st = settle(t, bps / 1e6, rel_precision=m.rel_precision)
        rows.append({"point": p, "replication": rep, "duration_s": float(r["duration_s"]),
                     "settled": st.settled, "stationary": st.stationary,
                     "warmup_mser_s": st.warmup_s,
                     "goodput_settled_Mbps": st.mean, "goodput_bm_ci_lo": st.lo,
                     "goodput_bm_ci_hi": st.hi, "rel_half_width": st.rel_half_width,
                     "settle_reason": st.reason})
    return pd.DataFrame(rows)


def next_durations(m: Mode, sw: Any, key_of: Callable[[pd.Series], Any]
                   ) -> dict[Any, float] | None:
    """Run-length control (:mod:`burstlab.reproduce.settle`): every point's next
    duration, a point any of whose replications has not settled twice as long as now (at
    most ``linear_cap_s``); None once every point has settled or reached the cap."""
    st = linear_settled(sw, m)
    params = point_params(sw)
    durations: dict[Any, float] = {}
    more = False
    for p, g in st.groupby("point"):
        row = pd.Series(params.loc[int(str(p))])
        d = float(str(row["duration_s"]))
        if not bool(g["settled"].all()) and d < m.linear_cap_s:
            d = min(2 * d, m.linear_cap_s)
            more = True
        durations[key_of(row)] = d
    return durations if more else None


def linear_key(row: pd.Series) -> LinearKey:
    return (str(row["kind"]), str(row["variant"]), float(row["tb_ms"]))


def refine_linear(ctx: Context, sw: Any) -> list[Point] | None:
    """The next round of the linear runs (:func:`next_durations`), or None."""
    d = next_durations(ctx.mode, sw, linear_key)
    return None if d is None else linear_points(ctx.mode, d)


def trace_points(m: Mode) -> list[Point]:
    """Figs 4–5: cwnd from the start with CWBA and with the 8 ms timer (Reno)."""
    kw: dict[str, Any] = {"duration": m.trace_s, "seed": SEED, "cwnd_trace": True}
    return [(_params("linear", "cwba", "reno", 0.0, m.trace_s),
             linear(assembly("cwba"), "reno", **kw)),
            (_params("linear", "timer", "reno", 8.0, m.trace_s),
             linear(assembly("timer", 8e-3), "reno", **kw))]


def ecwba_window_points(m: Mode) -> list[Point]:
    """ECWBA's estimation error over time (issue 12): the linear ECWBA run (Reno,
    replication 0) cut at each edge of ``est_windows_s`` with its statistics reset at
    the previous edge (``sim.warmup``). A run is deterministic and its warm-up only
    resets statistics, so window ``[t0, t1)`` of these runs is that window of one
    ``t1``-second run: the rows of its ``cwnd_estimates`` table are the estimator's mean
    absolute and relative error over the samples of that window."""
    edges = m.est_windows_s
    pts: list[Point] = []
    for t0, t1 in zip(edges[:-1], edges[1:], strict=True):
        p = {**_params("linear", "ecwba", "reno", 0.0, float(t1)), "window_from_s": float(t0)}
        pts.append((p, linear(assembly("ecwba"), "reno", duration=float(t1),
                              warmup=float(t0), seed=SEED)))
    return pts


def mesh_starts(rep: int) -> dict[int, tuple[float, float | None]]:
    """Replication ``rep`` of the mesh: each flow starts at a time drawn uniformly in
    [0, 100 ms) (seeded). Without it CWBA and MCWBA in the mesh have no random input at
    all (no UDP source, no jitter) and the paper's three replications would be one run
    three times; the paper does not say where its runs differ."""
    rng = np.random.default_rng(1000 * SEED + rep)
    return {i: (round(float(rng.uniform(0.0, 0.1)), 6), None) for i in range(1, 10)}


def mesh_points(m: Mode) -> list[Point]:
    """Figs 6–8 (timer with 10 % jitter, CWBA) and fig. 12 (MCWBA), static flows; one
    point per replication (``start_set``, :func:`mesh_starts`), each run once."""
    kw: dict[str, Any] = {"duration": m.mesh_s, "warmup": m.mesh_warmup_s, "seed": SEED}
    pts: list[Point] = []
    for r in range(m.mesh_reps):
        kw["active"] = mesh_starts(r)
        for kind, tbs in (("timer", m.mesh_timer_ms), ("cwba", (0.0,)),
                          ("mcwba", m.mesh_mcwba_ms)):
            for tb in tbs:
                # Only the timer carries §3.3's jitter.
                asm = assembly(kind, tb / 1e3 if tb else None,
                               jitter=0.1 if kind == "timer" else 0.0)
                pts.append(({**_params("mesh", kind, "reno", tb, m.mesh_s), "start_set": r},
                            mesh(asm, "reno", **kw)))
    return pts


#: The timer period of the mesh-reading sensitivity: the paper's AP_opt (Table 2).
MESH_READING_TIMER_MS = 26.0


def mesh_reading_points(m: Mode) -> list[Point]:
    """The mesh-reading sensitivity: for each reading of ``mesh_readings`` (not the
    default), CWBA and the jittered timer at the paper's AP_opt (26 ms), static flows,
    the same start sets and run lengths as :func:`mesh_points`."""
    kw: dict[str, Any] = {"duration": m.mesh_s, "warmup": m.mesh_warmup_s, "seed": SEED}
    pts: list[Point] = []
    for reading in m.mesh_readings:
        for r in range(m.mesh_reps):
            kw["active"] = mesh_starts(r)
            for kind, tb in (("timer", MESH_READING_TIMER_MS), ("cwba", 0.0)):
                asm = assembly(kind, tb / 1e3 if tb else None,
                               jitter=0.1 if kind == "timer" else 0.0)
                pts.append(({**_params("mesh", kind, "reno", tb, m.mesh_s), "start_set": r,
                             "mesh_reading": reading},
                            mesh(asm, "reno", reading=reading, **kw)))
    return pts


#: ozsarac §3.6: flows 1, 5, 8 in the first half, 2, 4, 9 in the second, 3, 6, 7 always.
FIRST_HALF = (1, 5, 8)
SECOND_HALF = (2, 4, 9)


def dynamic_points(m: Mode) -> list[Point]:
    """§3.6 (tables 4–6): timer (10 % jitter) and CWBA with dynamic flows; one run per
    configuration and replication, over ``dyn_s``, whose goodput samples at the half
    (``sim.trace.goodput``) split it into the three measurement windows
    (:func:`dynamic_flow_windows`)."""
    half = m.dyn_s / 2
    pts: list[Point] = []
    for r in range(m.dyn_reps):
        base = mesh_starts(r)
        active: dict[int, tuple[float, float | None]] = {}
        for i, (t0, _) in base.items():
            if i in FIRST_HALF:
                active[i] = (t0, half)
            elif i in SECOND_HALF:
                active[i] = (half + t0, None)
            else:
                active[i] = (t0, None)
        for kind, tbs in (("timer", m.dyn_timer_ms), ("cwba", (0.0,))):
            for tb in tbs:
                asm = assembly(kind, tb / 1e3 if tb else None,
                               jitter=0.1 if kind == "timer" else 0.0)
                p = {**_params("dynamic", kind, "reno", tb, m.dyn_s), "start_set": r}
                pts.append((p, mesh(asm, "reno", duration=m.dyn_s, seed=SEED,
                                    active=active, goodput_every=half)))
    return pts


def dynamic_flow_windows(sw: Any) -> pd.DataFrame:
    """Per dynamic run and TCP flow, its goodput (payload b/s over its active time) in
    each window of tables 4–6: ``all`` [0, dyn_s), ``first`` [0, half), ``second``
    [half, dyn_s). ``all`` is the run's flows table; the halves split the flow's
    delivered segments at the goodput sample taken at the half (the counter the flows
    table reads, so the windows add up), over the flow's active time in each half, as a
    run cut at the half, or measured from it, would count them (``basis`` "active"),
    and over the whole window, idle time included (``basis`` "window": a flow active in
    one half counts half its rate in table 4). Each row carries the flow's two ceilings
    (:func:`.topology.cwba_ceiling_bps`, :func:`.topology.access_ceiling_bps`)."""
    params = sw.runs.drop_duplicates("point").set_index("point").rename(
        columns={"assembler": "akind"})
    rows = []
    for _, r in sw.runs.drop_duplicates(["point", "replication"]).iterrows():
        p, rep = int(r["point"]), int(r["replication"])
        res = sw.result(p, rep)
        dur = float(res.scenario["sim"]["duration"])
        half = float(res.scenario["sim"]["trace"]["goodput"])
        spans = {}
        for i, f in enumerate(res.scenario["flow"]):
            stop = f.get("stop")
            spans[i] = (float(f.get("start", 0.0)), dur if stop is None else float(stop))
        g = res.goodput_trace
        at_half = dict(zip(g["flow"].astype(int), g["delivered_segments"].astype(int),
                           strict=True))
        fl = res.flows
        for _, f in fl[fl["kind"] == "tcp"].iterrows():
            i = int(f["flow"])
            t0, t1 = spans[i]
            bits = 8.0 * float(f["mss_bytes"])
            d_half = at_half.get(i, 0)
            d_all = int(f["segments_delivered"])
            e1 = max(0.0, min(t1, half) - t0)
            e2 = max(0.0, t1 - max(t0, half))
            base = {"point": p, "replication": rep, "akind": params.loc[p, "akind"],
                    "tb": float(params.loc[p, "tb_ms"]), "name": f["name"],
                    "start_set": int(params.loc[p, "start_set"])
                    if "start_set" in params.columns else 0}
            base["cwba_ceiling_bps"] = cwba_ceiling_bps(res.scenario, i)
            base["access_ceiling_bps"] = access_ceiling_bps(res.scenario, i)
            e0 = e1 + e2
            rows += [{**base, "window": "all", "basis": "active", "active_s": e0,
                      "goodput_bps": float(f["goodput_bps"])},
                     {**base, "window": "first", "basis": "active", "active_s": e1,
                      "goodput_bps": d_half * bits / e1 if e1 > 0 else 0.0},
                     {**base, "window": "second", "basis": "active", "active_s": e2,
                      "goodput_bps": (d_all - d_half) * bits / e2 if e2 > 0 else 0.0},
                     # the same segments over the whole window (active time and idle)
                     {**base, "window": "all", "basis": "window", "active_s": e0,
                      "goodput_bps": d_all * bits / dur},
                     {**base, "window": "first", "basis": "window", "active_s": e1,
                      "goodput_bps": d_half * bits / half},
                     {**base, "window": "second", "basis": "window", "active_s": e2,
                      "goodput_bps": (d_all - d_half) * bits / (dur - half)}]
    return pd.DataFrame(rows)


PAPER = Paper(
    name="ozsarac",
    title="ozsarac: CWBA, MCWBA and ECWBA — linear topology, mesh with static and "
          "dynamic flows",
    data_file=Path(__file__).with_name("paper.toml"),
    modes=MODES,
    stamp=lambda ctx: standard_stamp(ctx, SEED, replications=ctx.mode.reps,
                                     mesh_replications=ctx.mode.mesh_reps),
)
PAPER.experiments += [
    Experiment("linear", lambda ctx: linear_points(ctx.mode),
               replications=lambda ctx: int(ctx.mode.reps), keep_traces=True,
               refine=refine_linear),
    Experiment("trace", lambda ctx: trace_points(ctx.mode), keep_traces=True),
    Experiment("mesh", lambda ctx: mesh_points(ctx.mode)),
    Experiment("dynamic", lambda ctx: dynamic_points(ctx.mode), keep_traces=True),
    Experiment("ecwba_windows", lambda ctx: ecwba_window_points(ctx.mode)),
    Experiment("mesh_reading", lambda ctx: mesh_reading_points(ctx.mode)),
]


# ---------------------------------------------------------------------------------------
# Analysis.


def ci95(x: np.ndarray) -> tuple[float, float, float]:
    """Mean and 95 % Student-t interval of a goodput over runs, cut to the goodput's
    range (``lower=0``: :func:`burstlab.reproduce.verdict.mean_interval`); NaN bounds
    with fewer than 2 values."""
    from burstlab.reproduce import verdict as V

    x = np.asarray(x, float)
    iv = V.mean_interval(x, lower=0.0)
    m = float(np.mean(x)) if len(x) else math.nan
    return (m, iv.lo, iv.hi) if iv.defined else (m, math.nan, math.nan)


def per_run(table: pd.DataFrame) -> pd.DataFrame:
    """One row per (point, replication): the TCP flows' total goodput (Mb/s of payload),
    data bursts, lost bursts, segments in bursts, timeouts and fast recoveries."""
    t = table[table["kind"] == "tcp"].copy()
    t["segs"] = t["segments_per_burst"].fillna(0) * t["data_bursts"].fillna(0)
    g = t.groupby(["point", "replication"], as_index=False).agg(
        goodput_Mbps=("goodput_bps", lambda s: float(s.sum()) / 1e6),
        data_bursts=("data_bursts", "sum"), data_bursts_lost=("data_bursts_lost", "sum"),
        segs=("segs", "sum"), td_events=("td_events", "sum"),
        to_events=("to_events", "sum"), mean_cwnd=("mean_cwnd_segments", "mean"))
    return g


KEYS = ["topology", "kind", "variant", "tb_ms", "duration_s"]


def mesh_runs(sw: Any) -> pd.DataFrame:
    """:func:`per_run` of the mesh runs with ``kind``, ``tb_ms`` and ``start_set``, and
    per run its burst loss probability and mean burst length (segments): the pairs
    (start sets, each run by every configuration with the same flow starts and seed)
    behind the mesh's ordering claims."""
    params = point_params(sw)
    r = per_run(sw.table)
    for k in ("kind", "tb_ms", "start_set"):
        r[k] = [params.loc[p, k] if k in params.columns else 0 for p in r["point"]]
    r["tb_ms"] = r["tb_ms"].astype(float)
    b = r["data_bursts"].astype(float)
    r["burst_loss_prob"] = (r["data_bursts_lost"] / b).where(b > 0)
    r["mean_burst_segments"] = (r["segs"] / b).where(b > 0)
    return r


def point_params(sw: Any) -> pd.DataFrame:
    """The parameters of each point (``kind``, ``variant`` for the assembler and TCP)."""
    return sw.runs.drop_duplicates("point").set_index("point").rename(
        columns={"assembler": "kind", "tcp_variant": "variant"})


def point_table(sw: Any, extra_keys: tuple[str, ...] = ()) -> pd.DataFrame:
    """One row per configuration (points that differ only in ``start_set`` and
    replications pooled): goodput mean and 95 % CI over runs, burst loss probability,
    mean burst length, timeouts and fast recoveries per run."""
    params = point_params(sw)
    runs = per_run(sw.table)
    keys = [*KEYS, *extra_keys]
    for k in keys:
        runs[k] = [params.loc[p, k] for p in runs["point"]]
    rows = []
    for key, g in runs.groupby(keys, sort=False):
        m, lo, hi = ci95(g["goodput_Mbps"].to_numpy())
        rows.append({"point": int(g["point"].iloc[0]), **dict(zip(keys, key, strict=True)),
                     "replications_n": len(g),
                     "goodput_Mbps_mean": m, "goodput_Mbps_ci_lo": lo,
                     "goodput_Mbps_ci_hi": hi,
                     "burst_loss_prob": g["data_bursts_lost"].sum() / max(
                         1, g["data_bursts"].sum()),
                     "mean_burst_segments": g["segs"].sum() / max(1, g["data_bursts"].sum()),
                     "td_per_run": g["td_events"].mean(), "to_per_run": g["to_events"].mean(),
                     "mean_cwnd_segments": g["mean_cwnd"].mean()})
    return pd.DataFrame(rows)


def linear_table(sw: Any, m: Mode, extra_keys: tuple[str, ...] = ()) -> pd.DataFrame:
    """:func:`point_table` of the linear runs with the goodput measured after each run's
    own warm-up (:func:`linear_settled`): ``goodput_Mbps_mean`` is the mean of the
    replications' settled means, its interval Student-t over replications (with one
    replication: the run's batch-means interval). ``goodput_fixed_warmup_Mbps`` keeps the
    mean over ``[linear_warmup_s, end)``, transient included, for comparison.

    A point with a replication that did not settle within ``linear_cap_s`` has
    ``settled`` False and says why (``settle_reason``). If a replication is still
    drifting (``stationary`` False: no warm-up found) the point has no steady-state
    mean: its goodput is NaN (its claims cannot be decided) and
    ``goodput_unsettled_Mbps`` keeps the number. A stationary point that missed the
    precision keeps its mean with its (wide) interval."""
    df = point_table(sw, extra_keys)
    st = linear_settled(sw, m)
    df["goodput_fixed_warmup_Mbps"] = df["goodput_Mbps_mean"]
    extra: dict[str, list[Any]] = {k: [] for k in (
        "settled", "stationary", "warmup_mser_s_max", "rel_half_width_max",
        "goodput_unsettled_Mbps", "settle_reason")}
    means, los, his = [], [], []
    for p in df["point"]:
        g = st[st["point"] == p]
        ok = bool(g["stationary"].all())
        x = g["goodput_settled_Mbps"].to_numpy(float)
        if len(x) >= 2:
            mu, lo, hi = ci95(x)
        else:
            mu, lo, hi = (float(x[0]), float(g["goodput_bm_ci_lo"].iloc[0]),
                          float(g["goodput_bm_ci_hi"].iloc[0]))
        means.append(mu if ok else math.nan)
        los.append(lo if ok else math.nan)
        his.append(hi if ok else math.nan)
        extra["settled"].append(bool(g["settled"].all()))
        extra["stationary"].append(ok)
        extra["warmup_mser_s_max"].append(float(g["warmup_mser_s"].max()))
        extra["rel_half_width_max"].append(float(g["rel_half_width"].max()))
        extra["goodput_unsettled_Mbps"].append(math.nan if ok else mu)
        extra["settle_reason"].append("; ".join(sorted(set(r for r in g["settle_reason"]
                                                           if r))))
    df["goodput_Mbps_mean"], df["goodput_Mbps_ci_lo"], df["goodput_Mbps_ci_hi"] = (
        means, los, his)
    for k, v in extra.items():
        df[k] = v
    return df


def best_timer(df: pd.DataFrame) -> pd.Series:
    """The timer point of highest goodput; if any timer point is NaN (not settled) the
    best is unknown: the row returned has a NaN goodput."""
    t = df[df["kind"] == "timer"]
    y = t["goodput_Mbps_mean"].to_numpy(float)
    if np.isnan(y).any():
        row = t.iloc[int(np.nanargmax(y))].copy() if np.isfinite(y).any() else t.iloc[0].copy()
        row["goodput_Mbps_mean"] = math.nan
        return row
    return t.iloc[int(np.argmax(y))]


def settled_runs(sw: Any, m: Mode) -> pd.DataFrame:
    """One row per linear run: ``kind``, ``variant``, ``tb_ms``, ``replication`` and its
    settled goodput (:func:`linear_settled`; NaN when the run is still drifting)."""
    st = linear_settled(sw, m)
    params = point_params(sw)
    st["kind"] = [str(params.loc[p, "kind"]) for p in st["point"]]
    st["variant"] = [str(params.loc[p, "variant"]) for p in st["point"]]
    st["tb_ms"] = [float(params.loc[p, "tb_ms"]) for p in st["point"]]
    st["goodput_Mbps"] = st["goodput_settled_Mbps"].where(st["stationary"])
    return st


def paired_best_timer(runs: pd.DataFrame, variant: str) -> dict[str, Any] | None:
    """The best timer period for ``variant`` and CWBA against it, by paired comparisons
    under common random numbers: replication r of every period and of CWBA runs with
    the same seed (the same UDP on/off arrivals), so differences are taken within a
    replication (:func:`burstlab.reproduce.verdict.paired_difference`).

    ``ap_opt_ms`` is the period of the highest mean settled goodput; ``tied_ms`` the
    periods whose paired difference to it is not significantly positive (95 % interval
    reaching 0 or no interval), i.e. the periods the runs cannot rank below the best;
    ``gain`` CWBA over the best timer as a fraction (paired log-ratio interval,
    :func:`burstlab.reproduce.verdict.paired_ratio`). None when the variant has no
    timer points."""
    from burstlab.reproduce import verdict as V

    t = runs[(runs["kind"] == "timer") & (runs["variant"] == variant)]
    c = runs[(runs["kind"] == "cwba") & (runs["variant"] == variant)]
    if not len(t) or not len(c):
        return None
    piv = t.pivot_table(index="replication", columns="tb_ms", values="goodput_Mbps",
                        aggfunc="first", dropna=False)
    cw = c.set_index("replication")["goodput_Mbps"].reindex(piv.index)
    means = piv.mean(skipna=False)
    if means.isna().all():
        return None
    best = float(str(means.idxmax())) if not means.isna().any() else math.nan
    if math.isnan(best):
        return {"ap_opt_ms": math.nan, "tied_ms": [], "best": piv.iloc[:, 0] * math.nan,
                "cwba": cw, "gain": V.none(), "diffs": {}, "pairs_n": len(piv)}
    diffs = {float(tb): V.paired_difference(piv[best], piv[tb]) for tb in piv.columns
             if float(tb) != best}
    tied = sorted([best] + [tb for tb, d in diffs.items() if not (d.defined and d.lo > 0)])
    r = V.paired_ratio(cw, piv[best])
    g = r.scaled(1.0, -1.0) if r.defined else V.none(r.estimate - 1.0, r.n)
    return {"ap_opt_ms": best, "tied_ms": tied, "best": piv[best], "cwba": cw, "gain": g,
            "diffs": diffs, "pairs_n": int((np.isfinite(cw.to_numpy(float))
                                            & np.isfinite(piv[best].to_numpy(float))).sum())}


def mesh_shares(sw: Any, reading: str | None = None) -> pd.DataFrame:
    """Per mesh run (start set) and flow, its goodput (Mb/s) and its share of the run's
    total goodput (%), for every configuration of ``sw`` (``mesh_reading`` is the
    point's reading, or ``reading`` when the points do not carry one)."""
    params = point_params(sw)
    t = sw.table[sw.table["kind"] == "tcp"]
    rows = []
    for (p, rep), g in t.groupby(["point", "replication"]):
        prm = params.loc[int(str(p))]
        tot = float(g["goodput_bps"].sum())
        rd = str(prm["mesh_reading"]) if "mesh_reading" in prm.index and isinstance(
            prm["mesh_reading"], str) else str(reading)
        for _, f in g.iterrows():
            rows.append({"mesh_reading": rd, "kind": str(prm["kind"]),
                         "tb_ms": float(str(prm["tb_ms"])),
                         "start_set": int(str(prm.get("start_set", 0))),
                         "replication": int(str(rep)),
                         "flow": int(str(f["name"]).removeprefix("flow")),
                         "goodput_Mbps": float(f["goodput_bps"]) / 1e6,
                         "share_pct": 100.0 * float(f["goodput_bps"]) / tot if tot > 0
                         else math.nan})
    return pd.DataFrame(rows)


def share_summary(shares: pd.DataFrame, paper: list[float] | None = None) -> pd.DataFrame:
    """Per reading, assembler, period and flow: the mean share over start sets with its
    95 % interval cut to [0, 100] %, the mean goodput, and the paper's Table 2 share."""
    from burstlab.reproduce import verdict as V

    rows = []
    for (rd, kind, tb, flow), g in shares.groupby(["mesh_reading", "kind", "tb_ms", "flow"]):
        iv = V.mean_interval(g["share_pct"].to_numpy(float) / 100.0, lower=0.0, upper=1.0)
        rows.append({"mesh_reading": rd, "kind": kind, "tb_ms": tb, "flow": flow,
                     "share_pct": 100.0 * iv.estimate,
                     "share_ci_lo_pct": 100.0 * iv.lo, "share_ci_hi_pct": 100.0 * iv.hi,
                     "start_sets_n": len(g),
                     "goodput_Mbps": float(g["goodput_Mbps"].mean()),
                     "paper_share_pct": (float(paper[int(str(flow)) - 1])
                                         if paper is not None and kind == "cwba"
                                         else math.nan)})
    return pd.DataFrame(rows)


def gain_pct(a: float, b: float) -> float:
    return 100.0 * (a / b - 1.0) if b > 0 else math.nan


def slow_start_times(cw: pd.DataFrame, levels: tuple[float, ...]) -> dict[float, float]:
    """Seconds from the start until cwnd first reaches each level (NaN if never)."""
    out = {}
    for w in levels:
        hit = cw[cw["cwnd_segments"] >= w]
        out[w] = float(hit["time_s"].iloc[0]) if len(hit) else math.nan
    return out


SS_LEVELS = (100.0, 1000.0, 5000.0)


def analyse(ctx: Context) -> None:
    stamp = ctx.stamp
    lin = linear_table(ctx.results["linear"], ctx.mode)
    mesh_pts = point_table(ctx.results["mesh"])
    mesh_run_t = mesh_runs(ctx.results["mesh"])
    # Table 1: CWBA against the best timer, per variant, paired within replications.
    runs = settled_runs(ctx.results["linear"], ctx.mode)
    t1 = []
    paired = {}
    for v in VARIANTS:
        d = lin[(lin["variant"] == v) & (lin["kind"].isin(["timer", "cwba"]))]
        cw = d[d["kind"] == "cwba"].iloc[0]
        pb = paired_best_timer(runs, v)
        paired[v] = pb
        g = pb["gain"] if pb is not None else None
        best = pb["best"] if pb is not None else None
        t1.append({"variant": v, "ap_opt_ms": pb["ap_opt_ms"] if pb else math.nan,
                   "tied_periods_ms": " ".join(f"{x:g}" for x in pb["tied_ms"]) if pb
                   else "",
                   "best_timer_goodput_Mbps": float(best.mean()) if best is not None
                   else math.nan,
                   "cwba_goodput_Mbps": cw["goodput_Mbps_mean"],
                   "cwba_ci_lo": cw["goodput_Mbps_ci_lo"], "cwba_ci_hi": cw["goodput_Mbps_ci_hi"],
                   "gain_pct": 100.0 * g.estimate if g is not None else math.nan,
                   "gain_ci_lo_pct": 100.0 * g.lo if g is not None else math.nan,
                   "gain_ci_hi_pct": 100.0 * g.hi if g is not None else math.nan,
                   "pairs_n": pb["pairs_n"] if pb else 0,
                   "cwba_td_per_run": cw["td_per_run"], "cwba_to_per_run": cw["to_per_run"]})
    table1 = pd.DataFrame(t1)
    ctx.values["table1_paired"] = paired
    # Table 2's shares: every flow's share of the total goodput, per start set.
    contrib = ctx.data["mesh.table2.contribution"].value
    from burstlab.reproduce.papers.ozsarac.topology import MESH_READING

    sh = mesh_shares(ctx.results["mesh"], MESH_READING)
    if "mesh_reading" in ctx.results:
        sh = pd.concat([sh, mesh_shares(ctx.results["mesh_reading"])], ignore_index=True)
    sh_sum = share_summary(sh, [float(x) for x in contrib])
    ctx.values.update(mesh_shares=sh, mesh_share_summary=sh_sum)
    ctx.tables["table2_shares"] = sh_sum.assign(**ctx.stamp)
    cw_reno = lin[(lin["kind"] == "cwba") & (lin["variant"] == "reno")].iloc[0]
    ec = lin[lin["kind"] == "ecwba"].iloc[0]
    est = ctx.results["linear"].table
    est = est[est["kind"] == "tcp"]
    if "cwnd_est_rel_err" in est.columns:
        est = est[est["cwnd_est_rel_err"].notna()]
    ecwba = pd.DataFrame([{
        "cwba_goodput_Mbps": cw_reno["goodput_Mbps_mean"],
        "ecwba_goodput_Mbps": ec["goodput_Mbps_mean"],
        "ecwba_ci_lo": ec["goodput_Mbps_ci_lo"], "ecwba_ci_hi": ec["goodput_Mbps_ci_hi"],
        "ecwba_vs_cwba_pct": gain_pct(ec["goodput_Mbps_mean"], cw_reno["goodput_Mbps_mean"]),
        "est_mean_abs_err_segments": float(est["cwnd_est_abs_err_segments"].mean())
        if "cwnd_est_abs_err_segments" in est.columns else math.nan,
        "est_mean_rel_err": float(est["cwnd_est_rel_err"].mean())
        if "cwnd_est_rel_err" in est.columns else math.nan,
        "ecwba_td_per_run": ec["td_per_run"], "ecwba_to_per_run": ec["to_per_run"]}])
    mc = lin[lin["kind"] == "mcwba"].copy()
    mc["gain_vs_cwba_pct"] = [gain_pct(g, cw_reno["goodput_Mbps_mean"])
                              for g in mc["goodput_Mbps_mean"]]
    # Figs 4–5: slow start from the first segment.
    tr = ctx.results["trace"]
    ss = []
    traces: dict[str, pd.DataFrame] = {}
    for p, (kind, tb) in enumerate([("cwba", 0.0), ("timer", 8.0)]):
        res = tr.result(p, 0)
        tr_cw = pd.DataFrame(res.cwnd)
        if len(tr_cw):
            tr_cw = pd.DataFrame(tr_cw[tr_cw["flow"] == 0])
        traces[kind] = tr_cw
        times = slow_start_times(tr_cw, SS_LEVELS) if len(tr_cw) else dict.fromkeys(
            SS_LEVELS, math.nan)
        for w, t in times.items():
            ss.append({"kind": kind, "tb_ms": tb, "cwnd_level_segments": w, "time_s": t})
    ss_df = pd.DataFrame(ss)
    # Mesh: per-flow goodput for Table 2 / Table 3.
    mt = ctx.results["mesh"].table
    mt = mt[mt["kind"] == "tcp"]
    mparams = point_params(ctx.results["mesh"])
    mt = mt.assign(akind=[mparams.loc[p, "kind"] for p in mt["point"]],
                   tb=[mparams.loc[p, "tb_ms"] for p in mt["point"]])
    mt = mt.assign(segs=mt["segments_per_burst"].fillna(0) * mt["data_bursts"].fillna(0))
    per_flow = pd.DataFrame(mt.groupby(["akind", "tb", "name"], as_index=False).agg(
        goodput_bps=("goodput_bps", "mean"), data_bursts=("data_bursts", "sum"),
        data_bursts_lost=("data_bursts_lost", "sum"), segs=("segs", "sum")))
    per_flow.columns = ["kind", "tb_ms", "name", "goodput_bps", "data_bursts",
                        "data_bursts_lost", "segs"]
    per_flow["goodput_Mbps"] = per_flow["goodput_bps"] / 1e6
    per_flow["burst_loss_prob"] = per_flow["data_bursts_lost"] / per_flow[
        "data_bursts"].where(per_flow["data_bursts"] > 0)
    per_flow["mean_burst_segments"] = per_flow["segs"] / per_flow["data_bursts"].where(
        per_flow["data_bursts"] > 0)
    t2 = []
    cw_m = per_flow[per_flow["kind"] == "cwba"].set_index("name")["goodput_Mbps"]
    tot_cw = float(cw_m.sum())
    timers = per_flow[per_flow["kind"] == "timer"]
    for name, g in timers.groupby("name"):
        b = g.iloc[int(np.argmax(g["goodput_Mbps"].to_numpy(float)))]
        t2.append({"flow": name, "ap_opt_ms": b["tb_ms"], "best_timer_Mbps": b["goodput_Mbps"],
                   "cwba_Mbps": float(cw_m.get(name, math.nan)),
                   "gain_pct": gain_pct(float(cw_m.get(name, math.nan)), b["goodput_Mbps"]),
                   "contribution_pct": 100 * float(cw_m.get(name, math.nan)) / tot_cw
                   if tot_cw > 0 else math.nan})
    table2 = pd.DataFrame(t2)
    mm = per_flow[per_flow["kind"] == "mcwba"]
    t3 = []
    for name, g in mm.groupby("name"):
        b = g.iloc[int(np.argmax(g["goodput_Mbps"].to_numpy(float)))]
        t3.append({"flow": name, "ap_opt_ms": b["tb_ms"], "mcwba_Mbps": b["goodput_Mbps"],
                   "cwba_Mbps": float(cw_m.get(name, math.nan)),
                   "gain_pct": gain_pct(b["goodput_Mbps"], float(cw_m.get(name, math.nan)))})
    table3 = pd.DataFrame(t3)
    if "dynamic" in ctx.results:  # left out of a --stored-only run while not stored
        dyn = dynamic_tables(ctx.results["dynamic"], "window")
        dyn_act = dynamic_tables(ctx.results["dynamic"], "active")
        dyn_tot = dynamic_totals(ctx.results["dynamic"])
        ctx.values.update(dynamic=dyn, dynamic_active=dyn_act, dynamic_totals=dyn_tot)
        for win, number in (("all", 4), ("first", 5), ("second", 6)):
            if win in dyn_act:
                ctx.tables[f"table{number}_dynamic_{win}_active_time"] = \
                    dyn_act[win].assign(**stamp)
        ctx.tables["figs16_18_dynamic_totals"] = dyn_tot.assign(**stamp)
    else:
        dyn = {}
    mc_reps = mcwba_replications(runs)
    ctx.values.update(mcwba_reps=mc_reps)
    ctx.tables["figs10_11_mcwba_per_replication"] = mc_reps.assign(**stamp)
    if "ecwba_windows" in ctx.results:
        ew = ecwba_error_windows(ctx.results["ecwba_windows"])
        ctx.values.update(ecwba_windows=ew)
        ctx.tables["ecwba_error_over_time"] = ew.assign(**stamp)
    for win, number in (("all", 4), ("first", 5), ("second", 6)):
        if win in dyn:
            ctx.tables[f"table{number}_dynamic_{win}"] = dyn[win].assign(**stamp)
    ctx.values.update(linear=lin, table1=table1, ecwba=ecwba, mcwba=mc, ss=ss_df,
                      traces=traces, mesh=mesh_pts, mesh_runs=mesh_run_t, table2=table2,
                      table3=table3,
                      mesh_per_flow=per_flow)
    for name, df in [("fig3_linear_points", lin), ("table1", table1), ("ecwba", ecwba),
                     ("mcwba_linear", mc), ("figs4_5_slow_start", ss_df),
                     ("mesh_points", mesh_pts), ("table2", table2), ("table3", table3),
                     ("mesh_per_flow", per_flow.drop(columns=["goodput_bps", "segs"]))]:
        ctx.tables[name] = df.assign(**stamp)


def mcwba_replications(runs: pd.DataFrame) -> pd.DataFrame:
    """Figs 10–11: per replication of the linear topology (its own random variable set,
    common to every cap and to CWBA), MCWBA's settled goodput (:func:`settled_runs`) at
    each cap beside CWBA's (Reno) in the same replication; ``gain_pct`` is MCWBA over
    CWBA, ``mean_gain_below_tmax_pct`` its mean over caps below T_max (which ranks the
    replications from optimistic to pessimistic)."""
    cw = runs[(runs["kind"] == "cwba") & (runs["variant"] == "reno")].set_index(
        "replication")["goodput_Mbps"]
    mc = runs[runs["kind"] == "mcwba"][["replication", "tb_ms", "goodput_Mbps"]].copy()
    mc = mc.rename(columns={"goodput_Mbps": "mcwba_goodput_Mbps"})
    mc["cwba_goodput_Mbps"] = [float(cw.get(r, math.nan)) for r in mc["replication"]]
    mc["gain_pct"] = [gain_pct(a, b) for a, b in
                      zip(mc["mcwba_goodput_Mbps"], mc["cwba_goodput_Mbps"], strict=True)]
    below = mc[mc["tb_ms"] < 1e3 * _t_max()].groupby("replication")["gain_pct"].mean()
    mc["mean_gain_below_tmax_pct"] = [float(below.get(r, math.nan))
                                      for r in mc["replication"]]
    return mc.sort_values(["replication", "tb_ms"]).reset_index(drop=True)


def _t_max() -> float:
    from burstlab.reproduce.papers.ozsarac.topology import t_max_s

    return t_max_s()


def dynamic_totals(sw: Any) -> pd.DataFrame:
    """Figs 16–18: per measurement window, the total goodput of all flows (Mb/s, each
    flow over its active time, as in tables 4–6) for each timer period and for CWBA,
    averaged over replications."""
    t = dynamic_flow_windows(sw)
    t = t[t["basis"] == "active"]
    tot = pd.DataFrame(t.groupby(["window", "akind", "tb", "replication", "point"],
                                 as_index=False)["goodput_bps"].sum())
    out = tot.groupby(["window", "akind", "tb"], as_index=False).agg(
        total_goodput_Mbps=("goodput_bps", lambda s: float(s.mean()) / 1e6),
        replications_n=("goodput_bps", "size"))
    out.columns = ["window", "kind", "tb_ms", "total_goodput_Mbps", "replications_n"]
    return out


def ecwba_error_windows(sw: Any) -> pd.DataFrame:
    """ECWBA's estimation error per time window (:func:`ecwba_window_points`): the
    estimator's mean absolute error (segments) and mean relative error ``|est − true| /
    max(true, 1)`` over the samples of the window (one per data segment entering the
    ingress queue), beside the sender's mean cwnd, goodput, timeouts and fast recoveries
    in the window."""
    params = point_params(sw)
    t = sw.table[sw.table["kind"] == "tcp"]
    rows = []
    for _, r in t.iterrows():
        p = params.loc[r["point"]]
        rel = r.get("cwnd_est_rel_err", math.nan)
        rows.append({
            "window_from_s": float(p["window_from_s"]), "window_to_s": float(p["duration_s"]),
            "replication": int(r["replication"]),
            "mean_true_cwnd_segments": float(r["mean_cwnd_segments"]),
            "est_mean_abs_err_segments": float(r.get("cwnd_est_abs_err_segments", math.nan)
                                               if r.get("cwnd_est_abs_err_segments")
                                               is not None else math.nan),
            "est_mean_rel_err_pct": 100 * float(rel) if rel is not None else math.nan,
            "goodput_Mbps": float(r["goodput_bps"]) / 1e6,
            "timeouts": int(r["to_events"]), "fast_recoveries": int(r["td_events"])})
    return pd.DataFrame(rows).sort_values("window_from_s").reset_index(drop=True)


def dynamic_tables(sw: Any, basis: str = "window") -> dict[str, pd.DataFrame]:
    """Tables 4–6: per measurement window, per flow, CWBA against the flow's best timer
    (goodput averaged over replications, Mb/s over the whole window, the paper's reading
    of tables 4–6, or with ``basis`` "active" over each flow's active time in the
    window: :func:`dynamic_flow_windows`), and a ``total`` row
    comparing CWBA's total with the best timer's total. The total's gain has a paired
    interval over the start sets (``gain_ci_lo_pct``, ``gain_ci_hi_pct``,
    ``start_sets_n``): every period and CWBA run each start set's flow arrivals with the
    same seed, so CWBA's total is compared with the best period's within a start set
    (:func:`burstlab.reproduce.verdict.paired_ratio`)."""
    from burstlab.reproduce import verdict as V

    every = dynamic_flow_windows(sw)
    t = every[every["basis"] == basis]
    # loss events per run over the whole run, for the cause of a gain's sign
    prm = point_params(sw)
    fl = sw.table[sw.table["kind"] == "tcp"]
    ev = fl.groupby("point")[["td_events", "to_events"]].sum()
    ev["akind"] = [str(prm.loc[q, "kind"]) for q in ev.index]
    ev["tb"] = [float(prm.loc[q, "tb_ms"]) for q in ev.index]

    def spread(f: pd.DataFrame, who: str) -> str:
        x = f["goodput_Mbps"].to_numpy(float)
        low = x < 0.01 * max(float(x.sum()), 1e-12)
        up = x[~low]
        return (f"{who} gives {int(low.sum())} of {len(x)} flows (those inactive in the "
                f"window included) under 1 % of its total"
                + (f" and the others {up.min():.3g}–{up.max():.3g} Mb/s" if len(up) else ""))

    def losses(kind: str, tb: float) -> str:
        e = ev[(ev["akind"] == kind) & (ev["tb"] == tb)]
        td, to = float(e["td_events"].mean()), float(e["to_events"].mean())
        share = 100.0 * to / (td + to) if td + to > 0 else math.nan
        return (f"{td:.0f} fast recoveries and {to:.0f} timeouts per run ({share:.1f} % "
                "of the loss events end in a timeout)")
    out = {}
    for w, g in t.groupby("window"):
        pf = pd.DataFrame(g.groupby(["akind", "tb", "name"], as_index=False)[
            "goodput_bps"].mean())
        pf.columns = ["kind", "tb_ms", "flow", "goodput_bps"]
        pf["goodput_Mbps"] = pf["goodput_bps"] / 1e6
        cw = pf[pf["kind"] == "cwba"].set_index("flow")["goodput_Mbps"]
        tot_cw = float(cw.sum())
        rows = []
        for name, h in pf[pf["kind"] == "timer"].groupby("flow"):
            b = h.iloc[int(np.argmax(h["goodput_Mbps"].to_numpy(float)))]
            c = float(cw.get(name, math.nan))
            active = b["goodput_Mbps"] > 1e-9 or c > 1e-9
            rows.append({"flow": name, "ap_opt_ms": b["tb_ms"] if active else math.nan,
                         "best_timer_Mbps": b["goodput_Mbps"], "cwba_Mbps": c,
                         "gain_pct": gain_pct(c, float(b["goodput_Mbps"])) if active
                         else math.nan,
                         "contribution_pct": 100 * c / tot_cw if tot_cw > 0 else math.nan})
        tot = pf[pf["kind"] == "timer"].groupby("tb_ms")["goodput_Mbps"].sum()
        bt = float(tot.max()) if len(tot) else math.nan
        ap = (float(tot.index.to_numpy(float)[int(np.argmax(tot.to_numpy(float)))])
              if len(tot) else math.nan)
        # per start set: CWBA's total and the best period's (AP_opt of the means)
        per_set = g.groupby(["start_set", "akind", "tb"])["goodput_bps"].sum() / 1e6
        sets = sorted({int(x) for x in g["start_set"]})
        cw_s = [float(per_set.get((s, "cwba", 0.0), math.nan)) for s in sets]
        tm_s = [float(per_set.get((s, "timer", ap), math.nan)) for s in sets]
        r = V.paired_ratio(cw_s, tm_s)
        lo, hi = ((100.0 * (r.lo - 1.0), 100.0 * (r.hi - 1.0)) if r.defined
                  else (math.nan, math.nan))
        rows.append({"flow": "total", "ap_opt_ms": ap, "best_timer_Mbps": bt,
                     "cwba_Mbps": tot_cw, "gain_pct": gain_pct(tot_cw, bt),
                     "contribution_pct": 100.0, "gain_ci_lo_pct": lo, "gain_ci_hi_pct": hi,
                     "start_sets_n": r.n,
                     "cause": (spread(pf[pf["kind"] == "cwba"], "CWBA") + "; "
                               + spread(pf[(pf["kind"] == "timer") & (pf["tb_ms"] == ap)],
                                        f"the {ap:g} ms timer") + f"; CWBA: "
                               f"{losses('cwba', 0.0)}; the {ap:g} ms timer: "
                               f"{losses('timer', ap)} (whole runs, all flows); "
                               + ceilings_text(every, str(w), ap)
                               if math.isfinite(ap) else ""),
                     "per_set_gain_pct": "; ".join(
                         f"{100.0 * (c / b - 1.0):+.1f}" if b > 0 else "nan"
                         for c, b in zip(cw_s, tm_s, strict=True))})
        out[str(w)] = pd.DataFrame(rows)
    return out


def ceilings_text(every: pd.DataFrame, window: str, ap_ms: float) -> str:
    """Where the flows of a window sit against their ceilings (:func:`dynamic_flow_windows`,
    on active time): CWBA's and the ``ap_ms`` timer's flows above 1 % of their
    assembler's total, as a share of their one-window-per-cycle and access-payload
    ceilings, and which active flows share a core fibre with another active flow."""
    from burstlab.reproduce.papers.ozsarac.topology import MESH_READING, MESH_READINGS

    a = every[(every["basis"] == "active") & (every["window"] == window)]
    pf = pd.DataFrame(a.groupby(["akind", "tb", "name"], as_index=False).agg(
        g=("goodput_bps", "mean"), cw=("cwba_ceiling_bps", "first"),
        acc=("access_ceiling_bps", "first"), act=("active_s", "max")))
    parts = []
    for kind, tb, ceil, what in (("cwba", 0.0, "cw", "one-window-per-cycle ceilings"),
                                 ("timer", ap_ms, "acc", "access links' payload limit")):
        f = pf[(pf["akind"] == kind) & (pf["tb"] == tb)]
        up = f[f["g"] > 0.01 * max(float(f["g"].sum()), 1e-12)]
        if not len(up):
            continue
        x = (up["g"] / up[ceil]).to_numpy(float)
        lim = up[ceil].to_numpy(float) / 1e6
        span = (f"{lim.min():.1f}" if f"{lim.min():.1f}" == f"{lim.max():.1f}"
                else f"{lim.min():.1f}–{lim.max():.1f}")
        parts.append(f"{'CWBA' if kind == 'cwba' else f'the {ap_ms:g} ms timer'}'s "
                     f"{len(up)} running flows at {100 * x.min():.1f}–{100 * x.max():.1f} % "
                     f"of their {what} ({span} Mb/s, computed from their routes)")
    active = {int(str(n).removeprefix("flow")) for n in
              pf[(pf["akind"] == "cwba") & (pf["act"] > 0)]["name"]}
    reading = MESH_READINGS[MESH_READING]
    met = {fib: sorted(set(fl) & active) for fib, fl in reading.shared_fibres().items()}
    met = {fib: fl for fib, fl in met.items() if len(fl) > 1}
    parts.append(("active flows meeting on a core fibre: " + "; ".join(
        f"{a_} → {b_} (flows {', '.join(map(str, fl))})" for (a_, b_), fl in met.items()))
        if met else "no two active flows share a core fibre")
    return "; ".join(parts)


PAPER.analyse = analyse
