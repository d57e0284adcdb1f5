"""Hand-checked values and limits of burstlab.models (yu §III–IV, PFTK)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import burstlab.models as m

HIGH = {
    "lam": 125_000.0,
    "wm": 50.0,
    "rtt0": 0.1,
    "rto": 1.0,
}  # yu §V.A, 125 MB/s, 1 KB segments


def test_burst_segments_definition() -> None:
    # S = min(λ·Tb + 1, Wm), yu §II.A
    assert m.burst_segments(125_000, 0.0, 50) == 1.0
    assert m.burst_segments(125_000, 1e-5, 50) == pytest.approx(2.25)
    assert m.burst_segments(125_000, 1e-3, 50) == 50.0
    np.testing.assert_allclose(
        m.burst_segments(1000.0, [0.0, 0.01, 1.0], 50), [1.0, 11.0, 50.0]
    )


def test_round_trip_time_adds_two_assembly_delays() -> None:
    assert m.round_trip_time(0.1, 0.004) == pytest.approx(0.108)


def test_eq32_printed_gives_yu_4ms() -> None:
    # yu §V.A: p = 0.01, Wm = 50, λ = 125 000 seg/s, RTT0 = 0.135 s → Tb_opt ≈ 4 ms.
    # Hand value: sqrt(0.01·50/(2·125000) · (0.135 + 50/8 + 1.5)) = sqrt(2e-6 · 7.885) = 3.9711 ms.
    tb = m.optimal_tb_saturated(0.01, lam=125_000, wm=50, rtt0=0.135)
    assert tb == pytest.approx(3.9711e-3, rel=1e-4)
    assert round(float(tb) * 1e3, 2) == 3.97


def test_eq32_derived_form_is_dimensionally_consistent() -> None:
    # sqrt(0.01·50·0.135·7.75/(2·125000)) = 1.4465 ms; and scaling time units scales the answer.
    tb = m.optimal_tb_saturated(0.01, lam=125_000, wm=50, rtt0=0.135, form="derived")
    assert tb == pytest.approx(1.44655e-3, rel=1e-4)
    tb_ms = m.optimal_tb_saturated(
        0.01, lam=125.0, wm=50, rtt0=135.0, form="derived"
    )  # ms units
    assert tb_ms == pytest.approx(float(tb) * 1e3, rel=1e-12)
    printed_ms = m.optimal_tb_saturated(0.01, lam=125.0, wm=50, rtt0=135.0)
    assert printed_ms != pytest.approx(
        3.9711, rel=1e-2
    )  # the printed form is not unit-invariant


def test_eq32_derived_maximises_small_p_eq28() -> None:
    p, lam, wm, rtt0 = 1e-4, 2000.0, 200.0, 0.135
    tb_opt = float(m.optimal_tb_saturated(p, lam=lam, wm=wm, rtt0=rtt0, form="derived"))
    s = lam * tb_opt
    assert 1 < s < wm
    tb = np.linspace(0.2 * tb_opt, 5 * tb_opt, 20001)
    ss = lam * tb  # the derivation's S ≈ λ·Tb
    b = (ss / p) / ((rtt0 + 2 * tb) * (ss / (p * wm) + wm / 8 + 1.5))
    assert tb[np.argmax(b)] == pytest.approx(tb_opt, rel=1e-3)
    b_opt = m.optimal_throughput_saturated(p, lam=lam, wm=wm, rtt0=rtt0, form="derived")
    assert b_opt == pytest.approx(b.max(), rel=1e-6)


def test_eq33_printed_hand_value() -> None:
    # 1/(0.01·62/500000 + 0.135·0.01/50 + sqrt(0.08·7.885/(125000·50)))
    expect = 1.0 / (1.24e-6 + 2.7e-5 + math.sqrt(0.08 * 7.885 / 6.25e6))
    assert m.optimal_throughput_saturated(
        0.01, lam=125_000, wm=50, rtt0=0.135
    ) == pytest.approx(expect)


def test_eq30_is_half_rtt0() -> None:
    assert m.optimal_tb_unsaturated(0.135) == pytest.approx(0.0675)
    assert m.optimal_tb_unsaturated(18.0) == pytest.approx(
        9.0
    )  # yu §V.A, low access bandwidth


def test_eq30_maximises_eq27_leading_term() -> None:
    # Eq. 27 with S ≈ λ·Tb: B ∝ sqrt(Tb)/(RTT0 + 2Tb), maximal at RTT0/2.
    rtt0, lam, p = 0.2, 1.0, 0.01
    tb = np.linspace(0.001, 1.0, 100_001)
    b = np.sqrt(3 * lam * tb / (2 * p)) / (rtt0 + 2 * tb)
    assert tb[np.argmax(b)] == pytest.approx(
        float(m.optimal_tb_unsaturated(rtt0)), rel=1e-3
    )
    assert m.optimal_throughput_unsaturated(p, lam=lam, rtt0=rtt0) == pytest.approx(
        b.max(), rel=1e-6
    )


@pytest.mark.parametrize("p", [1e-4, 1e-3, 1e-2, 0.1])
@pytest.mark.parametrize("b", [1, 2])
def test_s1_leading_term_equals_pftk_square_root_law(p: float, b: int) -> None:
    rtt0 = 0.1
    expect = math.sqrt(3 / (2 * b * p)) / rtt0
    lead = m.sack_throughput_leading(
        p, 0.0, lam=1e6, wm=50, rtt0=rtt0, b=b
    )  # Tb = 0 → S = 1
    assert lead == pytest.approx(expect, rel=1e-12)
    assert m.packet_switched_throughput(p, rtt0=rtt0, b=b) == pytest.approx(
        expect, rel=1e-12
    )
    # PFTK eq. 30 with no timeout cost and no window limit is the same square-root law.
    pftk = m.pftk_throughput_approx(p, rtt=rtt0, rto=1e-15, wm=1e12, b=b)
    assert pftk == pytest.approx(expect, rel=1e-9)


def test_s1_sack_close_to_pftk_full_at_small_p() -> None:
    # yu §III.A.3: with S = 1 the model reduces to PFTK's (eq. 31 of [8]).
    sack = m.sack_throughput(1e-4, 0.0, lam=1e3, wm=1e6, rtt0=0.1, rto=1.0)
    pftk = m.pftk_throughput_full(1e-4, rtt=0.1, rto=1.0, wm=1e6)
    assert sack == pytest.approx(pftk, rel=0.02)


def test_pftk_full_hand_values() -> None:
    # p = 0.01, RTT = 0.1 s, T0 = 1 s, b = 1, Wm = 50: E[Wu] = 1 + sqrt(8·0.99/0.03 + 1)
    p, rtt, t0 = 0.01, 0.1, 1.0
    ew = 1 + math.sqrt(8 * 0.99 / 0.03 + 1)
    assert m.pftk_expected_window(p) == pytest.approx(ew)
    q1 = 1 - p
    qh = (1 - q1**3) * (1 + q1**3 * (1 - q1 ** (ew - 3))) / (1 - q1**ew)
    f = 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6
    expect = ((1 - p) / p + ew + qh / (1 - p)) / (
        rtt * (ew / 2 + 1) + qh * t0 * f / (1 - p)
    )
    assert m.pftk_throughput_full(p, rtt=rtt, rto=t0, wm=50) == pytest.approx(expect)
    # window-limited branch
    wm = 10.0
    qm = (1 - q1**3) * (1 + q1**3 * (1 - q1 ** (wm - 3))) / (1 - q1**wm)
    expect_w = ((1 - p) / p + wm + qm / (1 - p)) / (
        rtt * (wm / 8 + (1 - p) / (p * wm) + 2) + qm * t0 * f / (1 - p)
    )
    assert m.pftk_throughput_full(p, rtt=rtt, rto=t0, wm=wm) == pytest.approx(expect_w)


def test_pftk_approx_hand_value() -> None:
    p, rtt, t0 = 0.01, 0.1, 1.0
    expect = 1 / (
        rtt * math.sqrt(2 * p / 3)
        + t0 * min(1, 3 * math.sqrt(3 * p / 8)) * p * (1 + 32 * p**2)
    )
    assert m.pftk_throughput_approx(p, rtt=rtt, rto=t0, wm=1000) == pytest.approx(
        expect
    )
    assert m.pftk_throughput_approx(1e-6, rtt=rtt, rto=t0, wm=20) == pytest.approx(
        200.0
    )  # Wm/RTT


def test_pftk_q_hat_limits() -> None:
    assert m.pftk_timeout_probability(3.0, 0.01) == 1.0
    assert m.pftk_timeout_probability(2.0, 0.5) == 1.0
    # Q̂(w) → 3/w as p → 0 (PFTK §2.2)
    assert m.pftk_timeout_probability(30.0, 1e-7) == pytest.approx(0.1, rel=1e-4)


def test_sack_hand_value_eq26() -> None:
    p, tb, lam, wm, rtt0, rto = 0.01, 1e-5, 125_000.0, 1000.0, 0.1, 1.0
    s = lam * tb + 1
    rtt = rtt0 + 2 * tb
    ew = 4 / 3 + math.sqrt((4 / 3) ** 2 + 8 * s / (3 * p))
    q = min(1.0, p ** (ew / s - 1))
    f = 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6
    expect = ((3 * ew - 1) / 2 + (1 - p) / p * s + q * p / (1 - p)) / (
        rtt * (ew / 2 + 1) + q * rto * f / (1 - p)
    )
    got = m.sack_throughput_unsaturated(p, tb, lam=lam, wm=wm, rtt0=rtt0, rto=rto)
    assert got == pytest.approx(expect)
    assert m.sack_throughput(
        p, tb, lam=lam, wm=wm, rtt0=rtt0, rto=rto
    ) == pytest.approx(expect)
    assert m.sack_expected_window(p, tb, lam=lam, wm=wm) == pytest.approx(ew)


def test_sack_hand_value_eq28() -> None:
    p, tb, lam, wm, rtt0, rto = 1e-3, 1e-4, 125_000.0, 50.0, 0.1, 1.0
    s = min(lam * tb + 1, wm)
    rtt = rtt0 + 2 * tb
    q = min(1.0, p ** (wm / s - 1))
    f = 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6
    expect = (1.5 * wm + (1 - p) / p * s + q * p / (1 - p)) / (
        rtt * (s / (p * wm) + wm / 8 + 1.5) + q * rto * f / (1 - p)
    )
    assert m.sack_throughput_saturated(
        p, tb, lam=lam, wm=wm, rtt0=rtt0, rto=rto
    ) == pytest.approx(expect)
    assert (
        m.sack_expected_window(p, tb, lam=lam, wm=wm) >= wm
    )  # so the combined model uses eq. 28
    assert m.sack_throughput(
        p, tb, lam=lam, wm=wm, rtt0=rtt0, rto=rto
    ) == pytest.approx(expect)


def test_timeout_ratio_definition() -> None:
    assert m.timeout_ratio(20.0, 5.0, 0.1) == pytest.approx(0.1**3)
    assert m.timeout_ratio(5.0, 5.0, 0.1) == 1.0  # one burst per round: every loss a TO
    assert m.timeout_ratio(3.0, 5.0, 0.1) == 1.0  # capped at 1
    assert m.timeout_backoff_factor(0.5) == pytest.approx(
        1 + 0.5 + 0.5 + 0.5 + 0.5 + 0.5 + 0.5
    )
    assert m.timeout_period_duration(0.5, 2.0) == pytest.approx(2.0 * 4.0 / 0.5)
    assert m.timeout_period_segments(0.5) == pytest.approx(1.0)


@pytest.mark.parametrize("tb", [0.0, 1e-4, 1e-3])
def test_p_to_zero_gives_window_limit_eq29(tb: float) -> None:
    limit = m.window_limited_throughput(tb, wm=50, rtt0=0.1)
    assert limit == pytest.approx(50 / (0.1 + 2 * tb))
    for fn in (m.sack_throughput, m.newreno_throughput, m.reno_throughput):
        assert fn(1e-9, tb, **HIGH) == pytest.approx(float(limit), rel=1e-4)
        assert fn(1e-9, tb, **HIGH) <= limit


def _grid_cases() -> list[dict[str, float]]:
    return [
        {"tb": tb, "lam": lam, "wm": wm, "rtt0": rtt0, "rto": rto}
        for tb in (0.0, 1e-5, 1e-4, 1e-3, 1e-2, 1.0)
        for lam in (1.25, 500.0, 125_000.0)
        for wm in (20.0, 50.0, 200.0)
        for rtt0, rto in ((0.1, 1.0), (0.135, 0.3))
    ]


@pytest.mark.parametrize("variant", ["sack", "newreno", "reno"])
def test_monotone_decreasing_in_p(variant: str) -> None:
    ps = np.logspace(-6, -0.05, 600)
    for case in _grid_cases():
        b = np.asarray(m.throughput(variant, ps, **case))
        assert np.all(np.diff(b) < 0), (variant, case)


def test_eq27_is_small_p_limit_of_eq26() -> None:
    # Large Wm keeps eq. 26 in its own (unsaturated) regime.
    kw = {"lam": 125_000.0, "wm": 10_000.0, "rtt0": 0.1}
    for tb in (0.0, 1e-5, 1e-4, 1e-3):
        full = m.sack_throughput_unsaturated(1e-4, tb, rto=1.0, **kw)
        assert m.sack_throughput_small_p(1e-4, tb, **kw) == pytest.approx(
            float(full), rel=0.05
        )
        assert m.sack_throughput_leading(1e-4, tb, **kw) == pytest.approx(
            float(full), rel=0.05
        )
    # and the agreement improves as p shrinks
    errs = [
        abs(
            float(
                m.sack_throughput_small_p(p, 1e-4, **kw)
                / m.sack_throughput_unsaturated(p, 1e-4, rto=1.0, **kw)
            )
            - 1
        )
        for p in (1e-2, 1e-3, 1e-4, 1e-5)
    ]
    assert errs == sorted(errs, reverse=True)


def test_newreno_below_sack_and_equal_at_s1() -> None:
    kw = {"lam": 125_000.0, "wm": 1e4, "rtt0": 0.1}
    assert m.newreno_throughput_unsaturated(0.01, 0.0, **kw) == pytest.approx(
        float(m.sack_throughput_small_p(0.01, 0.0, **kw))
    )
    assert m.newreno_throughput_unsaturated(
        0.01, 1e-4, **kw
    ) < m.sack_throughput_small_p(0.01, 1e-4, **kw)


def test_reno_case_split_log2() -> None:
    # S = 5: log2 sqrt(2·5/p) > 5 ⇔ 10/p > 2^10 ⇔ p < 10/1024.
    kw = {"lam": 4000.0, "wm": 1e6, "rtt0": 0.1, "rto": 1.0}
    tb = 1e-3  # S = 5
    assert m.burst_segments(4000.0, tb, 1e6) == 5.0
    assert m.reno_td_only(0.009, tb, lam=4000.0, wm=1e6)
    assert not m.reno_td_only(0.0099, tb, lam=4000.0, wm=1e6)
    assert m.reno_throughput(0.009, tb, **kw) == pytest.approx(
        float(m.reno_throughput_td_only(0.009, tb, lam=4000.0, wm=1e6, rtt0=0.1))
    )
    assert m.reno_throughput(0.0099, tb, **kw) == pytest.approx(
        float(m.reno_throughput_td_to(0.0099, tb, **kw))
    )
    # eq. 53 by hand
    p, s, rtt = 0.0099, 5.0, 0.1 + 2e-3
    w = math.sqrt(2 * s / p)
    expect = (s / p) / (rtt * (math.sqrt(2 * s / p) + math.log2(w)) + 1.0)
    assert m.reno_throughput_td_to(p, tb, **kw) == pytest.approx(expect)


def test_reno_expected_window_eq41() -> None:
    p, s = 0.01, 5.0
    ew = 1 + math.sqrt(1 + 2 * s / p)  # b = 1
    assert m.reno_expected_window(p, 1e-3, lam=4000.0, wm=1e6) == pytest.approx(ew)


def test_all_variants_identical_when_s_equals_wm() -> None:
    # yu fig. 11: p = 0.03, λ = 125 MB/s, identical once S = Wm.
    tb = np.logspace(-3, 0, 50)  # S = Wm = 50 for Tb >= 0.392 ms
    vals = [m.throughput(v, 0.03, tb, **HIGH) for v in ("sack", "newreno", "reno")]
    np.testing.assert_allclose(vals[0], vals[1])
    np.testing.assert_allclose(vals[0], vals[2])


def test_penalty_ratios() -> None:
    kw = {"lam": 4000.0, "wm": 50.0}
    tb, p = 1e-3, 1e-3  # S = 5
    lam, wm = kw["lam"], kw["wm"]
    assert m.loss_penalty_ratio(p, tb, **kw) == pytest.approx(
        50 * math.sqrt(2 * p / 15)
    )
    assert m.delay_penalty_ratio(0.05, rtt0=0.1) == pytest.approx(2.0)
    assert m.dfl_gain_ratio(tb, **kw) == pytest.approx(math.sqrt(5))
    # eq. 57 is eq. 27 over eq. 34 (exact) and tends to 1 + sqrt(3Sp/(2b))
    big = {"lam": 4000.0, "wm": 1e6, "rtt0": 0.1}
    ratio = m.sack_throughput_small_p(p, tb, **big) / m.newreno_throughput_unsaturated(
        p, tb, **big
    )
    assert m.retransmission_penalty_newreno(p, tb, lam=lam, wm=wm) == pytest.approx(
        float(ratio)
    )
    assert m.retransmission_penalty_newreno(
        p, tb, lam=lam, wm=wm, approximate=True
    ) == pytest.approx(1 + math.sqrt(3 * 5 * p / 2))
    assert m.retransmission_penalty_newreno(p, 0.0, lam=lam, wm=wm) == pytest.approx(
        1.0
    )
    # eq. 58 (TD only: log2 sqrt(2S/p) = log2 100 > 5) vs eq. 59
    assert m.retransmission_penalty_reno(
        p, tb, rtt0=0.1, rto=1.0, **kw
    ) == pytest.approx(math.sqrt(3) * (1 + math.sqrt(5 * p / 2)))
    p2, tb2 = 0.05, 5e-3  # S = 21, log2 sqrt(42/0.05) ≈ 4.9 < 21 → eq. 59
    s2 = 21.0
    big_l = math.log2(math.sqrt(2 * s2 / p2))
    expect = math.sqrt(3) * (1 + (1.0 / 0.11 + big_l) * math.sqrt(p2 / (2 * s2)))
    assert m.retransmission_penalty_reno(
        p2, tb2, rtt0=0.1, rto=1.0, **kw
    ) == pytest.approx(expect)


def test_dfl_gain_matches_eq27_over_eq60_ignoring_rtt() -> None:
    p, tb = 1e-3, 1e-4
    kw = {"lam": 125_000.0, "wm": 50.0}
    lead = m.sack_throughput_leading(p, tb, rtt0=0.1, **kw) * (0.1 + 2 * tb)
    base = m.packet_switched_throughput(p, rtt0=1.0)
    assert lead / base == pytest.approx(float(m.dfl_gain_ratio(tb, **kw)))


def test_evaluate_breakdown() -> None:
    r = m.evaluate("sack", 0.01, 1e-5, **HIGH)
    assert r.equation == "26" and not r.saturated
    assert r.s == pytest.approx(2.25)
    assert r.rtt == pytest.approx(0.10002)
    assert r.throughput == pytest.approx(float(m.sack_throughput(0.01, 1e-5, **HIGH)))
    r2 = m.evaluate("reno", 0.05, 1e-3, lam=4000.0, wm=1e6, rtt0=0.1, rto=1.0)
    assert r2.equation == "53" and r2.timeout_ratio == 1.0
    with pytest.raises(ValueError, match="variant"):
        m.evaluate("cubic", 0.01, 0.0, **HIGH)
