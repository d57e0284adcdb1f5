"""``[[flow]]`` of type ``self_similar`` / ``pareto_onoff`` from the Python dict: the same
seed gives the same tables, the long-run mean rate is rate × duty × sources within a
stated bound, a bad value raises naming its key, and the ns-2 and nOBS exporters refuse
the flow naming ``flow[i].type`` (crates/burstlab-core/tests/self_similar.rs checks the
packet instants and the Hurst parameter)."""

from __future__ import annotations

from typing import Any

import pytest
from _nobs_scenarios import edge_core_edge

import burstlab
from burstlab.export import export_nobs, export_ns2

SS = {"type": "self_similar", "src": "a", "dst": "b", "sources": 32, "hurst": 0.8,
      "mean_on": "10ms", "mean_off": "10ms", "rate": "4Mb/s", "packet_size": "1000B"}


def two_hosts(duration: float, **flow: Any) -> dict[str, Any]:
    return {
        "name": "self-similar",
        "sim": {"duration": f"{duration}s"},
        "node": [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}],
        "link": [{"a": "a", "b": "b", "rate": "10Gb/s", "delay": "1ms"}],
        "flow": [{**SS, **flow}],
    }


def test_same_seed_same_tables_other_seed_other_packets() -> None:
    a = burstlab.run(two_hosts(2.0), seed=5)
    b = burstlab.run(two_hosts(2.0), seed=5)
    c = burstlab.run(two_hosts(2.0), seed=6)
    assert a.flows.equals(b.flows)
    assert a.flows["kind"].tolist() == ["self_similar"]
    assert a.flows["segments_sent"].iloc[0] != c.flows["segments_sent"].iloc[0]


def test_long_run_mean_rate_is_rate_times_duty_times_sources() -> None:
    # 32 sources × 1/2 on × 500 packets/s while on = 8 000 packets/s, 80 per 10 ms bin.
    # Bound: a source's count in a 10 ms bin lies in [0, 6] (5 packet gaps fit, plus
    # one), so its variance is at most 6²/4 = 9 (Popoviciu's inequality) and the
    # aggregate's at most σ² = 288. With the target H = 0.8, the mean of n bins has
    # standard deviation σ·n^(H−1) if the counts were exactly second-order
    # self-similar; the superposition's block variances fall faster than that below its
    # periods' scale, so this overstates it. Five of them over n = 40 000 bins (400 s):
    # 5 · 17.0 · 40 000^(−0.2) = 10.0 packets per bin, 12.5 %.
    dur = 400.0
    res = burstlab.run(two_hosts(dur), seed=1)
    per_bin = res.flows["segments_sent"].iloc[0] / (dur / 0.01)
    n = dur / 0.01
    bound = 5 * (32 * 9) ** 0.5 * n ** (0.8 - 1)
    assert bound < 10.5
    assert abs(per_bin - 80.0) < bound, (per_bin, bound)


@pytest.mark.parametrize(("change", "field"), [
    ({"hurst": 0.5}, "hurst"),
    ({"hurst": 1.2}, "hurst"),
    ({"hurst": None, "alpha": 2.0}, "alpha"),
    ({"alpha": 1.5}, "alpha"),  # hurst and alpha both given
    ({"sources": 0}, "sources"),
    ({"mean_on": "0s"}, "mean_on"),
    ({"mean_off": None}, "mean_off"),
])
def test_each_bad_value_names_its_key(change: dict[str, Any], field: str) -> None:
    sc = two_hosts(1.0, **change)
    sc["flow"][0] = {k: v for k, v in sc["flow"][0].items() if v is not None}
    with pytest.raises(burstlab.ScenarioError, match=rf"^flow\[0\]\.{field}:"):
        burstlab.run(sc)


def test_the_exporters_refuse_it_naming_the_type() -> None:
    with pytest.raises(burstlab.ScenarioError, match=r"^flow\[0\]\.type: a self_similar flow"):
        export_ns2(two_hosts(1.0))
    nobs = edge_core_edge()
    nobs["flow"] = [{"type": "pareto_onoff", "src": "src", "dst": "dst", "rate": "1Mb/s",
                     "mean_on": "10ms", "mean_off": "10ms"}]
    with pytest.raises(burstlab.ScenarioError, match=r"^flow\[0\]\.type: a pareto_onoff"):
        export_nobs(nobs)
