"""yu's claims on the packet traces of figs 8–10 (one lost burst, random burst loss)
and on the same panels run by ns-2.35 on the packet path (:mod:`.packetpath`).

Read first: :func:`claim_fig8`, :func:`claim_fig9`, :func:`claim_fig10`, then
:func:`claim_ns2_packet_path`. :mod:`.claims` registers them on :data:`PAPER` in the
order of its claims table; the trace summaries come from
:func:`.experiments.trace_panels`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from burstlab.reproduce import verdict as V
from burstlab.reproduce.framework import DIFFERS, NOT_COMPARABLE, Claim, Context
from burstlab.reproduce.papers.yu.experiments import MIN_RTO, NS2_VERSION, VARIANTS, wire_lambda
from burstlab.reproduce.report import fmt


def fig8_timeout_cause(x: pd.Series) -> str:
    """Why a fig. 8 panel timed out, from its trace summary: whether the RTO fired before
    the fast retransmission reached the receiver (and how many segments at λ it waited
    behind), or after (then no duplicate ACKs came back for the remaining holes)."""
    if not int(x["timeouts"]):
        return (f"the {int(x['segments_dropped'])} lost segments were all delivered "
                f"{fmt(float(x['repaired_rel_s']))} s after the loss without a timeout")
    sent, rep = float(x["first_retransmit_rel_s"]), float(x["first_repair_rel_s"])
    to = float(x["first_timeout_rel_s"])
    wait = rep - sent
    queued = wait * wire_lambda("125KB/s")
    if to < rep:
        return (f"the RTO fires at +{fmt(to)} s, before the fast retransmission (sent at "
                f"+{fmt(sent)} s) reaches the receiver at +{fmt(rep)} s: it waits "
                f"{fmt(wait)} s, ≈ {queued:.0f} segments at λ, behind the sender's access "
                f"queue (W = {int(x['W_segments'])} against mean RTT "
                f"{fmt(float(x['mean_rtt_s']))} s, mean RTO {fmt(float(x['mean_rto_s']))} s)")
    return (f"the fast retransmission is delivered at +{fmt(rep)} s, and the RTO still fires "
            f"at +{fmt(to)} s: no duplicate ACKs return for the remaining "
            f"{int(x['segments_dropped']) - 1} hole(s) ({int(x['td_events'])} fast "
            f"retransmit(s), all lost segments delivered at +{fmt(float(x['repaired_rel_s']))} s)")


def claim_fig8(ctx: Context) -> list[Claim]:
    s8 = pd.DataFrame([pn.summary for pn in ctx.values["traces"]["fig8"]])
    out = []
    for _, x in s8[s8["min_rto_s"] <= MIN_RTO + 1e-9].iterrows():
        w = int(x["W_segments"])
        key = "fig8a.reno_w20_timeout" if w == 20 else "fig8b.reno_w200_no_timeout"
        pv = ctx.data[key]
        want = "timeout" if w == 20 else "no timeout"
        got = "timeout" if int(x["timeouts"]) else "no timeout"
        note = (f"{int(x['td_events'])} fast retransmit(s) and {int(x['timeouts'])} timeout(s) "
                f"after losing {int(x['segments_dropped'])} segments at cwnd "
                f"{fmt(float(x['cwnd_before']))}")
        if want != got:
            note += "; " + fig8_timeout_cause(x)
        v = V.judge_event(got == "timeout", want == "timeout", "a timeout")
        out.append(Claim(id=key, source=pv.source,
                         statement=f"Reno, W = {w}, S = 5, one burst lost: {want}",
                         paper_value=f"{want} (stated)", burstlab_value=got,
                         verdict=v.verdict, note=f"{v.note}: {note}"))
    return out


def claim_fig8a_timeout_time(ctx: Context) -> list[Claim]:
    """Fig. 8(a): the burst is lost 3 s into the trace and the timeout comes at 3.8 s:
    the time from the loss to the first timeout of the W = 20 panel, judged as a
    ``quantity`` (one deterministic trace: an exact value)."""
    s8 = pd.DataFrame([pn.summary for pn in ctx.values["traces"]["fig8"]])
    x = s8[(s8["W_segments"] == 20) & (s8["min_rto_s"] <= MIN_RTO + 1e-9)]
    pv = ctx.data["fig8a.timeout_time"]
    base = dict(id="fig8a.timeout_time", source=pv.source,
                statement="Reno, W = 20, S = 5: the timeout comes 0.8 s after the loss "
                          "(3 s → 3.8 s)", paper_value="0.8 s (3.8 − 3, printed)")
    if not len(x):
        return [Claim(**base, burstlab_value="–", verdict=NOT_COMPARABLE,
                      note="the W = 20 panel is not run in this mode")]
    r = x.iloc[0]
    to = float(r["first_timeout_rel_s"])
    if not np.isfinite(to):
        return [Claim(**base, burstlab_value="no timeout", verdict=DIFFERS,
                      note="no timeout follows the loss in burstlab's trace: "
                           + fig8_timeout_cause(r))]
    v = V.judge(V.exact(to), float(pv.value), kind="quantity", precision=pv.precision,
                fmt=lambda t: f"{fmt(t)} s")
    return [Claim(**base, burstlab_value=f"{fmt(to)} s", ci=V.exact(to).text(),
                  verdict=v.verdict,
                  note=f"{v.note}; the loss at {fmt(float(r['drop_time_s']))} s (cwnd "
                       f"{fmt(float(r['cwnd_before']))}), {int(r['td_events'])} fast "
                       f"retransmit(s), first retransmission +"
                       f"{fmt(float(r['first_retransmit_rel_s']))} s, mean RTT "
                       f"{fmt(float(r['mean_rtt_s']))} s, mean RTO "
                       f"{fmt(float(r['mean_rto_s']))} s; " + fig8_timeout_cause(r))]


def claim_fig9a_single_halving(ctx: Context) -> list[Claim]:
    """Fig. 9(a): New-Reno halves its window only once after the loss of a 5-segment
    burst at W = 40 (to 20): its smallest cwnd in the window after the loss, judged as a
    ``quantity`` against 20 (a second halving gives 10, a timeout 1)."""
    s9 = pd.DataFrame([pn.summary for pn in ctx.values["traces"]["fig9"]])
    x = s9[(s9["variant"] == "newreno") & (s9["S_segments"].astype(int) == 5)]
    pv = ctx.data["fig9a.newreno_single_halving"]
    base = dict(id="fig9a.newreno_single_halving", source=pv.source,
                statement="New-Reno, S = 5, W = 40: the window is halved once, to 20",
                paper_value="20 segments (W/2, printed)")
    if not len(x):
        return [Claim(**base, burstlab_value="–", verdict=NOT_COMPARABLE,
                      note="the New-Reno S = 5 panel is not run in this mode")]
    r = x.iloc[0]
    low = float(r["cwnd_min_after"])
    v = V.judge(V.exact(low), float(pv.value), kind="quantity")
    return [Claim(**base, burstlab_value=f"{fmt(low)} segments", ci=V.exact(low).text(),
                  verdict=v.verdict,
                  note=f"{v.note}; smallest cwnd in the {fmt(float(ctx.mode.trace_after_s))} "
                       f"s after the loss, from {fmt(float(r['cwnd_before']))} before it; "
                       f"{int(r['td_events'])} fast retransmit(s), {int(r['timeouts'])} "
                       f"timeout(s), {int(r['segments_dropped'])} segments lost")]


def rate_after_first_timeout(pn: Any) -> tuple[float, float]:
    """One fig. 10 panel: (time of its first timeout, rate of new segments sent from then
    to the window's end, segments/s); NaNs without a timeout."""
    if not pn.timeouts:
        return math.nan, math.nan
    t = float(pn.timeouts[0])
    w = pn.window
    end = float(pn.t0) + float(pn.summary["window_s"])
    new = w[(w["event"] == "sent") & ~w["retransmit"] & (w["time_s"] >= t)]
    return t, len(new) / (end - t) if end > t else math.nan


def claim_fig10a_coincide(ctx: Context) -> list[Claim]:
    """Fig. 10(a): after back-to-back losses end in a timeout, the three variants
    perform the same: the rate of new segments each sends after its first timeout in
    the window, fastest over slowest, judged as a ``ratio`` against 1 (one
    deterministic trace per variant: an exact value)."""
    pv = ctx.data["fig10a.curves_coincide"]
    hi = [pn for pn in ctx.values["traces"]["fig10"]
          if np.isclose(float(pn.summary["p"]), 10 ** -1.5, rtol=1e-4)]
    rates = {pn.variant: rate_after_first_timeout(pn) for pn in hi}
    ok = {v: r for v, (_, r) in rates.items() if np.isfinite(r) and r > 0}
    base = dict(id="fig10a.curves_coincide", source=pv.source,
                statement="medium-high p: after the first timeout the three variants send "
                          "new segments at the same rate",
                paper_value="the same (stated; fastest/slowest = 1)")
    txt = "; ".join(f"{v}: first timeout at {fmt(t)} s, then {fmt(r)} new segments/s"
                    for v, (t, r) in rates.items())
    if len(ok) < len(VARIANTS):
        return [Claim(**base, burstlab_value=txt or "–", verdict=NOT_COMPARABLE,
                      note="a variant has no timeout (or sends nothing after it) in the "
                           "window: " + (txt or "no panel"))]
    ratio = max(ok.values()) / min(ok.values())
    v = V.judge(V.exact(ratio), float(pv.value), kind="ratio")
    return [Claim(**base, burstlab_value=f"fastest/slowest {fmt(ratio)}",
                  ci=V.exact(ratio).text(), verdict=v.verdict,
                  note=f"{v.note}; {txt} (p = 10^-1.5, window "
                       f"{fmt(float(ctx.mode.random_trace_s))} s from 10 s)")]


def claim_fig9(ctx: Context) -> list[Claim]:
    s9 = pd.DataFrame([pn.summary for pn in ctx.values["traces"]["fig9"]])
    out = []
    for s_seg in sorted(set(s9["S_segments"].astype(int))):
        g = s9[s9["S_segments"].astype(int) == s_seg]
        key = "fig9a.ranking" if s_seg == 5 else "fig9b.ranking"
        pv = ctx.data[key]
        new = {str(v): int(n) for v, n in zip(g["variant"], g["new_segments_after"],
                                              strict=True)}
        order = sorted(new, key=lambda v: -new[v])
        want = str(pv.value)
        # consecutive differences with their tie margins (verdict.TIE of the larger):
        # fig. 9(b)'s SACK − Reno of one segment in 99 is a tie
        v = V.judge_order(*V.order_differences({k: float(x) for k, x in new.items()},
                                               want.split(", ")))
        verdict, note = v.verdict, ("new segments sent after the loss, in the paper's "
                                    "order: " + v.note)
        if verdict == DIFFERS:
            note += "; per variant: " + "; ".join(
                f"{x['variant']} {int(x['timeouts'])} timeout(s)"
                + (f" (first +{fmt(float(x['first_timeout_rel_s']))} s)"
                   if int(x["timeouts"]) else "")
                + f", {int(x['td_events'])} fast retransmit(s), "
                + (f"lost segments delivered +{fmt(float(x['repaired_rel_s']))} s after "
                   "the loss" if np.isfinite(float(x["repaired_rel_s"])) else
                   f"lost segments not all delivered within the "
                   f"{fmt(float(ctx.mode.trace_after_s))} s window")
                for _, x in g.iterrows())
        out.append(Claim(id=key, source=pv.source,
                         statement=f"ranking after one lost burst, S = {s_seg}, W = 40",
                         paper_value=want + " (stated)",
                         burstlab_value=", ".join(f"{v} ({new[v]} new segments)" for v in order),
                         verdict=verdict, note=note))
    return out


def claim_fig10(ctx: Context) -> list[Claim]:
    s10 = pd.DataFrame([pn.summary for pn in ctx.values["traces"]["fig10"]])
    hi = s10[np.isclose(s10["p"], 10 ** -1.5, rtol=1e-4)]
    lo = s10[np.isclose(s10["p"], 10 ** -2.5, rtol=1e-4)]
    pv = ctx.data["fig10a.timeouts_all"]
    tos = {str(v): int(t) for v, t in zip(hi["variant"], hi["timeouts"], strict=True)}
    all_to = all(tos.get(v, 0) > 0 for v in VARIANTS)
    out = [Claim(id="fig10a.timeouts_all", source=pv.source,
                 statement="medium-high p: back-to-back burst losses end in timeouts for all "
                           "three variants",
                 paper_value="timeouts in all three (stated)",
                 burstlab_value="timeouts: " + ", ".join(f"{v} {tos.get(v, 0)}" for v in VARIANTS),
                 verdict=V.judge_event(all_to, True, "a timeout in every variant").verdict,
                 note=V.judge_event(all_to, True, "a timeout in every variant").note)]
    pv = ctx.data["fig10b.sack_best"]
    rate = {str(v): float(x) for v, x in zip(lo["variant"], lo["new_segments_per_s"], strict=True)}
    best = max(rate, key=lambda v: rate[v]) if rate else ""
    others = [o for o in VARIANTS if o != "sack" and o in rate and "sack" in rate]
    v10 = V.judge_order([(f"sack − {o}", V.exact(rate["sack"] - rate[o])) for o in others],
                        [V.TIE * max(rate["sack"], rate[o]) for o in others])
    out.append(Claim(id="fig10b.sack_best", source=pv.source,
                     statement="medium-low p: SACK performs best",
                     paper_value="SACK best (stated)",
                     burstlab_value="new segments/s: " + ", ".join(
                         f"{v} {fmt(rate[v])}" for v in VARIANTS if v in rate),
                     verdict=v10.verdict,
                     note=f"{best} sends the most new segments per second in the window; "
                          f"{v10.note}"))
    return out


# ---------------------------------------------------------------------------------------
# Figs 8–9 against ns-2.35 on the same path as a packet network (:mod:`.packetpath`).

NS2_SOURCE = "Figs 8–9, ns-2.35 on the packet path"


def _outcome(tos: float) -> str:
    return "timeout" if tos > 0 else "no timeout"


def claim_ns2_packet_path(ctx: Context) -> list[Claim]:
    """burstlab against ns-2.35 on the packet path of figs 8–9: identical send sequences,
    and burstlab's OBS outcome (timeout or not; the ranking) beside ns-2's."""
    pp: pd.DataFrame = ctx.values["packet_path"]
    has = bool(ctx.values.get("has_ns2")) and "ns2_timeouts" in pp.columns
    na = "ns-2 (`ns`) is not installed: nothing to compare"
    out = []
    n_same = int(pp["identical_sends"].sum()) if has else 0
    out.append(Claim(
        id="figs8_9.ns2_identical_sends", source=NS2_SOURCE,
        statement="burstlab's ns2 profile sends what ns-2.35 sends on the packet path of "
                  "every fig. 8–9 panel (segment, retransmission flag and time)",
        paper_value=f"Debian's ns-2.35 binary with ns-{NS2_VERSION}'s Agent/TCP defaults set "
                    "from Tcl (a reference simulator, not the paper's)",
        burstlab_value=f"identical in {n_same} of {len(pp)} panels" if has else "–",
        verdict=V.judge_event(n_same == len(pp), True, "identical sends in every panel").verdict
        if has else NOT_COMPARABLE,
        note=(f"{int(pp['sends_compared'].sum())} sends compared in all"
              + ("" if n_same == len(pp) else "; first divergence at send "
                 + ", ".join(str(int(i)) for i in pp["first_divergence_index"] if i >= 0))
              + ".") if has else na))
    obs = {pn.label: pn.summary for f in ("fig8", "fig9") for pn in ctx.values["traces"][f]}
    for _, x in pp[pp["figure"] == "fig8"].iterrows():
        w = int(x["W_segments"])
        key = "fig8a.reno_w20_timeout" if w == 20 else "fig8b.reno_w200_no_timeout"
        want = "timeout" if w == 20 else "no timeout"
        b_obs = _outcome(float(obs[x["panel"]]["timeouts"]))
        n = _outcome(float(x["ns2_timeouts"])) if has else "–"
        out.append(Claim(
            id=f"{key.split('.')[0]}.ns2_packet_path", source=NS2_SOURCE,
            statement=f"Reno, W = {w}, S = 5 lost: burstlab (OBS path) beside ns-2.35 "
                      "(packet path)",
            paper_value=f"ns-2.35 (packet path): {n}; yu: {want}",
            burstlab_value=f"OBS {b_obs}; packet path: burstlab "
                           f"{_outcome(float(x['burstlab_timeouts']))}, ns-2 {n}",
            verdict=V.judge_event(b_obs == "timeout", n == "timeout", "a timeout").verdict
            if has else NOT_COMPARABLE,
            note=(f"ns-2.35 itself {'times out' if n == 'timeout' else 'recovers'} "
                  f"({int(x['ns2_timeouts'])} timeout(s), "
                  f"{int(x['ns2_new_segments_after'])} new segments in "
                  f"{ctx.mode.trace_after_s:g} s after the loss), as burstlab does on the "
                  "OBS path" + ("" if n == b_obs else " — it does not") +
                  (f"; the paper reports {want}" if n != want else "") + ".")
            if has else na))
    for s_seg in sorted(set(pp[pp["figure"] == "fig9"]["S_segments"].astype(int))):
        g = pp[(pp["figure"] == "fig9") & (pp["S_segments"] == s_seg)]
        pv = ctx.data["fig9a.ranking" if s_seg == 5 else "fig9b.ranking"]
        b_new = {str(r["variant"]): int(obs[r["panel"]]["new_segments_after"])
                 for _, r in g.iterrows()}
        b_order = sorted(b_new, key=lambda v: -b_new[v])
        if has:
            n_new = {str(r["variant"]): int(r["ns2_new_segments_after"])
                     for _, r in g.iterrows()}
            n_order = sorted(n_new, key=lambda v: -n_new[v])
            # the same order as ns-2.35's, pair by pair (no tie margin: the claim is that
            # burstlab's packet path ranks as ns-2.35's does, near-ties included)
            verdict = V.judge_order(V.order_differences(
                {k: float(x) for k, x in b_new.items()}, n_order)[0]).verdict
            note = ("ns-2.35 on the packet path ranks "
                    + ", ".join(f"{v} ({n_new[v]})" for v in n_order)
                    + "; burstlab on the OBS path "
                    + ", ".join(f"{v} ({b_new[v]})" for v in b_order)
                    + " (new segments after the loss).")
        else:
            verdict, note, n_order = NOT_COMPARABLE, na, []
        out.append(Claim(
            id=f"fig9{'a' if s_seg == 5 else 'b'}.ns2_packet_path", source=NS2_SOURCE,
            statement=f"ranking after one lost burst, S = {s_seg}, W = 40: burstlab (OBS "
                      "path) beside ns-2.35 (packet path)",
            paper_value=f"ns-2.35 (packet path): {', '.join(n_order) if n_order else '–'}; "
                        f"yu: {pv.value}",
            burstlab_value=f"OBS {', '.join(b_order)}",
            verdict=verdict, note=note))
    return out
