"""Closed-form models of TCP over optical burst switching, organised per paper, and PFTK.

- :mod:`.yu`: yu §III–IV (SACK, NewReno, Reno, optimal ``Tb``, penalties);
- :mod:`.pftk`: the packet-switched baseline (Padhye et al. 1998).

The names below re-export every model; yu's modules are ``burstlab.models.yu.*``.

Read first: yu §II.A for the notation, then :mod:`.yu.sack`. Every function is
pure and vectorised: arguments broadcast like numpy arrays, scalar inputs give
a ``numpy.float64``, and invalid input raises ``ValueError`` naming the
parameter.

Units everywhere: throughput in **segments/s** (multiply by ``MSS × 8`` for
bit/s, see :mod:`burstlab.units`); ``tb``, ``rtt0``, ``rto`` in **seconds**;
``lam`` (λ, access bandwidth) in **segments/s**; ``wm`` and ``S`` in
**segments**; ``p`` the burst loss probability in (0, 1); ``b`` ∈ {1, 2}
segments per ACK. The functions take ``rtt0`` and ``tb`` and use
``RTT = RTT0 + 2·Tb`` and ``S = min(λ·Tb + 1, Wm)``.

Rules chosen where yu leaves a choice:

* regime: a variant is window-*saturated* when its unconstrained expected
  window at a loss (eq. 10 for SACK/NewReno, eq. 41 for Reno) is ``>= Wm``,
  or when ``S = Wm`` (every burst loss is then a timeout, yu §V.B); then yu
  eq. 28 is used for all three variants, otherwise eq. 26 (SACK),
  eq. 34 (NewReno) or eq. 52/53 (Reno);
* Reno's case split uses ``log2 sqrt(2S/(bp))`` against ``S`` (log base 2:
  window halvings); ties go to eq. 53;
* errata (docs/reproductions/yu.md, "Errata"): eq. 26's denominator is ``RTT·(b·E[W]/2 + 1)``;
  ``Q(W) = min(1, p^(W/S − 1))``; eq. 32 is implemented as printed (it adds
  seconds to a round count) with a dimensionally consistent ``form="derived"``.
"""

from __future__ import annotations

from ._validate import FloatOrArray
from .pftk import (
    packet_switched_throughput,
    pftk_expected_window,
    pftk_throughput_approx,
    pftk_throughput_full,
    pftk_timeout_probability,
)
from .yu import (
    VARIANTS,
    ThroughputBreakdown,
    burst_segments,
    delay_penalty_ratio,
    dfl_gain_ratio,
    evaluate,
    loss_penalty_ratio,
    newreno_throughput,
    newreno_throughput_unsaturated,
    optimal_tb_saturated,
    optimal_tb_unsaturated,
    optimal_throughput_saturated,
    optimal_throughput_unsaturated,
    reno_expected_window,
    reno_td_only,
    reno_throughput,
    reno_throughput_td_only,
    reno_throughput_td_to,
    reno_throughput_unsaturated,
    retransmission_penalty_newreno,
    retransmission_penalty_reno,
    round_trip_time,
    sack_expected_window,
    sack_throughput,
    sack_throughput_leading,
    sack_throughput_saturated,
    sack_throughput_small_p,
    sack_throughput_unsaturated,
    throughput,
    timeout_backoff_factor,
    timeout_period_duration,
    timeout_period_segments,
    timeout_ratio,
    window_limited_throughput,
)

__all__ = [
    "VARIANTS",
    "FloatOrArray",
    "ThroughputBreakdown",
    "burst_segments",
    "delay_penalty_ratio",
    "dfl_gain_ratio",
    "evaluate",
    "loss_penalty_ratio",
    "newreno_throughput",
    "newreno_throughput_unsaturated",
    "optimal_tb_saturated",
    "optimal_tb_unsaturated",
    "optimal_throughput_saturated",
    "optimal_throughput_unsaturated",
    "packet_switched_throughput",
    "pftk_expected_window",
    "pftk_throughput_approx",
    "pftk_throughput_full",
    "pftk_timeout_probability",
    "reno_expected_window",
    "reno_td_only",
    "reno_throughput",
    "reno_throughput_td_only",
    "reno_throughput_td_to",
    "reno_throughput_unsaturated",
    "retransmission_penalty_newreno",
    "retransmission_penalty_reno",
    "round_trip_time",
    "sack_expected_window",
    "sack_throughput",
    "sack_throughput_leading",
    "sack_throughput_saturated",
    "sack_throughput_small_p",
    "sack_throughput_unsaturated",
    "throughput",
    "timeout_backoff_factor",
    "timeout_period_duration",
    "timeout_period_segments",
    "timeout_ratio",
    "window_limited_throughput",
]
