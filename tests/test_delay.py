"""Per-flow one-way delay and jitter (issue 55): ``flows.delay_mean_s`` and
``flows.jitter_s`` are the mean and population standard deviation of the one-way delays
of the data segments that reached the receiver after the warm-up
(crates/burstlab-core/src/world/collector.rs), checked here against the packet trace."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import burstlab

ROOT = Path(__file__).resolve().parents[1]


def _path(duration: str = "10s", warmup: float = 0.0, wm: int = 1) -> dict:
    spec = burstlab.load_scenario(ROOT / "examples" / "single_flow.toml")
    spec["link"][1]["loss_ab"] = 0.0  # no loss: every transmission arrives once
    spec["flow"][0]["wm"] = wm
    spec["sim"].update(duration=duration, warmup=warmup, trace={"packets": True})
    return spec


def _trace_delays(res: burstlab.Result, after: float = 0.0) -> np.ndarray:
    """Received time − sent time of each segment, from the packet trace (no loss and a
    FIFO path: segment ``seq`` is sent once and received once)."""
    p = res.packets
    sent = p[p["event"] == "sent"].set_index("seq")["time_s"]
    recv = p[p["event"] == "received"].set_index("seq")["time_s"]
    assert sent.index.is_unique and recv.index.is_unique
    recv = recv[recv >= after]
    return (recv - sent.loc[recv.index]).to_numpy()


@pytest.mark.parametrize("wm", [1, 50])
def test_delay_and_jitter_are_the_traces_mean_and_spread(wm: int) -> None:
    res = burstlab.run(_path(wm=wm), seed=3)
    d = _trace_delays(res)
    row = res.flows.iloc[0]
    assert row["segments_received"] == len(d) > 50
    assert row["delay_mean_s"] == pytest.approx(d.mean(), rel=1e-9)
    assert row["jitter_s"] == pytest.approx(d.std(ddof=0), rel=1e-6)
    # 10 + 30 + 10 ms of propagation, and three transmissions of the segment at 1 Gb/s.
    assert 0.050 < row["delay_mean_s"] < 0.0501


def test_a_window_of_50_queues_and_jitters_more_than_one_segment() -> None:
    one = burstlab.run(_path(wm=1), seed=3).flows.iloc[0]
    fifty = burstlab.run(_path(wm=50), seed=3).flows.iloc[0]
    assert fifty["jitter_s"] > one["jitter_s"]


def test_only_segments_after_the_warmup_count() -> None:
    res = burstlab.run(_path(duration="10s", warmup=5.0), seed=3)
    d = _trace_delays(res, after=5.0)
    all_d = _trace_delays(res)
    assert 0 < len(d) < len(all_d)
    assert res.flows.iloc[0]["delay_mean_s"] == pytest.approx(d.mean(), rel=1e-9)


def test_a_constant_bit_rate_source_has_no_jitter() -> None:
    spec = {
        "name": "cbr-delay",
        "sim": {"duration": "2s", "seed": 1},
        "node": [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}],
        "link": [{"a": "a", "b": "b", "rate": "10Mb/s", "delay": "5ms"}],
        "flow": [{"type": "cbr", "src": "a", "dst": "b", "rate": "1Mb/s",
                  "packet_size": "1000B"}],
    }
    row = burstlab.run(spec).flows.iloc[0]
    # 5 ms of propagation and 1000 B at 10 Mb/s (0.8 ms), the same for every packet.
    assert row["delay_mean_s"] == pytest.approx(0.0058, abs=1e-12)
    assert row["jitter_s"] == 0.0


def test_a_flow_that_receives_nothing_has_no_delay() -> None:
    spec = _path(duration="1s")
    spec["flow"][0]["start"] = "2s"  # after the end
    row = burstlab.run(spec, seed=3).flows.iloc[0]
    assert np.isnan(row["delay_mean_s"]) and np.isnan(row["jitter_s"])
