"""Exports of burstlab scenarios to other simulators: ns-2.35 (packet networks) and
nOBS v2.1 (OBS networks).

``export_ns2(scenario)`` and ``export_nobs(scenario)`` validate the scenario with burstlab's own rules first, so a
malformed file fails with the same field-naming error as ``burstlab validate``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from burstlab import _core
from burstlab.export.nobs import NobsScript, to_nobs
from burstlab.export.ns2 import Ns2Script, to_ns2
from burstlab.hooks import refuse_in_export

__all__ = ["NobsScript", "Ns2Script", "export_nobs", "export_ns2", "to_nobs", "to_ns2"]


def export_ns2(scenario: Any, *, seed: int | None = None, replication: int | None = None,
               trace: str | None = None) -> Ns2Script:
    """Validates ``scenario`` (path, TOML text or dict) and translates it to ns-2 Tcl."""
    from burstlab.api import load_scenario

    spec: Mapping[str, Any] = load_scenario(scenario)
    refuse_in_export(spec, "ns-2")
    _core.validate(json.dumps(spec), "json")
    return to_ns2(spec, seed=seed, replication=replication, trace=trace)


def export_nobs(scenario: Any, *, seed: int | None = None, replication: int | None = None,
                trace: str | None = None, drop_as: str = "data",
                trace_fibres_only: bool = False, duration: str | None = None
                ) -> NobsScript:
    """Validates the OBS ``scenario`` (path, TOML text or dict) and translates it to an
    nOBS v2.1 Tcl script (:func:`burstlab.export.nobs.to_nobs`)."""
    from burstlab.api import load_scenario

    spec: Mapping[str, Any] = load_scenario(scenario)
    if duration is not None:
        spec = {**spec, "sim": {**dict(spec.get("sim", {})), "duration": duration}}
    refuse_in_export(spec, "nOBS")
    _core.validate(json.dumps(spec), "json")
    return to_nobs(spec, seed=seed, replication=replication, trace=trace, drop_as=drop_as,
                   trace_fibres_only=trace_fibres_only)
