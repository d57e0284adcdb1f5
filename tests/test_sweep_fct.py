"""Sweeps carry completion-time summaries (python/burstlab/sweep_fct.py): per run and
flow-size bin, recomputed here from each run's own ``fct`` table, and across
replications with the sweep's Student-t intervals."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

import burstlab
from burstlab import fct as F
from burstlab.sweep import sweep
from burstlab.sweep_fct import METRICS


def _scenario(duration: str = "6s") -> dict[str, Any]:
    """Three finite Reno transfers of 20, 200 and 1 200 segments of 1 000 bytes (one per
    size bin: 20 kB, 200 kB, 1.2 MB) over a path losing 1 % of its packets, and an
    infinite flow: the seed and replication change every completion time."""
    tcp = {"type": "tcp", "src": "s", "dst": "d", "variant": "reno", "mss": "1000B"}
    return {
        "name": "fct-sweep",
        "sim": {"duration": duration, "seed": 3},
        "node": [{"name": "s", "kind": "host"}, {"name": "r"}, {"name": "d", "kind": "host"}],
        "link": [{"a": "s", "b": "r", "rate": "100Mb/s", "delay": "5ms"},
                 {"a": "r", "b": "d", "rate": "20Mb/s", "delay": "5ms", "loss_ab": 0.01}],
        "flow": [{**tcp, "name": "small", "segments": 20},
                 {**tcp, "name": "medium", "segments": 200, "start": "0.1s"},
                 {**tcp, "name": "large", "segments": 1200, "start": "0.2s"},
                 {**tcp, "name": "bulk"}],
    }


@pytest.fixture(scope="module")
def swept() -> Any:
    return sweep(_scenario(), {"flow.1.variant": "reno,sack"}, replications=4,
                 executor="serial", progress=False)


def test_each_runs_row_is_its_own_fct_summarised(swept: Any) -> None:
    fct = swept.fct
    assert set(fct.point) == {0, 1} and set(fct.replication) == {0, 1, 2, 3}
    for (point, rep), rows in fct.groupby(["point", "replication"]):
        variant = ["reno", "sack"][int(point)]
        sc = _scenario()
        sc["flow"][1]["variant"] = variant
        res = burstlab.run(sc, seed=int(rows.seed.iloc[0]), replication=int(rep))
        own = F.as_table(res.fct)
        assert len(own) == 3  # the infinite flow has no completion time
        row = rows[rows.size_bin == "all"].iloc[0]
        want = F.run_scalars(own, res.flows)
        for m in ("fct_mean_s", "fct_p50_s", "fct_p99_s", "slowdown_mean", "jain_goodput"):
            assert row[m] == pytest.approx(want[m], rel=1e-12), m
        done = int(own.completed.sum())
        assert (row.finite_flows, row.completed_flows, row.unfinished_flows) == (3, done, 3 - done)
        assert row.completed_fraction == done / 3
        bins = rows[rows.size_bin != "all"].set_index("size_bin")
        assert list(bins.index) == ["[10kB, 100kB)", "[100kB, 1MB)", "[1MB, 10MB)"]
        per_bin = F.fct_percentiles(own).set_index("size_bin")
        for b in bins.index:
            for m in ("fct_p50_s", "fct_p99_s", "slowdown_mean"):
                assert bins.at[b, m] == pytest.approx(per_bin.at[b, m], rel=1e-12, nan_ok=True)
            assert math.isnan(bins.at[b, "jain_goodput"])
    # Replications differ (the loss substream), so the intervals have width.
    allr = fct[fct.size_bin == "all"]
    assert allr.groupby("point").fct_mean_s.nunique().min() > 1


def test_the_summary_is_the_mean_and_t_interval_across_replications(swept: Any) -> None:
    s = swept.fct_summary
    assert len(s) == 2 * 4  # two points x (all + three bins)
    for point in (0, 1):
        x = swept.fct[(swept.fct.point == point) & (swept.fct.size_bin == "all")]
        row = s[(s.point == point) & (s.size_bin == "all")].iloc[0]
        assert row.n == 4 and list(row[["flow.1.variant"]]) == [["reno", "sack"][point]]
        for m in ("fct_mean_s", "fct_p99_s", "slowdown_mean", "completed_fraction"):
            v = x[m].to_numpy(float)
            mean, sd = v.mean(), v.std(ddof=1)
            half = st.t.ppf(0.975, len(v) - 1) * sd / np.sqrt(len(v))
            assert row[f"{m}_mean"] == pytest.approx(mean, rel=1e-12)
            assert row[f"{m}_ci_lo"] == pytest.approx(max(0.0, mean - half), rel=1e-9, abs=1e-15)
            assert row[f"{m}_ci_hi"] == pytest.approx(mean + half, rel=1e-9, abs=1e-15)
            assert row[f"{m}_n"] == 4


def test_columns_carry_their_units(swept: Any) -> None:
    for c in METRICS:
        assert c.endswith(("_s", "_flows", "_fraction")) or c.startswith(("slowdown", "jain"))
    assert {"size_lo_bytes", "size_hi_bytes"} <= set(swept.fct.columns)
    assert math.isinf(swept.fct[swept.fct.size_bin == "all"].size_hi_bytes.iloc[0])


def test_unfinished_flows_are_counted_not_timed() -> None:
    res = sweep(_scenario("0.5s"), {"sim.duration": "0.5s,0.6s"}, replications=2,
                executor="serial", progress=False)
    large = res.fct[res.fct.size_bin == "[1MB, 10MB)"]
    assert (large.unfinished_flows == 1).all() and (large.completed_fraction == 0).all()
    assert large.fct_mean_s.isna().all()
    s = res.fct_summary[res.fct_summary.size_bin == "[1MB, 10MB)"]
    assert (s.fct_mean_s_n == 0).all() and (s.completed_fraction_mean == 0).all()
    allr = res.fct[res.fct.size_bin == "all"]
    assert (allr.completed_fraction < 1).all() and allr.fct_mean_s.notna().all()


def test_stored_runs_keep_their_summaries_and_files_are_written(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    a = sweep(_scenario("2s"), {"flow.0.segments": "10,30"}, replications=2,
              executor="serial", progress=False, store=store)
    b = sweep(_scenario("2s"), {"flow.0.segments": "10,30"}, replications=2,
              executor="serial", progress=False, store=store)
    assert b.stats["cached"] == 4 and b.stats["ran"] == 0
    pd.testing.assert_frame_equal(a.fct, b.fct)
    pd.testing.assert_frame_equal(a.fct_summary, b.fct_summary)
    written = {p.name for p in a.to_dir(tmp_path / "out", format="csv")}
    assert {"fct.csv", "fct_summary.csv"} <= written
    back = pd.read_csv(tmp_path / "out" / "fct_summary.csv")
    assert "fct_p99_s_ci_hi" in back.columns and len(back) == len(a.fct_summary)


def test_a_sweep_without_finite_flows_has_no_fct_tables(tmp_path: Path) -> None:
    sc = _scenario("1s")
    sc["flow"] = [sc["flow"][3]]
    res = sweep(sc, {"flow.0.variant": "reno,sack"}, executor="serial", progress=False)
    assert res.fct.empty and res.fct_summary.empty
    assert "fct.csv" not in {p.name for p in res.to_dir(tmp_path, format="csv")}


def test_the_cli_prints_and_writes_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    import json

    from burstlab.cli import main

    sc = tmp_path / "fct.json"
    sc.write_text(json.dumps(_scenario("2s")), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["sweep", str(sc), "--grid", "flow.0.variant=reno,sack", "--reps", "2",
                 "--executor", "serial", "--no-progress", "--out", str(out),
                 "--format", "csv"]) == 0
    text = capsys.readouterr().out
    assert "fct_p99_s_ci_hi" in text and "completed_fraction_mean" in text
    summary = pd.read_csv(out / "fct_summary.csv")
    assert list(summary[summary.size_bin == "all"]["flow.0.variant"]) == ["reno", "sack"]


def test_flows_of_several_workloads_are_also_summarised_per_workload() -> None:
    """run_rows on a run's raw tables whose finite flows come from two workloads and a
    listed flow: the '*' rows cover all of them, and each workload (the listed flow's
    is "") gets its own rows, with Jain's index over its own flows."""
    import json

    from burstlab.sweep_fct import run_rows

    def row(flow: int, workload: str, size: int, fct: float | None) -> dict[str, Any]:
        return {"flow": flow, "workload": workload, "size_bytes": size, "fct_s": fct,
                "slowdown": None if fct is None else fct / 0.1, "completed": fct is not None,
                "segments_delivered": size // 1000 if fct is not None else 7}

    fct = [row(0, "web", 5_000, 0.2), row(1, "web", 5_000, 0.4), row(2, "bulk", 2e6, 3.0),
           row(3, "bulk", 2e6, None), row(4, "", 50_000, 1.0)]
    flows = [{"flow": i, "kind": "tcp", "goodput_segps": g}
             for i, g in enumerate([10.0, 30.0, 100.0, 0.0, 50.0, 400.0])]  # 5: infinite
    out = run_rows({"fct": json.dumps(fct), "flows": json.dumps(flows)})
    by = {(r["workload"], r["size_bin"]): r for r in out}
    assert [w for w, b in by if b == "all"] == ["*", "web", "bulk", ""]
    assert by[("*", "all")]["finite_flows"] == 5 and by[("*", "all")]["unfinished_flows"] == 1
    assert by[("web", "all")]["fct_mean_s"] == pytest.approx(0.3)
    assert by[("bulk", "all")]["completed_fraction"] == 0.5
    assert by[("bulk", "[1MB, 10MB)")]["fct_p50_s"] == 3.0
    assert by[("", "all")]["fct_p99_s"] == 1.0
    # A workload's index: its completed flows' goodput over their own lives (5 segments
    # in 0.2 s and in 0.4 s); the listed flows' ('*'): res.flows's TCP goodput.
    assert by[("web", "all")]["jain_goodput"] == pytest.approx(F.jain_index([25, 12.5]))
    assert by[("bulk", "all")]["jain_goodput"] == 1.0  # one completed flow
    assert by[("*", "all")]["jain_goodput"] == pytest.approx(
        F.jain_index([10, 30, 100, 0, 50, 400]))
    # Generated flows only (res.flows is empty): '*' takes the own-life goodputs too.
    gen = run_rows({"fct": json.dumps(fct[:4]), "flows": "[]"})
    assert gen[0]["jain_goodput"] == pytest.approx(F.jain_index([25, 12.5, 2000 / 3]))
    # One workload only: no rows besides '*'.
    one = run_rows({"fct": json.dumps(fct[:2]), "flows": json.dumps(flows[:2])})
    assert {r["workload"] for r in one} == {"*"}


def test_the_summary_keys_points_even_when_the_flow_table_is_empty() -> None:
    """tables() finds a point's columns in the runs table itself (a sweep whose flow
    table is empty still has its parameters in fct_summary)."""
    from burstlab.sweep_fct import run_rows, tables

    raw = {"fct": '[{"flow": 0, "workload": "", "size_bytes": 5000, "fct_s": 0.2, '
                  '"slowdown": 2.0, "completed": true}]', "flows": "[]"}
    runs = pd.DataFrame([{"point": p, "x": v, "x [s]": s_, "seed": 1, "replication": r,
                          "burstlab_version": "v", "status": "ok", "error": None,
                          "wall_s": 0.1, "host": "h", "key": f"k{p}{r}"}
                         for p, v, s_ in ((0, "1ms", 1e-3), (1, "2ms", 2e-3)) for r in (0, 1)])
    stored = {k: {"meta": {"fct": run_rows(raw)}} for k in runs.key}
    fct, summary = tables(runs, stored)
    assert list(summary.columns[:5]) == ["point", "x", "x [s]", "workload", "size_bin"]
    assert list(summary[summary.size_bin == "all"].x) == ["1ms", "2ms"]
    assert (summary.n == 2).all() and len(fct) == 2 * 2 * 2
