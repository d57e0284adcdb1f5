"""The one verdict rule (:mod:`burstlab.reproduce.verdict`): its cases, its monotonicity,
the counterexamples of issue 37 that the per-paper rules got wrong, and intervals that
stay inside their quantity's range."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from burstlab.reproduce import verdict as V
from burstlab.reproduce.verdict import Interval, judge, judge_order


def iv(est: float, lo: float, hi: float, n: int = 10) -> Interval:
    return Interval(est, lo, hi, n, "t")


# ---------------------------------------------------------------------------------------
# The counterexamples: each pair below got verdicts out of order under the old rules.


def test_yu_ratio_dead_zone_counterexamples() -> None:
    # Old rule: 1.056 [1.049, 1.062] vs 1.03 "differs", while 1.36 [1.32, 1.40] vs 1.58
    # "same direction": a gap of 0.026 judged worse than a gap of 0.22.
    near = judge(iv(1.056, 1.049, 1.062), 1.03, kind="ratio", precision=0.005)
    far = judge(iv(1.36, 1.32, 1.40), 1.58, kind="ratio", precision=0.005)
    assert near.verdict == "reproduces", near.note
    assert far.verdict == "same direction", far.note
    assert V.RANK[near.verdict] >= V.RANK[far.verdict]
    # 1.045 [1.041, 1.050] against a printed 1.0: within the ratio band (±5 % + 0.005).
    assert judge(iv(1.045, 1.041, 1.050), 1.0, kind="ratio",
                 precision=0.005).verdict == "reproduces"
    # ... and 1.08 [1.07, 1.09] against 1.0 is outside it: an effect the paper lacks.
    assert judge(iv(1.08, 1.07, 1.09), 1.0, kind="ratio",
                 precision=0.005).verdict == "differs"


def test_sodhatar_one_percent_cut_counterexample() -> None:
    # Old rule: 0.723 vs 0.724 ranked by a 1 % cut on means gave different verdicts for
    # the same overlapping CIs. Paired differences decide: neither is significant.
    a = judge_order([("NewReno − Reno", iv(0.004, -0.02, 0.03))])
    b = judge_order([("NewReno − Reno", iv(0.005, -0.02, 0.03))])
    assert a.verdict == b.verdict == "not comparable"


def test_ozsarac_wide_two_run_interval_is_not_comparable() -> None:
    # A two-run CI of [−1554, 2185] Mb/s decides nothing; cut to the range it is [0, 2185].
    x = V.mean_interval([-50.0 + 315.0, 315.0 + 250.0], lower=0.0)
    assert x.lo >= 0.0
    wide = Interval(315.0, 0.0, 2185.0, 2, "t")
    assert judge(wide, 300.0, kind="quantity").verdict == "not comparable"


def test_hybrid_and_zhou_judged_by_the_same_band_per_kind() -> None:
    # A quantity 30 % off with a tight interval differs; 5 % off reproduces.
    assert judge(iv(1.3, 1.28, 1.32), 1.0, kind="quantity").verdict == "differs"
    assert judge(iv(1.05, 1.03, 1.07), 1.0, kind="quantity").verdict == "reproduces"
    # A change with the paper's sign but 35 points off: same direction, not reproduces.
    v = judge(iv(0.75, 0.70, 0.80), 0.40, kind="change", precision=0.005)
    assert v.verdict == "same direction" and "misses" in v.note


# ---------------------------------------------------------------------------------------
# The rule's cases.


def test_no_interval_is_not_comparable() -> None:
    assert judge(V.none(1.0, 1), 1.0, kind="ratio").verdict == "not comparable"
    assert judge(V.none(), 1.0, kind="ratio").verdict == "not comparable"
    assert judge(iv(1.0, 0.9, 1.1), math.nan, kind="ratio").verdict == "not comparable"


def test_exact_values_are_judged_by_the_band_alone() -> None:
    assert judge(V.exact(3.97e-3), 4e-3, kind="location").verdict == "reproduces"
    assert judge(V.exact(9e-3), 4e-3, kind="location").verdict == "differs"


def test_reference_side_decides_same_direction_or_differs() -> None:
    assert judge(iv(1.2, 1.15, 1.25), 1.5, kind="ratio").verdict == "same direction"
    assert judge(iv(0.9, 0.85, 0.95), 1.3, kind="ratio").verdict == "differs"
    assert judge(iv(1.0, 0.97, 1.03), 1.3, kind="ratio").verdict == "differs"
    assert judge(iv(-0.3, -0.35, -0.25), -0.82, kind="change").verdict == "same direction"
    assert judge(iv(0.3, 0.25, 0.35), -0.82, kind="change").verdict == "differs"


def test_precision_widens_the_band() -> None:
    x = iv(1.10, 1.09, 1.11)
    assert judge(x, 1.0, kind="ratio").verdict == "differs"
    assert judge(x, 1.0, kind="ratio", precision=0.05).verdict == "reproduces"
    assert V.tolerance(2.0, "ratio", 0.005) == pytest.approx(0.105)
    assert V.tolerance(1e-3, "location", 0.0) == pytest.approx(math.log10(2))
    with pytest.raises(ValueError, match="precision"):
        V.tolerance(1.0, "ratio", -1.0)
    with pytest.raises(ValueError, match="claim kind"):
        judge(x, 1.0, kind="nonsense")


def test_judge_order_cases() -> None:
    pos, neg, zero = iv(1, 0.5, 1.5), iv(-1, -1.5, -0.5), iv(0, -1, 1)
    assert judge_order([("a", pos), ("b", pos)]).verdict == "reproduces"
    assert judge_order([("a", pos), ("b", zero)]).verdict == "same direction"
    assert judge_order([("a", pos), ("b", neg)]).verdict == "differs"
    assert judge_order([("a", zero)]).verdict == "not comparable"
    assert judge_order([("a", V.none(1.0, 1))]).verdict == "not comparable"
    assert judge_order([]).verdict == "not comparable"


def test_judge_event() -> None:
    assert V.judge_event(True, True, "a timeout").verdict == "reproduces"
    assert V.judge_event(False, True, "a timeout").verdict == "differs"


# ---------------------------------------------------------------------------------------
# Properties.

KIND_NAMES = sorted(V.KINDS)


@settings(max_examples=300, deadline=None)
@given(kind=st.sampled_from(KIND_NAMES), paper=st.floats(0.05, 5.0),
       half=st.floats(0.0, 2.0), prec=st.floats(0.0, 0.1),
       g1=st.floats(-3.0, 3.0), g2=st.floats(-3.0, 3.0))
def test_monotone_in_the_gap(kind: str, paper: float, half: float, prec: float,
                             g1: float, g2: float) -> None:
    """With the interval's width fixed, a smaller gap never gets a worse verdict."""
    k = V.KINDS[kind]
    if abs(g1) > abs(g2):
        g1, g2 = g2, g1
    # Both gaps on the same side of the paper value (moving towards it).
    g1 = math.copysign(abs(g1), g2)

    def at(gap: float) -> str:
        if k.log:
            est = paper * 10 ** gap
            x = Interval(est, est / 10 ** half, est * 10 ** half, 5, "t")
        else:
            est = paper + gap
            x = Interval(est, est - half, est + half, 5, "t")
        lower = 0.0 if k.log else k.lower
        # only intervals inside the kind's range are judged (the others are refused)
        assume(lower <= x.lo and x.hi <= k.upper)
        return judge(x, paper, kind=kind, precision=prec).verdict

    assert V.RANK[at(g1)] >= V.RANK[at(g2)], (at(g1), at(g2))


@settings(max_examples=200, deadline=None)
@given(shift=st.floats(-2.0, 2.0), more=st.floats(0.0, 2.0),
       half=st.floats(0.0, 1.0))
def test_order_is_monotone(shift: float, more: float, half: float) -> None:
    """Raising a claimed difference never gives a worse ordering verdict."""
    a = judge_order([("x", iv(shift, shift - half, shift + half))])
    b = judge_order([("x", iv(shift + more, shift + more - half, shift + more + half))])
    assert V.RANK[b.verdict] >= V.RANK[a.verdict]


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 200), frac=st.floats(0.0, 1.0),
       method=st.sampled_from(["wilson", "clopper-pearson"]))
def test_proportion_intervals_stay_in_0_1(n: int, frac: float, method: str) -> None:
    k = int(round(frac * n))
    x = V.proportion_interval(k, n, method=method)
    assert 0.0 <= x.lo <= x.estimate <= x.hi <= 1.0


@settings(max_examples=200, deadline=None)
@given(xs=st.lists(st.floats(0.0, 1e4), min_size=2, max_size=6))
def test_mean_of_non_negative_values_stays_non_negative(xs: list[float]) -> None:
    x = V.mean_interval(xs, lower=0.0)
    assert x.lo >= 0.0 and x.hi >= x.lo


def test_proportion_interval_values() -> None:
    # Wilson (1927) for 0 of 10: [0, 0.2775]; Clopper–Pearson (1934): [0, 0.3085].
    w = V.proportion_interval(0, 10)
    assert w.lo == 0.0 and w.hi == pytest.approx(0.27753, abs=1e-4)
    cp = V.proportion_interval(0, 10, method="clopper-pearson")
    assert cp.hi == pytest.approx(0.30850, abs=1e-4)
    assert not V.proportion_interval(0, 0).defined
    with pytest.raises(ValueError, match="successes"):
        V.proportion_interval(3, 2)


def test_mean_interval_values() -> None:
    x = V.mean_interval([1.0, 2.0, 3.0])
    assert x.estimate == 2.0 and x.hi - 2.0 == pytest.approx(2.4841, abs=1e-3)
    assert not V.mean_interval([1.0]).defined
    assert not V.mean_interval([]).defined
    # The two-replication sweep case: t-interval −1.2 … cut at 0.
    y = V.mean_interval([0.1, 0.9], lower=0.0)
    assert y.lo == 0.0 and y.hi > 0.9


def test_ratio_intervals_are_positive() -> None:
    a, b = iv(2.0, 0.1, 3.9), iv(1.0, 0.9, 1.1)
    r = V.ratio_interval(a, b)
    assert r.estimate == 2.0 and 0 < r.lo < 2.0 < r.hi
    assert not V.ratio_interval(V.none(2.0, 1), b).defined
    p = V.paired_ratio(np.array([2.0, 2.2, 1.9]), np.array([1.0, 1.1, 1.0]))
    assert 0 < p.lo < p.estimate < p.hi


def test_paired_difference_uses_the_pairing() -> None:
    base = np.array([10.0, 50.0, 90.0, 30.0])
    d = V.paired_difference(base + 1.0, base)
    assert d.estimate == 1.0 and d.lo == d.hi == 1.0  # no noise left in the pairs
    with pytest.raises(ValueError, match="same length"):
        V.paired_difference([1.0], [1.0, 2.0])


def test_location_interval() -> None:
    x = [1e-5, 1e-4, 1e-3, 1e-2, 1e-1]
    m = [1.0, 2.0, 3.0, 2.9, 1.0]
    lo = [0.9, 1.9, 2.8, 2.7, 0.9]
    hi = [1.1, 2.1, 3.2, 3.1, 1.1]
    loc = V.location_interval(x, m, lo, hi, n=5)
    # the tied points 1e-3 … 1e-2, each widened by half a grid step (a decade here)
    assert loc.estimate == 1e-3
    assert loc.lo == pytest.approx(10 ** -3.5) and loc.hi == pytest.approx(10 ** -1.5)
    # a two-decade span is coarser than the factor-2 band: it decides only against a
    # paper value read with a decade's uncertainty (precision 9.0 = ×10)
    assert judge(loc, 1e-3, kind="location").verdict == "not comparable"
    assert judge(loc, 3e-3, kind="location", precision=9.0).verdict == "reproduces"
    # Tied up to the grid's end: open on that side, so it cannot decide.
    e = np.array([1.0, 2.0, 3.0, 2.9, 2.95])
    edge = V.location_interval(x, e, e - 0.2, e + 0.2, n=5)
    assert edge.hi == math.inf and edge.text() == "[0.000316, ∞]"
    assert judge(edge, 1e-3, kind="location").verdict == "not comparable"
    # A curve falling from the smallest period: the optimum is at or below the grid.
    # A falling curve with tight intervals: the optimum is at or below the grid's
    # smallest period, a factor 25 from a paper's 2.5e-4.
    y = np.array([5.0, 4.0, 3.0, 2.0, 1.0])
    fall = V.location_interval(x, y, y - 0.1, y + 0.1, n=5)
    assert fall.lo == 0.0 and fall.hi == pytest.approx(10 ** -4.5)
    assert judge(fall, 2.5e-4, kind="location").verdict == "differs"
    assert not V.location_interval(x, m, [math.nan] * 5, hi, n=1).defined


def test_band_is_cut_to_the_kinds_range() -> None:
    v = judge(V.exact(0.0), 0.0, kind="proportion")
    assert v.verdict == "reproduces" and v.band == (0.0, 0.05)
    assert judge(V.exact(1.0), 1.0, kind="proportion").band == (0.95, 1.0)


def test_an_interval_outside_its_kinds_range_is_refused() -> None:
    """issue 37: no claim prints an interval outside its quantity's range; ``judge`` is
    where every claim's interval meets its kind, so it refuses one (the two-run mean of
    per-run gains that went to −102 % was one)."""
    two_runs = V.mean_interval([-0.76 - 0.26, -0.76 + 0.26])  # no lower bound given
    assert two_runs.lo < -1.0
    with pytest.raises(V.RangeError, match="change lies in"):
        V.judge(two_runs, -0.5, kind="change")
    cut = V.mean_interval([-0.76 - 0.26, -0.76 + 0.26], lower=-1.0)
    assert V.judge(cut, -0.5, kind="change").verdict in V.RANK
    with pytest.raises(V.RangeError):
        V.judge(V.Interval(0.9, 0.8, 1.05, 3, "t"), 0.9, kind="proportion")
    with pytest.raises(V.RangeError):
        V.judge(V.Interval(0.2, -0.1, 0.5, 2, "t"), 1.0, kind="ratio")
    with pytest.raises(V.RangeError):  # the estimate itself, even without an interval
        V.judge(V.none(-1.5, 1), -0.5, kind="change")


def test_a_drop_is_bounded_above_not_below() -> None:
    """A drop 1 − a/b lies in (−∞, 1]: a quantity can grow several-fold (a drop of
    −376 %) but never fall by more than all of it."""
    wide = V.Interval(0.3, -3.76, 1.0, 2, "delta-log")
    assert V.judge(wide, 0.4, kind="drop").verdict == "not comparable"
    with pytest.raises(V.RangeError):
        V.judge(V.Interval(0.9, 0.7, 1.1, 2, "t"), 0.4, kind="drop")
    with pytest.raises(V.RangeError):  # the same interval is out of range as a change
        V.judge(wide, 0.4, kind="change")
    assert V.judge(V.Interval(0.41, 0.38, 0.44, 5, "delta-log"), 0.4,
                   kind="drop").verdict == "reproduces"


def test_a_location_may_be_open_towards_zero() -> None:
    """A peak at the grid's first point: its interval is [0, x] (may lie below)."""
    loc = V.Interval(25e-6, 0.0, 100e-6, 5, "tied-with-best")
    assert V.judge(loc, 250e-6, kind="location").verdict in V.RANK
