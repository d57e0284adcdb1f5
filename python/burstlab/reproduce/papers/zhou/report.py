"""zhou's report body: the set-up and our choices for its unknowns, the claims table,
fig. 2 with the model beside the simulation, the sensitivity of every verdict to the
choices, and part 2 (ACK-ratio assembly, fig. 5) with our reading of its network.

Read first: :func:`build_report`. Every number comes from the tables of
:func:`.experiments.analyse` and the checks of :mod:`.checks`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from burstlab.reproduce.framework import REPRODUCES, Claim, Context
from burstlab.reproduce.papers.zhou import ackratio as ar
from burstlab.reproduce.papers.zhou.checks import optima
from burstlab.reproduce.papers.zhou.experiments import PAPER
from burstlab.reproduce.papers.zhou.testbed import (
    BASE,
    CORE_PROCESSING_US,
    DATA_WAVELENGTHS,
    EDGE_PROCESSING_US,
    setups,
)
from burstlab.reproduce.report import Report, fmt

img = PAPER.image  # a registered figure into the report


def point_table(df: pd.DataFrame) -> pd.DataFrame:
    d = df.sort_values(["pb", "tb_us"])
    return pd.DataFrame({
        "Pb (%)": 100 * d["pb"], "Tb (µs)": d["tb_us"],
        "sim goodput [95 % CI] (Mb/s)": [f"{fmt(a)} [{fmt(b)}, {fmt(c)}]" for a, b, c in
                                         zip(d["goodput_Mbps_mean"], d["goodput_Mbps_ci_lo"],
                                             d["goodput_Mbps_ci_hi"], strict=True)],
        "model (Mb/s)": d["model_variant_Mbps"], "SACK model (Mb/s)": d["model_sack_Mbps"],
        "sim/model − 1": d["model_rel_err"], "S measured (segments)": d["segments_per_burst_mean"],
        "RTT measured (ms)": 1e3 * d["mean_rtt_s_mean"], "TD per run": d["td_events_mean"],
        "TO per run": d["to_events_mean"], "simulated s per run": d["duration_s"]})


def _setup_effect(verd: pd.DataFrame, sens: pd.DataFrame, names: list[str],
                  ids: tuple[str, ...]) -> tuple[str, bool]:
    """The verdicts of claims ``ids`` on each set-up of ``names`` (with its best period
    at the lowest lossy Pb), and whether any verdict differs between them."""
    parts, differ = [], False
    lossy = sens[sens["pb"] > 0]
    for cid in ids:
        v = verd[verd["claim_id"] == cid].set_index("setup")
        vs = [str(v.loc[n, "verdict"]) for n in names if n in v.index]
        differ |= len(set(vs)) > 1
    for n in names:
        v = verd[verd["setup"] == n].set_index("claim_id")
        g = lossy[lossy["setup"] == n]
        best = ""
        if len(g):
            h = g[g["pb"] == float(g["pb"].min())]
            y = h["goodput_Mbps_mean"].to_numpy(float)
            best = f"best period {float(h['tb_us'].to_numpy(float)[int(y.argmax())]):g} µs"
        got = []
        for cid in ids:
            if cid in v.index:
                row = v.loc[cid]
                got.append(f"{cid.removeprefix('fig2.')} {row['verdict']!s} "
                           f"({row['burstlab_value']!s})")
        parts.append(f"{n}: {best}; " + ", ".join(got))
    return "; ".join(parts), differ


def choices_text(r: Report, ctx: Context) -> None:
    """The section "What burstlab had to choose": every unknown of the testbed, its
    range, and what the sensitivity set-ups show."""
    from burstlab.reproduce.choices import Choice, section
    from burstlab.reproduce.papers.zhou.testbed import ACCESS_DELAYS

    verd: pd.DataFrame = ctx.values["sens_verdicts"]
    sens: pd.DataFrame = ctx.values["sens"]
    key = ("fig2.optimal_period", "fig2.drop_to_3000us.pb=0.1%",
           "fig2.drop_to_3000us.pb=0.8%")

    def eff(names: list[str]) -> tuple[str, bool]:
        return _setup_effect(verd, sens, [n for n in names if n in set(verd["setup"])],
                             key)

    rtt, rtt_dec = eff([BASE.name, *(f"access_delay_{d}" for d in ACCESS_DELAYS),
                        "fibre_50km"])
    var, var_dec = eff([BASE.name, "newreno", "reno"])
    acc, acc_dec = eff([BASE.name, "fast_ethernet"])
    ack, ack_dec = eff([BASE.name, "ack_loss"])
    section(r, [
        Choice("Base round trip (access delay, fibre length)",
               f"{BASE.access_delay} one-way access, {BASE.fibre_km:g} km fibres "
               "(RTT0 ≈ 0.14 ms)", f"access 10 µs–{ACCESS_DELAYS[-1]}, fibre 2–50 km",
               "§2.1 gives no host, cabling or stack delays; a lab testbed's hosts sit "
               "metres from the edges, a campus path adds milliseconds", rtt, rtt_dec),
        Choice("Access rate", BASE.access, "100 Mb/s–1 Gb/s",
               "the 1.25 Gb/s channels are GbE line rate", acc, acc_dec),
        Choice("TCP loss recovery", BASE.variant, "Reno, NewReno, SACK",
               "a Linux 2.6 host of 2005–2007 negotiates SACK by default "
               "(net.ipv4.tcp_sack = 1); NewReno is that host with SACK off", var,
               var_dec),
        Choice("ACK-only bursts dropped", "no", "no / yes with Pb",
               "the paper drops data bursts deliberately", ack, ack_dec),
        Choice("Delayed ACKs", f"b = {BASE.b}, {BASE.delack_timeout} timer",
               "b = 1–2, 40–200 ms", "Linux default of the time", "not swept"),
        Choice("Minimum RTO", BASE.min_rto, "200 ms–1 s", "Linux default (RFC 6298 "
               "allows 1 s)", "not swept"),
    ])


def build_report(ctx: Context, claims: list[Claim]) -> Report:
    m = ctx.mode
    fig2: pd.DataFrame = ctx.values["fig2"]
    sens: pd.DataFrame = ctx.values["sens"]
    verd: pd.DataFrame = ctx.values["sens_verdicts"]
    stamp = ctx.stamp
    r = Report(PAPER.title)
    runs = {k: v.stats for k, v in ctx.results.items()}
    half = ((fig2["goodput_Mbps_ci_hi"] - fig2["goodput_Mbps_ci_lo"]) / 2
            / fig2["goodput_Mbps_mean"])
    r.p(f"Mode **{m.name}**: fig. 2 grid {len(m.periods_us)} periods × {len(m.pb)} Pb × "
        f"{m.reps} replications; sensitivity grid {len(m.sens_periods_us)} periods × "
        f"{len(m.sens_pb)} Pb × {m.sens_reps} replications on {len(setups()) - 1} other "
        f"set-ups (seed {stamp['seed']}), burstlab {stamp['burstlab_version']}. Runs: "
        + ", ".join(f"{k} {v.get('total')} ({v.get('cached')} from the store)"
                    for k, v in runs.items())
        + f". Each lossy point runs for about {m.events:g} burst losses per replication "
        f"(at most {m.max_s:g} s simulated and {m.max_segments:.3g} segments). Precision "
        f"of fig. 2: median 95 % CI half-width {100 * float(half.median()):.1f} % of the "
        f"mean (worst {100 * float(half.max()):.0f} %). Wall time so far "
        f"{ctx.wall_s:.0f} s.")

    r.h(2, "The testbed in burstlab, and our choices for what the paper leaves out")
    r.bullets([
        "From zhou §2.1: server – E1 ═ C1 ═ E2 – client; each fibre has "
        f"{DATA_WAVELENGTHS} data wavelengths of 1.25 Gb/s plus the control channel (8 "
        "channels); JET with LAUC-VF; switching 100 ns; one TCP connection, maximum "
        "window 64 KB = 128 segments of 512 B; per-flow timer assembly with period Tb "
        "at both edges (the client's ACKs are assembled at E2).",
        f"Processing: {EDGE_PROCESSING_US:g} µs at an edge, {CORE_PROCESSING_US:g} µs "
        "at the core in the paper; burstlab has one BCP processing time for all nodes, "
        f"so every node gets {CORE_PROCESSING_US:g} µs (offset 20.1 µs instead of about "
        "12.6 µs, 7.5 µs more per direction: below 2 % of every simulated RTT). A "
        "per-node processing time would need a core change.",
        "Deliberate dropping: each data burst is lost with probability Pb on the fibre "
        "E1 → C1 (`per_link` loss on that fibre only), i.e. at one node, at most once. "
        "Bursts holding only ACKs are not dropped in the base set-up (set-up "
        "`ack_loss` drops them too).",
        f"Unknowns, base set-up: access {BASE.access} with "
        f"{BASE.access_delay} one-way, fibres {BASE.fibre_km:g} km each, TCP "
        f"{BASE.variant} with b = {BASE.b} (delayed ACKs, {BASE.delack_timeout} timer), "
        f"minimum RTO {BASE.min_rto}, RFC 3390 initial window. Reasons: the 1.25 Gb/s "
        "channels are the Gigabit Ethernet line rate, so GbE hosts are the natural "
        "clients of a 2005 testbed; lab testbeds use fibre spools of a few km; a Linux "
        "2.6 host of that time negotiated SACK by default (net.ipv4.tcp_sack = 1), with "
        "delayed ACKs and a 200 ms minimum RTO; burstlab's `sack` variant is NewReno "
        "with SACK-based recovery (RFC 6675). The `newreno` and `reno` set-ups show the "
        "other flavours.",
        "Alternatives (one changed at a time): " + "; ".join(
            f"`{s.name}`: {s.why}" for s in setups().values() if s.name != BASE.name) + ".",
    ])

    r.claims_section(claims, "Claims are judged on the base set-up; the tolerances are ±10 "
                             "percentage points for a fraction, a factor 2 for a period.")

    r.h(2, "Figure 2: goodput vs assembly period")
    img(r, "fig2")
    o = optima(fig2)
    if len(o):
        r.p("Best period per Pb (ties: periods whose mean lies inside the best point's "
            "95 % CI):")
        r.table(o.assign(tied_tb_us=o["tied_tb_us"].map(
            lambda t: ", ".join(f"{x:g}" for x in t))))
    mo = ctx.values.get("model_optima_us", {})
    if mo:
        r.p(f"yu's model for {BASE.variant} at the measured RTT0 and RTO peaks at "
            + ", ".join(f"{fmt(t)} µs (Pb = {100 * p:g} %)" for p, t in mo.items())
            + ". In yu's unsaturated regime (S < Wm) the optimum is Tb = RTT0/2 (eq. 30), "
            "independent of p; here RTT0 is a fraction of a millisecond and the window "
            "fills a burst (S = Wm) from a few hundred µs on, where every burst loss is a "
            "timeout of at least the minimum RTO (eq. 28).")
    lossy = fig2[fig2["pb"] > 0]
    if len(lossy):
        err = lossy["model_rel_err"].abs()
        r.p(f"Model beside simulation (Pb > 0, {len(lossy)} points): median "
            f"|sim/model − 1| = {100 * float(err.median()):.0f} %, "
            f"{100 * float((err <= 0.25).mean()):.0f} % of points within 25 %. "
            "Timeouts per run and measured S are in the table: where S is far below the "
            "nominal λ·Tb + 1 the sender is ACK-clocked and the model's DFL gain is "
            "overstated.")
    r.table(point_table(fig2))

    r.h(2, "Sensitivity to the unknowns")
    img(r, "sensitivity")
    piv = verd.pivot(index="claim_id", columns="setup", values="verdict")
    piv = piv[[c for c in setups() if c in piv.columns]].reset_index()
    r.p("Verdict of every fig. 2 claim on each set-up (the base on its fig. 2 grid, the "
        "others on the smaller sensitivity grid); `sensitivity_verdicts.csv` has the "
        "values and reasons. With few replications the 95 % CIs are wide, so the "
        "tie-based test of a Pb-independent optimum is lenient there: read it with the "
        "best periods below.")
    r.table(piv)
    survive = [str(cid) for cid, g in verd.groupby("claim_id")
               if (g["verdict"] == REPRODUCES).all()]
    never = [str(cid) for cid, g in verd.groupby("claim_id")
             if not (g["verdict"] == REPRODUCES).any()]
    r.p("Reproduced on every set-up: " + (", ".join(f"`{c}`" for c in survive) or "none")
        + ". Reproduced on none: " + (", ".join(f"`{c}`" for c in never) or "none") + ".")
    lossy = sens[sens["pb"] > 0]
    best = lossy.loc[lossy.groupby(["setup", "pb"])["goodput_Mbps_mean"].idxmax(),
                     ["setup", "pb", "tb_us"]].rename(columns={"tb_us": "best_tb_us"})
    tab = best.pivot(index="pb", columns="setup", values="best_tb_us")
    tab = tab[[c for c in setups() if c in tab.columns]].reset_index()
    tab["pb"] = 100 * tab["pb"]
    r.p("Best simulated period (µs) per set-up and Pb (%):")
    r.table(tab.rename(columns={"pb": "Pb (%)"}))

    choices_text(r, ctx)
    part2(r, ctx)

    r.h(2, "Files")
    r.bullets([
        "`fig2.csv`: one row per (period, Pb) of the base set-up — simulation mean and "
        "95 % CI in Mb/s, measured S, RTT, RTO, TD/TO per run, model values.",
        "`sensitivity.csv`, `sensitivity_verdicts.csv`: the same for the other set-ups, "
        "and every claim's verdict per set-up.",
        "`fig5.csv`: one row per (load, R_MAX) of part 2 — means and 95 % CIs of burst "
        "loss, goodput, timeouts, RTT and ACK share; `fig5_runs.csv`: every replication.",
        "`runs.csv`: every replication of part 1; `runs.sqlite`: the resumable store; "
        "`run.json`.",
    ])
    if not np.isfinite(float(half.median())):
        r.p("(This mode has too few replications for confidence intervals.)")
    return r


PAPER.report = build_report


def part2(r: Report, ctx: Context) -> None:
    """Part 2 (§3.2, figs 4–5): the network, the reading of "load", the results."""
    m = ctx.mode
    s: pd.DataFrame = ctx.values["fig5"]
    runs: pd.DataFrame = ctx.values["fig5_runs"]
    r.h(2, "Part 2 (§3): ACK-ratio assembly, fig. 5")
    r.p(f"Grid: {len(m.p2_loads)} loads × {len(m.p2_rmax)} assemblers (conventional and "
        f"R_MAX ∈ {{{', '.join(ar.rmax_label(x) for x in m.p2_rmax if x is not None)}}}) "
        f"× {m.p2_reps} replications, {m.p2_duration_s:g} s simulated each "
        f"({m.p2_warmup_s:g} s warm-up).")
    r.h(3, "The mechanism in burstlab")
    r.bullets([
        "zhou §3.1 gives the rule (fig. 3 itself is not in the text): ACKs and data are "
        "assembled together, the share R of ACKs among a burst's packets is held at or "
        "below R_MAX, surplus ACKs wait in extra queues that go first at the next "
        "assembly. burstlab's ACK-ratio assembler (`ack_ratio_max` on a timer, length or "
        "hybrid assembler) lets the plain policy decide *when* a burst leaves, looking "
        "only at the input queue; the burst then takes every non-ACK packet and the "
        "oldest ACKs allowed (held ACKs first), the others stay in the extra queue.",
        "A burst of ACKs alone is never formed below R_MAX = 1; R_MAX = 1 gives the "
        "plain assembler's bursts bit for bit (tested on scripted arrivals and whole "
        "runs). R counts packets, and contention traffic counts as \"other segments\": "
        "the paper defines R as \"the ratio of ACK number to all the segment number in "
        "one burst\", i.e. of the burst's content, and the R-control acts on the edge's "
        "input queue, which holds the contention traffic too; counting TCP packets only "
        "would allow fewer ACKs per burst at the same R_MAX (more ACKs held), the same "
        "ordering of assemblers.",
    ])
    r.h(3, "The network (fig. 4) and our reading of \"load\"")
    r.bullets([
        f"E1, E2, E3 – C1 ═ C2 – E4, E5, E6, one host per edge; pair i = (E_i, E_i+3). "
        f"Per pair and direction {ar.FLOWS_PER_DIRECTION} TCP flows (ns-2 NewReno "
        f"agents, one ACK per segment, MSS {ar.MSS_BYTES} B, Wm {ar.WM_SEGMENTS}) and "
        "one UDP on/off contention source; access 200 Mb/s; propagation RTT 600 ms "
        f"(access {ar.ACCESS_DELAY_MS:g} ms, edge fibres {ar.EDGE_FIBRE_MS:g} ms, core "
        f"fibre {ar.CORE_FIBRE_MS:g} ms one way).",
        "Assembly: mixed per egress (one queue per ingress–egress pair holds one "
        "direction's data, the other direction's ACKs and the contention traffic), "
        f"hybrid Tmax = {1e3 * ar.TMAX:g} ms, Lmax 200 KB, Lmin 30 KB (padding): "
        f"Tmax is the time a queue takes to collect 100 KB at load {ar.REFERENCE_LOAD:g}.",
        f"Load ρ: mean offered bit rate on each direction of C1 ═ C2 over its capacity "
        f"({ar.CORE_WAVELENGTHS} wavelengths × {ar.CORE_WAVELENGTH_BPS / 1e6:g} Mb/s, JET, "
        "LAUC-VF, full conversion). TCP is counted at its window limit "
        f"({100 * ar.tcp_offered_bps() / ar.CORE:.1f} % of the capacity); the UDP "
        "sources (exponential on/off, 100 Mb/s peak, 10 ms mean on) make up the rest. "
        "Loss comes only from contention on the core fibre: a burst is lost whatever it "
        "carries, and its ACKs with it.",
        "Why a scaled-down core: the paper gives no core rate; with tens of Gb/s the TCP "
        "flows (≈ 0.9 Mb/s each at Wm/RTT) would be a vanishing share of every burst and "
        "R_MAX could never bind. At 100 Mb/s per direction the TCP ACK share of bursts "
        "spans about 0.05–0.4 over the loads simulated, so the rule is exercised.",
        "Fig. 5(a)'s burst loss probability is measured as the fraction of (flow, burst) "
        "incidences lost among bursts carrying TCP data or ACKs; `p_udp_bursts` in "
        "`fig5.csv` is the same for the contention traffic (close to the network-wide "
        "value).",
    ])
    img(r, "fig5")
    sizes = runs.groupby("rmax")["ack_share"].mean()
    r.p("Mean ACK share of bursts per assembler (all loads): " + ", ".join(
        f"{k}: {v:.3f}" for k, v in sizes.items()) + ".")
    if "mean_burst_KB" in runs.columns:
        kb = runs.groupby("load")["mean_burst_KB"].mean()
        r.p("Realised mean burst (bytes with padding, over the bursts formed in "
            f"{ar.BURST_WINDOW_S:g} s after the warm-up; the paper's mean is 100 KB), per "
            "load over all assemblers: " + ", ".join(
                f"ρ {k:g}: {v:.0f} KB" for k, v in kb.items())
            + f"; all runs {runs['mean_burst_KB'].min():.0f}–"
            f"{runs['mean_burst_KB'].max():.0f} KB.")
    t = ctx.values["fig5_intermediate"]
    if len(t):
        r.p("Intermediate R_MAX against conventional assembly, per load (relative "
            "change of the means; *sig* = beyond both 95 % CIs):")
        r.table(t.assign(goodput_rel=t["goodput_rel"].map(lambda x: f"{100 * x:+.1f} %"),
                         p_rel=t["p_rel"].map(lambda x: f"{100 * x:+.1f} %")))
    cols = ["rmax", "load", "n", "goodput_Mbps_mean", "goodput_Mbps_ci_lo",
            "goodput_Mbps_ci_hi", "p_tcp_bursts_mean", "p_udp_bursts_mean",
            "to_per_flow_mean", "td_per_flow_mean", "rtt_s_mean", "ack_share_mean"]
    r.table(s[cols])
    lo = float(s["load"].min())
    at = s[s["load"] == lo].set_index("rmax")
    if ar.CONVENTIONAL in at.index and len(at) > 2:
        c = at.loc[ar.CONVENTIONAL]
        mid = at.drop(index=[x for x in (ar.CONVENTIONAL, "1", "0") if x in at.index])
        if len(mid):
            b = mid.iloc[int(np.nanargmax(mid["goodput_Mbps_mean"].to_numpy(float)))]
            worst = mid.iloc[int(np.nanargmax(mid["rtt_s_mean"].to_numpy(float)))]
            r.p(f"At the lowest load (ρ = {lo:g}) conventional assembly has "
                f"{c['to_per_flow_mean']:.2g} timeouts per flow while only "
                f"{100 * c['p_tcp_bursts_mean']:.2g} % of the TCP bursts are lost, too "
                "few to explain them: most must be spurious (likely cause: a "
                "window-limited flow's RTT barely varies, so RTO = SRTT + 4·RTTVAR sits "
                "just above the RTT, and ACKs that wait a whole assembly period overrun "
                "it). R_MAX = "
                f"{b.name} spreads a window's ACKs over more bursts: "
                f"{b['to_per_flow_mean']:.2g} timeouts per flow and "
                f"{b['goodput_Mbps_mean']:.3g} Mb/s per flow against "
                f"{c['goodput_Mbps_mean']:.3g} Mb/s. Smaller R_MAX delays ACKs for many "
                f"periods: at R_MAX = {worst.name} the mean RTT is "
                f"{worst['rtt_s_mean']:.3g} s against {c['rtt_s_mean']:.3g} s.")
    r.p("The rule can deadlock TCP when little else shares a queue: a burst may carry "
        "only R/(1 − R) ACKs per other packet, and in two-way TCP the other packets are "
        "the opposite flow's data, itself clocked by the ACKs held back. With two "
        "symmetric flows and no other traffic, burstlab's scripted tests "
        "(`crates/burstlab-core/tests/ack_ratio.rs`) see both flows stall after their "
        "first windows at R_MAX = 0.3 and 0.5; here the contention traffic in the same "
        "queues keeps room for ACKs. The extra queue's priority also sends the *oldest* "
        "held ACKs first, the least informative ones for cumulative acknowledgement.")
    r.p("Reading: holding ACKs back delays them by one or more assembly periods "
        "(the RTT column); the spread of a window's ACKs over more bursts makes a "
        "burst loss less likely to take all of them, which is the paper's argument. "
        "Burst loss itself is set by the load on the core fibre, which ACK-ratio "
        "assembly hardly changes (ACKs are 40 B). Where the verdicts differ from the "
        "paper, the numbers above are what burstlab finds on this reading of fig. 4; "
        "the paper's own network (fig. 4's drawing, core rate, traffic, load "
        "definition) is not in the text.")
