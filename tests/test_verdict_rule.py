"""The verdict rule's corner cases (issue 53, item 1): monotone for every interval the
package makes (cut Student-t intervals, Wilson intervals, log-scale ratios), never
*reproduces* on the other side of the no-effect value, one treatment of ties, precision
from the printed digits, a paper value at the reference, a half-width equal to the band,
and location on a grid. Each explicit case below got the wrong verdict before."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from burstlab.reproduce import verdict as V
from burstlab.reproduce.verdict import Interval, judge, judge_order

ROOT = Path(__file__).resolve().parents[1]


def rank(v: V.Verdict) -> int:
    return V.RANK[v.verdict]


def cut_t(est: float, half: float, kind: V.Kind) -> Interval:
    """A Student-t summary interval ``est ± half`` cut to the kind's range, as
    :func:`verdict.summary_interval` makes it for a sweep's summary."""
    lower = kind.lower if math.isfinite(kind.lower) else None
    upper = kind.upper if math.isfinite(kind.upper) else None
    return V.summary_interval(est, est - half, est + half, 5, lower=lower, upper=upper)


# ---------------------------------------------------------------------------------------
# Monotone with cut intervals.


def test_issue_53_cut_change_example() -> None:
    """−0.95 [−1, −0.83] was *reproduces* and −0.90 [−1, −0.78] *not comparable* against
    a paper −0.90: the same runs (a half-width of 0.12 before the cut at −100 %), the
    closer one judged worse. The cut does not make the runs more precise."""
    k = V.KINDS["change"]
    far, near = cut_t(-0.95, 0.12, k), cut_t(-0.90, 0.12, k)
    assert (far.lo, near.lo) == (-1.0, -1.0)
    assert far.hi == pytest.approx(-0.83) and near.hi == pytest.approx(-0.78)
    a, b = judge(far, -0.90, kind="change"), judge(near, -0.90, kind="change")
    assert rank(b) >= rank(a), (a.note, b.note)
    assert a.verdict == b.verdict == "not comparable"
    # with the same runs half as spread, both reproduce
    assert judge(cut_t(-0.95, 0.06, k), -0.90, kind="change").verdict == "reproduces"


def test_issue_53_cut_proportion_example() -> None:
    """A proportion with paper 0.06: 0.02 [0, 0.10] was *reproduces* and 0.06 [0, 0.14]
    *not comparable*."""
    k = V.KINDS["proportion"]
    far, near = cut_t(0.02, 0.08, k), cut_t(0.06, 0.08, k)
    assert far.lo == near.lo == 0.0
    a, b = judge(far, 0.06, kind="proportion"), judge(near, 0.06, kind="proportion")
    assert rank(b) >= rank(a), (a.note, b.note)


NON_LOG = sorted(n for n, k in V.KINDS.items() if not k.log)


@settings(max_examples=600, deadline=None)
@given(kind=st.sampled_from(NON_LOG), paper=st.floats(-1.0, 3.0), half=st.floats(0.0, 0.5),
       prec=st.floats(0.0, 0.02), g1=st.floats(-0.5, 0.5), g2=st.floats(-0.5, 0.5))
@example(kind="change", paper=-0.90, half=0.12, prec=0.0, g1=0.0, g2=-0.05)
@example(kind="proportion", paper=0.06, half=0.08, prec=0.0, g1=0.0, g2=-0.04)
def test_monotone_with_cut_intervals(kind: str, paper: float, half: float, prec: float,
                                     g1: float, g2: float) -> None:
    """The same runs (same half-width before the cut) moved towards the paper value never
    get a worse verdict, however much of the interval the kind's range cuts off."""
    k = V.KINDS[kind]
    assume(k.lower <= paper <= k.upper)
    if abs(g1) > abs(g2):
        g1, g2 = g2, g1
    g1 = math.copysign(abs(g1), g2)
    e1, e2 = paper + g1, paper + g2
    assume(k.lower <= e2 <= k.upper and k.lower <= e1 <= k.upper)
    near = judge(cut_t(e1, half, k), paper, kind=kind, precision=prec)
    far = judge(cut_t(e2, half, k), paper, kind=kind, precision=prec)
    assert rank(near) >= rank(far), (near.note, far.note)


@settings(max_examples=400, deadline=None)
@given(n=st.integers(2, 300), paper=st.floats(0.0, 1.0), prec=st.floats(0.0, 0.02),
       f1=st.floats(0.0, 1.0), f2=st.floats(0.0, 1.0),
       method=st.sampled_from(["wilson", "clopper-pearson"]))
def test_monotone_with_binomial_intervals(n: int, paper: float, prec: float, f1: float,
                                          f2: float, method: str) -> None:
    """``k`` of ``n`` trials moved towards the paper's share never gets a worse verdict,
    although Wilson's interval widens towards a share of ½."""
    k1, k2 = round(f1 * n), round(f2 * n)
    if abs(k1 - paper * n) > abs(k2 - paper * n):
        k1, k2 = k2, k1
    assume((k1 - paper * n) * (k2 - paper * n) >= 0)  # same side of the paper value
    near = judge(V.proportion_interval(k1, n, method=method), paper, kind="proportion",
                 precision=prec)
    far = judge(V.proportion_interval(k2, n, method=method), paper, kind="proportion",
                precision=prec)
    assert rank(near) >= rank(far), (near.note, far.note)


@settings(max_examples=400, deadline=None)
@given(kind=st.sampled_from(["ratio", "quantity", "model"]), paper=st.floats(0.05, 5.0),
       rel=st.floats(0.0, 0.5), prec=st.floats(0.0, 0.1), g1=st.floats(-1.5, 1.5),
       g2=st.floats(-1.5, 1.5), gain=st.booleans())
def test_monotone_with_log_scale_intervals(kind: str, paper: float, rel: float,
                                           prec: float, g1: float, g2: float,
                                           gain: bool) -> None:
    """A delta-method ratio (its width follows its value) moved towards the paper value
    never gets a worse verdict; nor does the gain ``ratio − 1`` judged as a change."""
    if abs(g1) > abs(g2):
        g1, g2 = g2, g1
    g1 = math.copysign(abs(g1), g2)

    def at(g: float) -> V.Verdict:
        r = paper * math.exp(g)
        x = V.log_interval(r, r * math.exp(-rel), r * math.exp(rel), 5)
        if gain:
            return judge(x.scaled(1.0, -1.0), paper - 1.0, kind="change", precision=prec)
        return judge(x, paper, kind=kind, precision=prec)

    assert rank(at(g1)) >= rank(at(g2))


# ---------------------------------------------------------------------------------------
# The other side of the no-effect value.


def test_never_reproduces_on_the_other_side_of_zero() -> None:
    """ozsarac ``mcwba.gain_linear``: −8.3 % [−10.3, −6.27] against the paper's +2.54 %
    met the band [−7.46 %, +12.5 %] and was *reproduces*."""
    got = Interval(-0.083, -0.103, -0.0627, 5, "paired-log-t")
    v = judge(got, 0.0254, kind="change", precision=0.00005)
    assert v.verdict == "differs" and "other side of 0" in v.note
    # an interval reaching the paper's side is judged by the band as before
    assert judge(Interval(-0.02, -0.04, 0.001, 5, "t"), 0.0254, kind="change",
                 precision=0.00005).verdict == "reproduces"
    # a ratio: 0.98 [0.975, 0.985] against a printed 1.03 (an effect above 1)
    assert judge(Interval(0.98, 0.975, 0.985, 5, "t"), 1.03, kind="ratio",
                 precision=0.005).verdict == "differs"


# ---------------------------------------------------------------------------------------
# Ties.


def test_exact_and_statistical_ties_alike() -> None:
    """sodhatar: NewReno − Tahoe −0.000961 [−0.00537, 0.00345] Mb/s on 0.525 Mb/s was
    *not comparable* while an exact tie was *differs*; with the tie margin (5 % of the
    quantity) both are a tie, and a tie against a claimed lead differs."""
    stat = Interval(-0.000961, -0.00537, 0.00345, 40, "paired-t")
    m = V.TIE * 0.525
    assert judge_order([("NewReno − Tahoe", stat)], tie=m).verdict == "differs"
    assert "a tie" in judge_order([("x", stat)], tie=m).note
    assert judge_order([("x", V.exact(0.0))], tie=m).verdict == "differs"
    assert judge_order([("x", V.exact(0.0))]).verdict == "differs"  # any margin
    # without a margin the statistical tie is undecided, as a wide interval is
    assert judge_order([("x", stat)]).verdict == "not comparable"
    # yu fig. 9(b): SACK − Reno = −1 segment of 99, a tie, not "significantly the other way"
    diffs, ties = V.order_differences({"sack": 98.0, "reno": 99.0, "newreno": 0.0},
                                      ["sack", "reno", "newreno"])
    v = judge_order(diffs, ties)
    assert v.verdict == "differs" and "a tie" in v.note and "other way" not in v.note
    # a lead larger than the margin is a lead
    assert judge_order(*V.order_differences({"a": 928.0, "b": 842.0},
                                            ["a", "b"])).verdict == "reproduces"
    with pytest.raises(ValueError, match="tie"):
        judge_order([("x", stat)], tie=[0.1, 0.2])


@settings(max_examples=300, deadline=None)
@given(shift=st.floats(-2.0, 2.0), more=st.floats(0.0, 2.0), half=st.floats(0.0, 1.0),
       tie=st.floats(0.0, 0.5))
def test_order_is_monotone_with_a_tie_margin(shift: float, more: float, half: float,
                                             tie: float) -> None:
    a = judge_order([("x", Interval(shift, shift - half, shift + half, 5, "t"))], tie)
    s = shift + more
    b = judge_order([("x", Interval(s, s - half, s + half, 5, "t"))], tie)
    assert rank(b) >= rank(a), (a.note, b.note)


# ---------------------------------------------------------------------------------------
# Precision, the reference, floating point.


def test_precision_from_the_printed_digits() -> None:
    assert V.printed_precision("1.0") == pytest.approx(0.05)
    assert V.printed_precision("1.07") == pytest.approx(0.005)
    assert V.printed_precision("82") == 0.5
    assert V.printed_precision("−0.49") == pytest.approx(0.005)
    assert V.printed_precision("2.2e9") == pytest.approx(0.05e9)
    with pytest.raises(ValueError, match="printed number"):
        V.printed_precision("about 3")
    # yu Table I, SACK/Reno at log p = −3, printed "1.0": 1.06 [1.06, 1.06] missed
    # [0.945, 1.05] (±0.005) by 5e-5; with the printed digit's half unit it reproduces.
    got = V.log_interval(1.0605, 1.0600, 1.0610, 10)
    assert judge(got, 1.0, kind="ratio", precision=0.005).verdict == "differs"
    assert judge(got, 1.0, kind="ratio",
                 precision=V.printed_precision("1.0")).verdict == "reproduces"


def test_a_paper_value_at_the_reference_is_judged() -> None:
    """A printed ratio 1.0 (no effect within its precision) reproduces a tight 1.02; a
    tight 1.2 is an effect the paper does not have: *differs*, saying so."""
    assert judge(Interval(1.02, 1.01, 1.03, 5, "t"), 1.0, kind="ratio",
                 precision=0.05).verdict == "reproduces"
    v = judge(Interval(1.2, 1.15, 1.25, 5, "t"), 1.0, kind="ratio", precision=0.05)
    assert v.verdict == "differs" and "no effect" in v.note
    # a printed 1.03 (precision 0.005) does show an effect: a miss above it is the
    # same direction
    assert judge(Interval(1.3, 1.25, 1.35, 5, "t"), 1.03, kind="ratio",
                 precision=0.005).verdict == "same direction"


def test_a_half_width_equal_to_the_band_is_not_decided_by_rounding() -> None:
    """t = 0.1 + 0.005 and (hi − lo)/2 of [0.3 − t, 0.3 + t] differ in the last bits
    (0.10500000000000002 > 0.10500000000000001): equal within :data:`verdict.ULPS`."""
    t = 0.005 + V.KINDS["change"].band
    x = Interval(0.3, 0.3 - t, 0.3 + t, 5, "t")
    assert x.half_width > t  # the floating-point case
    assert judge(x, 0.3, kind="change", precision=0.005).verdict == "reproduces"
    assert V.at_most(0.10500000000000002, 0.10500000000000001)
    assert not V.at_most(0.1051, 0.105)


def test_resolution_does_not_move_with_the_estimate() -> None:
    k = V.KINDS["change"]
    assert cut_t(-0.95, 0.12, k).resolution(-0.9) == pytest.approx(0.12)
    r = V.ratio_interval(V.mean_interval([2.0, 2.2, 1.8]), V.mean_interval([1.0, 1.1, 0.9]))
    assert r.resolution(4.0) == pytest.approx(2 * r.resolution(2.0))
    g = r.scaled(1.0, -1.0)  # the gain ratio − 1 shrinks towards −1
    assert g.resolution(1.0) == pytest.approx(r.resolution(2.0))
    w = V.proportion_interval(3, 50)
    assert w.resolution(0.5) > w.resolution(0.06) == pytest.approx(
        V.wilson_half_width(0.06, 50))


# ---------------------------------------------------------------------------------------
# Location on a grid.


def test_location_takes_the_grid_step_into_account() -> None:
    """yu fig. 6, p = 0.1: the peak at 21.5 ms tied with 46.4 ms, on a grid stepping by
    ×2.15, against the model's 102 ms missed the factor-2 band by one step (×1.1) and was
    *differs*; the grid cannot place the optimum closer than half a step, so the interval
    meets the band but is wider than it."""
    tb = [10 ** (k / 3) * 1e-3 for k in range(7)]  # 1 ms … 100 ms, ×2.15
    mean = [1.0, 2.0, 3.0, 4.0, 5.0, 4.9, 3.0]
    lo = [x - 0.2 for x in mean]
    hi = [x + 0.2 for x in mean]
    loc = V.location_interval(tb, mean, lo, hi, n=5)
    assert loc.estimate == pytest.approx(21.54e-3, rel=1e-3)
    step = 10 ** (1 / 6)  # half a step
    assert loc.lo == pytest.approx(21.54e-3 / step, rel=1e-3)
    assert loc.hi == pytest.approx(46.42e-3 * step, rel=1e-3)
    assert judge(loc, 102.4e-3, kind="location").verdict == "not comparable"
    # one point, one grid step (×2.15) from the paper's: it missed the factor-2 band;
    # known to half a step either side, it meets it, and the band resolves half a step
    one = V.location_interval(tb, mean, [x - 0.01 for x in mean], [x + 0.01 for x in mean],
                              n=5)
    assert judge(V.exact(one.estimate), 21.5e-3 * 2.15,
                 kind="location").verdict == "differs"
    assert judge(one, 21.5e-3 * 2.15, kind="location").verdict == "reproduces"


# ---------------------------------------------------------------------------------------
# Every kind documented.


def test_every_kind_is_in_the_verdicts_page_with_an_example() -> None:
    text = (ROOT / "docs" / "topics" / "verdicts.md").read_text(encoding="utf-8")
    table = re.findall(r"^\| `(\w+)` \|", text, flags=re.M)
    assert sorted(set(table)) == sorted(V.KINDS)
    for name in V.KINDS:
        assert re.search(rf"^- \*\*`{name}`", text, flags=re.M), f"no example of {name}"


# ---------------------------------------------------------------------------------------
# Calibration apart, extensions not counted (issue 53, item 3).


def test_roles_from_the_claim_id() -> None:
    from burstlab.reproduce import claim as C

    assert C.claim_role("fig2.drop_to_3000us.pb=0.1%@rtt0_fit") == C.CALIBRATION
    assert C.claim_role("fig2.drop_to_3000us.pb=0.1%") == C.VALIDATION
    assert C.claim_role("extension.model.optimal_period") == C.EXTENSION
    assert C.claim_role("model.optimal_period") == C.EXTENSION  # renamed since the record
    assert C.claim_role("table1.x@seed") == C.VALIDATION  # only a fit is calibration
    rows = [("a", "reproduces"), ("b@rtt0_fit", "differs"), ("extension.m", "differs")]
    c = C.role_counts(rows)
    assert c[C.VALIDATION]["reproduces"] == 1 and sum(c[C.VALIDATION].values()) == 1
    assert c[C.CALIBRATION]["differs"] == 1 and c[C.EXTENSION]["differs"] == 1
    text = C.counts_text(rows)
    assert text.startswith("1 claims: 1 reproduces") and "counted apart): 1 (" in text
    assert "1 extension(s), not the paper's claims, not counted" in text


def test_zhou_record_counts_calibration_apart() -> None:
    """zhou's record: 18 rows, of which five judged at the fitted base RTT (calibration)
    and yu's model at zhou's set-up (an extension): 12 validation claims. The records
    table shows exactly :func:`claim.role_counts` of the record."""
    from burstlab.reproduce import claim as C
    from burstlab.reproduce.modes import load_record, records_table

    rec = load_record("zhou")
    assert rec is not None
    c = C.role_counts(zip(rec.claims["claim_id"], rec.claims["verdict"], strict=True))
    assert (sum(c[C.VALIDATION].values()), sum(c[C.CALIBRATION].values()),
            sum(c[C.EXTENSION].values())) == (12, 5, 1)
    row = records_table(["zhou"], check=False).iloc[0]
    # the table shows the record's verdicts judged by the present rule
    now = C.role_counts((cid, v) for cid, (v, _, _) in rec.verdicts().items())
    assert {v: int(row[v]) for v in C.VERDICTS} == now[C.VALIDATION]
    assert sum(now[C.VALIDATION].values()) == 12
    assert row["calibration"].startswith("5: ") and row["extensions"] == "1"
    assert row["re-judged"] == "0 moved, 1 need the store"
