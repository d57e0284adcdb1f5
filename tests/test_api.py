"""The Python API: run(), Result, errors."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

import burstlab
from _scenarios import two_host_cbr


def test_run_dict_returns_dataframes_and_meta() -> None:
    res = burstlab.run(two_host_cbr(), seed=5)
    assert isinstance(res.flows, pd.DataFrame)
    assert res.meta["seed"] == 5
    assert res.meta["version"] == burstlab.__version__
    row = res.flows.iloc[0]
    assert row["kind"] == "cbr"
    # 8 Mb/s of 1000 B packets for 2 s = 2000 packets sent.
    assert row["segments_sent"] == 2000
    assert {"goodput_segps", "goodput_bps", "mean_rtt_s"} <= set(res.flows.columns)
    assert len(res.links) == 2  # one per direction


def test_run_toml_file_and_overrides(root) -> None:
    res = burstlab.run(root / "examples" / "single_flow.toml", seed=2, replication=3)
    assert res.meta["seed"] == 2 and res.meta["replication"] == 3
    assert res.scenario["name"] == "single-flow"


def test_flows_report_recovery_variant_and_congestion_control() -> None:
    sc = two_host_cbr(duration=1.0)
    sc["flow"].append({"type": "tcp", "src": "a", "dst": "b", "variant": "newreno"})
    sc["flow"].append({"type": "tcp", "src": "a", "dst": "b", "variant": "sack", "cc": "aimd"})
    f = burstlab.run(sc).flows
    assert f[["variant", "cc"]].values.tolist() == [["", ""], ["newreno", "aimd"], ["sack", "aimd"]]


def test_same_seed_identical_different_seed_differs() -> None:
    sc = two_host_cbr(loss=0.1)
    a = burstlab.run(sc, seed=1).flows
    b = burstlab.run(sc, seed=1).flows
    c = burstlab.run(sc, seed=2).flows
    pd.testing.assert_frame_equal(a, b)
    assert a["segments_received"][0] != c["segments_received"][0]


def test_scenario_error_names_field() -> None:
    sc = two_host_cbr()
    sc["link"][0]["rate"] = "-3Mb/s"
    with pytest.raises(burstlab.ScenarioError, match=r"link\[0\]\.rate"):
        burstlab.run(sc)
    sc = two_host_cbr()
    sc["flow"][0] = {"type": "tcp", "src": "a", "dst": "b", "variant": "cubicle"}
    with pytest.raises(burstlab.ScenarioError, match=r"flow\[0\]\.variant"):
        burstlab.run(sc)
    sc["flow"][0] = {"type": "tcp", "src": "a", "dst": "b", "cc": "cubicle"}
    with pytest.raises(burstlab.ScenarioError, match=r"flow\[0\]\.cc: .*`aimd`"):
        burstlab.run(sc)
    sc = two_host_cbr()
    sc["flow"][0]["cc"] = "aimd"  # a TCP-only key on a UDP flow
    with pytest.raises(burstlab.ScenarioError, match=r"flow\[0\]\.cc"):
        burstlab.run(sc)
    with pytest.raises(ValueError):  # ScenarioError is a ValueError
        burstlab.run({"sim": {}})


def test_bad_seed_and_missing_file() -> None:
    with pytest.raises(burstlab.ScenarioError, match="seed"):
        burstlab.run(two_host_cbr(), seed=-1)
    with pytest.raises(burstlab.ScenarioError, match="not found"):
        burstlab.run("no/such/file.toml")


def test_to_dir_records_seed_scenario_version(tmp_path) -> None:
    res = burstlab.run(two_host_cbr(), seed=9)
    files = res.to_dir(tmp_path, format="csv")
    names = {p.name for p in files}
    assert {"flows.csv", "links.csv", "result.json"} <= names
    flows = pd.read_csv(tmp_path / "flows.csv")
    assert (flows["seed"] == 9).all()
    assert (flows["burstlab_version"] == burstlab.__version__).all()
    doc = json.loads((tmp_path / "result.json").read_text())
    assert doc["meta"]["seed"] == 9
    assert doc["scenario"]["name"] == "cbr-test"


def test_nan_rtt_for_udp_is_float() -> None:
    res = burstlab.run(two_host_cbr())
    assert math.isnan(res.flows["mean_rtt_s"][0])
