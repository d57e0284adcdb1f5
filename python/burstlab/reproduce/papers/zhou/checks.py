"""zhou fig. 2's claims as pure checks on a table of simulated points.

Read first: :class:`Check` (a verdict with its value, CI and reason), then one function
per claim of zhou §2.2; every verdict is :mod:`burstlab.reproduce.verdict`'s rule.
Each takes a summary of ONE set-up with the columns ``tb_us``,
``pb``, ``goodput_Mbps_mean``, ``goodput_Mbps_ci_lo``, ``goodput_Mbps_ci_hi`` (95 %
CIs over replications) and returns a :class:`Check`. They decide nothing from the
paper's side except the number they compare with, so they can be run on hand-made
tables (tests), on the base set-up (claims) and on every sensitivity set-up (the
sensitivity table).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from burstlab.reproduce import verdict as V
from burstlab.reproduce.framework import NOT_COMPARABLE, REPRODUCES, PaperData, worst_of
from burstlab.reproduce.ratios import ratio_ci
from burstlab.reproduce.report import fmt

#: Two goodputs within this relative difference count as equal when describing whether
#: a curve is monotone (the note only; verdicts come from :mod:`..verdict`).
FLAT_TOL = 0.02
#: The band of the ``location`` kind as a factor (one sample of a roughly logarithmic
#: period grid on either side), for the notes.
PERIOD_FACTOR = 10 ** V.KINDS["location"].band
#: An optimum is interior when the best goodput exceeds the goodput at both ends of the
#: swept periods by at least this fraction (described in the optima table).
INTERIOR_GAIN = 0.05


@dataclass(frozen=True)
class Check:
    """The outcome of one check: verdict, burstlab's value (text), its CI, the reason."""

    verdict: str
    value: str
    note: str
    ci: str = ""


def _us(x: float) -> str:
    return f"{x:g} µs"


def _pct(x: float) -> str:
    return "–" if not np.isfinite(x) else f"{100 * x:.0f} %"


def curve(df: pd.DataFrame, pb: float) -> pd.DataFrame:
    """The points at burst loss ``pb``, sorted by period."""
    return df[np.isclose(df["pb"].astype(float), pb, rtol=0, atol=1e-12)].sort_values("tb_us")


def lossy_pbs(df: pd.DataFrame) -> list[float]:
    return sorted(float(p) for p in df["pb"].unique() if float(p) > 0)


def at(df: pd.DataFrame, pb: float, tb_us: float) -> tuple[float, float, float]:
    """(mean, ci_lo, ci_hi) of goodput at (pb, period), NaNs if not simulated."""
    g = curve(df, pb)
    g = g[np.isclose(g["tb_us"].astype(float), tb_us)]
    if not len(g):
        return (math.nan,) * 3
    x = g.iloc[0]
    return (float(x["goodput_Mbps_mean"]), float(x["goodput_Mbps_ci_lo"]),
            float(x["goodput_Mbps_ci_hi"]))


def _check(v: V.Verdict, value: str, ci: str = "", extra: str = "") -> Check:
    return Check(v.verdict, value, v.note + extra, ci)


def delay_penalty(df: pd.DataFrame) -> Check:
    """§2.2: at Pb = 0 the bandwidth falls as the period grows: the drop from the
    smallest to the largest period, an ordering claim (its interval above 0)."""
    g = curve(df, 0.0)
    if len(g) < 2:
        return Check(NOT_COMPARABLE, "–", "fewer than two periods simulated at Pb = 0")
    y = g["goodput_Mbps_mean"].to_numpy(float)
    t = g["tb_us"].to_numpy(float)
    d = drop_interval(df, 0.0, float(t[0]), 0.0, float(t[-1]))
    mono = bool(np.all(y[1:] <= y[:-1] * (1 + FLAT_TOL)))
    flat = t[y >= y[0] * (1 - FLAT_TOL)]
    value = (f"{fmt(y[0])} Mb/s at {_us(t[0])} → {fmt(y[-1])} Mb/s at {_us(t[-1])} "
             f"(−{_pct(d.estimate)})")
    flat_txt = (f"; flat up to {_us(float(flat.max()))} where the access link, not the "
                "window, limits the rate" if len(flat) > 1 else "")
    shape = ("; the mean never rises with the period" if mono else
             "; the mean rises somewhere in between")
    v = V.judge_order([(f"drop {_us(t[0])} → {_us(t[-1])}", d)])
    return _check(v, value, d.text(_pct), shape + flat_txt)


def optima(df: pd.DataFrame) -> pd.DataFrame:
    """Per Pb > 0: the best period, whether it is interior, and the periods tied with it
    (mean inside the best point's 95 % CI)."""
    rows = []
    for pb in lossy_pbs(df):
        g = curve(df, pb)
        y = g["goodput_Mbps_mean"].to_numpy(float)
        lo = g["goodput_Mbps_ci_lo"].to_numpy(float)
        t = g["tb_us"].to_numpy(float)
        i = int(np.nanargmax(y))
        best_lo = lo[i] if np.isfinite(lo[i]) else y[i]
        tied = t[y >= best_lo]
        interior = bool(0 < i < len(y) - 1 and y[i] >= (1 + INTERIOR_GAIN) * y[0]
                        and y[i] >= (1 + INTERIOR_GAIN) * y[-1])
        rows.append({"pb": pb, "best_tb_us": float(t[i]), "best_Mbps": float(y[i]),
                     "interior": interior, "rise_from_smallest": float(y[i] / y[0] - 1),
                     "fall_to_largest": float(1 - y[-1] / y[i]),
                     "tied_tb_us": tuple(float(x) for x in tied)})
    return pd.DataFrame(rows, columns=["pb", "best_tb_us", "best_Mbps", "interior",
                                       "rise_from_smallest", "fall_to_largest",
                                       "tied_tb_us"])


def _optima_text(o: pd.DataFrame) -> str:
    return ", ".join(f"{_us(float(b))} (Pb = {100 * float(p):g} %)"
                     for p, b in zip(o["pb"], o["best_tb_us"], strict=True))


def location(df: pd.DataFrame, pb: float) -> V.Interval:
    """Where the curve at ``pb`` peaks (µs), with the periods not significantly below the
    best as interval (:func:`verdict.location_interval`)."""
    g = curve(df, pb)
    n = int(g["n"].min()) if "n" in g.columns and len(g) else 0
    return V.location_interval(g["tb_us"], g["goodput_Mbps_mean"], g["goodput_Mbps_ci_lo"],
                               g["goodput_Mbps_ci_hi"], n=n)


def _worst(vs: list[V.Verdict]) -> str:
    return worst_of(v.verdict for v in vs)


def optimal_period(df: pd.DataFrame, paper_us: float, precision: float = 0.0) -> Check:
    """§2.2: with losses, goodput first rises and then falls with the period; the best
    period is about ``paper_us``: each lossy curve's peak location judged with the
    ``location`` kind; the claim takes the worst of them."""
    pbs = lossy_pbs(df)
    if not pbs:
        return Check(NOT_COMPARABLE, "–", "no lossy points simulated")
    locs = {pb: location(df, pb) for pb in pbs}
    vs = {pb: V.judge(x, paper_us, kind="location", precision=precision, fmt=_us)
          for pb, x in locs.items()}
    value = "best period " + ", ".join(f"{_us(x.estimate)} (Pb = {100 * pb:g} %)"
                                       for pb, x in locs.items())
    ci = "; ".join(f"Pb = {100 * pb:g} %: {x.text(_us)}" for pb, x in locs.items())
    note = "; ".join(f"Pb = {100 * pb:g} %: {v.verdict} ({v.note})" for pb, v in vs.items())
    return Check(_worst(list(vs.values())), value, note, ci)


def optimum_independent(df: pd.DataFrame) -> Check:
    """§2.2, §4: the optimal period does not depend on Pb: the ratio of the peak
    locations at the highest and the lowest lossy Pb (its interval from the two location
    intervals) against 1 with the ``location`` kind."""
    pbs = lossy_pbs(df)
    if len(pbs) < 2:
        return Check(NOT_COMPARABLE, "–", "fewer than two lossy Pb simulated")
    a, b = location(df, pbs[-1]), location(df, pbs[0])
    value = (f"best period {_us(a.estimate)} at Pb = {100 * pbs[-1]:g} %, "
             f"{_us(b.estimate)} at Pb = {100 * pbs[0]:g} %")
    if not (a.defined and b.defined):
        r = V.none(a.estimate / b.estimate, min(a.n, b.n))
    else:
        lo = a.lo / b.hi if b.hi > 0 else 0.0
        hi = a.hi / b.lo if b.lo > 0 else math.inf
        r = V.Interval(a.estimate / b.estimate, lo, hi, min(a.n, b.n), "location ratio")
    v = V.judge(r, 1.0, kind="location")
    return _check(v, value, r.text(), " (ratio of the best periods, highest over lowest Pb)")


def relative_drop(df: pd.DataFrame, pb_a: float, tb_a: float, pb_b: float,
                  tb_b: float) -> tuple[float, float, float]:
    """``1 − B(pb_b, tb_b)/B(pb_a, tb_a)`` with a log-delta 95 % CI (≤ 1: a ratio of
    goodputs is positive)."""
    a = at(df, pb_a, tb_a)
    b = at(df, pb_b, tb_b)
    r, lo, hi = ratio_ci(b[0], b[1], b[2], a[0], a[1], a[2])
    return 1 - r, 1 - hi, 1 - lo


def drop_interval(df: pd.DataFrame, pb_a: float, tb_a: float, pb_b: float,
                  tb_b: float) -> V.Interval:
    """:func:`relative_drop` as an :class:`~burstlab.reproduce.verdict.Interval`."""
    d, lo, hi = relative_drop(df, pb_a, tb_a, pb_b, tb_b)
    n = int(df["n"].min()) if "n" in df.columns and len(df) else 0
    # the ratio's log-scale interval turned into a drop 1 − r (its resolution then
    # follows 1 − drop, verdict.Interval.resolution)
    return V.log_interval(1.0 - d, 1.0 - hi, 1.0 - lo, n).complement() if np.isfinite(lo) \
        else V.none(d, n)


def loss_cost(df: pd.DataFrame, pb: float, tb_us: float, paper: float,
              precision: float = 0.0) -> Check:
    """§2.2: Pb costs ``paper`` of the bandwidth at Pb = 0 (measured at period ``tb_us``;
    the other periods are in the note), judged with the ``drop`` kind."""
    d = drop_interval(df, 0.0, tb_us, pb, tb_us)
    others = []
    for t in sorted(set(curve(df, pb)["tb_us"].astype(float))):
        c = relative_drop(df, 0.0, t, pb, t)[0]
        if np.isfinite(c):
            others.append((t, c))
    rng = (f"; over the swept periods it ranges {_pct(min(c for _, c in others))}–"
           f"{_pct(max(c for _, c in others))}") if others else ""
    v = V.judge(d, paper, kind="drop", precision=precision, fmt=_pct)
    return _check(v, f"{_pct(d.estimate)} at {_us(tb_us)}", d.text(_pct), rng)


def drop_between(df: pd.DataFrame, pb: float, from_us: float, to_us: float,
                 paper: float, precision: float = 0.0) -> Check:
    """§2.2: from ``from_us`` to ``to_us`` the bandwidth at ``pb`` drops by ``paper``
    (the ``drop`` kind)."""
    d = drop_interval(df, pb, from_us, pb, to_us)
    v = V.judge(d, paper, kind="drop", precision=precision, fmt=_pct)
    return _check(v, f"{_pct(d.estimate)} ({_us(from_us)} → {_us(to_us)})", d.text(_pct))


def drop_order(df: pd.DataFrame, pb_low: float, pb_high: float, from_us: float,
               to_us: float) -> Check:
    """§2.2: the bandwidth varies faster with the period at low Pb than at high Pb (the
    drop from ``from_us`` to ``to_us`` is larger at ``pb_low``): an ordering claim on the
    difference of the two drops (independent runs)."""
    a = drop_interval(df, pb_low, from_us, pb_low, to_us)
    b = drop_interval(df, pb_high, from_us, pb_high, to_us)
    value = (f"{_pct(a.estimate)} at Pb = {100 * pb_low:g} %, {_pct(b.estimate)} at "
             f"Pb = {100 * pb_high:g} %")
    if not (np.isfinite(a.estimate) and np.isfinite(b.estimate)):
        return Check(NOT_COMPARABLE, value, "the two drops are not both simulated")
    d = V.difference_interval(a, b)
    v = V.judge_order([(f"drop at Pb = {100 * pb_low:g} % − drop at Pb = "
                        f"{100 * pb_high:g} %", d)])
    return _check(v, value, d.text(_pct))


def higher_pb_lower(df: pd.DataFrame) -> Check:
    """§2.2: higher Pb, lower bandwidth (at every period): an ordering claim over every
    period and pair of neighbouring Pb (the relative drop from the lower Pb, above 0)."""
    periods = sorted(set(df["tb_us"].astype(float)))
    pbs = sorted(float(p) for p in df["pb"].unique())
    diffs = [(f"{_us(t)}, Pb {100 * a:g} → {100 * b:g} %", drop_interval(df, a, t, b, t))
             for t in periods for a, b in zip(pbs, pbs[1:], strict=False)]
    diffs = [(k, d) for k, d in diffs if np.isfinite(d.estimate)]
    k = sum(d.lo > 0 for _, d in diffs if d.defined)
    v = V.judge_order(diffs)
    value = f"significantly lower at the higher Pb in {k} of {len(diffs)} comparisons"
    short = (v.note.split(" (")[0] if v.verdict != REPRODUCES else
             "every drop to a higher Pb is significantly positive")
    return Check(v.verdict, value, short + f" ({len(periods)} periods, {len(pbs)} Pb)")


def checks_for(df: pd.DataFrame, data: PaperData) -> dict[str, Check]:
    """Every fig. 2 claim of ``paper.toml`` checked on one set-up's table, by claim id."""
    opt = float(data["fig2.optimal_period"].value) * 1e6
    end = float(data["setup.max_period"].value) * 1e6
    cost = data["fig2.loss_cost_pb0.8"]
    drops = data["fig2.drop_to_3000us"]
    out = {
        "fig2.pb0_delay_penalty": delay_penalty(df),
        "fig2.optimal_period": optimal_period(df, opt,
                                              data["fig2.optimal_period"].precision),
        "fig2.optimum_independent_of_pb": optimum_independent(df),
        "fig2.loss_cost_pb0.8": loss_cost(df, max(data["setup.pb_values"].value), opt,
                                          float(cost.value), cost.precision),
        "fig2.higher_pb_lower_bandwidth": higher_pb_lower(df),
    }
    for pb, paper in zip(drops.x, drops.value, strict=True):
        out[f"fig2.drop_to_3000us.pb={100 * pb:g}%"] = drop_between(
            df, pb, opt, end, float(paper), drops.precision)
    out["fig2.drop_larger_at_low_pb"] = drop_order(df, min(drops.x), max(drops.x), opt, end)
    return out
