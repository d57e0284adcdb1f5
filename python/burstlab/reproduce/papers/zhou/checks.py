"""zhou fig. 2's claims as pure checks on a table of simulated points.

Read first: :class:`Check` (a verdict with its value, CI and reason), then one function
per claim of zhou §2.2. Each takes a summary of ONE set-up with the columns ``tb_us``,
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

from burstlab.reproduce.framework import PaperData
from burstlab.reproduce.ratios import ratio_ci
from burstlab.reproduce.report import fmt

#: Two goodputs within this relative difference count as equal when judging whether a
#: curve is monotone (replication noise of a few per cent).
FLAT_TOL = 0.02
#: A simulated fraction (a loss cost, a drop) within this many percentage points of the
#: paper's printed fraction reproduces it; the paper gives no CI and does not say at
#: which period its 52 % is measured.
FRACTION_TOL = 0.10
#: The optimum "reproduces" 250 µs when it lies within this factor of it (one sample
#: of a roughly logarithmic period grid on either side).
PERIOD_FACTOR = 2.0
#: An optimum is interior when the best goodput exceeds the goodput at both ends of the
#: swept periods by at least this fraction.
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


def delay_penalty(df: pd.DataFrame) -> Check:
    """§2.2: at Pb = 0 the bandwidth falls as the period grows."""
    g = curve(df, 0.0)
    if len(g) < 2:
        return Check("not comparable", "–", "fewer than two periods simulated at Pb = 0")
    y = g["goodput_Mbps_mean"].to_numpy(float)
    t = g["tb_us"].to_numpy(float)
    drop = 1.0 - y[-1] / y[0]
    mono = bool(np.all(y[1:] <= y[:-1] * (1 + FLAT_TOL)))
    flat = t[y >= y[0] * (1 - FLAT_TOL)]
    value = (f"{fmt(y[0])} Mb/s at {_us(t[0])} → {fmt(y[-1])} Mb/s at {_us(t[-1])} "
             f"(−{_pct(drop)})")
    flat_txt = (f"; flat up to {_us(float(flat.max()))} where the access link, not the "
                "window, limits the rate" if len(flat) > 1 else "")
    if mono and drop > 0.10:
        return Check("reproduces", value, f"goodput never rises with the period and falls "
                                          f"by {_pct(drop)} over the sweep{flat_txt}")
    if drop > 0.10:
        return Check("same direction", value, f"goodput falls by {_pct(drop)} overall but "
                                              "rises somewhere in between")
    return Check("differs", value, f"goodput falls by only {_pct(drop)} over the sweep")


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


def optimal_period(df: pd.DataFrame, paper_us: float) -> Check:
    """§2.2: with losses, goodput first rises and then falls with the period; the best
    period is about ``paper_us``."""
    o = optima(df)
    if not len(o):
        return Check("not comparable", "–", "no lossy points simulated")
    k = int(o["interior"].sum())
    med = float(np.median(o["best_tb_us"]))
    near = abs(math.log10(med / paper_us)) <= math.log10(PERIOD_FACTOR)
    value = "best period " + _optima_text(o)
    if k == len(o) and near:
        return Check("reproduces", value, f"every lossy curve rises then falls, peaking "
                                          f"within a factor {PERIOD_FACTOR:g} of "
                                          f"{_us(paper_us)} (median {_us(med)})")
    if k:
        return Check("same direction", value,
                     f"lossy curves with an interior optimum: {k} of {len(o)}; median best "
                     f"period {_us(med)} against the paper's {_us(paper_us)}")
    edge = "smallest" if float(o["best_tb_us"].max()) <= float(df["tb_us"].min()) \
        else "an end of the"
    return Check("differs", value, f"no lossy curve rises then falls: goodput is highest at "
                                   f"{edge} swept period(s)")


def optimum_independent(df: pd.DataFrame) -> Check:
    """§2.2, §4: the optimal period does not depend on Pb — some period is tied with the
    best (its mean inside the best point's 95 % CI) at every Pb > 0."""
    o = optima(df)
    if len(o) < 2:
        return Check("not comparable", "–", "fewer than two lossy Pb simulated")
    common = set(o["tied_tb_us"].iloc[0])
    for t in o["tied_tb_us"].iloc[1:]:
        common &= set(t)
    value = "best period " + _optima_text(o)
    if common and len(common) == len(set(df["tb_us"].astype(float))):
        return Check("not comparable", value, "every period is within the 95 % CI of the "
                                              "best at every Pb: the runs cannot locate an "
                                              "optimum")
    best = o["best_tb_us"].to_numpy(float)
    spread = float(best.max() / best.min())
    if common and spread > PERIOD_FACTOR:
        c = ", ".join(_us(x) for x in sorted(common))
        return Check("not comparable", value,
                     f"the best period moves by a factor {spread:.3g} across Pb, yet every "
                     f"Pb's 95 % CI also holds {c}: the runs are too short to decide")
    if common:
        c = ", ".join(_us(x) for x in sorted(common))
        ends = {float(df["tb_us"].min()), float(df["tb_us"].max())}
        if set(common) & ends:
            return Check("same direction", value,
                         f"the same periods ({c}) are best at every Pb, but they reach an "
                         "end of the sweep: a Pb-independent plateau, not an interior "
                         "optimum")
        return Check("reproduces", value, f"the best point's 95 % CI holds {c} at every Pb "
                                          "(wherever that is: the location is the "
                                          "optimal-period claim)")
    lo = o.sort_values("pb")["best_tb_us"].to_numpy(float)
    trend = ("grows" if np.all(np.diff(lo) >= 0) else
             "shrinks" if np.all(np.diff(lo) <= 0) else "moves")
    return Check("differs", value, f"no period is tied with the best at every Pb: the "
                                   f"optimum {trend} with Pb")


def fraction_verdict(frac: float, lo: float, hi: float, paper: float,
                     what: str) -> tuple[str, str]:
    """Verdict for a simulated fraction against the paper's printed one."""
    if not np.isfinite(frac):
        return "not comparable", f"the {what} is not simulated in this mode"
    if np.isfinite(lo) and (hi - lo) / 2 > 2 * FRACTION_TOL:
        return "not comparable", (f"the 95 % CI [{_pct(lo)}, {_pct(hi)}] is too wide to "
                                  "decide")
    if abs(frac - paper) <= FRACTION_TOL or (np.isfinite(lo) and lo <= paper <= hi):
        return "reproduces", (f"burstlab's {_pct(frac)} is within "
                              f"{100 * FRACTION_TOL:.0f} points (or the CI) of the "
                              f"paper's {_pct(paper)}")
    if np.sign(frac) == np.sign(paper) and (not np.isfinite(lo) or lo * hi > 0):
        return "same direction", (f"burstlab's {_pct(frac)} has the paper's sign but differs "
                                  f"from its {_pct(paper)} by {abs(100 * (frac - paper)):.0f}"
                                  " points")
    return "differs", f"burstlab's {_pct(frac)} against the paper's {_pct(paper)}"


def relative_drop(df: pd.DataFrame, pb_a: float, tb_a: float, pb_b: float,
                  tb_b: float) -> tuple[float, float, float]:
    """``1 − B(pb_b, tb_b)/B(pb_a, tb_a)`` with a delta-method 95 % CI."""
    a = at(df, pb_a, tb_a)
    b = at(df, pb_b, tb_b)
    r, lo, hi = ratio_ci(b[0], b[1], b[2], a[0], a[1], a[2])
    return 1 - r, 1 - hi, 1 - lo


def loss_cost(df: pd.DataFrame, pb: float, tb_us: float, paper: float) -> Check:
    """§2.2: Pb costs ``paper`` of the bandwidth at Pb = 0 (measured at period ``tb_us``;
    the other periods are in the note)."""
    cost, lo, hi = relative_drop(df, 0.0, tb_us, pb, tb_us)
    others = []
    for t in sorted(set(curve(df, pb)["tb_us"].astype(float))):
        c = relative_drop(df, 0.0, t, pb, t)[0]
        if np.isfinite(c):
            others.append((t, c))
    rng = (f"; over the swept periods it ranges {_pct(min(c for _, c in others))}–"
           f"{_pct(max(c for _, c in others))}") if others else ""
    verdict, note = fraction_verdict(cost, lo, hi, paper, f"cost at {_us(tb_us)}")
    value = f"{_pct(cost)} at {_us(tb_us)}"
    ci = "" if not np.isfinite(lo) else f"[{_pct(lo)}, {_pct(hi)}]"
    return Check(verdict, value, note + rng, ci)


def drop_between(df: pd.DataFrame, pb: float, from_us: float, to_us: float,
                 paper: float) -> Check:
    """§2.2: from ``from_us`` to ``to_us`` the bandwidth at ``pb`` drops by ``paper``."""
    d, lo, hi = relative_drop(df, pb, from_us, pb, to_us)
    verdict, note = fraction_verdict(d, lo, hi, paper, "drop")
    ci = "" if not np.isfinite(lo) else f"[{_pct(lo)}, {_pct(hi)}]"
    return Check(verdict, f"{_pct(d)} ({_us(from_us)} → {_us(to_us)})", note, ci)


def drop_order(df: pd.DataFrame, pb_low: float, pb_high: float, from_us: float,
               to_us: float) -> Check:
    """§2.2: the bandwidth varies faster with the period at low Pb than at high Pb (the
    drop from ``from_us`` to ``to_us`` is larger at ``pb_low``)."""
    a = relative_drop(df, pb_low, from_us, pb_low, to_us)[0]
    b = relative_drop(df, pb_high, from_us, pb_high, to_us)[0]
    value = f"{_pct(a)} at Pb = {100 * pb_low:g} %, {_pct(b)} at Pb = {100 * pb_high:g} %"
    if not (np.isfinite(a) and np.isfinite(b)):
        return Check("not comparable", value, "the two drops are not both simulated")
    if a > b:
        return Check("reproduces", value, "the drop is larger at the lower loss probability")
    return Check("differs", value, "the drop is not larger at the lower loss probability")


def higher_pb_lower(df: pd.DataFrame) -> Check:
    """§2.2: higher Pb, lower bandwidth (at every period)."""
    periods = sorted(set(df["tb_us"].astype(float)))
    ok = 0
    for t in periods:
        g = df[np.isclose(df["tb_us"].astype(float), t)].sort_values("pb")
        y = g["goodput_Mbps_mean"].to_numpy(float)
        ok += bool(np.all(y[1:] <= y[:-1] * (1 + FLAT_TOL)))
    value = f"non-increasing in Pb at {ok} of {len(periods)} periods"
    if ok == len(periods):
        return Check("reproduces", value, "at every period goodput never rises with Pb "
                                          f"(beyond {100 * FLAT_TOL:.0f} % noise)")
    if ok:
        return Check("same direction", value, f"goodput rises with Pb somewhere at "
                                              f"{len(periods) - ok} period(s)")
    return Check("differs", value, "goodput rises with Pb at every period")


#: zhou §2.2's reference periods (µs): the optimum it reports and the end of its sweep.
OPT_US = 250.0
END_US = 3000.0


def checks_for(df: pd.DataFrame, data: PaperData) -> dict[str, Check]:
    """Every fig. 2 claim of ``paper.toml`` checked on one set-up's table, by claim id."""
    opt = float(data["fig2.optimal_period"].value) * 1e6
    end = float(data["setup.max_period"].value) * 1e6
    cost = data["fig2.loss_cost_pb0.8"]
    drops = data["fig2.drop_to_3000us"]
    out = {
        "fig2.pb0_delay_penalty": delay_penalty(df),
        "fig2.optimal_period": optimal_period(df, opt),
        "fig2.optimum_independent_of_pb": optimum_independent(df),
        "fig2.loss_cost_pb0.8": loss_cost(df, 0.008, opt, float(cost.value)),
        "fig2.higher_pb_lower_bandwidth": higher_pb_lower(df),
    }
    for pb, paper in zip(drops.x, drops.value, strict=True):
        out[f"fig2.drop_to_3000us.pb={100 * pb:g}%"] = drop_between(df, pb, opt, end,
                                                                    float(paper))
    out["fig2.drop_larger_at_low_pb"] = drop_order(df, min(drops.x), max(drops.x), opt, end)
    return out
