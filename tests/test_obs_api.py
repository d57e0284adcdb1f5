"""OBS results through the Python API: preset topologies, burst tables, S = λ·Tb + 1."""

from __future__ import annotations

from pathlib import Path

import pytest

import burstlab
from burstlab.topologies import obs_chain, ozsarac_linear, yu_path


def test_yu_path_rtt_grows_by_two_tb() -> None:
    base = burstlab.run(yu_path(tb="10us", p=0.0, duration=30, wm=20)).flows.iloc[0]
    slow = burstlab.run(yu_path(tb="20ms", p=0.0, duration=30, wm=20)).flows.iloc[0]
    # Data and ACKs are both assembled: RTT = RTT0 + 2 Tb (yu §III.A).
    assert slow["mean_rtt_s"] - base["mean_rtt_s"] == pytest.approx(0.04, rel=0.05)


def test_burst_tables_report_segments_per_burst() -> None:
    # 1.25 MB/s of 1000 B segments = 1250 segments/s; a saturated window of Wm = 200
    # keeps the access link busy, so each 8 ms assembly cycle collects 1250*0.008 + 1 = 11.
    res = burstlab.run(yu_path(tb="8ms", p=0.0, access="1.25MB/s", wm=200, duration=60))
    assert {"bursts_sent", "mean_data_pkts", "loss_prob"} <= set(res.bursts.columns)
    s = res.obs_flows.iloc[0]["mean_segments_per_burst"]
    assert s == pytest.approx(min(1250 * 0.008 + 1, 200), rel=0.1)
    assert (res.obs_links["bursts_offered"] >= 0).all()


def test_random_burst_loss_is_counted_per_path() -> None:
    res = burstlab.run(yu_path(tb="1ms", p=0.05, duration=200, wm=50))
    data = res.bursts[res.bursts["data_bursts"] > 0].iloc[0]
    assert data["lost_random"] > 50
    assert data["loss_prob"] == pytest.approx(0.05, abs=0.02)
    assert res.flows.iloc[0]["td_events"] + res.flows.iloc[0]["to_events"] > 0


def test_other_presets_validate() -> None:
    for sc in (ozsarac_linear(tb="4ms", duration=5), obs_chain(cores=3, duration=1)):
        burstlab.run(sc)


def test_obs_errors_name_fields() -> None:
    sc = yu_path(tb="1ms", p=0.01, duration=1)
    sc["fibre"][0]["wavelengths"] = 0
    with pytest.raises(burstlab.ScenarioError, match=r"fibre\[0\]\.wavelengths"):
        burstlab.run(sc)
    sc = yu_path(tb="1ms", p=0.01, duration=1)
    sc["obs"]["assembly"] = {"type": "hybrid", "tmax": "1ms", "lmax": "10KB", "lmin": "20KB"}
    with pytest.raises(burstlab.ScenarioError, match=r"obs\.assembly\.lmin"):
        burstlab.run(sc)
    sc = yu_path(tb="1ms", p=0.01, duration=1)
    sc["obs"]["assembly"]["tb"] = "-1ms"
    with pytest.raises(burstlab.ScenarioError, match=r"obs\.assembly\.tb"):
        burstlab.run(sc)


def test_summary_shows_burst_table() -> None:
    res = burstlab.run(yu_path(tb="1ms", p=0.01, duration=20, wm=50))
    text = res.summary()
    assert "mean_segments_per_burst" in text and "burst_loss_prob" in text
    plain = burstlab.run(Path(__file__).resolve().parents[1] / "examples" / "single_flow.toml").summary()
    assert "OBS" not in plain
