"""Settled reproductions: the goodput series (``sim.trace.goodput``), run-length control
through the store (:attr:`Experiment.refine`), and ``reproduce --scheduler`` on Dask."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import burstlab
from burstlab.cli import main
from burstlab.reproduce.framework import Claim, Context, Experiment, Paper, reproduce


def _tcp(duration: float, trace: dict[str, Any] | None = None,
         warmup: float = 0.0, loss: float = 0.01) -> dict[str, Any]:
    sim: dict[str, Any] = {"duration": duration, "seed": 3}
    if trace:
        sim["trace"] = trace
    if warmup:
        sim["warmup"] = warmup
    return {"name": "lossy", "sim": sim,
            "node": [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}],
            "link": [{"a": "a", "b": "b", "rate": "10Mb/s", "delay": "5ms", "loss": loss}],
            "flow": [{"type": "tcp", "src": "a", "dst": "b", "variant": "newreno"}]}


def test_goodput_trace_samples_the_delivered_counter() -> None:
    res = burstlab.run(_tcp(3.0, {"goodput": 0.25}))
    g = res.goodput_trace
    assert list(g.columns) == ["time_s", "flow", "delivered_segments"]
    assert np.allclose(g["time_s"], np.arange(1, 12) * 0.25)  # 0.25 … 2.75 (< 3 s)
    d = g["delivered_segments"].to_numpy()
    assert (np.diff(d) >= 0).all() and d[-1] > 100
    # The counter is the flows table's: the last sample is at most the run's total.
    assert d[-1] <= int(res.flows["segments_delivered"].iloc[0])
    # Sampling observes only: the same run without it gives the same flows table.
    plain = burstlab.run(_tcp(3.0))
    pd.testing.assert_frame_equal(plain.flows, res.flows)
    # A warm-up does not reset it (cumulative from the start).
    warm = burstlab.run(_tcp(3.0, {"goodput": 0.25}, warmup=1.0))
    assert list(warm.goodput_trace["delivered_segments"]) == list(d)


def test_goodput_trace_rejects_a_zero_interval() -> None:
    with pytest.raises(burstlab.ScenarioError, match="sim.trace.goodput"):
        burstlab.run(_tcp(1.0, {"goodput": 0}))


def _settle_paper(tmp_path: Path) -> Paper:
    """One experiment under run-length control: 0.5 s, doubled while below 2 s."""
    data = tmp_path / "paper.toml"
    data.write_text('[paper]\nname = "t"\n', encoding="utf-8")

    def pts(d: float) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        return [({"duration_s": d, "k": k}, _tcp(d, {"goodput": 0.1}, loss=0.01 * k))
                for k in (1, 2)]

    def refine(ctx: Context, sw: Any) -> list[tuple[dict[str, Any], dict[str, Any]]] | None:
        d = float(sw.runs["duration_s"].max())
        ctx.values.setdefault("rounds", []).append(d)
        return pts(2 * d) if d < 2.0 else None

    paper = Paper(name="settletoy", title="t", data_file=data, modes={"quick": 1, "full": 1},
                  stamp=lambda ctx: {"seed": 3})
    paper.experiments.append(Experiment("runs", lambda ctx: pts(0.5), keep_traces=True,
                                        refine=refine))

    @paper.claim
    def c(ctx: Context) -> Claim:
        s = ctx.results["runs"].table
        return Claim(id="c", source="-", statement="-", paper_value="-",
                     burstlab_value=f"{float(s['goodput_bps'].sum()):.6g}",
                     verdict="not comparable", note="toy")

    return paper


def test_refine_doubles_until_done_and_resumes_from_the_store(tmp_path: Path) -> None:
    paper = _settle_paper(tmp_path)
    res = reproduce(paper, tmp_path / "out", mode="quick", jobs=1, progress=False,
                    log=lambda s: None)
    assert res.ctx.values["rounds"] == [0.5, 1.0, 2.0]
    sw = res.ctx.results["runs"]
    assert set(sw.runs["duration_s"]) == {2.0} and sw.stats["ran"] == 2
    again = reproduce(paper, tmp_path / "out", mode="quick", jobs=1, progress=False,
                      log=lambda s: None)
    assert again.ctx.results["runs"].stats["ran"] == 0  # every round from the store
    assert again.claims == res.claims


def test_reproduce_on_a_dask_cluster_equals_local(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    paper = _settle_paper(tmp_path)
    local = reproduce(paper, tmp_path / "local", mode="quick", jobs=1, progress=False,
                      log=lambda s: None)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        dask = reproduce(paper, tmp_path / "dask", mode="quick", progress=False,
                         log=lambda s: None, scheduler=cluster.scheduler_address)
        assert dask.ctx.results["runs"].stats["executor"] == "dask"
        # Resumable: a second run on the cluster reads every run from the store.
        again = reproduce(paper, tmp_path / "dask", mode="quick", progress=False,
                          log=lambda s: None, scheduler=cluster.scheduler_address)
        assert again.ctx.results["runs"].stats["ran"] == 0
    assert dask.claims == local.claims
    pd.testing.assert_frame_equal(
        dask.ctx.results["runs"].table.drop(columns=["wall_s", "host", "pid"],
                                            errors="ignore"),
        local.ctx.results["runs"].table.drop(columns=["wall_s", "host", "pid"],
                                             errors="ignore"))


def test_cli_rejects_a_bad_scheduler_address(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["reproduce", "yu", "--smoke", "--scheduler", "localhost"])
    assert rc == 2
    assert "--scheduler" in capsys.readouterr().err
