"""Modern controllers under the ``ns2`` profile against ns-2.35's ``Agent/TCP/Linux``
(tcp-linux.cc running Linux's own module, ``$tcp select_ca cubic``): the exported
script, bad combinations, and differential runs where Debian's ``ns`` is installed."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

import burstlab
from burstlab.export import export_ns2
from burstlab.export.ns2trace import (
    burstlab_sends,
    compare,
    first_divergence,
    ns2_sends,
    ns_binary,
    read_trace,
    run_ns2,
)

needs_ns = pytest.mark.skipif(
    ns_binary() is None, reason="ns-2 not installed (apt-get install ns2); the CI installs it"
)


def path_spec(cc: str = "cubic", **flow: Any) -> dict[str, Any]:
    """s -(100 Mb/s, 10 ms)- r -(10 Mb/s, 20 ms)- d, one SACK flow with a Linux module;
    wm 100 so that the window, not the receiver, limits it."""
    f = {"type": "tcp", "src": "s", "dst": "d", "variant": "sack", "cc": cc, "wm": 100,
         **flow}
    return {
        "name": "linux-cc-test",
        "sim": {"duration": "4s", "seed": 4},
        "node": [{"name": "s", "kind": "host"}, {"name": "r"},
                 {"name": "d", "kind": "host"}],
        "link": [
            {"a": "s", "b": "r", "rate": "100Mb/s", "delay": "10ms"},
            {"a": "r", "b": "d", "rate": "10Mb/s", "delay": "20ms", "queue_pkts": 999},
        ],
        "flow": [f],
    }


def test_script_selects_the_linux_module_on_a_sack_sink() -> None:
    tcl = export_ns2(path_spec()).tcl
    assert "set tcp(0) [new Agent/TCP/Linux]" in tcl
    assert "set sink(0) [new Agent/TCPSink/Sack1]" in tcl
    assert "$tcp(0) select_ca cubic" in tcl
    assert "$tcp(0) select_ca highspeed" in export_ns2(path_spec("highspeed")).tcl
    # select_ca comes after the agent's settings and before the reset at time 0.
    assert tcl.index("$tcp(0) set window_ 100") < tcl.index("select_ca cubic")
    assert tcl.index("select_ca cubic") < tcl.index("$tcp(0) reset")


def test_bad_combinations_are_rejected_naming_the_field() -> None:
    with pytest.raises(burstlab.ScenarioError, match=r"flow\[0\]\.variant.*Agent/TCP/Linux"):
        burstlab.memory_estimate(path_spec(variant="reno"))
    with pytest.raises(burstlab.ScenarioError, match=r"flow\[0\]\.clock_granularity"):
        burstlab.memory_estimate(path_spec(clock_granularity="10ms"))
    with pytest.raises(burstlab.ScenarioError, match=r"flow\[0\]\.cc"):
        burstlab.memory_estimate(path_spec(cc="compound"))


@pytest.mark.parametrize("cc", ["cubic", "highspeed", "vegas"])
def test_runs_under_both_profiles_and_differs_from_aimd(cc: str) -> None:
    """A long-lived flow through one random-loss link: each profile's controller
    delivers, and under the ns2 profile it is not the AIMD agent under another name."""
    spec = path_spec(cc)
    spec["link"][1]["loss_ab"] = 0.005
    spec["sim"]["duration"] = "10s"
    ns2 = burstlab.run(spec).flows.iloc[0]
    spec["flow"][0]["profile"] = "rfc"
    rfc = burstlab.run(spec).flows.iloc[0]
    spec["flow"][0].update(cc="aimd", profile="ns2")
    aimd = burstlab.run(spec).flows.iloc[0]
    assert ns2.segments_delivered > 1000 and rfc.segments_delivered > 1000
    assert ns2.segments_sent != aimd.segments_sent


def _send_sequences(spec: dict[str, Any], packets: list[int],
                    tmp_path: Path) -> tuple[Any, Any]:
    """ns-2 drops the listed packets (counted from 0, the SYN, on the first link); the
    segments they carried (each a first transmission, checked) become burstlab's
    ``drop_segments``. Returns both send sequences."""
    spec["sim"]["trace"] = {"packets": True}
    spec["flow"][0]["drop_segments"] = [[0, 0]]
    trace = tmp_path / "ns.tr"
    tcl = export_ns2(spec, trace=str(trace)).tcl.replace(
        "droplist {0}", "droplist {" + " ".join(map(str, packets)) + "}")
    run_ns2(tcl, workdir=tmp_path)
    t = read_trace(trace)
    ns = ns2_sends(t, src_node=0, flow=0)
    dropped = t[(t.event == "d") & (t.from_node == 0) & (t.kind == "tcp")]
    segs = [int(x) for x in dropped.seqno]
    assert len(segs) == len(packets) and not ns.retransmit.iloc[packets].any()
    spec["flow"][0]["drop_segments"] = [[x, x] for x in segs]
    ours = burstlab_sends(burstlab.run(spec).packets, 0)
    # A send at exactly the end of the run is ns-2's alone (burstlab's run stops before
    # events at t = duration): compare what both sent before it.
    end_s = float(str(spec["sim"]["duration"]).removesuffix("s"))
    return ns[ns.time_s < end_s - 1e-9], ours[ours.time_s < end_s - 1e-9]


#: Scripted drops as ns-2 packet numbers on the first link: one segment in slow start,
#: a burst of five, two holes in one window, and a loss in slow start followed by two in
#: congestion avoidance (CUBIC's first epochs), and a new segment sent during the
#: recovery of two earlier ones (segment 76 while 30 and 31 are being repaired).
DROPS = {"single": [20], "burst5": [40, 41, 42, 43, 44], "two-holes": [30, 36],
         "ss-then-ca": [30, 31, 260, 700], "loss-in-recovery": [30, 31, 78]}


@needs_ns
@pytest.mark.parametrize("b", [1, 2], ids=["ack-every", "delack"])
@pytest.mark.parametrize("drops", list(DROPS), ids=list(DROPS))
@pytest.mark.parametrize("cc", ["cubic", "highspeed", "vegas"])
def test_scripted_drop_send_sequence_matches_ns2_linux(cc: str, drops: str, b: int,
                                                       tmp_path: Path) -> None:
    """Agent/TCP/Linux with a Linux module on a loss-free path with scripted drops: the
    send sequences agree packet for packet (segment, retransmission flag, time) over
    4 s, through FACK loss marking, rate-halving recovery, CUBIC's epochs and
    HighSpeed's table rows."""
    ns, ours = _send_sequences(path_spec(cc, b=b), DROPS[drops], tmp_path)
    assert len(ns) > 800 and ns.retransmit.any()
    assert first_divergence(ns, ours) is None


@needs_ns
@pytest.mark.parametrize("cc", ["cubic", "highspeed", "vegas"])
def test_random_loss_goodput_within_tolerance_of_ns2_linux(cc: str, tmp_path: Path) -> None:
    """Random loss (p = 0.01 per data packet on the bottleneck): the simulators draw
    different loss sequences, so the mean goodputs of 10 seeds × 40 s are compared as
    two independent samples. Stated tolerance: the difference of the means is within
    3 standard errors of that difference and within 6 % of ns-2's mean."""
    ours, theirs = [], []
    for seed in range(1, 11):
        spec = path_spec(cc)
        spec["sim"].update(duration="40s", seed=seed)
        spec["link"][1]["loss_ab"] = 0.01
        df = compare(spec, workdir=tmp_path)
        ours.append(float(df.goodput_segps_burstlab[0]))
        theirs.append(float(df.goodput_segps_ns2[0]))
    n = len(ours)
    m_a, m_b = sum(ours) / n, sum(theirs) / n
    v_a = sum((x - m_a) ** 2 for x in ours) / (n - 1)
    v_b = sum((x - m_b) ** 2 for x in theirs) / (n - 1)
    se = math.sqrt(v_a / n + v_b / n)
    assert abs(m_a - m_b) <= 3 * se, (m_a, m_b, se)
    assert abs(m_a - m_b) <= 0.06 * m_b, (m_a, m_b, se)
