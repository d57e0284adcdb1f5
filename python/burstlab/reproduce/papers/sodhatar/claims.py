"""sodhatar's claims: each compares a value of ``paper.toml`` with burstlab and returns a
:class:`~burstlab.reproduce.framework.Claim` with a verdict and a one-sentence reason.

Read first: :func:`change_verdict` and :func:`ranking_verdict` (both the one rule of
:mod:`burstlab.reproduce.verdict`), then the registered ``claim_*`` functions at the
bottom. burstlab's value is the mean over random
start draws (the paper gives no start times, §III); every note adds the simultaneous
start, the spread over all start patterns and ns-2.35's value for the same scripts.
Nothing is tuned to match: a claim that does not reproduce says so, with numbers.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from burstlab.reproduce import verdict as V
from burstlab.reproduce.framework import Claim, Context
from burstlab.reproduce.papers.sodhatar.experiments import (
    PAPER,
    REFERENCE_PATTERN,
    VARIANTS,
)

#: Changes smaller than this in magnitude count as "flat" when describing how the sign of
#: a change varies over start patterns (the note only, never a verdict).
DEAD_ZONE = 0.03

NAMES = {"tahoe": "Tahoe", "reno": "Reno", "newreno": "NewReno"}


def pct(x: float) -> str:
    """A relative change as a signed percentage (``+32 %``), NaN as an en dash."""
    return "–" if not np.isfinite(x) else f"{100 * x:+.0f} %"


def _sign(x: float) -> int:
    return 0 if abs(x) <= DEAD_ZONE else (1 if x > 0 else -1)


def change_verdict(sim: float, lo: float, hi: float, paper: float,
                   precision: float = 0.005, n: int = 2) -> tuple[str, str]:
    """Verdict and reason for a relative throughput change (1460 → 4000 B):
    :func:`verdict.judge` with the ``change`` kind, burstlab's paired interval cut to the
    change's range (≥ −100 %)."""
    sim_iv = V.summary_interval(sim, lo, hi, n, lower=-1.0)
    v = V.judge(sim_iv, paper, kind="change", precision=precision, fmt=pct)
    return v.verdict, v.note


def ranking_verdict(leads: dict[str, V.Interval], who: str = "newreno") -> tuple[str, str]:
    """Verdict and reason for "``who`` has the best throughput": :func:`verdict.judge_order`
    on ``who``'s paired lead over each other variant (Mb/s, same random start draws)."""
    v = V.judge_order([(f"{NAMES.get(who, who)} − {NAMES.get(o, o)} (Mb/s)", d)
                       for o, d in leads.items() if o != who])
    return v.verdict, v.note


def paired_leads(runs: pd.DataFrame, network: str, size: int, who: str = "newreno",
                 col: str = "throughput_Mbps") -> dict[str, V.Interval]:
    """``who``'s throughput minus each other variant's, paired by random start draw
    (common random numbers): the mean difference in Mb/s with its paired t interval."""
    g = runs[(runs["network"] == network) & (runs["size_B"] == size)
             & runs["pattern"].str.startswith("random")]
    piv = g.pivot(index="pattern", columns="variant", values=col)
    out = {}
    for o in VARIANTS:
        if o == who or o not in piv.columns or who not in piv.columns:
            continue
        out[o] = V.paired_difference(piv[who].to_numpy(float), piv[o].to_numpy(float))
    return out


# ---------------------------------------------------------------------------------------
# Helpers reading the analysis tables.


def _change_rows(ctx: Context, network: str, variant: str) -> pd.DataFrame:
    ch: pd.DataFrame = ctx.values["changes"]
    return ch[(ch["network"] == network) & (ch["variant"] == variant)]


def spread_text(g: pd.DataFrame, col: str = "change") -> str:
    """The reference pattern's value, the range over every pattern and sign flips."""
    per = g[g["pattern"] != "random mean"]
    vals = per[col].to_numpy(float)
    vals = vals[np.isfinite(vals)]
    if not len(vals):
        return ""
    ref = per[per["pattern"] == REFERENCE_PATTERN][col]
    signs = {_sign(float(x)) for x in vals}
    flip = (f"the sign flips with the start times ({sum(_sign(float(x)) > 0 for x in vals)} "
            f"up, {sum(_sign(float(x)) < 0 for x in vals)} down, "
            f"{sum(_sign(float(x)) == 0 for x in vals)} flat of {len(vals)} patterns)"
            if len(signs) > 1 else f"same sign in all {len(vals)} patterns")
    r = f"{pct(float(ref.iloc[0]))} with simultaneous starts, " if len(ref) else ""
    return f"{r}{pct(float(vals.min()))} … {pct(float(vals.max()))} over start patterns, {flip}"


def _ns2_change_text(ctx: Context, network: str, variant: str) -> str:
    if network != "packet":
        return ""
    if not ctx.values.get("has_ns2"):
        return "; ns-2 was not available"
    g = _change_rows(ctx, network, variant)
    m = g[g["pattern"] == "random mean"]["ns2_change"]
    ref = g[g["pattern"] == REFERENCE_PATTERN]["ns2_change"]
    return (f"; ns-2.35 on the same scripts: {pct(float(m.iloc[0])) if len(m) else '–'} "
            f"(random starts), {pct(float(ref.iloc[0])) if len(ref) else '–'} "
            "(simultaneous)")


def size_change_claim(ctx: Context, network: str, variant: str, claim_id: str) -> Claim:
    pv = ctx.data[f"size.{variant}_change"]
    lo_b, hi_b = ctx.values["lo"], ctx.values["hi"]
    g = _change_rows(ctx, network, variant)
    m = g[g["pattern"] == "random mean"]
    where = "" if network == "packet" else f" with an OBS core ({network})"
    base = dict(id=claim_id, source=pv.source,
                statement=f"{NAMES[variant]}'s throughput changes by {pct(float(pv.value))} "
                          f"from 1460 to 4000 B{where}",
                paper_value=f"{pct(float(pv.value))} ({pv.how})")
    if lo_b != 1460 or hi_b != 4000 or not len(m):
        return Claim(**base, burstlab_value="–", verdict="not comparable",
                     note=f"this mode runs {lo_b} and {hi_b} B only, or no random starts")
    r = m.iloc[0]
    sim, lo, hi = float(r["change"]), float(r["change_ci_lo"]), float(r["change_ci_hi"])
    verdict, reason = change_verdict(sim, lo, hi, float(pv.value), pv.precision,
                                     int(ctx.mode.random_draws))
    lo, hi = max(lo, -1.0), max(hi, -1.0)
    x0, x1 = float(r["throughput_Mbps_at_1460B"]), float(r["throughput_Mbps_at_4000B"])
    note = (f"{reason}; mean over {int(ctx.mode.random_draws)} random start draws "
            f"{x0:.3g} → {x1:.3g} Mb/s; {spread_text(g)}"
            f"{_ns2_change_text(ctx, network, variant)}")
    return Claim(**base, burstlab_value=pct(sim),
                 ci=f"[{pct(lo)}, {pct(hi)}]" if np.isfinite(lo) else "",
                 verdict=verdict, note=note)


def ranking_claim(ctx: Context, network: str, size: int, claim_id: str) -> Claim:
    pv = ctx.data["ranking.newreno_best"]
    sizes: pd.DataFrame = ctx.values["sizes"]
    best: pd.DataFrame = ctx.values["best"]
    g = sizes[(sizes["network"] == network) & (sizes["size_B"] == size)]
    means = {str(k): float(x) for k, x in zip(g["variant"], g["throughput_Mbps_random_mean"],
                                                strict=True)}
    where = "" if network == "packet" else f", OBS core ({network})"
    base = dict(id=claim_id, source=pv.source,
                statement=f"NewReno has the best throughput ({size} B{where})",
                paper_value="NewReno best (stated)")
    leads = paired_leads(ctx.values["runs"], network, size)
    verdict, reason = ranking_verdict(leads) if len(leads) == len(VARIANTS) - 1 else \
        ("not comparable", "not every variant was simulated")
    b = best[(best["network"] == network) & (best["size_B"] == size)]
    n = len(b)
    counts = {k: int((b["best"] == k).sum()) for k in (*VARIANTS, "tie")}
    spread = ", ".join(f"{NAMES.get(k, k)} {c}" for k, c in counts.items() if c)
    flips = "the winner depends on the start times" if sum(1 for c in counts.values() if c) > 1 \
        else "the same in every start pattern"
    ref = b[b["pattern"] == REFERENCE_PATTERN]["best"]
    ns = ""
    if network == "packet":
        if ctx.values.get("has_ns2") and "ns2_best" in b.columns:
            nsc = {k: int((b["ns2_best"] == k).sum()) for k in (*VARIANTS, "tie")}
            ns_ref = b[b["pattern"] == REFERENCE_PATTERN]["ns2_best"]
            ns = ("; ns-2.35 best per pattern: "
                  + ", ".join(f"{NAMES.get(k, k)} {c}" for k, c in nsc.items() if c)
                  + (f" (simultaneous: {NAMES.get(str(ns_ref.iloc[0]), ns_ref.iloc[0])})"
                     if len(ns_ref) else ""))
        else:
            ns = "; ns-2 was not available"
    note = (f"{reason}, mean over random start draws; best per start pattern: {spread} of "
            f"{n} ({flips}"
            + (f"; simultaneous: {NAMES.get(str(ref.iloc[0]), ref.iloc[0])}" if len(ref)
               else "") + f"){ns}")
    txt = ", ".join(f"{NAMES[v]} {means.get(v, math.nan):.3g}" for v in VARIANTS)
    ci = "; ".join(f"NewReno − {NAMES[o]}: {d.text()} Mb/s"
                   for o, d in leads.items() if d.defined)
    return Claim(**base, burstlab_value=f"{txt} Mb/s", ci=ci, verdict=verdict, note=note)


# ---------------------------------------------------------------------------------------
# The claims.


@PAPER.claim
def claim_size_changes(ctx: Context) -> list[Claim]:
    """§V: throughput change 1460 → 4000 B per variant (Tahoe −82 %, Reno +32 %,
    NewReno +43 %), on the paper's packet dumbbell and with the OBS core."""
    out = []
    for net, prefix in (("packet", "size"), ("obs per-egress", "obs.size")):
        if net not in ctx.mode.networks:
            continue
        out += [size_change_claim(ctx, net, v, f"{prefix}.{v}_change") for v in VARIANTS]
    return out


@PAPER.claim
def claim_newreno_best(ctx: Context) -> list[Claim]:
    """Abstract, §V: NewReno gives the best throughput; one claim per packet size."""
    out = []
    for net, prefix in (("packet", "ranking"), ("obs per-egress", "obs.ranking")):
        if net not in ctx.mode.networks:
            continue
        out += [ranking_claim(ctx, net, s, f"{prefix}.newreno_best.size={s}B")
                for s in ctx.mode.sizes]
    return out


@PAPER.claim
def claim_figures(ctx: Context) -> Claim:
    """Figs 4–11: curves without readable numbers."""
    pv = ctx.data["figs.no_numbers"]
    v = V.judge(V.none(), math.nan, kind="quantity")
    return Claim(id="figs.throughput_cwnd_vs_time", source=pv.source,
                 statement="throughput vs time and cwnd vs time per variant and packet size",
                 paper_value="curves only (no readable numbers)",
                 burstlab_value="throughput_vs_time.png, cwnd_vs_time.png",
                 verdict=v.verdict,
                 note="the printed figures carry no readable axis values, so nothing can be "
                      "compared; burstlab's curves (and ns-2's throughput) are drawn for the "
                      "simultaneous start")
