"""yu's closed-form models of TCP over OBS (yu §III–IV): SACK eqs. 1–29, NewReno
eq. 34, Reno eqs. 35–53, optimal assembly time eqs. 30–32, penalties eqs. 55–61.

Read first: yu §II.A (notation), then :mod:`.sack`. The conventions and errata are in
:mod:`burstlab.models`; the packet-switched baseline (PFTK) is :mod:`burstlab.models.pftk`.
"""

from __future__ import annotations

from .common import (
    burst_segments,
    round_trip_time,
    timeout_backoff_factor,
    timeout_period_duration,
    timeout_period_segments,
    timeout_ratio,
)
from .newreno import newreno_throughput, newreno_throughput_unsaturated
from .optimal import (
    optimal_tb_saturated,
    optimal_tb_unsaturated,
    optimal_throughput_saturated,
    optimal_throughput_unsaturated,
)
from .penalties import (
    delay_penalty_ratio,
    dfl_gain_ratio,
    loss_penalty_ratio,
    retransmission_penalty_newreno,
    retransmission_penalty_reno,
)
from .reno import (
    reno_expected_window,
    reno_td_only,
    reno_throughput,
    reno_throughput_td_only,
    reno_throughput_td_to,
    reno_throughput_unsaturated,
)
from .sack import (
    sack_expected_window,
    sack_throughput,
    sack_throughput_leading,
    sack_throughput_saturated,
    sack_throughput_small_p,
    sack_throughput_unsaturated,
    window_limited_throughput,
)
from .summary import VARIANTS, ThroughputBreakdown, evaluate, throughput

__all__ = [
    "ThroughputBreakdown",
    "VARIANTS",
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
