"""burstlab's ingress edge against nOBS: the delayed first reservation (``obs.ingress``,
nOBS's ``MAX_DELAYED_BURST`` in ``optical/op-schedule.cc``). Skips without nOBS, as
tests/test_nobs_differential.py does; docs/topics/control-plane.md says what is compared.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _nobs_scenarios import two_sources
from test_nobs_differential import TRACE_TOL_S, _assert_same_sends, _both, _burst_tables, needs_nobs

from burstlab.export import export_nobs
from burstlab.units import parse_time


def _colliding(ingress: dict[str, Any] | None) -> dict[str, Any]:
    """Two Reno flows from two hosts behind E0, started together: their bursts are
    formed at the same instants and meet on E0's single wavelength towards C1. No
    set-up time (nOBS's JET_TYPE 0, no guard between reservations)."""
    spec = two_sources(duration="2s", wavelengths=1, switch_setup="0s")
    spec["flow"][1]["start"] = "0s"
    if ingress is not None:
        spec["obs"]["ingress"] = ingress
    return spec


def _bcp_times(ours: Any, spec: dict[str, Any], offset_s: float) -> Any:
    """burstlab's BCP times of delivered bursts, from their exact delivery: the tail
    arrives ``T + Σd + L/R`` after the BCP leaves the ingress."""
    d = sum(parse_time(f["delay"]) for f in spec["fibre"][:2])
    tx = ours.bytes * 8 / 1e9
    return ours["arrive_2_s"] - tx - d - offset_s


@needs_nobs
def test_delayed_first_reservation_matches_nobs(tmp_path: Path) -> None:
    spec = _colliding({"max_wait": "800us"})
    script, nb, res = _both(spec, tmp_path)
    assert any("FIFO" in w for w in script.warnings)
    waited = 0
    for flow, src in ((0, "src"), (1, "src2")):
        ours, theirs = _burst_tables(spec, script, nb, res, flow)
        assert len(ours) == len(theirs) > 10
        np.testing.assert_array_equal(ours.bytes.to_numpy(), theirs.bytes.to_numpy())
        np.testing.assert_array_equal(ours.fate.to_numpy(), theirs.fate.to_numpy())
        assert not (ours.fate == "lost").any()  # every collision waited instead
        ok = (ours.fate == "delivered").to_numpy()
        offset = float(res.bursts[res.bursts.flow == flow].offset_s.iloc[0])
        bcp = _bcp_times(ours, spec, offset)[ok]
        np.testing.assert_allclose(bcp, theirs.bcp_time_s[ok], rtol=0, atol=TRACE_TOL_S)
        np.testing.assert_allclose(ours.arrive_2_s[ok], theirs.arrive_2_s[ok], rtol=0,
                                   atol=TRACE_TOL_S)
        waited += int((bcp - ours.bcp_time_s[ok] > 1e-9).sum())
        _assert_same_sends(nb, res, script.node_ids[src], flow)
    assert waited >= 5  # the buffer was used (6 bursts waited in both simulators)


def test_bufferless_ingress_keeps_nobs_default_and_warns() -> None:
    """nOBS cannot drop a burst at the ingress (a bound of 0 crashes it when a first
    fibre is busy): without ``obs.ingress`` the export keeps nOBS's default and says so."""
    script = export_nobs(_colliding(None))
    assert "set MAX_DELAYED_BURST" not in script.tcl
    assert any("cannot drop" in w for w in script.warnings)


def test_export_refuses_what_nobs_cannot_bound() -> None:
    spec = _colliding({"max_wait": "800us", "max_bursts": 3})
    with pytest.raises(Exception, match=r"obs\.ingress\.max_bursts"):
        export_nobs(spec)
    # 100 µs at 1 Gb/s is 12 500 bytes: with a 5 000-byte size trigger that is 2.5
    # bursts, which MAX_DELAYED_BURST cannot say.
    spec = _colliding({"max_wait": "100us"})
    spec["obs"]["assembly"] = {"type": "length", "max_bytes": "5000B"}
    with pytest.raises(Exception, match=r"obs\.ingress\.max_wait"):
        export_nobs(spec)
    spec["obs"]["ingress"] = {"max_wait": "80us"}
    assert "MAX_DELAYED_BURST 2" in export_nobs(spec).tcl


@needs_nobs
def test_control_packet_loss_rate_agrees_with_nobs(tmp_path: Path) -> None:
    """Random BCP loss p on each of two fibres (E0 → C1 → E2) under a constant-rate UDP
    flow (its bursts do not depend on the losses), so the same bursts are formed in
    both. Their random streams differ, so the test compares rates, within four
    standard errors: on the first fibre both lose p of the bursts (the burst is lost
    at C1). On the last fibre they differ: burstlab loses the burst at the egress too
    (its BCP never configured E2), nOBS's egress takes a burst whose control packet
    was lost, so nOBS loses p where burstlab loses 1 − (1 − p)²."""
    from _nobs_scenarios import edge_core_edge

    p = 0.05
    spec = edge_core_edge(control={"loss": p})
    spec["sim"]["duration"] = "4s"
    spec["flow"] = [{"name": "f0", "type": "cbr", "src": "src", "dst": "dst",
                     "rate": "30Mb/s", "packet_size": "1000B"}]
    script, nb, res = _both(spec, tmp_path)
    ours, theirs = _burst_tables(spec, script, nb, res)
    assert len(ours) == len(theirs) > 1500
    np.testing.assert_array_equal(ours.bytes.to_numpy(), theirs.bytes.to_numpy())

    def near(got: float, want: float, n: int) -> None:
        sd = (want * (1 - want) / n) ** 0.5
        assert abs(got - want) < 4 * sd, (got, want, sd)

    o, t = ours[ours.fate != "in_flight"], theirs[theirs.fate != "in_flight"]
    near(float((o.fate == "lost").mean()), 1 - (1 - p) ** 2, len(o))
    near(float((t.fate == "lost").mean()), p, len(t))
    assert (t.lost_at[t.fate == "lost"] == 1).all()  # nOBS: lost at C1 only
    links = res.obs_links.set_index(["from", "to"])
    first = links.loc[("E0", "C1")]
    near(float(first.lost_control / first.bursts_offered), p, int(first.bursts_offered))
    assert set(o.reason[o.fate == "lost"]) == {"control_lost"}


def test_export_refuses_the_control_channel_queue() -> None:
    spec = _colliding(None)
    spec["obs"]["control"] = {"rate": "1Gb/s"}
    with pytest.raises(Exception, match=r"obs\.control\.rate"):
        export_nobs(spec)
