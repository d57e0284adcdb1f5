"""The analysis API (issue 55, item 2): ``burstlab.load`` gives back what a run or sweep
wrote, ``cases=`` / ``--case`` sweep non-Cartesian configurations, ``burstlab.compare``
pairs runs under common random numbers, sweep summaries carry the burst-loss
probability, and the plot helpers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import burstlab
from burstlab.cli import main
from burstlab.plot import log_spaced
from burstlab.topologies import yu_path

ROOT = Path(__file__).resolve().parents[1]
SINGLE = ROOT / "examples" / "single_flow.toml"
CASES = [{"flow.0.variant": "reno"}, {"flow.0.variant": "sack", "flow.0.cc": "cubic"}]


def short(duration: str = "30s") -> dict[str, object]:
    spec = burstlab.load_scenario(SINGLE)
    spec["sim"] = {**spec["sim"], "duration": duration}
    return spec


@pytest.fixture(scope="module")
def cases_sweep() -> burstlab.SweepResult:
    return burstlab.sweep(short(), {"link.1.loss_ab": "1e-3,1e-2"}, cases=CASES,
                          replications=3, executor="serial", progress=False)


def test_load_gives_back_the_run_that_was_written(tmp_path: Path) -> None:
    spec = short("20s")
    spec["sim"]["trace"] = {"cwnd": True, "packets": True}
    res = burstlab.run(spec, seed=5, progress=False)
    res.to_dir(tmp_path / "run")
    back = burstlab.load(tmp_path / "run")
    assert isinstance(back, burstlab.Result)
    assert back.meta == res.meta and back.scenario == res.scenario
    assert back.tables == res.tables
    compared = 0
    for name in res.tables:
        if not res._is_empty(name):
            pd.testing.assert_frame_equal(back.table(name), res.table(name), obj=name)
            compared += 1
    assert compared >= 4  # flows, links, routes, and the two traces
    assert len(back.cwnd) == len(res.cwnd) > 100


def test_load_gives_back_the_sweep_that_was_written(
        cases_sweep: burstlab.SweepResult, tmp_path: Path) -> None:
    cases_sweep.to_dir(tmp_path / "sw")
    back = burstlab.load(tmp_path / "sw")
    assert isinstance(back, burstlab.SweepResult)
    for name in ("table", "summary", "runs", "links"):
        pd.testing.assert_frame_equal(getattr(back, name), getattr(cases_sweep, name),
                                      obj=name)
    assert back.params == cases_sweep.params and back.metrics == cases_sweep.metrics
    assert back.info["cases"] == CASES


def test_load_refuses_a_folder_without_results(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no result.json"):
        burstlab.load(tmp_path)


def test_cases_run_at_every_grid_point_with_the_same_seeds(
        cases_sweep: burstlab.SweepResult) -> None:
    sw = cases_sweep
    assert sw.params == ["flow.0.variant", "flow.0.cc", "link.1.loss_ab"]
    t = sw.table
    assert len(t) == 2 * 2 * 3  # cases × grid points × replications (one flow)
    pts = t.drop_duplicates("point")[sw.params].values.tolist()
    assert pts == [["reno", "", 1e-3], ["reno", "", 1e-2],
                   ["sack", "cubic", 1e-3], ["sack", "cubic", 1e-2]]
    assert set(t["seed"]) == {1}
    assert set(t.loc[t["flow.0.variant"] == "sack", "cc"]) == {"cubic"}
    assert set(t.loc[t["flow.0.variant"] == "reno", "cc"]) == {"aimd"}
    assert len(sw.case(1)) == 6 and set(sw.case(1)["variant"]) == {"sack"}
    with pytest.raises(IndexError):
        sw.case(2)


def test_cli_cases_make_the_same_table(cases_sweep: burstlab.SweepResult,
                                       tmp_path: Path) -> None:
    p = tmp_path / "short.toml"
    p.write_text(SINGLE.read_text().replace('"300s"', '"30s"'))
    rc = main(["sweep", str(p), "--grid", "link.1.loss_ab=1e-3,1e-2", "--case",
               "flow.0.variant=reno", "--case", "flow.0.variant=sack;flow.0.cc=cubic",
               "--reps", "3", "--executor", "serial", "--no-progress", "--out",
               str(tmp_path / "o")])
    assert rc == 0
    back = burstlab.load(tmp_path / "o")
    cols = ["point", *cases_sweep.params, "replication", "goodput_bps", "td_events"]
    pd.testing.assert_frame_equal(back.table[cols], cases_sweep.table[cols])


@pytest.mark.parametrize(("cases", "message"), [
    ([{}], r"cases\[0\]: expected a non-empty"),
    ([{"flow.0.variant": "reno"}, {"flow.0.variant": "reno"}], r"cases\[1\] repeats"),
    ([{"link.1.loss_ab": 0.1}], "also a grid entry"),
    ({"flow.0.variant": "reno"}, "expected a list"),
])
def test_bad_cases_are_named(cases: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        burstlab.sweep(short(), {"link.1.loss_ab": "1e-3"}, cases=cases,  # type: ignore[arg-type]
                       progress=False)


def test_compare_pairs_runs_by_seed_and_replication(
        cases_sweep: burstlab.SweepResult) -> None:
    c = burstlab.compare(cases_sweep.case(1), cases_sweep.case(0),
                         ["goodput_bps", "td_events"])
    assert list(c["link.1.loss_ab"]) == [1e-3, 1e-3, 1e-2, 1e-2]
    assert set(c["n_pairs"]) == {3}
    t = cases_sweep.table
    for _, row in c[c["metric"] == "goodput_bps"].iterrows():
        at = t[t["link.1.loss_ab"] == row["link.1.loss_ab"]]
        a = at[at["flow.0.variant"] == "sack"].sort_values("replication")["goodput_bps"]
        b = at[at["flow.0.variant"] == "reno"].sort_values("replication")["goodput_bps"]
        d = a.to_numpy() - b.to_numpy()
        assert row["diff"] == pytest.approx(d.mean(), rel=1e-12)
        half = 4.302652729911275 * d.std(ddof=1) / np.sqrt(3)  # t(0.975, 2)
        assert row["diff_ci_lo"] == pytest.approx(d.mean() - half, rel=1e-9)
        assert row["diff_ci_hi"] == pytest.approx(d.mean() + half, rel=1e-9)
        assert row["ratio"] == pytest.approx(a.mean() / b.mean(), rel=1e-12)
        assert row["ratio_ci_lo"] < row["ratio"] < row["ratio_ci_hi"]
    same = burstlab.compare(cases_sweep.case(0), cases_sweep.case(0))
    assert (same["diff"] == 0).all() and (same["ratio"] == 1).all()


def test_compare_refuses_runs_without_common_random_numbers(
        cases_sweep: burstlab.SweepResult) -> None:
    other = cases_sweep.case(0).assign(seed=2)
    with pytest.raises(ValueError, match="no pairs"):
        burstlab.compare(cases_sweep.case(1), other)
    with pytest.raises(ValueError, match="several rows per"):
        burstlab.compare(cases_sweep.table, cases_sweep.case(0), by=[])
    with pytest.raises(ValueError, match="no column 'nope'"):
        burstlab.compare(cases_sweep.case(1), cases_sweep.case(0), "nope")


def test_compare_takes_results() -> None:
    a = [burstlab.run(short("20s"), replication=r, progress=False) for r in range(2)]
    spec = short("20s")
    spec["flow"][0]["variant"] = "reno"
    b = [burstlab.run(spec, replication=r, progress=False) for r in range(2)]
    c = burstlab.compare(a, b)
    assert c["n_pairs"].tolist() == [2]
    want = np.mean([x.flows["goodput_bps"][0] - y.flows["goodput_bps"][0]
                    for x, y in zip(a, b, strict=True)])
    assert c["diff"].iloc[0] == pytest.approx(want, rel=1e-12)


def test_sweep_summary_has_the_burst_loss_probability() -> None:
    sw = burstlab.sweep(yu_path(tb="1ms", p=0.05, duration="10s"),
                        {"obs.loss.p": [0.01, 0.1]}, replications=2, executor="serial",
                        progress=False)
    t = sw.table
    assert "burst_loss_prob" in sw.metrics
    want = t["data_bursts_lost"] / t["data_bursts"]
    np.testing.assert_allclose(t["burst_loss_prob"], want, rtol=1e-12)
    s = sw.summary
    assert s["burst_loss_prob_mean"].iloc[1] > s["burst_loss_prob_mean"].iloc[0] > 0


def test_plot_cwnd_draws_a_line_per_flow_and_needs_the_trace() -> None:
    spec = short("10s")
    spec["sim"]["trace"] = {"cwnd": True}
    fig = burstlab.run(spec, progress=False).plot_cwnd(ssthresh=True)
    ax = fig.axes[0]
    assert [ln.get_label() for ln in ax.get_lines()] == ["flow 0", "flow 0 ssthresh"]
    assert ax.get_ylabel() == "cwnd [segments]"
    assert fig._repr_png_().startswith(b"\x89PNG")  # shown in Jupyter without pyplot
    with pytest.raises(ValueError, match="sim.trace.cwnd = true"):
        burstlab.run(short("1s"), progress=False).plot_cwnd()


def test_sweep_plot_takes_the_axis_scale_from_the_grid(
        cases_sweep: burstlab.SweepResult) -> None:
    log = burstlab.sweep(short("5s"), {"link.1.loss_ab": "1e-4..1e-2:log:3"},
                         executor="serial", progress=False)
    assert log.plot("goodput_bps").axes[0].get_xscale() == "log"
    assert log.plot(xscale="linear").axes[0].get_xscale() == "linear"
    fig = cases_sweep.plot("goodput_bps", x="link.1.loss_ab", by="flow.0.variant",
                           yscale="log")
    assert fig.axes[0].get_xscale() == "linear"  # two values: no log grid
    assert fig.axes[0].get_yscale() == "log"
    with pytest.raises(ValueError, match="xscale"):
        log.plot(xscale="loglog")
    # A sweep with cases: x is the grid's axis, one line per case by default.
    ax = cases_sweep.plot("goodput_bps").axes[0]
    assert ax.get_xlabel() == "link.1.loss_ab"
    assert {t.get_text() for t in ax.get_legend().get_texts()} == {
        "flow.0.variant = reno", "flow.0.variant = sack"}


def test_log_spaced() -> None:
    assert log_spaced([1e-4, 1e-3, 1e-2])
    assert not log_spaced([1, 2, 3]) and not log_spaced([1e-3, 1e-2])
