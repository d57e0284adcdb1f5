"""Contention resolution (``[obs.contention]``, docs/topics/contention.md) against nOBS
v2.1: fibre delay lines and limited converters at the core.

The deterministic contention scenario of the differential suite (a Reno flow and a
constant-rate UDP source whose bursts meet at C1 on C1 -> E2, wavelength continuity) is
exported with nOBS's FDL / converter settings (``nodetype_``, ``fdlnumber_``,
``fdl_size``, ``FDLBURSTCAP``, ``converternumber_``) and run in both simulators: every
burst's send time, arrival times and fate must agree to nOBS's 1 µs trace precision, and
the mechanism must have rescued bursts that are lost without it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _nobs_scenarios import contention_cbr
from test_nobs_differential import lost_in_both, needs_nobs

from burstlab.export import export_nobs


def _cbr_contention(wavelengths: int, **cont: Any) -> dict[str, Any]:
    spec = contention_cbr(wavelengths)
    spec["obs"]["switch_setup"] = "0s"  # nOBS guards converters by SWITCHTIME
    if cont:
        spec["obs"]["contention"] = {**cont, "per_wavelength": True}
    return spec


def test_export_writes_nobs_contention_settings() -> None:
    s = export_nobs(_cbr_contention(1, fdl=["100us", "200us"], fdl_capacity="many",
                                    converters=2)).tcl
    assert "$sa set nodetype_ 3" in s
    assert "$sa set converternumber_ 2" in s
    assert "$sa set fdlnumber_ 2" in s
    assert "$sa fdl_size 0.0001 0.0002" in s
    assert "FDLBURSTCAP 0" in s
    plain = export_nobs(_cbr_contention(1)).tcl
    assert "$sa set nodetype_ 0" in plain and "FDLBURSTCAP" not in plain
    from burstlab import ScenarioError

    with pytest.raises(ScenarioError, match="obs.contention.converter_scope"):
        export_nobs(_cbr_contention(2, converters=1, converter_scope="fibre"))


@needs_nobs
@pytest.mark.parametrize("capacity", ["one", "many"])
def test_fdls_rescue_the_same_bursts_as_nobs(capacity: str, tmp_path: Path) -> None:
    base, _ = lost_in_both(_cbr_contention(1), tmp_path / "base")
    spec = _cbr_contention(1, fdl=["100us", "200us", "400us"], fdl_capacity=capacity)
    lost, res = lost_in_both(spec, tmp_path / "fdl")
    via = int(res.obs_channels.bursts_via_fdl.sum())
    assert via > 0 and lost < base, (base, lost, via)


@needs_nobs
def test_limited_converters_rescue_the_same_bursts_as_nobs(tmp_path: Path) -> None:
    base, _ = lost_in_both(_cbr_contention(2), tmp_path / "base")
    lost, res = lost_in_both(_cbr_contention(2, converters=1), tmp_path / "conv")
    conv = int(res.obs_channels.bursts_converted.sum())
    assert conv > 0 and lost < base, (base, lost, conv)


# ------------------------------------------------- three sources, two wavelengths
#
# Three ingresses contend for the two wavelengths of C1 -> E2 (tests/_nobs_scenarios.py
# three_sources; chain_of_cores for three sources with different offsets). Every
# burst of every flow must agree with nOBS (send time, arrivals, size, fate), the Reno
# flow's segments too, and the mechanism must have acted.

MECHANISMS: dict[str, dict[str, Any]] = {
    "continuity": {"contention": {"per_wavelength": True}},
    "full_conversion": {"conversion": True, "contention": {"per_wavelength": True}},
    "converters_1": {"contention": {"converters": 1, "per_wavelength": True}},
    "converters_2": {"contention": {"converters": 2, "per_wavelength": True}},
    "fdl_one": {"contention": {"fdl": ["100us", "200us", "400us"], "per_wavelength": True}},
    "fdl_many": {"contention": {"fdl": ["100us", "200us", "400us"], "fdl_capacity": "many",
                                "per_wavelength": True}},
    "converter_and_fdl": {"contention": {"converters": 1, "fdl": ["100us", "200us", "400us"],
                                         "per_wavelength": True}},
}
HYBRID = {"type": "hybrid", "tmax": "2ms", "lmax": "20000B"}


def _hop_s(spec: dict[str, Any]) -> float:
    from burstlab.export.nobstrace import longest_hop_s

    return longest_hop_s(spec)


def _line_s(spec: dict[str, Any]) -> float:
    from burstlab.export.nobstrace import longest_line_s

    return longest_line_s(spec)


def same_bursts_all_flows(spec: dict[str, Any], tmp: Path) -> tuple[list[int], Any]:
    """Runs ``spec`` in both simulators and asserts that every flow's bursts agree burst
    by burst and that the first flow's (TCP) segments agree; returns the bursts each
    flow lost and burstlab's result. A burst lost after its flow's last delivered one
    is read from nOBS's trace by ``lost_after_s`` (docs/topics/nobs.md)."""
    from test_nobs_differential import (
        _assert_same_bursts,
        _assert_same_sends,
        _both,
        _burst_tables,
    )

    from burstlab.export.nobstrace import nobs_bursts

    script, nb, res = _both(spec, tmp)
    lost = []
    for flow in range(len(spec["flow"])):
        ours, _ = _burst_tables(spec, script, nb, res, flow)
        path = [script.node_ids[n] for n in script.paths[flow]]
        theirs = nobs_bursts(nb.trace, path, flow, lost_after_s=_hop_s(spec),
                             control_wait_s=_line_s(spec))
        _assert_same_bursts(ours, theirs, hops=len(path) - 1)
        lost.append(int((ours.fate == "lost").sum()))
        if spec["flow"][flow]["type"] != "tcp":
            assert nb.flows[flow].acked_segments == int(res.flows.segments_delivered.iloc[flow])
    _assert_same_sends(nb, res, script.node_ids[spec["flow"][0]["src"]], 0)
    fl = res.flows.iloc[0]
    assert nb.flows[0].data_packets == int(fl.segments_sent)
    assert nb.flows[0].retransmitted_packets == int(fl.retransmits)
    return lost, res


def _acted(name: str, res: Any) -> bool:
    """Whether the mechanism ``name`` did something in burstlab's run: the sources all
    enter on λ0 (each ingress fibre has one queue), so a burst on λ1 of C1 -> E2 was
    converted."""
    ch = res.obs_channels
    out = ch[(ch["from"] == "C1") & (ch["to"] == "E2")].set_index("channel")
    on_l1 = int(out.bursts_scheduled[1])
    if name == "continuity":
        return on_l1 == 0
    if name == "full_conversion":
        return on_l1 > 0
    if name.startswith("converters"):
        return on_l1 > 0 and int(ch.bursts_converted.sum()) > 0
    if name.startswith("fdl"):
        return on_l1 == 0 and int(ch.bursts_via_fdl.sum()) > 0
    # The delay lines act only where the converter cannot (at 1.1 ms: 423 bursts).
    return on_l1 > 0 and int(ch.bursts_converted.sum()) > 0


#: Every mechanism with the second source starting at 1.1 ms, four of them also at 1.7 ms
#: (another phase of the three sources: other bursts meet).
THREE_SOURCE_CASES = [(n, "0.0011s") for n in MECHANISMS] + [
    (n, "0.0017s") for n in ("continuity", "full_conversion", "converters_1", "fdl_one")]


@needs_nobs
@pytest.mark.parametrize(("name", "start"), THREE_SOURCE_CASES)
def test_three_sources_on_two_wavelengths_agree_burst_by_burst(name: str, start: str,
                                                                tmp_path: Path) -> None:
    from _nobs_scenarios import three_sources

    lost, res = same_bursts_all_flows(three_sources(start=start, **MECHANISMS[name]),
                                      tmp_path)
    assert _acted(name, res)
    if name == "continuity":
        assert sum(lost) > 5  # three sources on one wavelength (each ingress takes λ0)


@needs_nobs
@pytest.mark.parametrize("name", ["continuity", "full_conversion", "converter_and_fdl"])
def test_three_sources_with_hybrid_assembly_agree(name: str, tmp_path: Path) -> None:
    from _nobs_scenarios import three_sources

    spec = three_sources(assembly=HYBRID, **MECHANISMS[name])
    lost, res = same_bursts_all_flows(spec, tmp_path)
    assert _acted(name, res)
    # The Reno flow's bursts close on the 20 000 B threshold, the sources' on the timer.
    b = res.burst_trace
    formed = b[b.event == "formed"]
    assert (formed.bytes >= 20_000).sum() > 10 and (formed.bytes < 20_000).sum() > 10


HYBRID_20K = {"type": "hybrid", "tmax": "3ms", "lmax": "20000B"}
CHAIN_CASES = [
    ({"type": "timer", "tb": "3ms"}, "0.0005s", None),
    ({"type": "timer", "tb": "3ms"}, "0.0009s", None),
    # Every flow's bursts close on size (the CBR's 12 000 B per 3 ms too): about 2 200.
    ({"type": "hybrid", "tmax": "3ms", "lmax": "10000B"}, "0.0005s", None),
    ({"type": "hybrid", "tmax": "3ms", "lmax": "10000B"}, "0.0009s", None),
    # The Reno flows' bursts close on size (about 200-250 in 5 s), the CBR's on time;
    # the ACKs, assembled at E4, on a 2.5 ms timer.
    (HYBRID_20K, "0.0005s", "2.5ms"),
    (HYBRID_20K, "0.0009s", "2.5ms"),
    # The same with the ACKs on the data's 3 ms: an ACK reaches E4 exactly when the
    # timer of the ACK burst it would join expires (ACK 512 at 0.712063 s, 3 ms after
    # ACK 492 opened the burst). burstlab's half-open cycle puts it in the next burst,
    # nOBS in this one (840 B against 800 B), and the runs part from there: the ties
    # at the timer of docs/topics/nobs.md.
    pytest.param(HYBRID_20K, "0.0005s", None,
                 marks=pytest.mark.xfail(strict=True, reason="tie at the timer")),
]


@needs_nobs
@pytest.mark.parametrize(("assembly", "start", "ack_tmax"), CHAIN_CASES)
def test_chain_of_cores_agrees(assembly: dict[str, Any], start: str, ack_tmax: str | None,
                               tmp_path: Path) -> None:
    from _nobs_scenarios import chain_of_cores

    spec = chain_of_cores(start=start, ack_tmax=ack_tmax, assembly=assembly)
    lost, res = same_bursts_all_flows(spec, tmp_path)
    assert sum(lost) > 10
    if assembly["type"] == "hybrid":
        formed = res.burst_trace[res.burst_trace.event == "formed"]
        assert (formed.bytes >= int(assembly["lmax"][:-1])).sum() > 100


@needs_nobs
def test_guard_time_is_nobs_only(tmp_path: Path) -> None:
    """A named difference (docs/topics/nobs.md, "Guard time"): nOBS keeps SWITCHTIME
    free between two reservations of a wavelength, burstlab packs them back to back.
    The three-source case with full conversion and a 5 µs set-up time agrees until the
    first burst whose wavelength is free less than 5 µs before its head: nOBS loses it,
    burstlab delivers it. (With no set-up time the same case agrees to the end, above.)"""
    from _nobs_scenarios import three_sources
    from test_nobs_differential import _both, _burst_tables

    from burstlab.export.nobstrace import nobs_bursts

    spec = three_sources(start="0.0011s", conversion=True, switch_setup="5us")
    script, nb, res = _both(spec, tmp_path)
    tables = []
    for flow in range(3):
        ours, _ = _burst_tables(spec, script, nb, res, flow)
        path = [script.node_ids[n] for n in script.paths[flow]]
        theirs = nobs_bursts(nb.trace, path, flow, lost_after_s=_hop_s(spec),
                             control_wait_s=_line_s(spec))
        assert len(ours) == len(theirs)
        ours["flow"], ours["fate_nobs"] = flow, theirs.fate.to_numpy()
        tables.append(ours)
    import pandas as pd

    b = pd.concat(tables).sort_values("send_time_s").reset_index(drop=True)
    apart = b[b.fate != b.fate_nobs]
    assert len(apart) > 0
    first = apart.iloc[0]
    assert (first.fate, first.fate_nobs) == ("delivered", "lost")
    # Its head reaches C1 one burst time before its tail (250 Mb/s fibres); another
    # burst's tail leaves a wavelength of C1 -> E2 free less than 5 µs before it.
    head = first.arrive_1_s - first.bytes * 8 / 250e6
    before = b[(b.send_time_s < first.send_time_s) & (b.fate == "delivered")]
    gap = head - before.arrive_1_s
    assert ((gap >= 0) & (gap < 5e-6)).any(), gap[gap >= 0].min()


def test_cbr_interval_rounds_up_to_the_picosecond() -> None:
    """A named difference (docs/topics/nobs.md, "Three sources on two wavelengths"):
    burstlab's CBR source sends every size/rate rounded up to the picosecond, so at
    70 Mb/s (114 285 714.29 ps) its packets fall 0.71 ps later each than ns-2's; a
    rate whose interval is whole picoseconds (62.5 Mb/s: 128 µs) does not drift. Seen
    through the timer assembler: a burst closes 2 ms after its first packet, packet n
    (n the packets of the bursts before it), which reaches E0 at 1 ms (start) + 1 ms +
    80 µs (delay and transmission on the 100 Mb/s access link) + n intervals."""
    from _nobs_scenarios import edge_core_edge

    import burstlab

    for rate, step_ps in (("70Mb/s", 114_285_715), ("62.5Mb/s", 128_000_000)):
        spec = edge_core_edge()
        spec["sim"] = {"duration": "1s", "seed": 1, "trace": {"bursts": True}}
        spec["flow"] = [{"name": "u", "type": "cbr", "src": "src", "dst": "dst",
                         "rate": rate, "packet_size": "1000B", "start": "0.001s"}]
        bt = burstlab.run(spec).burst_trace
        formed = bt[bt.event == "formed"]
        n = formed.pkts.cumsum().to_numpy() - formed.pkts.to_numpy()
        assert n[-1] > 7000
        want_ps = 2_080_000_000 + n * step_ps + 2_000_000_000
        got_ps = np.rint(formed.time_s.to_numpy() * 1e12)
        np.testing.assert_array_equal(got_ps, want_ps, err_msg=rate)


def test_nobs_trace_reading_of_bursts_lost_at_the_end() -> None:
    """nobs_bursts on a hand-made fibres-only trace of path 0 -> 1 -> 2 (no ``d``
    lines): burst A delivered; burst B received at node 1 and never sent on; burst C's
    control packet received at node 1 and never sent on, its data not yet there. Without
    ``lost_after_s`` both read as in flight (no later burst arrived); with it B is lost
    once the trace runs past its arrival by more than ``lost_after_s``, C once it runs
    past its control packet's by more than ``control_wait_s``, neither before."""
    import pandas as pd

    from burstlab.export.nobstrace import nobs_bursts
    from burstlab.export.ns2trace import TRACE_COLUMNS

    def ev(e: str, t: float, a: int, b: int, size: int, uid: int) -> list[Any]:
        return [e, t, a, b, "OP_BURST", size, "-------", 0, "0.1", "2.-1", -1, uid]

    rows = [  # control packet uid u + 1 (0 bytes), data burst uid u
        ev("+", 0.0, 0, 1, 0, 11), ev("+", 0.0001, 0, 1, 5000, 10),
        ev("r", 0.001, 0, 1, 0, 11), ev("+", 0.001, 1, 2, 0, 11),
        ev("r", 0.00114, 0, 1, 5000, 10), ev("r", 0.00214, 1, 2, 5000, 10),   # A
        ev("+", 0.003, 0, 1, 0, 21), ev("+", 0.0031, 0, 1, 5000, 20),
        ev("r", 0.004, 0, 1, 0, 21), ev("+", 0.004, 1, 2, 0, 21),
        ev("r", 0.00414, 0, 1, 5000, 20),                                      # B
        ev("+", 0.005, 0, 1, 0, 31), ev("+", 0.0051, 0, 1, 5000, 30),
        ev("r", 0.006, 0, 1, 0, 31),                                           # C
    ]

    def fates(end: float, **kw: float) -> list[str]:
        tr = pd.DataFrame(rows + [["+", end, 5, 6, "tcp", 1000, "-------", 9, "5.0", "6.0",
                                   0, 99]], columns=TRACE_COLUMNS)
        return nobs_bursts(tr, [0, 1, 2], **kw).fate.tolist()

    # The trace ends at the extra line's time or at C's control packet (6 ms).
    assert fates(0.010) == ["delivered", "in_flight", "in_flight"]
    assert fates(0.010, lost_after_s=0.001) == ["delivered", "lost", "lost"]
    assert fates(0.006, lost_after_s=0.001) == ["delivered", "lost", "in_flight"]
    assert fates(0.006, lost_after_s=0.002) == ["delivered", "in_flight", "in_flight"]
    assert fates(0.0062, lost_after_s=0.002) == ["delivered", "lost", "lost"]
    assert fates(0.0063, lost_after_s=0.001, control_wait_s=0.0004) == [
        "delivered", "lost", "in_flight"]
    assert fates(0.0065, lost_after_s=0.001, control_wait_s=0.0004) == [
        "delivered", "lost", "lost"]
