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
