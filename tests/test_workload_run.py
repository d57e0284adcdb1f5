"""Flows generated inside the core from the Python dict: NSFNET
(:func:`burstlab.topologies.nsfnet`) with a Poisson ``[[workload]]`` of heavy-tailed
sizes runs and gives ``res.fct`` one row per arrival with the issue's columns; the
same keys pass through ``burstlab.run`` unchanged; bad input raises naming the field.
"""

from __future__ import annotations

import pytest

import burstlab
from burstlab import topologies as T

COLUMNS = ["flow", "workload", "src", "dst", "size_bytes", "start_s", "end_s", "fct_s",
           "ideal_fct_s", "slowdown", "completed", "td_events", "to_events", "bursts_lost"]

SIZE = {"type": "pareto", "shape": 1.2, "lower": "4KB", "upper": "4MB"}


def nsfnet_web(duration: float = 2.0, rate: str = "200/s") -> dict:
    sc = T.nsfnet(duration=f"{duration}s", obs={"assembly": {"type": "timer", "tb": "1ms"},
                                               "classifier": "per_egress"})
    T.add_workload(sc, "web", T.nsfnet_matrix(), rate=rate, size=SIZE, variant="sack",
                   mss="1000B")
    return sc


@pytest.fixture(scope="module")
def web() -> burstlab.Result:
    return burstlab.run(nsfnet_web(), seed=1)


def test_nsfnet_poisson_heavy_tailed_runs_with_the_fct_columns(web: burstlab.Result) -> None:
    fct = web.fct
    for c in COLUMNS:
        assert c in fct.columns, c
    # 200 arrivals per second for 2 s: Poisson(400), five standard deviations = 100.
    assert abs(len(fct) - 400) < 100, len(fct)
    assert set(fct["workload"]) == {"web"}
    assert fct["flow"].is_unique
    done = fct[fct["completed"]]
    assert 0 < len(done) < len(fct)
    assert (done["fct_s"] > 0).all()
    assert (done["end_s"] <= 2.0).all()
    late = fct[~fct["completed"]]
    assert late["fct_s"].isna().all() and late["end_s"].isna().all()
    # Heavy tail: the sizes span the Pareto's range.
    assert fct["size_bytes"].min() >= 4000 and fct["size_bytes"].max() <= 4_000_000
    assert fct["size_bytes"].max() > 50 * fct["size_bytes"].median()
    # Sources and destinations are the hosts of NSFNET's core nodes, src != dst.
    assert (fct["src"] != fct["dst"]).all()
    assert fct["src"].str.startswith("H_").all()
    # Generated flows have no `flows` rows.
    assert len(web.flows) == 0


def test_same_seed_same_table() -> None:
    a = burstlab.run(nsfnet_web(0.5), seed=3).fct
    b = burstlab.run(nsfnet_web(0.5), seed=3).fct
    assert a.equals(b)
    c = burstlab.run(nsfnet_web(0.5), seed=4).fct
    assert not (len(a) == len(c) and a["start_s"].equals(c["start_s"]))


def test_bad_workload_names_the_field() -> None:
    sc = nsfnet_web(0.5)
    sc["workload"][0]["size"] = {"type": "pareto", "shape": 1.0, "lower": "4KB"}
    with pytest.raises(burstlab.ScenarioError, match=r"workload\[0\]\.size\.shape"):
        burstlab.run(sc)
    sc = nsfnet_web(0.5)
    sc["workload"][0]["rate"] = -5
    with pytest.raises(burstlab.ScenarioError, match=r"workload\[0\]\.rate"):
        burstlab.run(sc)
    sc = nsfnet_web(0.5)
    del sc["obs"]["classifier"]
    with pytest.raises(burstlab.ScenarioError, match=r"obs\.classifier"):
        burstlab.run(sc)
    with pytest.raises(T.TopologyError, match="rates"):
        T.add_workload(nsfnet_web(0.5), "x", {("WA", "NOWHERE"): 1.0}, size="1KB")


def test_fct_streamed_to_sim_trace_dir_reads_back(tmp_path) -> None:
    sc = nsfnet_web(0.5)
    held = burstlab.run(sc, seed=2).fct
    sc["sim"]["trace"] = {"dir": str(tmp_path)}
    res = burstlab.run(sc, seed=2)
    assert (tmp_path / "fct.csv").exists()
    got = res.fct
    assert len(got) == len(held) > 0
    assert list(got["name"]) == list(held["name"])
    assert (got["size_bytes"].to_numpy() == held["size_bytes"].to_numpy()).all()
    assert got["completed"].tolist() == held["completed"].tolist()
