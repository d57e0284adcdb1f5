"""sodhatar's report body: the set-up and its conventions, the claims table, then the
figures with the numbers behind each verdict, burstlab beside ns-2, and the OBS core.

Read first: :func:`build_report`. Every number comes from the tables of
:func:`.experiments.analyse`.
"""

from __future__ import annotations

import pandas as pd

from burstlab.reproduce.framework import Claim, Context
from burstlab.reproduce.papers.sodhatar.claims import NAMES, NS2_MISSING, extensions, pct
from burstlab.reproduce.papers.sodhatar.experiments import (
    FIXED_PATTERNS,
    NETWORK_LABEL,
    NS2_QUEUE_LIMIT,
    PAPER,
    QUEUE_PKTS,
    RANDOM_START_MAX_S,
    REFERENCE_PATTERN,
    TB,
    VARIANTS,
)
from burstlab.reproduce.report import Report

img = PAPER.image  # a registered figure into the report


def _change_summary(ch: pd.DataFrame, network: str, ns2: bool) -> pd.DataFrame:
    """Per variant: the change with random starts (CI), simultaneous, min/max over
    patterns, and ns-2's."""
    rows = []
    for v in VARIANTS:
        g = ch[(ch["network"] == network) & (ch["variant"] == v)]
        m = g[g["pattern"] == "random mean"]
        ref = g[g["pattern"] == REFERENCE_PATTERN]
        per = g[g["pattern"] != "random mean"]["change"]
        row = {"variant": NAMES[v],
               "random starts": pct(float(m["change"].iloc[0])) if len(m) else "–",
               "95 % CI": (f"[{pct(float(m['change_ci_lo'].iloc[0]))}, "
                           f"{pct(float(m['change_ci_hi'].iloc[0]))}]") if len(m) else "",
               "simultaneous": pct(float(ref["change"].iloc[0])) if len(ref) else "–",
               "min over patterns": pct(float(per.min())) if len(per) else "–",
               "max over patterns": pct(float(per.max())) if len(per) else "–"}
        if ns2 and "ns2_change" in g.columns:
            row["ns-2 random starts"] = pct(float(m["ns2_change"].iloc[0])) if len(m) else "–"
            row["ns-2 simultaneous"] = pct(float(ref["ns2_change"].iloc[0])) \
                if len(ref) else "–"
        rows.append(row)
    return pd.DataFrame(rows)


def _sizes_as_text(df: pd.DataFrame) -> pd.DataFrame:
    """Packet sizes as plain integers in the Markdown tables (not 1.46e+03)."""
    out = df.copy()
    if "size_B" in out.columns:
        out["size_B"] = out["size_B"].map(lambda x: str(int(x)))
    return out


def build_report(ctx: Context, claims: list[Claim]) -> Report:
    m = ctx.mode
    stamp = ctx.stamp
    runs: pd.DataFrame = ctx.values["runs"]
    sizes: pd.DataFrame = ctx.values["sizes"]
    changes: pd.DataFrame = ctx.values["changes"]
    has_ns = bool(ctx.values.get("has_ns2"))
    sw = ctx.results["dumbbell"]
    r = Report(PAPER.title)
    r.p(f"Mode **{m.name}**: {len(m.networks)} networks × ({len(m.patterns)} fixed start "
        f"patterns + {m.random_draws} random start draws) × {len(m.sizes)} packet sizes "
        f"= {sw.stats.get('total')} burstlab runs ({sw.stats.get('cached')} reused from "
        f"`runs.sqlite`), seed {stamp['seed']}, burstlab {stamp['burstlab_version']}; "
        f"wall time so far {ctx.wall_s:.0f} s. The scenario has no random element: one run "
        "per point.")
    r.h(2, "Set-up")
    r.bullets([
        "Dumbbell of sodhatar §III (fig. 3): n0, n1, n2 –(300 Mb/s, 20 ms)– n3 ═(60 Mb/s, "
        "60 ms)═ n4 –(300 Mb/s, 20 ms)– n5, n6, n7; FTP over Tahoe (n0 → n5), Reno (n1 → "
        "n6), NewReno (n2 → n7) with burstlab's `ns2` TCP profile (ns-2.35's agents); "
        "maximum window 10 segments; packet sizes (TCP payload, ns-2's `packetSize_`) "
        f"{', '.join(str(s) for s in m.sizes)} B; 5 s.",
        f"Queue limit: the paper's ns-2 `queue-limit {NS2_QUEUE_LIMIT}` counts the packet "
        f"in transmission; burstlab's `queue_pkts` counts packets waiting, so the "
        f"bottleneck runs with `queue_pkts = {QUEUE_PKTS}` (the ns-2 export writes "
        f"`queue-limit {NS2_QUEUE_LIMIT}` back).",
        "Throughput: payload bits of the data segments arriving at the receiver "
        "(retransmissions included, as a trace-based measurement counts them) per second "
        "over the 5 s; `runs.csv` also has goodput (in order, no duplicates).",
        "Start times: not given by the paper (§III). Fixed patterns (Tahoe, Reno, NewReno "
        "start, s): " + "; ".join(f"{k} {v}" for k, v in FIXED_PATTERNS.items()
                                  if k in m.patterns)
        + f"; and {m.random_draws} draws with each start uniform in "
        f"[0, {1000 * RANDOM_START_MAX_S:.0f} ms]. Claims use the mean over the random "
        "draws (95 % CI over draws); their notes give the simultaneous start, the range "
        "over all patterns and whether the result flips. With equal start times the "
        "flows' packets reach n3 at the same instants and the order of same-time events "
        "(the flows' declaration order) decides which one the drop-tail queue drops.",
        "ns-2: each packet-network point is exported (`burstlab export ns2`) and run with "
        "ns-2.35; its throughput is counted the same way from its packet trace. "
        + ("" if has_ns else f"**{NS2_MISSING}.** ")
        + "burstlab's `ns2` profile is ns-2.35's agents (SYN round included; "
        "docs/concepts/tcp-profiles.md); both simulators' segment counts include the SYN, segment 0. "
        "Nothing is tuned to match.",
    ])
    r.claims_section(
        claims, "A change is judged against the paper's band (its printed precision plus "
        "the `change` kind's 10 points), a ranking by NewReno's paired leads under common "
        "start draws, a cwnd statement by what every cwnd trace does. The packet-size "
        "claims are judged on burstlab's runs and, beside them, on ns-2.35's runs of the "
        "same scripts (ids ending `.ns2`)"
        + ("." if has_ns else f"; {NS2_MISSING}, so those rows are not comparable."))
    dyn: pd.DataFrame = ctx.values["cwnd_dynamics"]
    r.h(2, "cwnd dynamics (§IV)")
    r.p("What each cwnd trace of the simultaneous start does (packet network): reductions "
        "classified as drops to 1 segment or halvings of min(cwnd, wm), halvings followed "
        "by a drop to 1, and increases checked against +1 per ACK below ssthresh and "
        "+1/cwnd per ACK above it (RFC 5681 §3.1), beside the run's TD and TO counters:")
    r.table(_sizes_as_text(dyn[dyn["network"] == "packet"].drop(columns=["network",
                                                                        "pattern"])))

    r.h(2, "Throughput and cwnd vs time (figs 4–11)")
    r.p("The paper's figures have no readable numbers; burstlab's curves for the "
        "simultaneous start (ns-2's throughput dashed). Per-run counters of this start:")
    ref = runs[(runs["network"] == "packet") & (runs["pattern"] == REFERENCE_PATTERN)]
    cols = ["size_B", "variant", "throughput_Mbps", "segments_received", "retransmits",
            "td_events", "to_events"]
    if has_ns:
        cols += ["ns2_throughput_Mbps", "ns2_segments_received", "ns2_retransmits",
                 "ns2_timeouts"]
    r.table(_sizes_as_text(ref[cols]))
    img(r, "throughput_vs_time")
    img(r, "cwnd_vs_time")

    r.h(2, "Throughput vs packet size (§V)")
    img(r, "throughput_vs_size")
    r.p("Change of throughput from 1460 to 4000 B, packet network (paper: Tahoe −82 %, "
        "Reno +32 %, NewReno +43 %):")
    r.table(_change_summary(changes, "packet", has_ns))
    r.p("Why: with a window of 10 segments and a 0.2 s round trip, each flow needs at most "
        "10 × 4000 × 8 / 0.2 = 1.6 Mb/s of the 60 Mb/s bottleneck. Losses happen only when "
        "window bursts of several flows reach the 4-packet queue at the same time, and "
        "that happens in packet units whatever the packet size (every transmission time "
        "scales with it). So a flow that keeps the same losses carries 4000/1460 = 2.74× "
        "the bits (+174 %); a change of another size means the start times made the "
        "losses differ between the two sizes.")
    r.table(_sizes_as_text(sizes[sizes["network"] == "packet"].drop(columns=["network"])))
    r.h(2, "Start-time sensitivity")
    img(r, "start_sensitivity")
    flips = [c.id for c in claims if "flips" in c.note or "depends on the start" in c.note]
    choices_text(r, flips)
    r.p("The scenario is deterministic, so the start times are its only free input. "
        "Claims whose outcome changes with them (their notes give the counts): "
        + (", ".join(f"`{i}`" for i in flips) if flips else "none") + ".")
    best: pd.DataFrame = ctx.values["best"]
    bt = best.groupby(["network", "size_B"])["best"].value_counts().unstack(fill_value=0)
    r.p("Best variant per start pattern (count of patterns; `tie` when the two best are "
        "within 1 %):")
    r.table(_sizes_as_text(bt.reset_index()))
    if has_ns:
        r.h(2, "burstlab beside ns-2.35")
        pk = runs[runs["network"] == "packet"].copy()
        pk["diff_segments"] = pk["segments_received"] - pk["ns2_segments_received"]
        pk["rel_diff"] = pk["throughput_Mbps"] / pk["ns2_throughput_Mbps"] - 1.0
        per = pk.groupby("variant")[["diff_segments", "rel_diff"]].agg(
            ["median", "min", "max"])
        per.columns = [f"{col[0]}_{col[1]}" for col in per.columns]
        r.p("Segments received in 5 s, burstlab minus ns-2, over every start pattern and "
            "packet size (relative difference of throughput beside it):")
        r.table(per.reset_index())
        loss_free = pk[(pk["retransmits"] == 0) & (pk["ns2_retransmits"] == 0)]
        if len(loss_free):
            d = loss_free["diff_segments"]
            r.p(f"Runs without any retransmission in either simulator: {len(loss_free)} of "
                f"{len(pk)}; there the two receive the same number of segments in "
                f"{int((d == 0).sum())} runs (burstlab minus ns-2: median {d.median():g}, "
                f"range {d.min():g} … {d.max():g}). Where losses occur, per-pattern outcomes can "
                "differ more: when packets of several flows reach the bottleneck queue at "
                "the same instant, the two simulators need not order them alike.")
    r.h(2, "Extension: with an OBS core (not judged against the paper)")
    ext = extensions(ctx)
    if len(ext):
        p_ext = ctx.out_dir / "extensions.csv"
        ext.assign(**stamp).to_csv(p_ext, index=False)
        ctx.files.append(p_ext)
    r.p("The paper runs a packet-switched dumbbell only; this section is burstlab's "
        "extension, so its rows carry no verdict and are not in the verdict counts "
        "(`extensions.csv`). Each gives burstlab's value with the OBS core beside its "
        "packet-dumbbell value and the paper's packet-dumbbell value.")
    if len(ext):
        r.table(ext)
    r.p(f"n3 and n4 become OBS edge nodes joined by one fibre with one 60 Mb/s wavelength "
        f"and 60 ms (the bottleneck's capacity and delay, no buffer): timer assembly with "
        f"Tb = {TB}, ACKs assembled in the reverse direction, JET + LAUC-VF, offset 10 µs "
        "BCP processing + 5 µs set-up. Per-egress assembly (main case): the three flows "
        "share one assembly queue because they share the egress n4, so bursts leave at "
        "most once per Tb; a burst that lasts longer than Tb on the wavelength (more than "
        f"60 Mb/s × {TB} = 15 kB) still overlaps the next one, and the bufferless core "
        "drops the later burst. Per-flow assembly: one queue per flow; bursts of different "
        "flows formed at about the same time also contend for the single wavelength.")
    for net in m.networks:
        if net == "packet":
            continue
        r.p(f"{NETWORK_LABEL[net]} — change 1460 → {max(m.sizes)} B:")
        r.table(_change_summary(changes, net, False))
    obs = sizes[sizes["network"] != "packet"]
    r.table(_sizes_as_text(obs[["network", "variant", "size_B", "throughput_Mbps_random_mean",
                 "throughput_Mbps_random_ci_lo", "throughput_Mbps_random_ci_hi",
                 "throughput_Mbps_simultaneous", "throughput_Mbps_min_over_patterns",
                 "throughput_Mbps_max_over_patterns"]]))
    tot = runs.groupby("network")[["retransmits", "td_events", "to_events", "data_bursts",
                                   "data_bursts_lost"]].sum(min_count=1).reset_index()
    r.p("Summed over every run of each network: retransmissions, triple-duplicate and "
        "timeout events, and (OBS) data bursts sent and lost. What changes with the OBS "
        "core: losses come from burst contention on the wavelength instead of the "
        "4-packet drop-tail queue, a lost burst takes several segments of one or more "
        "flows at once, and the assembly adds about 2 × Tb to the round trip:")
    r.table(tot)
    img(r, "obs_throughput_vs_time")
    img(r, "obs_cwnd_vs_time")
    return r


PAPER.report = build_report


def choices_text(r: Report, flips: list[str]) -> None:
    """The section "What burstlab had to choose"; the start times are swept above."""
    from burstlab.reproduce.choices import Choice, section

    section(r, [
        Choice("Flow start times", "fixed patterns and uniform draws in "
               f"[0, {1000 * RANDOM_START_MAX_S:.0f} ms]", "0–1 s, any order",
               "§III gives none; the scenario has no other random input",
               ("flips " + ", ".join(f"`{i}`" for i in flips)) if flips
               else "no claim flips with the start times (section above)", bool(flips)),
        Choice("Queue limit convention", f"queue_pkts {QUEUE_PKTS} (ns-2 queue-limit "
               f"{NS2_QUEUE_LIMIT})", "4–5 waiting packets",
               "ns-2 counts the packet in transmission", "matched to ns-2, not swept"),
        Choice("Throughput definition", "payload of arriving data segments, "
               "retransmissions included", "with / without retransmissions",
               "a trace-based measurement counts every arrival",
               "`runs.csv` has goodput too"),
        Choice("OBS core assembly period", TB, "1–10 ms", "not given for the OBS run",
               "not swept"),
    ])
