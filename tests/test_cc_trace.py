"""The controller-state trace (``sim.trace.cc``, ``Result.cc_trace``): off unless asked,
one row per change of a modern controller's state, with the state's own invariants."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import burstlab

#: Round-trip propagation delay of the path below, s.
RTT_S = 0.06


def spec(cc: str, profile: str, *, trace_cc: bool = True, loss: float = 0.002,
         duration: str = "20s") -> dict[str, Any]:
    return {
        "name": "cc-trace",
        "sim": {"duration": duration, "seed": 3, "trace": {"cc": trace_cc}},
        "node": [{"name": "s", "kind": "host"}, {"name": "r"}, {"name": "d", "kind": "host"}],
        "link": [{"a": "s", "b": "r", "rate": "100Mb/s", "delay": "10ms"},
                 {"a": "r", "b": "d", "rate": "10Mb/s", "delay": "20ms", "queue_pkts": 300,
                  "loss_ab": loss}],
        "flow": [{"type": "tcp", "src": "s", "dst": "d", "variant": "sack", "cc": cc,
                  "profile": profile, "mss": 1000, "wm": 1000}],
    }


def test_off_by_default_and_empty_for_aimd() -> None:
    assert burstlab.run(spec("cubic", "rfc", trace_cc=False)).cc_trace.empty
    assert burstlab.run(spec("aimd", "rfc")).cc_trace.empty


def test_memory_estimate_names_the_setting() -> None:
    est = burstlab.memory_estimate(spec("bbr", "rfc"))
    assert "sim.trace.cc" in str(est)


@pytest.mark.parametrize("profile", ["rfc", "ns2"])
def test_cubic_state(profile: str) -> None:
    c = burstlab.run(spec("cubic", profile)).cc_trace
    assert len(c) > 10 and set(c.cc) == {"cubic"} and set(c.flow) == {0}
    assert c.time_s.is_monotonic_increasing
    # Rows are written only when the state changes.
    cols = ["cubic_w_max_segments", "cubic_epoch_start_s", "cubic_k_s"]
    same = (c[cols].fillna(-1).diff().abs().sum(axis=1) == 0).iloc[1:]
    assert not same.all()
    ep = c.dropna(subset=["cubic_epoch_start_s"])
    assert len(ep) > 0
    assert (ep.cubic_epoch_start_s <= ep.time_s + 1e-12).all()
    assert (ep.cubic_k_s >= 0).all()
    w = c.cubic_w_max_segments.dropna()
    assert (w[w > 0] >= 2).all()
    if profile == "rfc":
        # RFC 9438 eq. 2: K = cbrt((W_max − cwnd_epoch) / C) ≤ cbrt(W_max / 0.4).
        assert (ep.cubic_k_s <= np.cbrt(ep.cubic_w_max_segments / 0.4) + 1e-9).all()
    assert c[["vegas_base_rtt_s", "bbr_mode"]].isna().all().all()


@pytest.mark.parametrize("profile", ["rfc", "ns2"])
def test_vegas_state(profile: str) -> None:
    c = burstlab.run(spec("vegas", profile)).cc_trace
    base = c.vegas_base_rtt_s.dropna()
    assert len(base) > 0
    # The base RTT is a measured RTT: at least the propagation delay, within a
    # millisecond tick of it on this nearly empty path.
    assert base.min() >= RTT_S - 1e-9 and base.iloc[-1] < RTT_S + 0.01
    diff = c.vegas_diff_segments.dropna()
    assert len(diff) > 0 and np.isfinite(diff).all()


def test_bbr_state() -> None:
    r = burstlab.run(spec("bbr", "rfc", loss=0.0))
    c = r.cc_trace
    modes = [int(m) for m in c.bbr_mode.to_numpy()]
    # STARTUP, then DRAIN, then PROBE_BW (in this order, each first reached once).
    first = {m: modes.index(m) for m in (0, 1, 2)}
    assert first[0] < first[1] < first[2]
    capacity = 10e6 / 8 / 1040
    bw = c.bbr_btlbw_segps[c.bbr_btlbw_segps > 0]
    assert bw.max() <= capacity * 1.001 and bw.iloc[-1] > capacity * 0.95
    rt = c.bbr_min_rtt_s.dropna()
    assert rt.min() >= RTT_S and rt.iloc[-1] < RTT_S + 0.01
    pb = c[c.bbr_mode == 2]
    ratio = pb.bbr_pacing_rate_segps / pb.bbr_btlbw_segps
    assert set(np.round(ratio, 6)) <= {1.25, 0.75, 1.0}
    assert not math.isnan(float(c.cwnd_segments.iloc[-1]))
