"""hybrid's claims: each compares a value of ``paper.toml`` with burstlab and returns a
:class:`~burstlab.reproduce.framework.Claim` with a verdict and a one-sentence reason.

Read first: :func:`number_claim` (the rule for printed numbers) and the registered
functions below. All values come from ``ctx.values["runs"]`` (one row per run, see
:func:`.experiments.run_table`). Aggregate throughputs and burst sizes are compared at
the paper's N (burstlab's value × N_paper / N_run, which is the value itself in full
mode); the notes say when that scaling applies.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from burstlab.reproduce.framework import Claim, Context
from burstlab.reproduce.papers.hybrid.experiments import CLASSES, HEADER, MSS, PAPER, n_flows
from burstlab.reproduce.report import fmt

#: A printed number is reproduced when burstlab is within this relative distance.
TOL = 0.15
#: "About the same" (fig. 13, §V): the two throughputs within this factor.
SAME_FACTOR = 1.5


def _runs(ctx: Context) -> pd.DataFrame:
    r: pd.DataFrame = ctx.values["runs"]
    return r[r["rto"] == "floor"]


def _row(ctx: Context, cls: str, wm: int, p: float) -> pd.Series | None:
    r = _runs(ctx)
    g = r[(r["class"] == cls) & (r["wm"] == wm) & np.isclose(r["p"], p)]
    return None if g.empty else g.iloc[0]


def _scale_note(ctx: Context, cls: str) -> str:
    n = n_flows(cls, ctx.mode)
    if n == CLASSES[cls]["n"]:
        return ""
    return f" (burstlab ran N = {n} and scales to the paper's N = {CLASSES[cls]['n']})"


def _missing(cid: str, source: str, statement: str, paper_value: str) -> Claim:
    return Claim(id=cid, source=source, statement=statement, paper_value=paper_value,
                 burstlab_value="–", verdict="not comparable",
                 note="this mode does not run the point the claim needs")


def number_claim(cid: str, source: str, statement: str, paper: float, got: float,
                 unit: str, scale: float, what: str) -> Claim:
    """A printed number: *reproduces* within :data:`TOL`, else *differs* (the note gives
    the ratio)."""
    ratio = got / paper if paper else math.nan
    ok = abs(ratio - 1.0) <= TOL
    return Claim(
        id=cid, source=source, statement=statement,
        paper_value=f"{fmt(paper / scale)} {unit}", burstlab_value=f"{fmt(got / scale)} {unit}",
        verdict="reproduces" if ok else ("differs" if math.isfinite(ratio) else
                                         "not comparable"),
        note=f"{what}: burstlab/paper = {fmt(ratio)} "
             f"({'within' if ok else 'outside'} ±{100 * TOL:.0f} %)")


@PAPER.claim
def claim_slow_ideal(ctx: Context) -> list[Claim]:
    """§IV.A: MSS·Wm·N/RTT ≈ 5.592 Gb/s at Wm = 512, the initial value of fig. 3."""
    pv = ctx.data["slow.ideal"]
    n = CLASSES["slow"]["n"]
    rtt_implied = MSS * 8.0 * 512 * n / float(pv.value)
    row = _row(ctx, "slow", 512, 1e-5)
    if row is None:
        row = _row(ctx, "slow", 512, 1e-3)
    if row is None:
        return [_missing("slow.ideal", pv.source, "ideal aggregate throughput at Wm = 512",
                         "5.592 Gb/s")]
    got = float(row["aggregate_at_paper_n_Gbps"]) * 1e9
    rtt = float(row["mean_rtt_ms"])
    c = number_claim(
        "slow.ideal", pv.source,
        "ideal slow throughput MSS·Wm·N/RTT at Wm = 512 (burstlab: its run with the "
        f"fewest losses, p = {row['p']:g})", float(pv.value), got, "Gb/s", 1e9,
        f"the paper's number implies RTT = {1e3 * rtt_implied:.2f} ms (2 × 5 ms + 10 ms "
        f"offset + 10 ms Tmax); burstlab's mean RTT is {rtt:.2f} ms, so its "
        f"window-limited aggregate is MSS·Wm·N/RTT = "
        f"{MSS * 8 * 512 * n / (rtt * 1e-3) / 1e9:.3f} Gb/s and it delivered "
        f"{got / 1e9:.3f} Gb/s averaged from t = 0 over {fmt(row['duration_s'])} s "
        f"({int(row['bursts_lost'])} bursts lost){_scale_note(ctx, 'slow')}; burstlab's "
        "round trip also holds the burst's own time on the fibre (≈ 5.6 ms for 7 MB at "
        "10 Gb/s, waited before disassembly) and each flow's ≈ 170 segments leaving on "
        "its 100 Mb/s egress link, which the paper's 30 ms leaves out")
    return [c]


@PAPER.claim
def claim_slow_bursts(ctx: Context) -> list[Claim]:
    """§IV.A: mean burst 6.32 MB; 12 360 segments per burst, ≈ 154 per flow (Wm 512,
    p 1e-3)."""
    row = _row(ctx, "slow", 512, 1e-3)
    pv, ps = ctx.data["slow.mean_burst"], ctx.data["slow.segments_per_burst"]
    if row is None:
        return [_missing("slow.mean_burst", pv.source, "mean slow burst", "6.32 MB")]
    sn = _scale_note(ctx, "slow")
    out = [
        number_claim("slow.mean_burst", pv.source, "mean slow burst (TCP payload) at "
                     "Wm = 512, p = 1e-3", float(pv.value),
                     float(row["segments_per_burst_at_paper_n"]) * MSS, "MB", 1e6,
                     "the paper's 6.32 MB is its 12 360 segments × 512 B of payload, so "
                     "burstlab's is counted the same way (with 40 B of headers per segment "
                     f"its bursts are {fmt(row['mean_burst_at_paper_n_MB'])} MB) over "
                     f"{int(row['bursts_formed'])} bursts{sn}; a mixed-flow burst grows "
                     "with N because Tmax, not Lmax, closes it"),
        number_claim("slow.segments_per_burst", ps.source,
                     "segments per slow burst at Wm = 512, p = 1e-3", float(ps.value[0]),
                     float(row["segments_per_burst_at_paper_n"]), "segments", 1.0,
                     f"mean segments per burst{sn}"),
        number_claim("slow.segments_per_flow", ps.source,
                     "segments of one flow per slow burst at Wm = 512, p = 1e-3",
                     float(ps.value[1]), float(row["segments_per_flow_per_burst"]),
                     "segments", 1.0, "each flow's mean segments per burst it is in (no N "
                     "scaling: a flow's share of a Tmax-closed burst does not depend on N)"),
    ]
    return out


def _share(ctx: Context, cls: str, p_min: float) -> tuple[float, int, int]:
    r = _runs(ctx)
    g = r[(r["class"] == cls) & (r["p"] >= p_min)]
    td, to = int(g["td_events"].sum()), int(g["to_events"].sum())
    return (to / (td + to) if td + to else math.nan), td, to


@PAPER.claim
def claim_detection(ctx: Context) -> list[Claim]:
    """§IV.A: slow losses end in timeouts; §IV.B: fast losses mostly TD."""
    ps, pf = ctx.data["slow.timeouts"], ctx.data["fast.td"]
    out = []
    s, td, to = _share(ctx, "slow", 1e-4)
    ok = s >= 0.9
    r = _runs(ctx)
    per_wm = []
    for w, g in r[(r["class"] == "slow") & (r["p"] >= 1e-4)].groupby("wm"):
        n = int(g["td_events"].sum() + g["to_events"].sum())
        if n:
            per_wm.append(f"Wm {w}: {100 * g['to_events'].sum() / n:.0f} % TO "
                          f"({fmt(g['segments_per_flow_per_burst'].mean())} segments of a "
                          "flow per burst)")
    out.append(Claim(
        id="slow.timeouts", source=ps.source, statement="slow losses are detected by RTO "
        "expiration (cwnd back to 1)", paper_value="always RTO (stated)",
        burstlab_value=f"{fmt(100 * s)} % TO", verdict=(
            "reproduces" if ok else ("same direction" if s >= 0.5 else "differs"))
        if math.isfinite(s) else "not comparable",
        note=f"over every slow run with p ≥ 1e-4: {to} timeouts and {td} triple-duplicate/"
             "SACK detections; " + "; ".join(per_wm) + " — a burst holding a flow's whole "
             "window leaves no later segment to raise duplicate ACKs (timeout), a larger "
             "window lets SACK recover from the next burst's duplicate ACKs"))
    f, td, to = _share(ctx, "fast", 1e-5)
    tds = 1.0 - f
    out.append(Claim(
        id="fast.td", source=pf.source, statement="fast losses are mostly detected by "
        "triple duplicate ACKs", paper_value="mostly TD (stated)",
        burstlab_value=f"{fmt(100 * tds)} % TD", verdict=(
            "reproduces" if tds > 0.5 else "differs") if math.isfinite(tds) else
        "not comparable",
        note=f"over every fast run: {td} TD/SACK detections and {to} timeouts"))
    return out


@PAPER.claim
def claim_slow_wm(ctx: Context) -> list[Claim]:
    """§IV.A, fig. 3: Wm = 512 is best for slow connections (p = 1e-3)."""
    pv = ctx.data["slow.wm512_best"]
    r = _runs(ctx)
    g = r[(r["class"] == "slow") & np.isclose(r["p"], 1e-3)].set_index("wm")
    if len(g) < 2:
        return [_missing("slow.wm512_best", pv.source, "Wm = 512 best for slow", "512")]
    thr = g["aggregate_at_paper_n_Gbps"].astype(float)
    best = int(thr.index[int(np.argmax(thr.to_numpy()))])
    return [Claim(
        id="slow.wm512_best", source=pv.source,
        statement="slow connections: the best Wm at p = 1e-3 is 512",
        paper_value="512 (stated)", burstlab_value=str(best),
        verdict="reproduces" if best == 512 else "differs",
        note="aggregate at p = 1e-3 by Wm: " + ", ".join(
            f"{w}: {fmt(v)} Gb/s" for w, v in thr.sort_index().items()))]


@PAPER.claim
def claim_model(ctx: Context) -> list[Claim]:
    """§IV.A, fig. 4: yu's model captures the slow class, overestimating slightly."""
    pv = ctx.data["slow.model"]
    m: pd.DataFrame = ctx.values["model"].dropna(subset=["burstlab_Gbps"])
    if m.empty:
        return [_missing("slow.model", pv.source, "yu's model captures fig. 4", "–")]
    ratio = (m["model_Gbps"] / m["burstlab_Gbps"]).to_numpy(float)
    med = float(np.median(ratio))
    over = float(np.mean(ratio >= 0.95))
    ok = 0.95 <= med <= 1.35 and over >= 0.75
    return [Claim(
        id="slow.model", source=pv.source,
        statement="yu's SACK model (eq. 26/28) captures slow throughput vs Wm, with a slight "
                  "overestimation", paper_value="slight overestimation (stated)",
        burstlab_value=f"model/burstlab median {fmt(med)}",
        verdict="reproduces" if ok else ("same direction" if med >= 1.0 else "differs"),
        note=f"over {len(m)} (Wm, p) points model/burstlab ranges {fmt(ratio.min())}–"
             f"{fmt(ratio.max())} (median {fmt(med)}); the model is at or above burstlab "
             f"(within 5 %) at {100 * over:.0f} % of them")]


@PAPER.claim
def claim_cwnd(ctx: Context) -> list[Claim]:
    """Figs 6–9: Wm = 512 reached by slow flows at p = 1e-4, not at 1e-2; fast flows
    never reach Wm = 512 (or 128) at p = 1e-3."""
    ps, pf = ctx.data["slow.cwnd_reaches_wm"], ctx.data["fast.cwnd_never_wm"]
    out = []
    mx: pd.DataFrame = ctx.values["cwnd_max"]

    def one(cls: str, wm: int, p: float) -> pd.Series | None:
        g = mx[(mx["class"] == cls) & (mx["wm"] == wm) & np.isclose(mx["p"], p)]
        return None if g.empty else g.iloc[0]

    a, b = one("slow", 512, 1e-4), one("slow", 512, 1e-2)
    if a is None or b is None:
        out.append(_missing("slow.cwnd_reaches_wm", ps.source, "slow cwnd reaches Wm",
                            "yes at 1e-4, no at 1e-2"))
    else:
        x = float(a["max_cwnd_flow0"])
        y = float(b["max_cwnd_after_first_loss"])
        ok = x >= 512 and y < 512
        out.append(Claim(
            id="slow.cwnd_reaches_wm", source=ps.source,
            statement="one slow flow's cwnd reaches Wm = 512 at p = 1e-4 but, after its "
                      "first loss, not at 1e-2",
            paper_value="reaches at 1e-4, not at 1e-2 (stated)",
            burstlab_value=f"max cwnd {fmt(x)} / {fmt(y)}",
            verdict="reproduces" if ok else "differs",
            note=f"flow 0's largest cwnd: {fmt(x)} segments at p = 1e-4, {fmt(y)} at 1e-2 "
                 f"after its first loss at {fmt(b['first_loss_s'])} s (runs of "
                 f"{fmt(a['cwnd_run_s'])} s; the initial slow start reaches Wm at every p)"))
    rows = [(w, one("fast", w, 1e-3)) for w in (512, 128)]
    got = [(w, float(r["max_cwnd_flow0"])) for w, r in rows if r is not None]
    got = [(w, float(r["max_cwnd_after_first_loss"])) for w, r in rows if r is not None]
    if not got:
        out.append(_missing("fast.cwnd_never_wm", pf.source, "fast cwnd never reaches Wm",
                            "never"))
    else:
        ok = all(c < w for w, c in got)
        out.append(Claim(
            id="fast.cwnd_never_wm", source=pf.source,
            statement="one fast flow's cwnd never reaches Wm = 512 (nor 128) at p = 1e-3 "
                      "(after its first loss)",
            paper_value="never (stated)",
            burstlab_value=", ".join(f"Wm {w}: max {fmt(c)}" for w, c in got),
            verdict="reproduces" if ok else "differs",
            note="flow 0's largest cwnd after its first loss, in a run of "
                 f"{fmt(ctx.mode.cwnd_fast_s)} s: " + ", ".join(
                     f"{fmt(c)} of Wm = {w}" for w, c in got)))
    return out


def pftk_aggregate(row: pd.Series) -> float:
    """PFTK (Padhye et al. 1998, full model) for one fast flow × the paper's N, in bit/s:
    with ≈ 1 segment of a flow per fast burst, a flow's segments are lost independently
    with probability p, the model's assumption. RTT: burstlab's mean; RTO: the 10.5 ms
    floor (the estimator's RTO is at least that)."""
    from burstlab.models import pftk

    cap = ACCESS_SEGPS
    seg = float(pftk.pftk_throughput_full(float(row["p"]), rtt=float(row["mean_rtt_ms"]) * 1e-3,
                                          rto=CLASSES["fast"]["rto_s"], wm=int(row["wm"])))
    return min(seg, cap) * MSS * 8.0 * CLASSES["fast"]["n"]


#: The access link's rate in segments/s (payload + headers).
ACCESS_SEGPS = 100e6 / ((MSS + HEADER) * 8.0)


@PAPER.claim
def claim_fast_numbers(ctx: Context) -> list[Claim]:
    """§IV.B: ≈ 2.2 Gb/s at p = 1e-3 whatever Wm; 44 segments per burst; 298 Mb/s at
    p = 1e-2 (Wm 64); 9.2 Gb/s at p = 1e-4 (Wm 128); no gain above Wm = 64."""
    out = []
    sn = _scale_note(ctx, "fast")
    r = _runs(ctx)
    g = r[(r["class"] == "fast") & np.isclose(r["p"], 1e-3)].set_index("wm")
    thr = g["aggregate_at_paper_n_Gbps"].astype(float).sort_index()
    pv = ctx.data["fast.throughput_p1e-3"]
    if len(thr):
        out.append(number_claim(
            "fast.throughput_p1e-3", pv.source,
            "fast aggregate throughput at p = 1e-3 (mean over Wm)", float(pv.value),
            float(thr.mean()) * 1e9, "Gb/s", 1e9,
            "by Wm: " + ", ".join(f"{w}: {fmt(v)} Gb/s" for w, v in thr.items())
            + f"; PFTK at segment loss p: {fmt(pftk_aggregate(g.reset_index().iloc[0]) / 1e9)}"
            f" Gb/s (Wm {int(thr.index[0])}){sn}"))
        spread = float(thr.max() / thr.min() - 1.0) if len(thr) > 1 else math.nan
        pw = ctx.data["fast.wm64_enough"]
        if 64 in thr.index and len(thr) > 1:
            gain = float(thr.drop(64).max() / thr[64] - 1.0)
            out.append(Claim(
                id="fast.wm64_enough", source=pw.source,
                statement="fast connections gain nothing from Wm above 64 (p = 1e-3), i.e. "
                          "the throughput does not depend on Wm",
                paper_value="no gain (stated)", burstlab_value=f"{fmt(100 * gain)} % gain",
                verdict="reproduces" if gain <= 0.05 else (
                    "same direction" if gain <= 0.25 else "differs"),
                note=f"the best Wm above 64 gives {fmt(100 * gain)} % more than Wm = 64; "
                     f"spread over Wm {fmt(100 * spread)} %"))
    row = _row(ctx, "fast", 512, 1e-3)
    ps = ctx.data["fast.segments_per_burst"]
    if row is not None:
        out.append(number_claim(
            "fast.segments_per_burst", ps.source, "segments per fast burst at Wm = 512, "
            "p = 1e-3", float(ps.value), float(row["mean_segments_per_burst"]), "segments",
            1.0, f"Lmax = 25 KB of 552 B segments closes the burst at its 46th segment unless "
                 f"Tmax = 0.5 ms does first; {fmt(row['segments_per_flow_per_burst'])} "
                 "segments of one flow per burst (no N scaling: Lmax, not N, sets the size)"))
    for cid, wm, p in (("fast.p1e-2_wm64", 64, 1e-2), ("fast.p1e-4_wm128", 128, 1e-4)):
        pv = ctx.data[cid]
        row = _row(ctx, "fast", wm, p)
        if row is None:
            out.append(_missing(cid, pv.source, f"fast at Wm {wm}, p {p:g}", "–"))
            continue
        ideal = MSS * 8.0 * wm * CLASSES["fast"]["n"] / (float(row["mean_rtt_ms"]) * 1e-3)
        out.append(number_claim(
            cid, pv.source, f"fast aggregate throughput at Wm = {wm}, p = {p:g}",
            float(pv.value), float(row["aggregate_at_paper_n_Gbps"]) * 1e9,
            "Gb/s", 1e9, f"window-limited ideal at burstlab's RTT {fmt(row['mean_rtt_ms'])} "
                         f"ms is {fmt(ideal / 1e9)} Gb/s, PFTK at segment loss p gives "
                         f"{fmt(pftk_aggregate(row) / 1e9)} Gb/s; {int(row['td_events'])} "
                         f"TD and {int(row['to_events'])} TO{sn}"))
    return out


@PAPER.claim
def claim_both(ctx: Context) -> list[Claim]:
    """Fig. 13, §V: fast (Wm 64) and slow (Wm 512) about the same at p ≥ 1e-3; fast
    higher at very low loss."""
    out = []
    ps, pl = ctx.data["both.same_above_1e-3"], ctx.data["both.fast_higher_low_loss"]
    pairs = []
    for p in (1e-3, 1e-2):
        f, s = _row(ctx, "fast", 64, p), _row(ctx, "slow", 512, p)
        if f is not None and s is not None:
            pairs.append((p, float(f["aggregate_at_paper_n_Gbps"]),
                          float(s["aggregate_at_paper_n_Gbps"])))
    if pairs:
        ratios = [a / b for _, a, b in pairs]
        ok = all(1 / SAME_FACTOR <= x <= SAME_FACTOR for x in ratios)
        out.append(Claim(
            id="both.same_above_1e-3", source=ps.source,
            statement="at p ≥ 1e-3 fast (Wm 64) and slow (Wm 512) give about the same "
                      f"throughput (burstlab: within a factor {SAME_FACTOR})",
            paper_value="roughly the same (stated)",
            burstlab_value=", ".join(f"p {p:g}: fast/slow {fmt(x)}"
                                     for (p, _, _), x in zip(pairs, ratios, strict=True)),
            verdict="reproduces" if ok else "differs",
            note="; ".join(f"p = {p:g}: fast {fmt(a)} Gb/s, slow {fmt(b)} Gb/s"
                           for p, a, b in pairs)))
    f, s = _row(ctx, "fast", 64, 1e-5), _row(ctx, "slow", 512, 1e-5)
    if f is not None and s is not None:
        a, b = float(f["aggregate_at_paper_n_Gbps"]), float(s["aggregate_at_paper_n_Gbps"])
        out.append(Claim(
            id="both.fast_higher_low_loss", source=pl.source,
            statement="at very low loss (p = 1e-5) fast connections give more throughput",
            paper_value="fast higher (stated)", burstlab_value=f"fast/slow {fmt(a / b)}",
            verdict="reproduces" if a > b else "differs",
            note=f"p = 1e-5: fast (Wm 64) {fmt(a)} Gb/s, slow (Wm 512) {fmt(b)} Gb/s at the "
                 "paper's N"))
    return out
