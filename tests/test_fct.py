"""Completion times of finite TCP flows: ``res.fct`` from the core, the flows table's
own-life goodput, and the summaries of burstlab.fct on hand-made tables."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import burstlab
from burstlab import fct as F


def _path(flow: str, duration: str = "100s") -> str:
    return f"""
[sim]
duration = "{duration}"
[[node]]
name = "s"
kind = "host"
[[node]]
name = "d"
kind = "host"
[[link]]
a = "s"
b = "d"
rate = "8Mb/s"
delay = "10ms"
{flow}
"""


def _flow(segments: int | None, start: str = "0s", extra: str = "") -> str:
    seg = "" if segments is None else f"segments = {segments}\n"
    return (f'[[flow]]\ntype = "tcp"\nsrc = "s"\ndst = "d"\nprofile = "rfc"\nb = 1\n'
            f'wm = 20\nstart = "{start}"\n{seg}{extra}')


def test_fct_table_has_the_issue_columns_and_one_row_per_finite_flow() -> None:
    res = burstlab.run(_path(_flow(2000) + _flow(None) + _flow(50, "1s")))
    fct = res.fct
    assert list(fct["flow"]) == [0, 2]  # the infinite flow 1 has no row
    for c in ("flow", "workload", "src", "dst", "size_bytes", "start_s", "end_s", "fct_s",
              "ideal_fct_s", "slowdown", "completed", "td_events", "to_events",
              "bursts_lost"):
        assert c in fct.columns, c
    assert list(fct.columns) == list(F.FCT_COLUMNS)
    assert (fct["workload"] == "").all()  # listed flows
    assert fct["completed"].all()
    assert (fct["size_bytes"] == fct["size_segments"] * 1460).all()
    assert (fct["fct_s"] == fct["end_s"] - fct["start_s"]).all()
    assert (fct["slowdown"] == fct["fct_s"] / fct["ideal_fct_s"]).all()
    # The flows table carries the end, the flag and the size too.
    fl = res.flows.set_index("flow")
    assert bool(fl.loc[0, "completed"]) and not bool(fl.loc[1, "completed"])
    assert math.isnan(fl.loc[1, "end_s"]) and math.isnan(fl.loc[1, "size_segments"])
    assert fl.loc[0, "end_s"] == fct.set_index("flow").loc[0, "end_s"]


def test_a_lone_flow_finishes_at_its_ideal() -> None:
    res = burstlab.run(_path(_flow(300)))
    row = res.fct.iloc[0]
    assert row["completed"] and row["td_events"] == 0 and row["to_events"] == 0
    assert row["fct_s"] == row["ideal_fct_s"]  # exact on a packet path (b = 1)
    assert row["slowdown"] == 1.0


def test_finite_goodput_is_over_the_flows_own_life() -> None:
    # The issue's report: 2000 segments over a 100 s run reported 20 segments/s.
    res = burstlab.run(_path(_flow(2000)))
    f = res.flows.iloc[0]
    end = f["end_s"]
    assert 0 < end < 10
    assert f["measured_s"] == pytest.approx(end)
    assert f["goodput_segps"] == pytest.approx(2000 / end)
    assert f["goodput_segps"] > 10 * 2000 / 100  # not 2000 segments over the 100 s run


def test_a_flow_still_running_at_the_end_is_counted_not_completed() -> None:
    res = burstlab.run(_path(_flow(100_000), duration="2s"))
    row = res.fct.iloc[0]
    assert not row["completed"]
    assert math.isnan(row["end_s"]) and math.isnan(row["fct_s"])
    assert math.isnan(row["slowdown"]) and row["ideal_fct_s"] > 2.0
    s = F.slowdown_summary(res.fct)
    assert s["unfinished"] == 1 and s["completed"] == 0 and math.isnan(s["slowdown_mean"])


def test_a_run_without_finite_flows_has_an_empty_fct_table() -> None:
    res = burstlab.run(_path(_flow(None)))
    assert res.fct.empty
    assert F.fct_percentiles(res.fct).empty
    assert F.run_scalars(res.fct)["unfinished"] == 0


# --- summaries on hand-made tables ---------------------------------------------------

def _table(rows: list[tuple[int, float, float, bool]]) -> pd.DataFrame:
    """(size_bytes, fct_s, ideal_fct_s, completed) rows as an ``fct`` table."""
    out = []
    for i, (size, t, ideal, done) in enumerate(rows):
        out.append({"flow": i, "workload": "", "size_bytes": size,
                    "fct_s": t if done else math.nan, "ideal_fct_s": ideal,
                    "slowdown": t / ideal if done else math.nan, "completed": done})
    return pd.DataFrame(out)


def test_percentiles_per_size_bin_leave_unfinished_flows_out_but_count_them() -> None:
    small = [(5_000, t, 0.5, True) for t in (1.0, 2.0, 3.0, 4.0)]
    large = [(2_000_000, 10.0, 5.0, True), (3_000_000, 20.0, 5.0, True),
             (4_000_000, math.nan, 5.0, False)]
    p = F.fct_percentiles(_table(small + large))
    assert list(p["size_bin"]) == ["[0B, 10kB)", "[1MB, 10MB)"]
    a, b = p.iloc[0], p.iloc[1]
    assert (a["flows"], a["completed"], a["unfinished"]) == (4, 4, 0)
    assert a["fct_p50_s"] == 2.5  # linear interpolation between 2 and 3
    assert a["fct_p99_s"] == pytest.approx(3.97)
    assert a["fct_mean_s"] == 2.5 and a["slowdown_mean"] == 5.0
    assert (b["flows"], b["completed"], b["unfinished"]) == (3, 2, 1)
    assert b["fct_p50_s"] == 15.0 and b["fct_mean_s"] == 15.0  # not 4 MB's missing time
    assert b["slowdown_mean"] == 3.0


def test_percentiles_by_workload_and_bin_edges() -> None:
    t = _table([(100, 1.0, 1.0, True), (100, 3.0, 1.0, True)])
    t["workload"] = ["a", "b"]
    p = F.fct_percentiles(t, bins=(0, 1000), by=("workload",))
    assert list(p["workload"]) == ["a", "b"] and list(p["fct_p50_s"]) == [1.0, 3.0]
    # A size on an edge belongs to the bin it opens.
    q = F.fct_percentiles(_table([(1000, 1.0, 1.0, True)]), bins=(0, 1000, 2000))
    assert list(q["size_bin"]) == ["[1kB, 2kB)"]
    with pytest.raises(ValueError, match="increasing"):
        F.fct_percentiles(t, bins=(10, 5))
    with pytest.raises(ValueError, match="quantiles"):
        F.fct_percentiles(t, quantiles=(1.5,))


def test_jain_index() -> None:
    assert F.jain_index([3.0, 3.0, 3.0]) == 1.0
    assert F.jain_index([1.0, 0.0, 0.0, 0.0]) == 0.25
    assert F.jain_index([1.0, 2.0]) == pytest.approx(9 / 10)
    assert math.isnan(F.jain_index([])) and math.isnan(F.jain_index([0.0, 0.0]))
    with pytest.raises(ValueError):
        F.jain_index([1.0, -1.0])


def test_goodput_cdf_and_run_scalars() -> None:
    flows = pd.DataFrame({"kind": ["tcp", "tcp", "cbr", "tcp"],
                          "goodput_segps": [30.0, 10.0, 99.0, 20.0]})
    c = F.goodput_cdf(flows)
    assert list(c["value"]) == [10.0, 20.0, 30.0]
    assert list(c["cdf"]) == pytest.approx([1 / 3, 2 / 3, 1.0])
    assert len(F.goodput_cdf(flows, kind=None)) == 4
    t = _table([(100, 1.0, 0.5, True), (100, 3.0, 1.0, True), (100, 0.0, 1.0, False)])
    s = F.run_scalars(t, flows)
    assert s["fct_p50_s"] == 2.0 and s["fct_mean_s"] == 2.0
    assert s["slowdown_mean"] == 2.5 and s["unfinished"] == 1
    assert s["jain_goodput"] == pytest.approx(60.0**2 / (3 * 1400.0))
