"""yu §V (figs 5–11, tables I–II): the experiments and the tables of their results.

Read first: :data:`PAPER` (the reproduction's declaration), :class:`Mode` (what
``--quick`` changes), :func:`throughput_points` (figs 5, 6, 7, 11 and tables I–II, one
sweep), the trace experiments (:func:`probe_points`, :func:`drop_points`,
:func:`random_points`: figs 8–10, run through the same store with their traces kept),
then the tables, which :func:`.analysis.analyse` assembles. Figures are in
:mod:`.figures`, claims in :mod:`.claims`, the report body in :mod:`.report`.

Setting (yu §V; docs/reproductions/yu.md): sender –(λ, 10 ms)– E1 –(10 ms)– C1 –(10 ms)– C2 –(10 ms)–
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

import math
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from burstlab import models
from burstlab.api import Result
from burstlab.export.ns2 import NS2_PRESETS
from burstlab.reproduce import traces as tr
from burstlab.reproduce.framework import Context, Experiment, Paper, read_modes, standard_stamp
from burstlab.reproduce.ratios import ratio_table
from burstlab.topologies import yu_path

MSS = 1000  # bytes of payload per segment (yu: 1 KB)
WIRE = 1040  # bytes per segment on the access link (payload + 40 B of headers)
RTT0_NOMINAL = 0.1  # s: 2 × 50 ms of propagation (yu §V)
#: The ns-2 release whose Agent/TCP defaults the reproduction runs (``flow.ns2_version``;
#: docs/topics/ns2-versions.md). yu's study is of 2003 (its newest reference is the
#: authors' own INFOCOM 2004 paper, submitted in 2003); the ns-2 release of that time is
#: ns-2.26 (2003). Its defaults equal ns-2.1b9's in every value burstlab models; ns-2.27
#: (January 2004) changed only Newreno's newreno_changes1_ and partial_window_deflation_
#: (on 5/5/03). ns-2.35 (2011) runs beside it (``_ns235`` experiments), never judged.
NS2_VERSION = "2.26"
MIN_RTO = 1.0  # s: minrto_ of ns-2.26 (tcl/lib/ns-default.tcl: "minrto_ 1")
#: ns-2.35's values of the Agent/TCP defaults the older presets change, which every
#: preset that does not set them keeps (the same values as the ns-2.35 profile in
#: crates/burstlab-core/src/tcp/mod.rs, e.g. "Agent/TCP maxrto_ 60").
NS235_TCP = {"minrto_": 0.2, "maxrto_": 60.0, "rtxcur_init_": 3.0, "precisionReduce_": 1,
             "newreno_changes1_": 1, "partial_window_deflation_": 1}
NS235_MAX_RTO = NS235_TCP["maxrto_"]


def max_rto(version: str) -> float:
    """Agent/TCP ``maxrto_`` (s) of an ns-2 release preset (``NS2_PRESETS``)."""
    return float(NS2_PRESETS[version].get("maxrto_", NS235_MAX_RTO))


SEED = 1
VARIANTS = ("reno", "newreno", "sack")

#: Access bandwidths of yu figs 5–7 and the traces/tables (bytes/s).
ACCESS = {"125MB/s": 125e6, "500KB/s": 500e3, "1.25KB/s": 1.25e3, "125KB/s": 125e3}

#: log10 p of yu tables I and II (their values are in ``paper.toml``).
LOG10_P = (-3.0, -2.5, -2.0, -1.5, -1.0, -0.5)
#: Table number per S, and the ``paper.toml`` id of each ratio.
TABLE_OF_S = {5: 1, 25: 2}

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
        rfc_reps, rfc_events: replications and burst-loss events per replication of
            tables I–II on the ``rfc`` TCP profile (:func:`rfc_table_points`: what moved
            between the profiles; fewer than ``reps``/``events`` to keep it cheap).
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
    rfc_reps: int = 2
    rfc_events: float = 200.0


#: The modes, from ``paper.toml`` (``[mode.full]``, ``[mode.quick]``, ``[mode.smoke]``).
MODES = read_modes(Path(__file__).with_name("paper.toml"), Mode)

#: The TCP profiles the reproduction runs: ``ns2`` (ns-2.35's agents, exactly; every
#: figure) and ``rfc`` (a standards TCP; tables I–II and figs 8–10 only, to show what
#: the exact profile moved). The key is the suffix of the profile's experiment names.
PROFILES = {"": "ns2", "_rfc": "rfc", "_ns235": "ns2-2.35"}


def with_profile(sc: dict[str, Any], profile: str) -> dict[str, Any]:
    """The scenario with its TCP flow on ``profile``: ``ns2`` (the default) is ns-2's
    agents with :data:`NS2_VERSION`'s defaults, ``ns2-2.35`` with ns-2.35's, ``rfc`` the
    standards TCP."""
    if profile == "ns2":
        sc["flow"][0]["ns2_version"] = NS2_VERSION
    elif profile == "ns2-2.35":
        sc["flow"][0]["ns2_version"] = "2.35"
    else:
        sc["flow"][0]["profile"] = profile
    return sc


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
    return with_profile(sc, "ns2")


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


def rfc_table_points(mode: Mode, profile: str = "rfc") -> list[tuple[dict[str, Any],
                                                                    dict[str, Any]]]:
    """Tables I–II on another TCP profile (``rfc``, or ``ns2-2.35``: ns-2.35's defaults),
    with ``rfc_events`` losses per replication."""
    m = Mode(**{**mode.__dict__, "events": mode.rfc_events})
    out = []
    for p, sc in throughput_points(m):
        if str(p["figure"]).startswith("table_S"):
            sc["flow"][0].pop("ns2_version", None)
            out.append(({**p, "profile": profile}, with_profile(sc, profile)))
    return out


# ---------------------------------------------------------------------------------------
# Models beside the simulation.


def add_models(df: pd.DataFrame) -> pd.DataFrame:
    """Adds model columns to a summary of figs 5–7/11 (one row per point).

    - ``model_segps``: eq. 26/28 (or NewReno eq. 34, Reno eq. 52/53 for fig. 11) with
      yu's measured-RTT approach: ``RTT0 = measured mean RTT − 2·Tb`` and
      ``RTO = measured mean RTO`` (configured values 0.1 s / 0.2 s if unmeasured), S
      nominal ``min(λ·Tb + 1, Wm)``, capped at λ (``model_capped_at_lambda``; the
      uncapped value is ``model_uncapped_segps``). This is what the plots draw.
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
    # A sender cannot deliver more than its access link carries: eqs. 26/28 are capped
    # at λ (they exceed it at low λ, where S = λ·Tb + 1 reaches Wm within one burst).
    raw = np.asarray(m, dtype=float)
    out["model_uncapped_segps"] = raw
    out["model_capped_at_lambda"] = raw > lam
    out["model_segps"] = np.minimum(raw, lam)
    out["model_nominal_segps"] = np.minimum(np.asarray(mn, dtype=float), lam)
    out["model_measured_S_segps"] = np.minimum(np.asarray(ms, dtype=float), lam)
    out["rel_err"] = out["goodput_segps_mean"] / out["model_segps"] - 1.0
    # ns-2's RTO is capped at maxrto_: once the mean RTT or RTO reaches it, the timer fires
    # before an ACK can return (Karn: no valid RTT sample), a limit of the TCP's
    # configuration the models do not describe. Flagged for the run's release and, as a
    # counterfactual, for ns-2.35's 60 s.
    reach = np.fmax(out["mean_rtt_s_mean"].to_numpy(float), rto)
    out["maxrto_artefact"] = reach >= max_rto(NS2_VERSION)
    out["maxrto_artefact_ns235"] = reach >= NS235_MAX_RTO
    out["rel_err_nominal"] = out["goodput_segps_mean"] / out["model_nominal_segps"] - 1.0
    out["rel_err_measured_S"] = out["goodput_segps_mean"] / out["model_measured_S_segps"] - 1.0
    return out


# ---------------------------------------------------------------------------------------
# Figs 8–10: packet traces, run through the store with their traces kept.


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


@dataclass(frozen=True)
class DropPanel:
    """A panel of figs 8–9: one burst dropped once cwnd has reached ``W`` (``Wm = W``).
    ``min_rto`` overrides the profile's 0.2 s (a diagnostic for fig. 8(b))."""

    figure: str
    variant: str
    w: int
    s: int
    after: float
    label: str
    min_rto: float | None = None


def drop_panels(mode: Mode) -> list[DropPanel]:
    after = mode.trace_after_s
    out = [DropPanel("fig8", "reno", w, 5, after, f"({'a' if w == 20 else 'b'}) Reno, W = {w}")
           for w in (20, 200)]
    # Diagnostic for fig. 8(b): a minimum RTO large enough that the retransmission timer
    # cannot fire while the fast retransmission waits in the 125 KB/s access queue.
    out.append(DropPanel("fig8", "reno", 200, 5, max(after, 12.0),
                         "(b') Reno, W = 200, min RTO 5 s (diagnostic)", min_rto=5.0))
    for s in (5, 25):
        for v in VARIANTS:
            out.append(DropPanel("fig9", v, 40, s, after, f"S = {s}, {v}"))
    return out


def random_panels(mode: Mode) -> list[tuple[str, str, float, str]]:
    """Fig. 10: (figure, variant, p, label) with random burst loss, S = 5."""
    out = []
    for lp, name in ((-1.5, "medium-high"), (-2.5, "medium-low")):
        for v in VARIANTS:
            out.append(("fig10", v, float(f"{10 ** lp:.6g}"), f"{name} p = 10^{lp:g}, {v}"))
    return out


def _trace_scenario(tb: float, p: float, variant: str, wm: int, duration: float,
                    drop: list[int] | None = None,
                    min_rto: float | None = None, profile: str = "ns2") -> dict[str, Any]:
    sc = yu_path(tb, p, access="125KB/s", variant=variant, wm=wm, duration=duration,
                 seed=SEED, drop_bursts=drop,
                 trace={"cwnd": True, "packets": True, "bursts": True})
    if min_rto is not None:
        sc["flow"][0]["min_rto"] = min_rto
    return with_profile(sc, profile)


def probe_points(ctx: Context, suffix: str = "") -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Figs 8–9, first run of each panel: no loss, ``Wm = W``, so cwnd climbs to W and
    stays there; its traces choose the burst to drop (:func:`tr.pick_drop_burst`).
    ``suffix`` names the TCP profile (:data:`PROFILES`)."""
    pts = []
    for pn in drop_panels(ctx.mode):
        tb = tb_for_s(pn.s, "125KB/s")
        pts.append(({"panel": pn.label}, _trace_scenario(tb, 0.0, pn.variant, pn.w,
                                                         20.0 + pn.w * 0.1,
                                                         min_rto=pn.min_rto,
                                                         profile=PROFILES[suffix])))
    return pts


def drop_points(ctx: Context, suffix: str = "") -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Figs 8–9, second run of each panel: identical up to the chosen burst, which is
    dropped (``obs.drop_burst``)."""
    probes = ctx.results[f"trace_probes{suffix}"]
    pts = []
    choices = {}
    for i, pn in enumerate(drop_panels(ctx.mode)):
        probe = probes.result(i)
        choice = tr.pick_drop_burst(probe.cwnd, probe.burst_trace, w=pn.w, data_queue=0,
                                    settle_s=1.0)
        choices[pn.label] = choice
        tb = tb_for_s(pn.s, "125KB/s")
        pts.append(({"panel": pn.label},
                    _trace_scenario(tb, 0.0, pn.variant, pn.w, choice.time_s + pn.after,
                                    [choice.burst], min_rto=pn.min_rto,
                                    profile=PROFILES[suffix])))
    ctx.values[f"drop_choices{suffix}"] = choices
    return pts


def random_points(ctx: Context, suffix: str = "") -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Fig. 10: random burst loss ``p``; the trace from 10 s to ``10 + length`` s."""
    return [({"panel": label},
             _trace_scenario(tb_for_s(5, "125KB/s"), p, v, 50, 10.0 + ctx.mode.random_trace_s,
                             profile=PROFILES[suffix]))
            for _, v, p, label in random_panels(ctx.mode)]


def single_drop_panel(pn: DropPanel, choice: tr.DropChoice, res: Result) -> TracePanel:
    tb = tb_for_s(pn.s, "125KB/s")
    win = tr.trace_window(res.packets, choice.time_s, before=1.0, after=pn.after)
    summ = tr.recovery_summary(res.packets, res.cwnd, choice.time_s, horizon=pn.after)
    f = res.flows.iloc[0]
    row = {"figure": pn.figure, "panel": pn.label, "variant": pn.variant,
           "W_segments": pn.w, "S_segments": pn.s, "tb_s": tb,
           "min_rto_s": pn.min_rto if pn.min_rto else MIN_RTO,
           "dropped_burst_index": choice.burst,
           "drop_time_s": choice.time_s, "cwnd_reached_W_s": choice.w_reached_s,
           **summ, "td_events": int(f["td_events"]), "to_events": int(f["to_events"]),
           "mean_rto_s": float(f["mean_rto_s"]), "mean_rtt_s": float(f["mean_rtt_s"])}
    to = [t for t in tr.timeouts(res.cwnd) if choice.time_s <= t]
    return TracePanel(pn.figure, pn.label, pn.variant, {"W": pn.w, "S": pn.s}, win, row,
                      choice.time_s, to)


def random_loss_panel(figure: str, variant: str, p: float, length: float, label: str,
                      res: Result) -> TracePanel:
    s = 5
    tb = tb_for_s(s, "125KB/s")
    t0 = 10.0
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


def trace_panels(ctx: Context, suffix: str = "") -> dict[str, list[TracePanel]]:
    out: dict[str, list[TracePanel]] = {"fig8": [], "fig9": [], "fig10": []}
    drops = ctx.results[f"trace_drops{suffix}"]
    choices = ctx.values[f"drop_choices{suffix}"]
    for i, pn in enumerate(drop_panels(ctx.mode)):
        out[pn.figure].append(single_drop_panel(pn, choices[pn.label], drops.result(i)))
    rnd = ctx.results[f"trace_random{suffix}"]
    for i, (fig, v, p, label) in enumerate(random_panels(ctx.mode)):
        out[fig].append(random_loss_panel(fig, v, p, ctx.mode.random_trace_s, label,
                                          rnd.result(i)))
    return out


# ---------------------------------------------------------------------------------------
# The declaration and the analysis.

FIG_COLUMNS = [
    "figure", "access", "lambda_segps", "tb_s", "p", "variant", "wm", "S_nominal",
    "segments_per_burst_mean", "duration_s", "n", "goodput_segps_mean",
    "goodput_segps_ci_lo", "goodput_segps_ci_hi", "throughput_segps_mean",
    "td_events_mean", "to_events_mean", "mean_rtt_s_mean", "mean_rto_s_mean",
    "rtt0_measured_s", "rto_measured_s", "model_segps", "model_nominal_segps",
    "model_measured_S_segps", "rel_err", "rel_err_nominal", "rel_err_measured_S",
    "to_share_sim", "model_Q", "model_uncapped_segps", "model_capped_at_lambda",
    "maxrto_artefact", "maxrto_artefact_ns235",
]
RENAME = {"segments_per_burst_mean": "S_measured_mean", "n": "replications_n",
          "mean_rtt_s_mean": "rtt_measured_s", "mean_rto_s_mean": "rto_mean_s",
          "td_events_mean": "td_events_per_run", "to_events_mean": "to_events_per_run"}


PAPER = Paper(
    name="yu",
    title="yu: TCP over OBS — figures 5–11 and tables I–II reproduced",
    data_file=Path(__file__).with_name("paper.toml"),
    modes=MODES,
    stamp=lambda ctx: standard_stamp(ctx, SEED, replications=ctx.mode.reps,
                                     replication_indices=f"0..{ctx.mode.reps - 1}"),
)
PAPER.experiments += [
    Experiment("throughput", lambda ctx: throughput_points(ctx.mode),
               replications=lambda ctx: int(ctx.mode.reps)),
    Experiment("throughput_rfc", lambda ctx: rfc_table_points(ctx.mode),
               replications=lambda ctx: int(ctx.mode.rfc_reps)),
    Experiment("throughput_ns235", lambda ctx: rfc_table_points(ctx.mode, "ns2-2.35"),
               replications=lambda ctx: int(ctx.mode.rfc_reps)),
]
for _sfx in PROFILES:
    PAPER.experiments += [
        Experiment(f"trace_probes{_sfx}", partial(probe_points, suffix=_sfx),
                   keep_traces=True),
        Experiment(f"trace_drops{_sfx}", partial(drop_points, suffix=_sfx),
                   keep_traces=True, after=(f"trace_probes{_sfx}",)),
        Experiment(f"trace_random{_sfx}", partial(random_points, suffix=_sfx),
                   keep_traces=True),
    ]


def paper_ratio(s: int, num: str, log10_p: float, ctx: Context) -> float:
    """The paper's table I/II value (``paper.toml``) for ``num``/Reno at S and log10 p."""
    return ctx.data[f"table{TABLE_OF_S[s]}.{num}_over_reno"].at(log10_p)


def ratio_tables(summ: pd.DataFrame, table_s: tuple[int, ...],
                 ctx: Context) -> dict[int, pd.DataFrame]:
    """Tables I–II from a sweep summary: per S, NewReno/Reno and SACK/Reno per log10 p
    with their CIs, beside the paper's ratios."""
    tables = {}
    for s in table_s:
        t = summ[summ["figure"] == f"table_S{s}"].copy()
        t["log10_p"] = np.round(np.log10(t["p"].astype(float)), 2)
        t["S"] = s
        parts = []
        for num in ("newreno", "sack"):
            r = ratio_table(t, num=num, den="reno", by=["S", "log10_p"])
            r = r.rename(columns={f"{num}_segps": "num_goodput_segps",
                                  "reno_segps": "reno_goodput_segps"})
            r.insert(2, "ratio_name", f"{'NewReno' if num == 'newreno' else 'SACK'}/Reno")
            r["paper_ratio"] = [paper_ratio(s, num, float(x), ctx) for x in r["log10_p"]]
            parts.append(r)
        tab = pd.concat(parts, ignore_index=True)
        reno_s = t.loc[t["variant"] == "reno", "segments_per_burst_mean"]
        tab["S_measured_reno"] = float(reno_s.mean()) if len(reno_s) else math.nan
        tables[s] = tab
    return tables


#: burstlab's tables I–II on its earlier, approximate ns-2 profile (before issue 11's
#: ns-2-exact agents), full mode, as recorded in docs/reproductions/yu.md when they were measured;
#: that profile no longer exists, so these cannot be re-run. (S, ratio, log10 p) → ratio.
RECORDED_APPROX = {
    (5, "NewReno/Reno", -2.0): 1.09, (5, "SACK/Reno", -2.0): 1.24,
    (25, "NewReno/Reno", -2.5): 0.92, (25, "NewReno/Reno", -2.0): 0.85,
    (25, "NewReno/Reno", -1.5): 0.91,
}


def moved_tables(ns2: dict[int, pd.DataFrame], rfc: dict[int, pd.DataFrame],
                 other: str = "rfc") -> pd.DataFrame:
    """Tables I–II on both profiles: one row per (S, ratio, log10 p) with the rfc and
    ns2 ratios and CIs, the move ``ns2 − rfc``, whether the CIs are disjoint, each
    profile's distance to the paper, and the recorded approximate-profile value."""
    rows = []
    for s, t in sorted(ns2.items()):
        r = rfc.get(s)
        for _, x in t.iterrows():
            y = None if r is None else r[(r["ratio_name"] == x["ratio_name"])
                                         & np.isclose(r["log10_p"], x["log10_p"])]
            yr = y.iloc[0] if y is not None and len(y) else None
            rfc_v = float(yr["ratio"]) if yr is not None else math.nan
            rfc_lo = float(yr["ratio_ci_lo"]) if yr is not None else math.nan
            rfc_hi = float(yr["ratio_ci_hi"]) if yr is not None else math.nan
            v, lo, hi = float(x["ratio"]), float(x["ratio_ci_lo"]), float(x["ratio_ci_hi"])
            paper = float(x["paper_ratio"])
            rows.append({
                "S": s, "ratio_name": x["ratio_name"], "log10_p": float(x["log10_p"]),
                "paper": paper, other: rfc_v, f"{other}_ci_lo": rfc_lo,
                f"{other}_ci_hi": rfc_hi,
                "ns2_exact": v, "ns2_ci_lo": lo, "ns2_ci_hi": hi,
                "approx_ns2_recorded": RECORDED_APPROX.get(
                    (s, str(x["ratio_name"]), float(x["log10_p"])), math.nan),
                "moved": v - rfc_v,
                "cis_disjoint": bool(hi < rfc_lo or rfc_hi < lo),
                f"{other}_minus_paper": rfc_v - paper, "ns2_minus_paper": v - paper,
            })
    return pd.DataFrame(rows)


#: Per-panel quantities of figs 8–10 compared between the profiles.
TRACE_QUANTITIES = {
    "fig8": ("timeouts", "td_events", "new_segments_after", "retransmissions",
             "repaired_rel_s"),
    "fig9": ("timeouts", "td_events", "new_segments_after", "retransmissions",
             "repaired_rel_s"),
    "fig10": ("timeouts", "bursts_lost", "retransmissions", "new_segments_per_s"),
}


def moved_traces(ns2: dict[str, list[TracePanel]],
                 rfc: dict[str, list[TracePanel]], other: str = "rfc") -> pd.DataFrame:
    """Figs 8–10 on both profiles: one row per (figure, panel, quantity)."""
    rows = []
    for fig, qs in TRACE_QUANTITIES.items():
        by_rfc = {pn.label: pn.summary for pn in rfc.get(fig, [])}
        for pn in ns2.get(fig, []):
            a = by_rfc.get(pn.label, {})
            for q in qs:
                v = float(pn.summary.get(q, math.nan))
                w = float(a.get(q, math.nan))
                rows.append({"figure": fig, "panel": pn.label, "variant": pn.variant,
                             "quantity": q, other: w, "ns2_exact": v, "moved": v - w})
    return pd.DataFrame(rows)

