"""Reproduction of yu §V (figs 5–11, tables I–II): simulation beside model beside paper.

Read first: :func:`reproduce` (the whole job), :class:`Mode` (what ``--quick`` changes),
:func:`throughput_points` (the sweeps of figs 5, 6, 7, 11 and tables I–II, all run in
one pool of local processes with one progress bar), :func:`trace_experiments` (figs
8–10, single runs with packet traces), then :mod:`burstlab.reproduce.yu_report` (the
checks and ``report.md``).

Setting (yu §V, DESIGN.md): sender –(λ, 10 ms)– E1 –(10 ms)– C1 –(10 ms)– C2 –(10 ms)–
E2 –(λ, 10 ms)– receiver, core 10 GB/s, 1 KB segments (+40 B of headers on the wire),
per-flow timer assembly with period Tb, ACKs assembled too, independent loss p per data
burst and path (:func:`burstlab.topologies.yu_path`).

Simulated durations. Yu simulated ~10^6 s per point. Here each point runs long enough
for a target number of burst-loss events (``events``): the expected loss rate is
``p × bursts/s ≈ p·B/S``, with ``B`` the SACK model's estimate (capped by λ and
``Wm/RTT``), so ``duration = events·S/(p·B)``, clipped to ``[min_s, max_s]`` and to
``max_segments/B`` (wall time grows with segments, ~3 million per second).
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from burstlab import _core, models
from burstlab.api import Result, run
from burstlab.reproduce import traces as tr
from burstlab.sweep import SweepResult, sweep_points
from burstlab.topologies import yu_path

MSS = 1000  # bytes of payload per segment (yu: 1 KB)
WIRE = 1040  # bytes per segment on the access link (payload + 40 B of headers)
RTT0_NOMINAL = 0.1  # s: 2 × 50 ms of propagation (yu §V)
MIN_RTO = 0.2  # s: the ns-2 profile's minrto_
SEED = 1
VARIANTS = ("reno", "newreno", "sack")

#: Access bandwidths of yu figs 5–7 and the traces/tables (bytes/s).
ACCESS = {"125MB/s": 125e6, "500KB/s": 500e3, "1.25KB/s": 1.25e3, "125KB/s": 125e3}

#: yu tables I and II as printed (log10 p → ratio).
LOG10_P = (-3.0, -2.5, -2.0, -1.5, -1.0, -0.5)
PAPER_TABLES: dict[int, dict[str, tuple[float, ...]]] = {
    5: {"newreno": (1.0, 1.1, 1.29, 1.19, 1.03, 0.93),
        "sack": (1.0, 1.07, 1.58, 1.4, 1.33, 1.07)},
    25: {"newreno": (1.0, 0.94, 0.9, 0.76, 0.93, 1.06),
         "sack": (1.0, 1.03, 1.02, 1.1, 1.0, 1.0)},
}

#: What each throughput figure sweeps (λ name, Tb decades, p values per mode).
FIGURES = {
    "fig5": {"access": "125MB/s", "tb": (-6.0, -1.0), "title": "high access bandwidth"},
    "fig6": {"access": "500KB/s", "tb": (-4.0, 0.0), "title": "medium access bandwidth"},
    "fig7": {"access": "1.25KB/s", "tb": (-2.0, 2.0), "title": "low access bandwidth"},
}


@dataclass(frozen=True)
class Mode:
    """Sizes of one run of the reproduction.

    Attributes:
        name: ``full``, ``quick`` or ``smoke`` (tests only).
        reps: replications per point (95 % CIs need ≥ 2).
        events: target burst-loss events per replication (see the module docstring).
        min_s, max_s: bounds on simulated seconds per replication.
        max_segments: bound on segments per replication (wall time).
        tb_per_decade: Tb points per decade in figs 5–7 and 11.
        p: loss probabilities per figure.
        table_log10_p: log10 p of tables I–II.
        trace_after_s: seconds of packet trace after the dropped burst (figs 8, 9).
    """

    name: str
    reps: int
    events: float
    min_s: float
    max_s: float
    max_segments: float
    tb_per_decade: float
    p: dict[str, tuple[float, ...]] = field(default_factory=dict)
    table_log10_p: tuple[float, ...] = LOG10_P
    table_s: tuple[int, ...] = (5, 25)
    fig11_variants: tuple[str, ...] = VARIANTS
    trace_after_s: float = 8.0
    random_trace_s: float = 40.0


MODES = {
    "full": Mode("full", reps=5, events=1000, min_s=10_000.0, max_s=1.5e7,
                 max_segments=5e6, tb_per_decade=3,
                 p={"fig5": (1e-4, 1e-3, 1e-2, 1e-1), "fig6": (1e-3, 1e-2, 1e-1),
                    "fig7": (0.003, 0.01, 0.03, 0.1)}),
    "quick": Mode("quick", reps=4, events=400, min_s=3000.0, max_s=3e6, max_segments=4e6,
                  tb_per_decade=2,
                  p={"fig5": (1e-3, 1e-2, 1e-1), "fig6": (1e-3, 1e-2, 1e-1),
                     "fig7": (0.003, 0.03, 0.1)}),
    "smoke": Mode("smoke", reps=2, events=8, min_s=20.0, max_s=2e4, max_segments=3e4,
                  tb_per_decade=0.5,
                  p={"fig5": (1e-2,), "fig6": (1e-1,), "fig7": (0.1,)},
                  table_log10_p=(-2.0, -1.0), table_s=(5,), trace_after_s=4.0,
                  random_trace_s=10.0),
}


def wire_lambda(access: str) -> float:
    """λ in segments/s as carried by the access link (1040 B per segment on the wire)."""
    return ACCESS[access] / WIRE


def tb_for_s(s: int, access: str) -> float:
    """Assembly period giving exactly ``s`` segments per full burst.

    yu: ``S = λ·Tb + 1``. Segments arrive every ``1/λ``; a timer of exactly
    ``(S − 1)/λ`` expires at the instant the S-th one arrives, and which burst that
    segment joins is a tie. ``(S − ½)/λ`` puts it in the burst without the tie.
    """
    return (s - 0.5) / wire_lambda(access)


def tb_grid(lo: float, hi: float, per_decade: float) -> list[float]:
    n = max(2, int(round((hi - lo) * per_decade)) + 1)
    return [float(f"{x:.4g}") for x in np.logspace(lo, hi, n)]


def estimate_throughput(p: float, tb: float, access: str, wm: int) -> float:
    """Rough segments/s for sizing runs: SACK model at the nominal RTT0, capped."""
    lam = wire_lambda(access)
    rtt = RTT0_NOMINAL + 2 * tb
    b = float(models.sack_throughput(p, tb, lam=lam, wm=wm, rtt0=RTT0_NOMINAL,
                                     rto=max(MIN_RTO, 2 * rtt)))
    return max(1e-3, min(b, lam, wm / rtt))


def duration_for(mode: Mode, p: float, tb: float, access: str, wm: int,
                 s: float | None = None) -> float:
    """Simulated seconds per replication (module docstring)."""
    lam = wire_lambda(access)
    s_nom = s if s is not None else min(lam * tb + 1.0, wm)
    b = estimate_throughput(p, tb, access, wm)
    d = mode.events * s_nom / (p * b)
    d = min(d, mode.max_segments / b, mode.max_s)
    return float(f"{max(d, mode.min_s):.4g}")


def _scenario(tb: float, p: float, access: str, variant: str, wm: int,
              duration: float) -> dict[str, Any]:
    sc = yu_path(tb, p, access=access, variant=variant, wm=wm, duration=duration, seed=SEED)
    sc["sim"]["warmup"] = round(min(0.02 * duration, 2000.0), 3)
    return sc


def throughput_points(mode: Mode) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every (params, scenario) point of figs 5, 6, 7, 11 and tables I–II."""
    pts: list[tuple[dict[str, Any], dict[str, Any]]] = []

    def add(fig: str, access: str, tb: float, p: float, variant: str, wm: int,
            s_target: float | None = None) -> None:
        lam = wire_lambda(access)
        s_nom = s_target if s_target is not None else min(lam * tb + 1.0, wm)
        dur = duration_for(mode, p, tb, access, wm, s_nom)
        params = {"figure": fig, "access": access, "lambda_segps": lam, "tb_s": tb,
                  "p": p, "variant": variant, "wm": wm, "S_nominal": s_nom,
                  "duration_s": dur}
        pts.append((params, _scenario(tb, p, access, variant, wm, dur)))

    for fig, spec in FIGURES.items():
        lo, hi = spec["tb"]
        for p in mode.p[fig]:
            for tb in tb_grid(float(lo), float(hi), mode.tb_per_decade):  # type: ignore[arg-type]
                add(fig, str(spec["access"]), tb, p, "sack", 50)
    for tb in tb_grid(-6.0, -2.0, mode.tb_per_decade):
        for v in mode.fig11_variants:
            add("fig11", "125MB/s", tb, 0.03, v, 50)
    for s in mode.table_s:
        tb = tb_for_s(s, "125KB/s")
        for lp in mode.table_log10_p:
            for v in VARIANTS:
                add(f"table_S{s}", "125KB/s", tb, float(f"{10 ** lp:.6g}"), v, 50, float(s))
    return pts


# ---------------------------------------------------------------------------------------
# Models beside the simulation.


def add_models(df: pd.DataFrame) -> pd.DataFrame:
    """Adds model columns to a summary of figs 5–7/11 (one row per point).

    - ``model_segps``: eq. 26/28 (or NewReno eq. 34, Reno eq. 52/53 for fig. 11) with
      yu's measured-RTT approach: ``RTT0 = measured mean RTT − 2·Tb`` and
      ``RTO = measured mean RTO`` (configured values 0.1 s / 0.2 s if unmeasured), S
      nominal ``min(λ·Tb + 1, Wm)``. This is what the plots draw (solid lines).
    - ``model_nominal_segps``: ``RTT0 = 0.1 s`` (propagation only) and
      ``RTO = max(0.2 s, 2·RTT)`` (dotted lines).
    - ``model_measured_S_segps``: as ``model_segps`` but with the measured mean S.
    - ``rel_err``: ``simulated goodput / model_segps − 1``.
    """
    out = df.copy()
    lam = out["lambda_segps"].to_numpy(float)
    tb = out["tb_s"].to_numpy(float)
    p = out["p"].to_numpy(float)
    wm = out["wm"].to_numpy(float)
    rtt = out["mean_rtt_s_mean"].to_numpy(float)
    rto = out["mean_rto_s_mean"].to_numpy(float)
    rtt0 = np.where(np.isfinite(rtt), np.maximum(rtt - 2 * tb, 1e-3), RTT0_NOMINAL)
    rto = np.where(np.isfinite(rto) & (rto > 0), rto, MIN_RTO)
    out["rtt0_measured_s"] = rtt0
    out["rto_measured_s"] = rto
    s_meas = out["segments_per_burst_mean"].to_numpy(float) \
        if "segments_per_burst_mean" in out.columns else np.full(len(out), np.nan)
    m, mn, ms = [], [], []
    for i, v in enumerate(out["variant"].tolist()):
        m.append(float(models.throughput(v, p[i], tb[i], lam=lam[i], wm=wm[i], rtt0=rtt0[i],
                                         rto=rto[i])))
        rtt_nom = RTT0_NOMINAL + 2 * tb[i]
        mn.append(float(models.throughput(v, p[i], tb[i], lam=lam[i], wm=wm[i],
                                          rtt0=RTT0_NOMINAL, rto=max(MIN_RTO, 2 * rtt_nom))))
        if np.isfinite(s_meas[i]) and np.isfinite(rtt[i]):
            tb_eff = max(s_meas[i] - 1.0, 0.0) / lam[i]
            ms.append(float(models.throughput(v, p[i], tb_eff, lam=lam[i], wm=wm[i],
                                              rtt0=max(rtt[i] - 2 * tb_eff, 1e-3),
                                              rto=rto[i])))
        else:
            ms.append(math.nan)
    # TO share: simulated TO/(TD + TO) beside the model's TO/TD ratio Q(W) (eq. 25,
    # W = min(E[W_X], Wm)); Q counts only timeouts from losing every burst of a round.
    td = out["td_events_mean"].to_numpy(float)
    to = out["to_events_mean"].to_numpy(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["to_share_sim"] = to / (td + to)
    s_nom = np.minimum(lam * tb + 1.0, wm)
    ew = np.asarray(models.sack_expected_window(p, tb, lam=lam, wm=wm), dtype=float)
    out["model_Q"] = np.asarray(models.timeout_ratio(np.minimum(ew, wm), s_nom, p),
                                dtype=float)
    out["model_segps"] = m
    out["model_nominal_segps"] = mn
    out["model_measured_S_segps"] = ms
    out["rel_err"] = out["goodput_segps_mean"] / out["model_segps"] - 1.0
    out["rel_err_nominal"] = out["goodput_segps_mean"] / out["model_nominal_segps"] - 1.0
    out["rel_err_measured_S"] = out["goodput_segps_mean"] / out["model_measured_S_segps"] - 1.0
    return out


# ---------------------------------------------------------------------------------------
# Figs 8–10: packet traces.


@dataclass
class TracePanel:
    """One panel of a trace figure: the run, its trace window and a summary row."""

    figure: str
    label: str
    variant: str
    params: dict[str, Any]
    window: pd.DataFrame
    summary: dict[str, Any]
    t0: float
    timeouts: list[float]


def _trace_run(tb: float, p: float, variant: str, wm: int, duration: float,
               drop: list[int] | None = None, min_rto: float | None = None) -> Result:
    sc = yu_path(tb, p, access="125KB/s", variant=variant, wm=wm, duration=duration,
                 seed=SEED, drop_bursts=drop,
                 trace={"cwnd": True, "packets": True, "bursts": True})
    if min_rto is not None:
        sc["flow"][0]["min_rto"] = min_rto
    return run(sc, seed=SEED, replication=0)


def single_drop_panel(figure: str, variant: str, w: int, s: int, after: float,
                      label: str, min_rto: float | None = None) -> TracePanel:
    """One burst dropped once cwnd has reached ``W`` (``Wm = W``; see
    :func:`burstlab.reproduce.traces.pick_drop_burst`). ``min_rto`` overrides the
    profile's 0.2 s (a diagnostic for fig. 8(b))."""
    tb = tb_for_s(s, "125KB/s")
    probe_len = 20.0 + w * 0.1
    probe = _trace_run(tb, 0.0, variant, w, probe_len, min_rto=min_rto)
    choice = tr.pick_drop_burst(probe.cwnd, probe.burst_trace, w=w, data_queue=0,
                                settle_s=1.0)
    res = _trace_run(tb, 0.0, variant, w, choice.time_s + after, [choice.burst],
                     min_rto=min_rto)
    win = tr.trace_window(res.packets, choice.time_s, before=1.0, after=after)
    summ = tr.recovery_summary(res.packets, res.cwnd, choice.time_s, horizon=after)
    f = res.flows.iloc[0]
    row = {"figure": figure, "panel": label, "variant": variant, "W_segments": w,
           "S_segments": s, "tb_s": tb, "min_rto_s": min_rto if min_rto else 0.2,
           "dropped_burst_index": choice.burst,
           "drop_time_s": choice.time_s, "cwnd_reached_W_s": choice.w_reached_s,
           **summ, "td_events": int(f["td_events"]), "to_events": int(f["to_events"]),
           "mean_rto_s": float(f["mean_rto_s"]), "mean_rtt_s": float(f["mean_rtt_s"])}
    to = [t for t in tr.timeouts(res.cwnd) if choice.time_s <= t]
    return TracePanel(figure, label, variant, {"W": w, "S": s}, win, row, choice.time_s, to)


def random_loss_panel(figure: str, variant: str, p: float, s: int, length: float,
                      label: str) -> TracePanel:
    """Random burst loss ``p``; the trace from 10 s to ``10 + length`` s."""
    tb = tb_for_s(s, "125KB/s")
    t0 = 10.0
    res = _trace_run(tb, p, variant, 50, t0 + length)
    win = tr.trace_window(res.packets, t0, before=0.0, after=length)
    bt = res.burst_trace
    lost = bt[(bt["queue"] == 0) & (bt["event"] == "lost") & (bt["time_s"] >= t0)]
    to = [t for t in tr.timeouts(res.cwnd) if t >= t0]
    sent = win[(win["event"] == "sent")]
    row = {"figure": figure, "panel": label, "variant": variant, "p": p, "S_segments": s,
           "tb_s": tb, "window_s": length, "bursts_lost": len(lost), "timeouts": len(to),
           "segments_sent": int(len(sent)),
           "retransmissions": int(sent["retransmit"].sum()),
           "new_segments_per_s": float((~sent["retransmit"]).sum() / length)}
    return TracePanel(figure, label, variant, {"p": p, "S": s}, win, row, t0, to)


def trace_experiments(mode: Mode) -> dict[str, list[TracePanel]]:
    after = mode.trace_after_s
    out: dict[str, list[TracePanel]] = {"fig8": [], "fig9": [], "fig10": []}
    for w in (20, 200):
        out["fig8"].append(single_drop_panel("fig8", "reno", w, 5, after,
                                             f"({'a' if w == 20 else 'b'}) Reno, W = {w}"))
    # Diagnostic for fig. 8(b): a minimum RTO large enough that the retransmission timer
    # cannot fire while the fast retransmission waits in the 125 KB/s access queue.
    out["fig8"].append(single_drop_panel("fig8", "reno", 200, 5, max(after, 12.0),
                                         "(b') Reno, W = 200, min RTO 5 s (diagnostic)",
                                         min_rto=5.0))
    for s in (5, 25):
        for v in VARIANTS:
            out["fig9"].append(single_drop_panel("fig9", v, 40, s, after,
                                                 f"S = {s}, {v}"))
    for lp, name in ((-1.5, "medium-high"), (-2.5, "medium-low")):
        for v in VARIANTS:
            out["fig10"].append(random_loss_panel("fig10", v, float(f"{10 ** lp:.6g}"), 5,
                                                  mode.random_trace_s,
                                                  f"{name} p = 10^{lp:g}, {v}"))
    return out


# ---------------------------------------------------------------------------------------
# The job.


@dataclass
class Outputs:
    """What :func:`reproduce` produced (tables are also written as CSV)."""

    out_dir: Path
    mode: Mode
    figures: dict[str, pd.DataFrame]
    tables: dict[int, pd.DataFrame]
    traces: dict[str, list[TracePanel]]
    sweep: SweepResult
    wall_s: float
    files: list[Path]
    stamp: dict[str, Any]


def _stamp(mode: Mode) -> dict[str, Any]:
    return {"seed": SEED, "replications": mode.reps,
            "replication_indices": f"0..{mode.reps - 1}",
            "burstlab_version": _core.__version__, "mode": mode.name}


def reproduce(
    out: str | os.PathLike[str] = "out",
    *,
    mode: str = "full",
    jobs: int | None = None,
    progress: bool = True,
    log: Callable[[str], None] = print,
) -> Outputs:
    """Runs the yu reproduction and writes everything under ``out/yu/``.

    Args:
        out: the output root (``out/yu/`` is created).
        mode: ``"full"``, ``"quick"`` or ``"smoke"`` (a tiny grid for tests).
        jobs: worker processes (default: all usable cores).
        progress: progress bar with ETA on stderr.
        log: where progress lines go.
    """
    from burstlab.reproduce import yu_report

    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    m = MODES[mode]
    t0 = time.perf_counter()
    d = Path(out) / "yu"
    d.mkdir(parents=True, exist_ok=True)
    pts = throughput_points(m)
    sim_s = sum(p["duration_s"] for p, _ in pts) * m.reps
    log(f"burstlab reproduce yu ({m.name}): {len(pts)} points × {m.reps} replications, "
        f"{sim_s:.3g} s simulated in total; store {d / 'runs.sqlite'}")
    sw = sweep_points(pts, replications=m.reps, store=d / "runs.sqlite", jobs=jobs,
                      progress=progress)
    if len(sw.errors):
        first = sw.errors.iloc[0]
        raise RuntimeError(f"{len(sw.errors)} runs failed, e.g. {first['error']}")
    summ = sw.summary
    figs: dict[str, pd.DataFrame] = {}
    for fig in ("fig5", "fig6", "fig7", "fig11"):
        figs[fig] = add_models(summ[summ["figure"] == fig].reset_index(drop=True))
    tables = {}
    from burstlab.reproduce.ratios import ratio_table

    for s in m.table_s:
        t = summ[summ["figure"] == f"table_S{s}"].copy()
        t["log10_p"] = np.round(np.log10(t["p"].astype(float)), 2)
        t["S"] = s
        parts = []
        for num in ("newreno", "sack"):
            r = ratio_table(t, num=num, den="reno", by=["S", "log10_p"])
            r = r.rename(columns={f"{num}_segps": "num_goodput_segps",
                                  "reno_segps": "reno_goodput_segps"})
            r.insert(2, "ratio_name", f"{'NewReno' if num == 'newreno' else 'SACK'}/Reno")
            paper = dict(zip(LOG10_P, PAPER_TABLES[s][num], strict=True))
            r["paper_ratio"] = [paper.get(float(x), math.nan) for x in r["log10_p"]]
            parts.append(r)
        tab = pd.concat(parts, ignore_index=True)
        reno_s = t.loc[t["variant"] == "reno", "segments_per_burst_mean"]
        tab["S_measured_reno"] = float(reno_s.mean()) if len(reno_s) else math.nan
        tables[s] = tab
    log("running the packet-trace experiments (figs 8–10) …")
    trs = trace_experiments(m)
    stamp = _stamp(m)
    files = yu_report.write_all(d, m, figs, tables, trs, sw, stamp,
                                wall_s=time.perf_counter() - t0)
    wall = time.perf_counter() - t0
    res = Outputs(d, m, figs, tables, trs, sw, wall, files, stamp)
    (d / "run.json").write_text(json.dumps({**stamp, "wall_s": wall,
                                            "points": len(pts), "runs": sw.stats},
                                           indent=2, default=str), encoding="utf-8")
    return res


def mode_names() -> Sequence[str]:
    return tuple(MODES)
