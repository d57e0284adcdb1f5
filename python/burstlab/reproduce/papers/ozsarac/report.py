"""ozsarac's report body: the set-up and our choices, the claims, the figures and the
tables, what is not reproduced, and where burstlab's bursts can be reordered.

Read first: :func:`build_report`; every number comes from :func:`.experiments.analyse`.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from burstlab.reproduce.framework import Claim, Context
from burstlab.reproduce.papers.ozsarac.experiments import (
    MODES,
    PAPER,
    dynamic_points,
    linear_points,
    mesh_points,
)
from burstlab.reproduce.papers.ozsarac.topology import (
    MESH_ATTACH,
    MESH_READING,
    MESH_READINGS,
    MESH_ROUTES,
    UDP_MEAN_OFF,
    UDP_MEAN_ON,
    t_max_s,
)
from burstlab.reproduce.report import Report, fmt

img = PAPER.image  # a registered figure into the report


def full_mode_estimate(ctx: Context) -> str:
    """Full mode's CPU time, extrapolated from this run's CPU seconds per simulated
    second per topology (an estimate, not a measurement)."""
    full = MODES["full"]
    parts, total = [], 0.0
    for name, pts, reps in (("linear", linear_points, ctx.mode.reps),
                            ("mesh", mesh_points, 1), ("dynamic", dynamic_points, 1)):
        sw = ctx.results.get(name)
        if sw is None:
            continue
        sim_here = sum(p["duration_s"] for p, _ in pts(ctx.mode)) * reps
        cpu_here = float(sw.stats.get("sum_run_s") or 0.0)
        if sim_here <= 0 or cpu_here <= 0:
            continue
        sim_full = sum(p["duration_s"] for p, _ in pts(full)) * (
            full.reps if name == "linear" else 1)
        est = cpu_here / sim_here * sim_full
        total += est
        parts.append(f"{name} {est / 3600:.1f} CPU-hours ({sim_full:.0f} simulated s)")
    if not parts:  # every run came from the store: nothing timed
        return ""
    return (f"Full mode, extrapolated from this run: {', '.join(parts)}; about "
            f"{total / 2 / 3600:.1f} h of wall time on 2 cores.")


def build_report(ctx: Context, claims: list[Claim]) -> Report:
    m = ctx.mode
    r = Report(PAPER.title)
    runs = {k: v.stats for k, v in ctx.results.items()}
    r.p(f"Mode **{m.name}**: linear runs settled (MSER-5 warm-up, batch-means 95 % "
        f"interval within {100 * m.rel_precision:g} % of the mean, from {m.linear_s:g} s "
        f"doubling up to {m.linear_cap_s:g} s; section \"Settled measurement\") × "
        f"{m.reps} replications; mesh {m.mesh_s:g} s × {m.mesh_reps}; seed "
        f"{ctx.stamp['seed']}, burstlab {ctx.stamp['burstlab_version']}. Runs: "
        + ", ".join(f"{k} {v.get('total')} ({v.get('cached')} from the store)"
                    for k, v in runs.items())
        + f". Wall time so far {ctx.wall_s:.0f} s."
        + (" Quick mode runs fewer linear points and replications at the same settled "
           "run lengths as full mode; it still scales the mesh and dynamic durations "
           "down (the paper's durations are not given for §3.1–3.5) — read their CIs."
           if m.name != "full" else ""))
    from burstlab.reproduce.papers.ozsarac import costs

    doc = costs.load()
    r.p(f"Full mode: about {doc['total']['wall_h_2_cores']:.1f} h on 2 cores, from measured "
        "runs (section \"Full-mode cost\")." if doc else
        (full_mode_estimate(ctx) or "Full mode: not measured."))
    r.h(2, "Set-up, and our choices for what the paper leaves out")
    r.bullets([
        "Linear topology (fig. 1, picture not in the text): ftp_server – E1 ═ C1 ═ C2 ═ "
        "E2 – ftp_client, and rt_server – E3 ═ C1, C2 ═ E4 – rt_client; the TCP and UDP "
        "bursts meet on C1 → C2. One wavelength per fibre, JET + LAUC-VF, 1 Gb/s and "
        "1 ms optical, 500 Mb/s and 1 ms electrical, 5 µs switching, 200 µs per hop.",
        "Segments of 1040 B on the wire (1000 B payload: ns-2's packetSize_), receive "
        "window 10 000, ≤ 10 000 packets per burst, assembly queues of 100 000 packets; "
        "ACKs bypass assembly on a lossless link; ns-2 TCP agents (initial window 2).",
        f"UDP real-time source: exponential on/off, mean on {UDP_MEAN_ON}, off "
        f"{UDP_MEAN_OFF} (on 1 % of the time, our choice of period), 500 Mb/s, 4 ms timer "
        "assembly at E3. Electrical queues are unbounded, so burst contention is the only "
        "loss.",
        "CWBA uses the sender's mark on the last segment of each window (see "
        "`world::hosts`: the segment that brings the count since the last mark to the "
        "window; after a timeout the retransmission; in fast recovery the window is "
        "ssthresh); ECWBA the ingress's Reno state-machine replica (§2.3); MCWBA the mark "
        "or its timer, which runs from each burst's first packet (§2.2).",
        f"Mesh (fig. 2, picture not in the text; our reading `{MESH_READING}`, see "
        "`topology.py` and the section on the mesh reading below): eight core nodes "
        "N1–N8 in a ring with chords N1–N5 and N3–N7, 2.5 ms core fibres; edges attached "
        + ", ".join(f"{e} on {c}" for e, c in MESH_ATTACH.items())
        + "; edge fibres and access links 0.1 ms (edge fibres with three wavelengths). "
        "Routes: "
        + "; ".join(f"{i}: {'–'.join(rt)}" for i, rt in MESH_ROUTES.items())
        + ". Timer periods carry N(0, 10 %) jitter.",
        f"T_max = 10 000 × 1040 B / 500 Mb/s + 5 µs + 200 µs = {1e3 * t_max_s():.3f} ms.",
    ])
    r.claims_section(claims)
    r.h(2, "Linear topology")
    img(r, "fig3")
    r.table(ctx.values["table1"])
    img(r, "figs4_5")
    r.table(ctx.values["ss"])
    r.h(3, "ECWBA")
    r.table(ctx.values["ecwba"])
    ecwba_error_text(r, ctx)
    r.h(3, "MCWBA")
    img(r, "fig9")
    mc: pd.DataFrame = ctx.values["mcwba"]
    r.table(mc[["tb_ms", "goodput_Mbps_mean", "goodput_Mbps_ci_lo", "goodput_Mbps_ci_hi",
                "gain_vs_cwba_pct", "mean_burst_segments", "to_per_run", "td_per_run"]])
    img(r, "figs10_11")
    reps: pd.DataFrame = ctx.values["mcwba_reps"]
    per = reps.drop_duplicates("replication")[["replication", "cwba_goodput_Mbps",
                                               "mean_gain_below_tmax_pct"]]
    r.p("Figs 10–11 show single runs (the paper: \"two different TCP flows\", an "
        "optimistic and a pessimistic case; the linear topology has one TCP flow, so we "
        "read them as two of the five random-variable sets). Per replication, CWBA's "
        "goodput and MCWBA's mean gain over it at caps below T_max:")
    r.table(per)
    lin: pd.DataFrame = ctx.values["linear"]
    settled_text(r, ctx)
    r.h(3, "Every linear point")
    r.table(lin.drop(columns=["point", "topology", "settle_reason"]))
    r.h(2, "Mesh, static flows")
    img(r, "mesh_figs6_7_8_12")
    r.table(ctx.values["mesh"].drop(columns=["point", "topology"]))
    mesh_reading_text(r, ctx)
    r.h(3, "Table 2: per flow, CWBA against each flow's best timer")
    r.table(ctx.values["table2"])
    r.h(3, "Table 3: per flow, MCWBA (best cap) against CWBA")
    r.table(ctx.values["table3"])
    r.h(3, "Figs 13–15: flow 4 and all flows under MCWBA")
    img(r, "figs13_14_15")
    pf: pd.DataFrame = ctx.values["mesh_per_flow"]
    f4 = pf[(pf["name"] == "flow4") & pf["kind"].isin(["mcwba", "cwba"])]
    r.table(f4[["kind", "tb_ms", "goodput_Mbps", "burst_loss_prob", "mean_burst_segments",
                "data_bursts"]])
    mp: pd.DataFrame = ctx.values["mesh"]
    allp = mp[mp["kind"].isin(["mcwba", "cwba"])]
    if len(f4) and len(allp):
        r.p("Flow 4's burst loss probability "
            + ", ".join(f"{k} {fmt_ms(t)}: {fmt(float(v))}" for k, t, v in zip(
                f4["kind"], f4["tb_ms"], f4["burst_loss_prob"], strict=True))
            + "; all flows "
            + ", ".join(f"{k} {fmt_ms(t)}: {fmt(float(v))}" for k, t, v in zip(
                allp["kind"], allp["tb_ms"], allp["burst_loss_prob"], strict=True))
            + ". The paper: flow 4's loss is above the average, and MCWBA's mean burst "
            "length grows with the cap towards CWBA's and never exceeds it.")
    r.h(2, "Mesh, dynamic flows (§3.6)")
    r.p(f"Flows 1, 5, 8 run in the first half, 2, 4, 9 in the second, 3, 6, 7 throughout; "
        f"{m.dyn_s:g} s per run (the paper: 10 000 s), {m.dyn_reps} replication(s) with "
        "seeded start times. Tables 4–6 are measured two ways: each flow's goodput over "
        "the whole window (the paper's reading: a flow active in one half counts half its "
        "rate in table 4, so table 4's total is the mean of tables 5 and 6), and over the "
        "flow's own active time within the window (burstlab's `measured_s`; "
        "`table*_active_time.csv`). The `total` rows add the flows' rates.")
    if "dynamic" in ctx.missing:
        got, need = ctx.missing["dynamic"]
        r.p(f"This report was judged from the store (`--stored-only`), which holds {got} "
            f"of the {need} dynamic-flow runs: figs 16–18 and tables 4–6 are left out, "
            "and their claims are not comparable until the runs are in the store.")
    img(r, "figs16_18")
    for win, number in (("all", 4), ("first", 5), ("second", 6)):
        d = ctx.values.get("dynamic", {}).get(win)
        if d is not None:
            r.h(3, f"Table {number} ({win}; whole window)")
            r.table(d)
        d = ctx.values.get("dynamic_active", {}).get(win)
        if d is not None:
            r.h(3, f"Table {number} ({win}; active time)")
            r.table(d)
    from burstlab.reproduce.papers.ozsarac.regimes import regimes_text

    regimes_text(r, ctx)
    full_mode_cost_text(r, ctx)
    r.h(2, "Reordering")
    r.p("Every flow here enters at 500 Mb/s, half a wavelength, and follows one path with "
        "one offset per path: its bursts leave in order, reserve the wavelength in order "
        "(JET with the same offset cannot place a later burst before an earlier one), and "
        "reach the receiver in order. Bursts would overtake each other only if a flow's "
        "rate exceeded a wavelength with several wavelengths per fibre, or with offsets "
        "that differ between a flow's bursts; neither occurs in these scenarios, so no "
        "result above is affected by reordering.")
    choices_text(r, ctx)
    nobs_text(r)
    r.h(2, "Not reproduced yet")
    r.bullets([
        "Every figure of §3 (figs 3–18) is drawn above from our runs, but not the "
        "paper's figs 1–2 (topology pictures, not in the text). In quick mode the "
        "dynamic runs are 0.2 % of the paper's 10 000 s, so figs 16–18 and tables 4–6 "
        "show the start of the scenario only.",
        "The estimator is Reno's state machine (§2.3 gives it for Reno only); ECWBA with "
        "a NewReno or SACK sender runs but estimates a Reno window, and its error there "
        "is not reported.",
    ])
    return r


def settled_text(r: Report, ctx: Context) -> None:
    """How the linear runs were measured: per point the run length reached, the MSER-5
    warm-up, the precision, and the goodput with a fixed 10 s warm-up beside it."""
    m = ctx.mode
    lin: pd.DataFrame = ctx.values["linear"]
    r.h(3, "Settled measurement")
    r.p("Every linear run starts with ssthresh at the 10 000-segment receive window, so "
        "its first seconds run at the access rate and its windows take a long time to "
        "settle under ≈ 0.5 % burst loss. Each run's goodput series (1 s samples, "
        "`sim.trace.goodput`) is cut at the warm-up MSER-5 finds (White 1997; White, "
        "Cobb & Spratt 2000) and measured by batch means (10 batches); a point whose "
        f"interval is wider than {100 * m.rel_precision:g} % of its mean runs again twice "
        f"as long, up to {m.linear_cap_s:g} s (`burstlab.reproduce.settle`). A point "
        "still drifting at the cap has no steady-state mean (NaN: its claims are not "
        "comparable); one that is stationary but imprecise keeps its mean and says so.")
    cols = ["kind", "variant", "tb_ms", "duration_s", "warmup_mser_s_max",
            "rel_half_width_max", "settled", "goodput_Mbps_mean",
            "goodput_fixed_warmup_Mbps"]
    r.table(lin[[c for c in cols if c in lin.columns]])
    bad = lin[~lin["settled"].astype(bool)]
    if len(bad):
        r.p(f"{len(bad)} of {len(lin)} points did not reach the precision within "
            f"{m.linear_cap_s:g} s: " + "; ".join(
                f"{k} {fmt_ms(float(t)) or ''} {v}: {why}".replace("  ", " ")
                for k, t, v, why in zip(bad["kind"], bad["tb_ms"], bad["variant"],
                                        bad["settle_reason"], strict=True)) + ".")


def choices_text(r: Report, ctx: Context) -> None:
    """The section "What burstlab had to choose", with the UDP on/off sweep."""
    from burstlab.reproduce.choices import Choice, section

    udp: pd.DataFrame | None = ctx.values.get("udp_on")
    effect, decisive = "", False
    if udp is not None and len(udp):
        effect = "; ".join(
            f"mean on {fmt(float(u['udp_mean_on_ms']))} ms: CWBA {fmt(u['gain_pct'])} % "
            f"over the best timer ({fmt(float(u['ap_opt_ms']))} ms), {u['verdict']}"
            for _, u in udp.iterrows()) + " (Reno; the paper +36 %)"
        # Decisive when the verdict or the gain's sign changes across the range.
        decisive = bool(udp["verdict"].nunique() > 1 or (udp["gain_pct"] > 0).nunique() > 1)
    section(r, [
        Choice("UDP source's mean on period", f"{UDP_MEAN_ON} (off {UDP_MEAN_OFF})",
               "1–100 ms (off 99× on)",
               "§3 gives the rate (500 Mb/s) and the duty cycle (1 %) only; a real-time "
               "source's bursts last milliseconds to a frame time", effect, decisive),
        Choice("UDP packet size", "1040 B", "200–1500 B",
               "not given; the TCP segment's size keeps the UDP bursts' byte counts "
               "comparable", "not swept"),
        Choice("Run length and warm-up, §3.1–3.5", "settled runs (MSER-5, ≤ "
               f"{ctx.mode.linear_cap_s:g} s)", "10–10 000 s",
               "not given; ssthresh starts at the receive window, so short runs measure "
               "the start-up transient",
               "the section \"Settled measurement\" gives each point's goodput settled "
               "and with a fixed 10 s warm-up, side by side"),
        Choice("Mesh topology and routes", f"reading `{MESH_READING}` (fig. 2 is not in "
               "the text)", "any 8-core graph with the stated nodes and delays",
               "the text gives nodes, delays and flows, not the links; the reading decides "
               "which flows share a single-wavelength fibre", *mesh_reading_effect(ctx)),
        Choice("Mesh replications' random input", "flow start times U[0, 100 ms)",
               "any seeded perturbation", "CWBA and MCWBA in the mesh have no other "
               "random input", "not swept"),
        Choice("Electrical queues", "unbounded", "≥ one window",
               "§3: burst contention is the only loss", "none while no packet is dropped"),
    ])


def fmt_ms(tb: float) -> str:
    return "" if not tb else f"{tb:g} ms"


def ecwba_error_text(r: Report, ctx: Context) -> None:
    """ECWBA's estimation error per time window (issue 12)."""
    ew: pd.DataFrame | None = ctx.values.get("ecwba_windows")
    r.h(4, "Estimation error over time")
    if ew is None or not len(ew):
        r.p("No ECWBA window runs in this mode.")
        return
    r.p("The estimator (ozsarac §2.3, a replica of the **Reno** sender's state machine at "
        "the ingress; the paper gives it for Reno only, and burstlab's `ecwba` always "
        "estimates a Reno window) against the sender's true cwnd, sampled at every data "
        "segment entering the ingress queue, per time window of the linear ECWBA run "
        "(replication 0). Each window is the same deterministic run with its statistics "
        "reset at the window's start (`sim.warmup`), so the windows are consecutive parts "
        "of one run. Relative error = |estimate − true| / max(true, 1).")
    img(r, "ecwba_error")
    r.table(ew.drop(columns=["replication"]))
    worst = ew.iloc[int(ew["est_mean_rel_err_pct"].fillna(-1).to_numpy().argmax())]
    lossy = ew[(ew["timeouts"] > 0) | (ew["fast_recoveries"] > 0)]
    clean = ew[(ew["timeouts"] == 0) & (ew["fast_recoveries"] == 0)
               & (ew["window_from_s"] > 0)]
    r.p(f"Largest window error: {fmt(float(worst['est_mean_rel_err_pct']))} % "
        f"({fmt(float(worst['est_mean_abs_err_segments']))} segments) in "
        f"[{fmt(float(worst['window_from_s']))}, {fmt(float(worst['window_to_s']))}) s. "
        f"The first window holds slow start: the replica sees each ACK at the ingress one "
        "access-link delay (1 ms) before the sender does, so while cwnd doubles every "
        "RTT its estimate leads the true cwnd by that millisecond's ACKs. "
        + (f"Later windows without loss events: mean relative error "
           f"{fmt(float(clean['est_mean_rel_err_pct'].mean()))} % "
           f"({len(clean)} windows). " if len(clean) else "")
        + ("Windows with timeouts or fast recoveries: " + "; ".join(
            f"[{fmt(float(x['window_from_s']))}, {fmt(float(x['window_to_s']))}) s "
            f"{int(x['timeouts'])} TO, {int(x['fast_recoveries'])} FR: "
            f"{fmt(float(x['est_mean_rel_err_pct']))} %" for _, x in lossy.iterrows()) + "."
           if len(lossy) else "No window holds a timeout or fast recovery."))


def full_mode_cost_text(r: Report, ctx: Context) -> None:
    """Full mode's wall time: measured representative runs × the full mode's run list
    (``full_mode_cost.json``, written by :mod:`.costs`)."""
    from burstlab.reproduce.papers.ozsarac import costs

    r.h(2, "Full-mode cost")
    doc = costs.load()
    if doc is None:
        r.p(full_mode_estimate(ctx))
        return
    m = pd.DataFrame(doc["measured"])
    r.p(f"Measured on {doc['machine']['cpus']} cores ({doc['machine']['processor']}, "
        f"{doc['machine']['platform']}; {doc.get('when', '')}), one run at a time, "
        "`python -m burstlab.reproduce.papers.ozsarac.costs`:")
    r.table(m)
    by = pd.DataFrame([{"experiment": k, **v} for k, v in doc["total"]["by_experiment"].items()])
    by["cpu_h"] = by["cpu_s"] / 3600
    r.table(by.drop(columns=["cpu_s"]))
    r.p(f"Full mode = Σ over its runs of (measured CPU seconds per simulated second of "
        f"that experiment and assembler) × (simulated seconds): "
        f"{doc['total']['cpu_h']:.1f} CPU-hours, **about {doc['total']['wall_h_2_cores']:.1f} "
        "h of wall time on 2 cores**. " + doc.get("note", ""))
    est = full_mode_estimate(ctx)
    if est:
        r.p(est + " (extrapolated from the wall time of this run's runs, for comparison; "
            "on a loaded machine it overstates).")


PAPER.report = build_report


#: ozsarac's timer baseline run in nOBS v2.1 and in burstlab on the same exported
#: scenarios (``python -m burstlab.export.nobs_ozsarac --duration 60 --warmup 20
#: --seeds 4,5,6,7,8``; docs/topics/nobs.md): a measurement kept with the package, since
#: nOBS is built only where its sources are (``make nobs``).
NOBS_BASELINE = Path(__file__).with_name("nobs_timer_baseline.csv")


def nobs_text(r: Report) -> None:
    """The timer baseline in the paper's group's own simulator beside burstlab's: means
    per assembly period and the paired differences over (period, seed), computed from
    :data:`NOBS_BASELINE`."""
    if not NOBS_BASELINE.exists():
        return
    from burstlab.reproduce import verdict as V

    df = pd.read_csv(NOBS_BASELINE)
    r.h(2, "The timer baseline in nOBS")
    wide = df.pivot_table(index=["tb_ms", "seed"], columns="simulator",
                          values=["goodput_mbps", "burst_loss_prob", "timeouts"])
    per_tb = df.groupby(["tb_ms", "simulator"])[["goodput_mbps", "burst_loss_prob",
                                                 "timeouts"]].mean().unstack("simulator")
    table = pd.DataFrame({
        "Tb (ms)": per_tb.index.astype(float),
        "goodput burstlab (Mb/s)": per_tb[("goodput_mbps", "burstlab")].to_numpy(),
        "goodput nOBS (Mb/s)": per_tb[("goodput_mbps", "nobs")].to_numpy(),
        "burst loss burstlab (%)": 100 * per_tb[("burst_loss_prob", "burstlab")].to_numpy(),
        "burst loss nOBS (%)": 100 * per_tb[("burst_loss_prob", "nobs")].to_numpy(),
        "timeouts burstlab": per_tb[("timeouts", "burstlab")].to_numpy(),
        "timeouts nOBS": per_tb[("timeouts", "nobs")].to_numpy(),
    })
    dg = V.paired_difference(wide[("goodput_mbps", "nobs")].to_numpy(),
                             wide[("goodput_mbps", "burstlab")].to_numpy())
    dl = V.paired_difference(100 * wide[("burst_loss_prob", "nobs")].to_numpy(),
                             100 * wide[("burst_loss_prob", "burstlab")].to_numpy())
    span = df["duration_s"].iloc[0]
    r.p(f"nOBS v2.1, the OBS extension of ns-2.35 written by the paper's group, runs the "
        f"linear topology's timer baseline (Reno) exported by `burstlab export nobs`, beside "
        f"burstlab on the same scenarios: {len(wide)} paired runs over "
        f"{df['tb_ms'].nunique()} assembly periods and {df['seed'].nunique()} seeds, each "
        f"counting {span:g} s after a 20 s warm-up. nOBS aborts past about 64 simulated "
        "seconds (a floating-point equality check, docs/topics/nobs.md), so these runs are "
        "far shorter than the settled runs above; they compare the two simulators, not the "
        "paper's steady state.")
    r.table(table)
    r.p(f"Paired differences nOBS − burstlab over the {len(wide)} runs: goodput "
        f"{dg.estimate:+.3g} Mb/s {dg.text()}, burst loss {dl.estimate:+.3g} points "
        f"{dl.text()} (95 % paired-t intervals). "
        + ("Both intervals contain 0: the two simulators agree on the baseline within "
           "these runs' noise." if dg.contains(0.0) and dl.contains(0.0) else
           "An interval excludes 0: the simulators differ on the baseline by that much."))


def _reading_rows(ctx: Context) -> pd.DataFrame:
    """Per reading and assembler (CWBA, the paper's AP_opt timer): flows under 1 % of
    the total, the smallest and largest share, the total goodput (Mb/s)."""
    sm: pd.DataFrame | None = ctx.values.get("mesh_share_summary")
    if sm is None or not len(sm):
        return pd.DataFrame()
    rows = []
    for (rd, kind, tb), g in sm.groupby(["mesh_reading", "kind", "tb_ms"]):
        if kind not in ("cwba", "timer") or (kind == "timer" and float(str(tb)) != 26.0):
            continue
        rows.append({"mesh_reading": rd, "kind": kind, "tb_ms": tb,
                     "flows_under_1pct": int((g["share_pct"] < 1.0).sum()),
                     "min_share_pct": float(g["share_pct"].min()),
                     "max_share_pct": float(g["share_pct"].max()),
                     "total_goodput_Mbps": float(g["goodput_Mbps"].sum()),
                     "start_sets_n": int(g["start_sets_n"].min())})
    return pd.DataFrame(rows)


def mesh_reading_effect(ctx: Context) -> tuple[str, bool]:
    """The mesh reading's effect for "What burstlab had to choose": starved flows and
    CWBA's total against the 26 ms timer's on each reading; decisive when the readings
    differ in the number of starved flows or in the sign of CWBA's gain."""
    t = _reading_rows(ctx)
    if not len(t):
        return "not run in this mode", False
    parts, starved, signs = [], set(), set()
    for rd, g in t.groupby("mesh_reading"):
        cw = g[g["kind"] == "cwba"]
        tm = g[g["kind"] == "timer"]
        if not len(cw):
            continue
        c = cw.iloc[0]
        txt = (f"`{rd}`: {int(c['flows_under_1pct'])} of 9 flows under 1 % with CWBA "
               f"(shares {fmt(c['min_share_pct'])}–{fmt(c['max_share_pct'])} %)")
        starved.add(int(c["flows_under_1pct"]))
        if len(tm):
            x = tm.iloc[0]
            gpc = 100.0 * (c["total_goodput_Mbps"] / x["total_goodput_Mbps"] - 1.0)
            signs.add(gpc > 0)
            txt += (f", {int(x['flows_under_1pct'])} with the 26 ms timer; CWBA's total "
                    f"{fmt(c['total_goodput_Mbps'])} Mb/s against the timer's "
                    f"{fmt(x['total_goodput_Mbps'])} ({fmt(gpc)} %)")
        parts.append(txt)
    return "; ".join(parts) + " (paper: every flow 5.48–21.05 %)", (
        len(starved) > 1 or len(signs) > 1)


def mesh_reading_text(r: Report, ctx: Context) -> None:
    """Table 2's per-flow shares beside the paper's, on each reading of fig. 2."""
    r.h(3, "Per-flow shares and the mesh reading")
    sm: pd.DataFrame | None = ctx.values.get("mesh_share_summary")
    if sm is None or not len(sm):
        r.p("No mesh runs in this mode.")
        return
    r.p("Fig. 2 is not in the text, so the mesh is burstlab's reading (`topology.py`, "
        "`MESH_READINGS`). From the paper: 14 nodes (core N1–N8, ingress N9–N11, egress "
        "N12–N14), 0.1 ms access and 2.5 ms core delays, nine flows S_i → D_i, a single "
        "data wavelength, losses only from contention between the nine flows, flow 7 on "
        "one of the longest routes, and Table 2's shares under CWBA (5.48–21.05 %: no "
        "flow starves). burstlab's own choices: the core graph, where the edges attach, "
        "the routes. Each flow's share is its goodput over the run's total, averaged "
        "over start sets (95 % intervals cut to [0, 100] %).")
    img(r, "table2_shares")
    rows = _reading_rows(ctx)
    if len(rows):
        r.table(rows)
    cw = sm[(sm["kind"] == "cwba") & (sm["mesh_reading"] == MESH_READING)]
    starved = cw[cw["share_pct"] < 1.0]
    if len(starved):
        r.p(f"**Capture.** On the `{MESH_READING}` reading {len(starved)} of {len(cw)} "
            "flows get under 1 % of the total under CWBA (flow "
            + ", ".join(str(int(f)) for f in starved["flow"]) + "). A burst of a whole "
            "window (up to 10 000 segments, 83 ms on a 1 Gb/s wavelength) holds the one "
            "wavelength of a shared fibre; the flow whose bursts it meets loses a window, "
            "times out, restarts with one-segment bursts that meet those long "
            "reservations, backs its RTO off exponentially and stays starved.")
    for rd in sorted(set(sm["mesh_reading"])):
        c = sm[(sm["kind"] == "cwba") & (sm["mesh_reading"] == rd)].set_index("flow")
        shared = MESH_READINGS[rd].shared_fibres()
        if not len(c) or not shared:
            continue
        lows = {int(f) for f in c.index if c.loc[f, "share_pct"] < 1.0}
        with_low = sum(1 for fl in shared.values() if lows & set(fl))
        alone = sorted(set(c.index) - {f for fl in shared.values() for f in fl})
        r.p(f"Reading `{rd}`, CWBA: core fibres shared by several flows: " + "; ".join(
            f"{a} → {b} (flows {', '.join(map(str, fl))}; under 1 %: "
            f"{', '.join(str(f) for f in fl if f in lows) or 'none'})"
            for (a, b), fl in shared.items())
            + f". {with_low} of {len(shared)} shared fibres carry a starved flow"
            + (f"; the flows on no shared fibre get {fmt(c.loc[alone, 'share_pct'].min())}"
               f"–{fmt(c.loc[alone, 'share_pct'].max())} %" if alone else "") + ".")
    r.table(sm[sm["kind"] == "cwba"].drop(columns=["kind", "tb_ms"]))
