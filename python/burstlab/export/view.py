"""The resolved scenario the exporters write from (the core's ``Resolved::view``,
crates/burstlab-core/src/scenario/view.rs): every default applied and every route found
by the core, so that no exporter computes a default or a route a second time."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from burstlab import _core


def resolve(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The core's resolved view of ``spec`` (a scenario dict): ``nodes``, ``links``,
    ``fibres``, ``obs`` (``null`` without one) and ``flows`` with their ``route`` and
    ``reverse_route`` as node names; durations in seconds (``*_s``). Raises
    ScenarioError, naming the field, for a scenario the core refuses."""
    from burstlab.api import plain

    return dict(json.loads(_core.resolve_scenario(json.dumps(plain(spec)), "json")))
