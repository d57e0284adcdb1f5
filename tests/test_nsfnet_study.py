"""The NSFNET study (burstlab.reproduce.nsfnet_study): its scenario, its statistics over
replications, and one small run."""

from __future__ import annotations

import math

import pytest

import burstlab
from burstlab.reproduce import nsfnet_study as ns


def _rep(tb: float, seed: int, b: int, fct: float, sd: float = 2.0, flows: int = 10,
         completed: int = 10) -> ns.Rep:
    return ns.Rep(tb_ms=tb, seed=seed, bin=b, flows=flows, completed=completed,
                  fct_mean_s=fct, slowdown_mean=sd, to_events=1, td_events=2, cpu_s=0.1)


def test_points_interval_and_paired_ratio() -> None:
    # Two periods, three seeds: FCTs at 5 ms are exactly twice those at 0.1 ms, so the
    # paired ratio is 2 with a zero-width interval, whatever the spread between seeds.
    reps = [_rep(0.1, s, 0, f) for s, f in ((1, 0.1), (2, 0.2), (3, 0.3))]
    reps += [_rep(5.0, s, 0, 2 * f) for s, f in ((1, 0.1), (2, 0.2), (3, 0.3))]
    pts = {p.tb_ms: p for p in ns.points(reps)}
    assert pts[0.1].reps == 3 and pts[0.1].flows == 30
    assert pts[0.1].fct_mean_s == pytest.approx(0.2)
    # Student-t, 2 degrees of freedom: 4.303 · 0.1 / √3.
    assert pts[0.1].fct_hi_s - 0.2 == pytest.approx(4.302653 * 0.1 / math.sqrt(3), rel=1e-5)
    assert pts[5.0].vs_smallest == pytest.approx(2.0)
    assert pts[5.0].vs_smallest_lo == pytest.approx(2.0)
    assert pts[5.0].vs_smallest_hi == pytest.approx(2.0)
    # Half-width 0.25 of a mean 0.2: far from the 10 % target.
    assert not pts[0.1].settled


def test_points_settle_and_unfinished() -> None:
    reps = [_rep(1.0, s, 1, 1.0 + 0.001 * s, completed=9) for s in range(1, 5)]
    (p,) = ns.points(reps)
    assert p.settled
    assert p.unfinished == 4


def test_sentences_name_the_best_period() -> None:
    reps = []
    for s in (1, 2, 3):
        for tb, f in ((0.1, 0.5), (1.0, 0.3), (20.0, 0.9)):
            reps.append(_rep(tb, s, 0, f * (1 + 0.01 * s)))
    said = ns.sentences(ns.points(reps))
    short = said[0]
    assert short.startswith("short")
    assert "least at Tb = 1 ms" in short
    assert "(longer)" in short  # 20 ms against 0.1 ms: 1.8× with a narrow interval
    assert said[1].startswith("medium") and "no completed flow" in said[1]


def test_scenario_is_valid_and_generates_flows() -> None:
    s = ns.scenario(1.0, 3, arrivals_s=1.0, drain_s=2.0)
    assert [w["name"] for w in s["workload"]] == ["web"]
    est = burstlab.memory_estimate(s)  # resolves and validates the whole scenario
    assert est


def test_small_replication_is_deterministic() -> None:
    a = ns.run_rep(2.0, 5, 1.5)
    b = ns.run_rep(2.0, 5, 1.5)
    strip = [(r.bin, r.flows, r.completed, r.fct_mean_s, r.to_events, r.td_events) for r in a]
    assert strip == [(r.bin, r.flows, r.completed, r.fct_mean_s, r.to_events, r.td_events)
                     for r in b]
    # About 300 arrivals a second, 0.5 s of them kept: most in the short bin.
    assert a[0].flows > 50
    assert a[0].completed > 0.9 * a[0].flows
