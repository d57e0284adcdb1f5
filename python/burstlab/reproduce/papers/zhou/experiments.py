"""zhou §2 (testbed, fig. 2) and §3 (ACK-ratio assembly, fig. 5): the experiments and
the analysis of their results.

Read first: :data:`PAPER` (the reproduction's declaration), :class:`Mode` (what
``--quick`` changes), :func:`grid_points` (fig. 2: assembly period × Pb on the base
set-up, and the sensitivity grid over the other set-ups of :mod:`.testbed`), then
:func:`analyse` and :func:`add_models`. Figures are in :mod:`.figures`, claims in
:mod:`.claims`, the report body in :mod:`.report`.

Part 2 (§3, ACK-ratio assembly, fig. 5) is the experiment ``part2_fig5``: the network
of :mod:`.ackratio` at every load × R_MAX of the mode (``p2_*`` fields of :class:`Mode`),
its runs kept with their per-flow burst statistics and summarised by
:func:`.ackratio.summarise`.

Simulated durations. Each point runs long enough for about ``events`` burst losses per
replication: the expected number of data bursts per second is ``rate/S`` with ``rate =
min(λ, Wm/RTT)`` and ``S = min(rate·Tb + 1, Wm)`` (yu §II.A's S with the sending rate),
so ``duration = events / (Pb · rate/S)``, clipped to ``max_s`` and ``max_segments/rate``
(wall time grows with segments, about a million per second here), and at least
``lossy_min_s`` (timeouts, not burst counts, set the variance).
Runs with ``Pb = 0`` have no randomness in their loss and run ``min_s``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from burstlab import _core, models
from burstlab.reproduce.framework import Context, Experiment, Paper, read_modes, standard_stamp
from burstlab.reproduce.papers.zhou import ackratio
from burstlab.reproduce.papers.zhou.checks import checks_for
from burstlab.reproduce.papers.zhou.testbed import (
    BASE,
    HEADER_BYTES,
    MSS_BYTES,
    WM_SEGMENTS,
    Setup,
    setups,
    testbed,
)
from burstlab.units import parse_rate, parse_time

SEED = 1
#: A nominal RTT0 (s) for sizing runs only: propagation, offsets and transmission of the
#: base set-up are about 0.14 ms, plus up to a window of queueing at the access link.
RTT0_SIZING = 0.25e-3


@dataclass(frozen=True)
class Mode:
    """Sizes of one run of the reproduction.

    Attributes:
        name: ``full``, ``quick`` or ``smoke`` (tests only).
        reps: replications per point of fig. 2 (95 % CIs need ≥ 2).
        periods_us: assembly periods of fig. 2 (µs).
        pb: burst loss probabilities of fig. 2.
        events: target burst-loss events per replication.
        min_s, max_s: bounds on simulated seconds per replication.
        lossy_min_s: lower bound for points with Pb > 0: most of the variance comes from
            timeouts (each costs at least the 200 ms minimum RTO), a few per second at
            most, so a run needs seconds of simulated time whatever its burst count.
        max_segments: bound on segments per replication.
        sens_reps, sens_periods_us, sens_pb: the sensitivity grid (every set-up but
            the base).
    """

    name: str
    reps: int
    periods_us: tuple[float, ...]
    pb: tuple[float, ...]
    events: float
    min_s: float
    max_s: float
    lossy_min_s: float
    max_segments: float
    sens_reps: int
    sens_periods_us: tuple[float, ...]
    sens_pb: tuple[float, ...]
    #: Part 2 (§3, fig. 5): offered loads of the core fibre, R_MAX values (``None``:
    #: conventional assembly), replications, simulated and warm-up seconds per run.
    p2_loads: tuple[float, ...] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6)
    p2_rmax: tuple[float | None, ...] = (None, 1.0, 0.5, 0.4, 0.3, 0.2, 0.1, 0.0)
    p2_reps: int = 3
    p2_duration_s: float = 200.0
    p2_warmup_s: float = 20.0

    def __post_init__(self) -> None:
        # paper.toml writes conventional assembly (None: no R_MAX) as "conventional".
        object.__setattr__(self, "p2_rmax", tuple(
            None if r == "conventional" else r for r in self.p2_rmax))


#: The modes, from ``paper.toml`` (``[mode.full]``, ``[mode.quick]``, ``[mode.smoke]``).
MODES = read_modes(Path(__file__).with_name("paper.toml"), Mode)


def access_segps(setup: Setup) -> float:
    """λ: the access rate in segments/s as carried (MSS + 40 B of headers per segment)."""
    return float(parse_rate(setup.access)) / (8.0 * (MSS_BYTES + HEADER_BYTES))


def duration_for(mode: Mode, tb: float, pb: float, setup: Setup) -> float:
    """Simulated seconds per replication (module docstring)."""
    lam = access_segps(setup)
    # Longer access delays (the base-RTT sensitivity) add 4 × the extra delay.
    rtt0 = RTT0_SIZING + 4 * max(0.0, parse_time(setup.access_delay) - 10e-6)
    rate = min(lam, WM_SEGMENTS / (rtt0 + 2 * tb))
    s = min(rate * tb + 1.0, WM_SEGMENTS)
    if pb <= 0:
        return mode.min_s
    d = mode.events * s / (pb * rate)
    d = min(d, mode.max_segments / rate, mode.max_s)
    return float(f"{max(d, mode.lossy_min_s, mode.min_s):.4g}")


def _point(setup: Setup, tb_us: float, pb: float, mode: Mode,
           experiment: str) -> tuple[dict[str, Any], dict[str, Any]]:
    tb = tb_us * 1e-6
    dur = duration_for(mode, tb, pb, setup)
    params = {"experiment": experiment, "setup": setup.name, "tb_us": float(tb_us),
              "tb_s": tb, "pb": pb, "variant": setup.variant, "access": setup.access,
              "access_delay": setup.access_delay, "fibre_km": setup.fibre_km, "b": setup.b, "ack_loss": setup.ack_loss,
              "duration_s": dur}
    return params, testbed(tb, pb, setup, duration=dur, warmup=round(0.05 * dur, 4),
                           seed=SEED)


def grid_points(mode: Mode, sensitivity: bool = False
                ) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Fig. 2's grid on the base set-up, or (``sensitivity``) the smaller grid on every
    other set-up of :func:`.testbed.setups`."""
    if not sensitivity:
        return [_point(BASE, t, pb, mode, "fig2") for pb in mode.pb for t in mode.periods_us]
    return [_point(st, t, pb, mode, "sensitivity")
            for st in setups().values() if st.name != BASE.name
            for pb in mode.sens_pb for t in mode.sens_periods_us]


# ---------------------------------------------------------------------------------------
# Models beside the simulation.


def add_models(df: pd.DataFrame) -> pd.DataFrame:
    """Adds model columns (Mb/s of goodput, 512 B segments) to a summary table.

    - ``model_sack_Mbps``: yu eq. 26/28 (SACK), with yu's measured-RTT approach:
      ``RTT0 = measured mean RTT − 2·Tb``, ``RTO = measured mean RTO`` (the set-up's
      minimum RTO where no RTO was measured), ``S = min(λ·Tb + 1, Wm)``, the set-up's ``b``;
    - ``model_variant_Mbps``: the same for the set-up's own variant (NewReno eq. 34,
      Reno eq. 52/53, SACK eq. 26/28; eq. 28 for all three once saturated);
    - at ``Pb = 0`` both are yu eq. 29, ``min(λ, Wm/RTT)`` (no loss, no model of loss);
    - ``model_rel_err``: ``simulated goodput / model_variant − 1``.
    """
    out = df.copy()
    st = setups()
    lam = np.array([access_segps(st[s]) for s in out["setup"]], dtype=float)
    tb = out["tb_s"].to_numpy(float)
    pb = out["pb"].to_numpy(float)
    b = out["b"].to_numpy(float)
    rtt = out["mean_rtt_s_mean"].to_numpy(float)
    rto = out["mean_rto_s_mean"].to_numpy(float) if "mean_rto_s_mean" in out.columns \
        else np.full(len(out), np.nan)
    min_rto = np.array([float(parse_time(st[s].min_rto)) for s in out["setup"]])
    rtt0 = np.where(np.isfinite(rtt), np.maximum(rtt - 2 * tb, 1e-6), RTT0_SIZING)
    rto = np.where(np.isfinite(rto) & (rto > 0), rto, min_rto)
    to_mbps = MSS_BYTES * 8 / 1e6
    sack, var = [], []
    for i, v in enumerate(out["variant"].tolist()):
        if pb[i] <= 0:
            wl = min(lam[i], WM_SEGMENTS / (rtt0[i] + 2 * tb[i]))
            sack.append(wl)
            var.append(wl)
            continue
        kw = dict(lam=lam[i], wm=WM_SEGMENTS, rtt0=rtt0[i], rto=rto[i], b=b[i])
        sack.append(min(float(models.sack_throughput(pb[i], tb[i], **kw)), lam[i]))
        var.append(min(float(models.throughput(v, pb[i], tb[i], **kw)), lam[i]))
    out["lambda_segps"] = lam
    out["rtt0_measured_s"] = rtt0
    out["rto_measured_s"] = rto
    out["model_sack_Mbps"] = np.array(sack) * to_mbps
    out["model_variant_Mbps"] = np.array(var) * to_mbps
    out["model_rel_err"] = out["goodput_Mbps_mean"] / out["model_variant_Mbps"] - 1.0
    return out


def model_argmax_us(pb: float, setup: Setup, rtt0: float, rto: float,
                    lo_us: float = 1.0, hi_us: float = 3000.0) -> float:
    """The period (µs) maximising the set-up variant's yu model (fine log grid)."""
    tb = np.logspace(np.log10(lo_us), np.log10(hi_us), 801) * 1e-6
    lam = access_segps(setup)
    thr = np.minimum(np.asarray(models.throughput(setup.variant, pb, tb, lam=lam,
                                                  wm=WM_SEGMENTS, rtt0=rtt0, rto=rto,
                                                  b=setup.b), dtype=float), lam)
    return float(tb[int(np.nanargmax(thr))] * 1e6)


# ---------------------------------------------------------------------------------------
# The declaration and the analysis.

COLUMNS = [
    "setup", "variant", "access", "fibre_km", "b", "ack_loss", "tb_us", "pb", "duration_s",
    "n", "goodput_Mbps_mean", "goodput_Mbps_ci_lo", "goodput_Mbps_ci_hi",
    "segments_per_burst_mean", "mean_rtt_s_mean", "rto_measured_s", "rtt0_measured_s",
    "td_events_mean", "to_events_mean", "model_sack_Mbps", "model_variant_Mbps",
    "model_rel_err",
]
RENAME = {"n": "replications_n", "segments_per_burst_mean": "S_measured_segments",
          "mean_rtt_s_mean": "rtt_measured_s", "td_events_mean": "td_events_per_run",
          "to_events_mean": "to_events_per_run"}


PAPER = Paper(
    name="zhou",
    title="zhou: TCP over an OBS testbed (§2, fig. 2) and ACK-ratio assembly (§3, fig. 5)",
    data_file=Path(__file__).with_name("paper.toml"),
    modes=MODES,
    stamp=lambda ctx: standard_stamp(ctx, SEED, replications=ctx.mode.reps,
                                     replication_indices=f"0..{ctx.mode.reps - 1}"),
)
PAPER.experiments += [
    Experiment("part1_fig2", lambda ctx: grid_points(ctx.mode),
               replications=lambda ctx: int(ctx.mode.reps)),
    Experiment("part1_sensitivity", lambda ctx: grid_points(ctx.mode, sensitivity=True),
               replications=lambda ctx: int(ctx.mode.sens_reps)),
    # zhou §3.2: kept runs carry each flow's burst statistics (ACK bursts lost).
    Experiment("part2_fig5", lambda ctx: ackratio.points(
        ctx.mode.p2_loads, ctx.mode.p2_rmax, duration=ctx.mode.p2_duration_s,
        warmup=ctx.mode.p2_warmup_s, seed=SEED),
        replications=lambda ctx: int(ctx.mode.p2_reps), keep_traces=True),
]


def summarise_points(summ: pd.DataFrame) -> pd.DataFrame:
    """One row per (set-up, period, Pb) with goodput in Mb/s and the model columns."""
    s = summ.copy()
    for k in ("mean", "ci_lo", "ci_hi"):
        s[f"goodput_Mbps_{k}"] = s[f"goodput_bps_{k}"] / 1e6
    return add_models(s.sort_values(["setup", "pb", "tb_us"]).reset_index(drop=True))


def analyse(ctx: Context) -> None:
    """Fig. 2 (base set-up) and the sensitivity grid, with the models beside them; every
    table written as CSV goes into ``ctx.tables``."""
    fig2 = summarise_points(ctx.results["part1_fig2"].summary)
    sens = summarise_points(pd.concat([ctx.results["part1_fig2"].summary,
                                       ctx.results["part1_sensitivity"].summary],
                                      ignore_index=True))
    verdicts = pd.DataFrame([
        {"setup": name, "claim_id": cid, "verdict": c.verdict, "burstlab_value": c.value,
         "note": c.note}
        for name, g in sens.groupby("setup", sort=False)
        for cid, c in checks_for(g, ctx.data).items()])
    fit = rtt_fit(sens, ctx.data)
    ctx.values.update(fig2=fig2, sens=sens, sens_verdicts=verdicts, rtt_fit=fit)
    ctx.tables["rtt_fit"] = fit.assign(**ctx.stamp)
    ctx.tables["sensitivity_verdicts"] = verdicts.assign(
        seed=SEED, burstlab_version=_core.__version__, mode=ctx.mode.name)
    stamp = ctx.stamp
    ctx.tables["fig2"] = fig2[[c for c in COLUMNS if c in fig2.columns]].rename(
        columns=RENAME).assign(**stamp)
    sens_only = sens[sens["setup"] != BASE.name]
    ctx.tables["sensitivity"] = sens_only[[c for c in COLUMNS if c in sens.columns]].rename(
        columns=RENAME).assign(**{**stamp, "replications": ctx.mode.sens_reps})
    runs = pd.concat([ctx.results[k].table for k in ("part1_fig2", "part1_sensitivity")],
                     ignore_index=True)
    keep = [c for c in ["setup", "tb_us", "pb", "variant", "access", "fibre_km", "b",
                        "ack_loss", "duration_s", "seed", "replication", "burstlab_version",
                        "goodput_bps", "segments_sent", "retransmits", "td_events",
                        "to_events", "mean_rtt_s", "mean_rto_s", "segments_per_burst",
                        "measured_s"] if c in runs.columns]
    ctx.tables["runs"] = runs[keep]
    analyse_part2(ctx)


def analyse_part2(ctx: Context) -> None:
    """Fig. 5: one row per run (``fig5_runs``) and per (load, R_MAX) (``fig5``)."""
    sw = ctx.results["part2_fig5"]
    pts = sw.runs[sw.runs["status"] == "ok"]
    rows = []
    for r in pts.to_dict("records"):
        res = sw.result(int(r["point"]), int(r["replication"]))
        rows.append({"load": float(r["load"]), "rmax": str(r["rmax"]),
                     "replication": int(r["replication"]), "seed": int(r["seed"]),
                     "duration_s": float(r["duration_s"]),
                     **ackratio.run_row(res.flows, res.obs_flows, res.burst_trace)})
    runs = pd.DataFrame(rows)
    fig5 = ackratio.summarise(runs)
    ctx.values.update(fig5=fig5, fig5_runs=runs,
                      fig5_intermediate=ackratio.intermediate_table(fig5))
    stamp = {**ctx.stamp, "replications": ctx.mode.p2_reps}
    ctx.tables["fig5"] = fig5.assign(**stamp)
    ctx.tables["fig5_runs"] = runs.assign(burstlab_version=_core.__version__,
                                          mode=ctx.mode.name)


PAPER.analyse = analyse


#: The set-ups of the base-RTT sweep, by name: the base (10 µs access delay) and the
#: access-delay alternatives of :mod:`.testbed` (100 µs … 4 ms one way).
def rtt_setups() -> list[str]:
    from burstlab.reproduce.papers.zhou.testbed import ACCESS_DELAYS

    return [BASE.name, *(f"access_delay_{d}" for d in ACCESS_DELAYS)]


def rtt_fit(sens: pd.DataFrame, data: Any) -> pd.DataFrame:
    """How well each base round trip (access-delay set-up) fits the paper's printed
    optimum period (250 µs, per lossy Pb): ``misfit`` is the mean over lossy Pb of
    |log2(burstlab's best period / 250 µs)| (octaves); the smallest is the best-fitting
    RTT0. Only the optimum is fitted (a calibration, docs/topics/verdicts.md): the
    drops from 250 µs to 3000 µs (40 % at Pb = 0.1 %, 16 % at 0.8 %) and the cost of
    Pb = 0.8 % at 250 µs (52 %) are listed beside it and left out of the fit, so the
    claims judged on the fitted set-up judge numbers the fit did not see."""
    opt_us = float(data["fig2.optimal_period"].value) * 1e6
    end_us = float(data["setup.max_period"].value) * 1e6
    drops = data["fig2.drop_to_3000us"]
    cost = float(data["fig2.loss_cost_pb0.8"].value)
    pb_max = max(data["setup.pb_values"].value)
    rows = []
    for name in rtt_setups():
        g = sens[sens["setup"] == name]
        if g.empty:
            continue
        mean = g.pivot_table(index="tb_us", columns="pb", values="goodput_Mbps_mean")

        def at(t: float, pb: float, m: pd.DataFrame = mean) -> float:
            if pb not in m.columns or not np.isclose(m.index, t).any():
                return float("nan")
            col = m[pb].to_numpy(float)
            return float(col[np.flatnonzero(np.isclose(m.index.to_numpy(float), t))[0]])

        lossy = [float(p) for p in mean.columns if float(p) > 0]
        tb = mean.index.to_numpy(float)
        opts = {p: float(tb[int(np.nanargmax(mean[p].to_numpy(float)))]) for p in lossy
                if mean[p].notna().any()}
        errs = [abs(math.log2(t / opt_us)) for t in opts.values()]
        row: dict[str, Any] = {"setup": name, "access_delay": str(g["access_delay"].iloc[0]),
                               "rtt0_measured_us": 1e6 * float(np.nanmedian(
                                   g["rtt0_measured_s"]))}
        for p, t in opts.items():
            row[f"optimum_us_pb{100 * p:g}%"] = t
        for pb, paper in zip(drops.x, drops.value, strict=True):
            d = 1.0 - at(end_us, float(pb)) / at(opt_us, float(pb))
            row[f"drop_250_3000us_pb{100 * float(pb):g}%"] = d
            row[f"drop_paper_pb{100 * float(pb):g}%"] = float(paper)
        row["loss_cost_pb0.8%_at_250us"] = 1.0 - at(opt_us, pb_max) / at(opt_us, 0.0)
        row["loss_cost_paper"] = cost
        row["misfit"] = float(np.mean(errs)) if errs else float("nan")
        row["numbers_fitted"] = len(errs)
        rows.append(row)
    out = pd.DataFrame(rows)
    if len(out):
        out["best_fit"] = out["misfit"] == out["misfit"].min()
    return out
