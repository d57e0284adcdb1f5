"""ozsarac's mesh explained with numbers (issue 53, item 4): the two ceilings computed
from a scenario's parameters and checked against lone runs, the capture case's stored
numbers against a fresh run (and nOBS when built), and the notes' sentences computed
from their tables."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import pandas as pd
import pytest

import burstlab
from burstlab.export.nobstrace import nobs_binary
from burstlab.reproduce.papers.ozsarac import claims as cl
from burstlab.reproduce.papers.ozsarac import regimes as rg
from burstlab.reproduce.papers.ozsarac import topology as topo
from burstlab.reproduce.papers.ozsarac.experiments import MODES, PAPER, ceilings_text
from burstlab.units import parse_rate


def _lone(flow: int, rate: str, duration: float = 60.0) -> dict[str, Any]:
    sc = topo.mesh(topo.assembly("cwba"), "reno", duration=duration, warmup=10.0, seed=1)
    sc["flow"] = [f for f in sc["flow"] if f["name"] == f"flow{flow}"]
    for link in sc["link"]:
        link["rate"] = rate
    return sc


def test_access_ceiling_is_the_links_payload_rate() -> None:
    sc = _lone(2, "500Mb/s")
    assert rg.access_ceiling_bps(sc, 0) == pytest.approx(500e6 * 1000 / 1040)
    sc = _lone(2, "100Mb/s")
    assert rg.access_ceiling_bps(sc, 0) == pytest.approx(100e6 * 1000 / 1040)
    with pytest.raises(ValueError, match="route"):
        topo.access_ceiling_bps({"flow": [{"mss": 1000, "header_bytes": 40}]}, 0)


@pytest.mark.parametrize(("flow", "rate"), [(2, "500Mb/s"), (6, "500Mb/s"), (6, "100Mb/s")])
def test_cwba_ceiling_is_what_a_lone_flow_gets(flow: int, rate: str) -> None:
    # A CWBA flow alone sends one window per cycle: the computed ceiling is its goodput
    # to within one window over ~200 cycles (0.5 %); the routes' ceilings differ by 4 %
    # and the rates' by far more, so a wrong term in the cycle would show.
    sc = _lone(flow, rate)
    got = float(burstlab.run(sc).flows["goodput_bps"].iloc[0])
    ceil = topo.cwba_ceiling_bps(sc, 0)
    assert abs(got / ceil - 1.0) < 0.005, (got, ceil)
    assert ceil < topo.access_ceiling_bps(sc, 0)
    # the timer's ceiling is the access limit, well above CWBA's at 500 Mb/s
    if rate == "500Mb/s":
        assert 300e6 < ceil < 0.7 * parse_rate(rate)


def test_two_routes_have_different_cwba_ceilings() -> None:
    sc = topo.mesh(topo.assembly("cwba"), "reno", duration=1.0)
    c = [topo.cwba_ceiling_bps(sc, i) for i in range(9)]
    # flow 6 crosses three core fibres, flow 2 one: two fibres of 2.5 ms both ways and
    # two more 200 µs of offset per cycle (10.4 ms on flow 2's 256 ms)
    assert c[5] / c[1] == pytest.approx(1 / (1 + 0.0104 / (80e6 / c[1])), rel=1e-6)


def test_capture_store_is_what_burstlab_runs_now() -> None:
    """The stored capture case's burstlab rows are exactly a fresh run's (deterministic);
    its nOBS rows agree with burstlab on every sender counter."""
    stored = pd.read_csv(rg.CAPTURE_STORED)
    dur = float(stored["duration_s"].iloc[0])
    spec = rg.capture_scenario(dur)
    fresh = pd.DataFrame(rg.burstlab_capture(spec, burstlab.run(spec).flows))
    bl = stored[stored["simulator"] == "burstlab"].reset_index(drop=True)
    pd.testing.assert_frame_equal(bl, fresh, check_dtype=False)
    nb = stored[stored["simulator"] == "nOBS"].reset_index(drop=True)
    for c in ("segments_sent", "retransmits", "timeouts"):
        assert list(nb[c]) == list(bl[c]), c
    # one flow at its access link's payload limit, the other starved
    share = bl["goodput_Mbps"] / bl["access_ceiling_Mbps"]
    assert share.max() > 0.99 and share.min() < 0.01


@pytest.mark.skipif(nobs_binary() is None, reason="nOBS is not built (`make nobs`)")
def test_capture_store_is_what_nobs_runs_now() -> None:
    stored = pd.read_csv(rg.CAPTURE_STORED)
    spec = rg.capture_scenario(float(stored["duration_s"].iloc[0]))
    fresh = pd.DataFrame(rg.nobs_capture(spec) or [])
    nb = stored[stored["simulator"] == "nOBS"].reset_index(drop=True)
    pd.testing.assert_frame_equal(nb, fresh, check_dtype=False)


def test_capture_text_is_computed_from_the_rows() -> None:
    cap = pd.read_csv(rg.CAPTURE_STORED).assign(source="stored")
    txt = rg.capture_text(cap)
    assert "segments_sent, retransmits, timeouts equal in both simulators" in txt
    r = cap.iloc[0]
    assert f"{float(r['goodput_segps']):.1f} seg/s" in txt
    cap.loc[3, "timeouts"] += 1
    assert "timeouts not" in rg.capture_text(cap)


def _meeting_sw(gains: dict[float, float]) -> SimpleNamespace:
    """A hand-made sweep of two flows meeting: per access rate, the timer (10 ms) total
    100 Mb/s and CWBA's total 100 × (1 + gain) in each of two start sets."""
    runs, table, p = [], [], 0
    for mbps, g in gains.items():
        for s in (0, 1):
            for kind, tb, tot in (("timer", 10.0, 100.0), ("cwba", 0.0, 100.0 * (1 + g))):
                runs.append({"point": p, "replication": 0, "assembler": kind, "tb_ms": tb,
                             "flows_meeting": 2, "access_Mbps": mbps, "start_set": s})
                for share in (0.5 + 0.01 * s, 0.5 - 0.01 * s):
                    table.append({"point": p, "kind": "tcp", "goodput_bps": tot * share * 1e6})
                p += 1
    return SimpleNamespace(runs=pd.DataFrame(runs), table=pd.DataFrame(table))


def test_meeting_table_and_crossing_come_from_the_runs() -> None:
    tab = rg.meeting_table(_meeting_sw({50.0: 0.4, 100.0: 0.1, 250.0: -0.2}))
    assert list(tab["gain_pct"].round(6)) == [40.0, 10.0, -20.0]
    assert (tab["start_sets_n"] == 2).all()
    assert tab["cwba_ceiling_Mbps"].iloc[0] < tab["access_ceiling_Mbps"].iloc[0]
    txt = rg.crossing_text(tab)
    assert "positive up to 100 Mb/s, negative from 250 Mb/s" in txt
    assert "negative at every rate run" in rg.crossing_text(
        rg.meeting_table(_meeting_sw({50.0: -0.1, 500.0: -0.3})))


def test_meeting_scenario_puts_every_flow_on_one_fibre() -> None:
    sc = rg.meeting_scenario(3, topo.assembly("cwba"), 50e6, 1.0, 0.0, 0)
    assert all(f["route"][2:4] == ["C1", "C2"] for f in sc["flow"])
    assert [f["wavelengths"] for f in sc["fibre"]] == [1] * 7
    assert len(rg.meeting_points(MODES["quick"])) == 2 * 4 * 2 * 4


def _windows(goodput: dict[tuple[str, str], float], active: set[int]) -> pd.DataFrame:
    rows = []
    for (kind, name), g in goodput.items():
        rows.append({"basis": "active", "window": "first", "akind": kind,
                     "tb": 0.0 if kind == "cwba" else 10.0, "name": name,
                     "goodput_bps": g, "cwba_ceiling_bps": 312e6,
                     "access_ceiling_bps": 480e6,
                     "active_s": 1.0 if int(name[4:]) in active else 0.0})
    return pd.DataFrame(rows)


def test_ceilings_text_names_the_ceilings_and_the_shared_fibres() -> None:
    first = {1, 3, 5, 6, 7, 8}  # no two of them share a core fibre (least-shared)
    g = {("cwba", "flow1"): 312e6, ("cwba", "flow6"): 306e6, ("timer", "flow1"): 480e6,
         ("timer", "flow6"): 1e3}
    txt = ceilings_text(_windows(g, first), "first", 10.0)
    assert "CWBA's 2 running flows at 98.1–100.0 % of their one-window-per-cycle" in txt
    assert "the 10 ms timer's 1 running flows at 100.0–100.0 %" in txt
    assert "no two active flows share a core fibre" in txt
    second = {2, 3, 4, 6, 7, 9}
    txt = ceilings_text(_windows({("cwba", f"flow{i}"): 3e8 for i in second}
                                 | {("timer", "flow2"): 4.8e8}, second), "first", 10.0)
    assert "N4 → N3 (flows 4, 6)" in txt and "N7 → N8 (flows 6, 9)" in txt


def test_dynamic_note_gives_both_bases() -> None:
    def total(gain: float) -> pd.DataFrame:
        return pd.DataFrame([{"flow": "total", "ap_opt_ms": 10.0, "best_timer_Mbps": 100.0,
                              "cwba_Mbps": 100.0 + gain, "gain_pct": gain,
                              "gain_ci_lo_pct": gain - 1, "gain_ci_hi_pct": gain + 1,
                              "start_sets_n": 3, "per_set_gain_pct": "", "cause": "x"}])

    ctx = SimpleNamespace(values={"dynamic": {w: total(-29.0) for w in ("all", "first",
                                                                         "second")},
                                  "dynamic_active": {w: total(-21.9) for w in ("all", "first",
                                                                                "second")}},
                          mode=MODES["full"], data=PAPER.load_data(), missing={})
    got = {c.id: c for c in cl.claim_dynamic(ctx)}
    c4 = got["dynamic.table4.gain"]
    assert c4.burstlab_value.startswith("-29 %")
    assert "over each flow's active time instead: -21.9 %" in c4.note
    assert "whole window (the paper's reading)" in c4.note
    assert math.isfinite(float(c4.ci.split("[")[1].split(" %")[0]))


def _shares(gains: dict[int, float]) -> pd.DataFrame:
    rows = []
    for f, g in gains.items():
        for s in (0, 1, 2):
            base = {"mesh_reading": topo.MESH_READING, "flow": f, "start_set": s,
                    "replication": 0}
            rows += [{**base, "kind": "timer", "tb_ms": 10.0, "goodput_Mbps": 100.0 + s},
                     {**base, "kind": "timer", "tb_ms": 26.0, "goodput_Mbps": 90.0 + s},
                     {**base, "kind": "cwba", "tb_ms": 0.0,
                      "goodput_Mbps": (100.0 + s) * (1 + g) + 0.1 * s * s}]
    return pd.DataFrame(rows)


def test_every_flow_gains_is_judged_paired_over_start_sets() -> None:
    up = cl.flow_gains(_shares({1: 0.2, 2: 0.1}), topo.MESH_READING)
    assert [n for n, _ in up] == ["flow 1 (best timer 10 ms)", "flow 2 (best timer 10 ms)"]
    assert all(d.defined and d.lo > 0 for _, d in up)
    from burstlab.reproduce import verdict as V

    assert V.judge_order(up).verdict == "reproduces"
    down = cl.flow_gains(_shares({1: 0.2, 2: -0.3}), topo.MESH_READING)
    assert V.judge_order(down).verdict == "differs"


def test_udp_on_text_names_the_swing() -> None:
    udp = pd.DataFrame({"udp_mean_on_ms": [1.0, 10.0, 100.0],
                        "gain_pct": [65.2, 19.8, -52.1]})
    txt = cl.udp_on_text(udp)
    assert "1 ms +65.2 %, 10 ms +19.8 %, 100 ms -52.1 %" in txt
    assert "sign turns" in txt
    assert "sign turns" not in cl.udp_on_text(udp.assign(gain_pct=[5.0, 6.0, 7.0]))
    assert cl.udp_on_text(None) == ""


def test_uncontended_share_is_read_as_a_ceiling() -> None:
    spec = topo.mesh(topo.assembly("cwba"), "reno", duration=1.0)
    ceil = topo.cwba_ceiling_bps(spec, 0) / 1e6
    cw = pd.DataFrame({"flow": [1, 6], "goodput_Mbps": [ceil, 0.01]})
    assert "flow 1 shares no core fibre with another flow: it runs at 100 %" in \
        cl.ceiling_share_text(1, cw)
    assert cl.ceiling_share_text(6, cw) == ""  # flow 6 meets flows 4 and 9
