"""The core's route table for a scenario, without running it.

Read first: :func:`core_routes`. These functions ask the core (through
:mod:`burstlab.api`), so they live apart from :mod:`.network`, which builds scenarios
without it: the package's loader (``burstlab.api``) builds ``[network]`` graphs with
:mod:`.network` (:mod:`.network_table`), and no module may both be needed by the
loader and need it (tests/test_import_cycles.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["core_routes", "route_table"]


def core_routes(scenario: Mapping[str, Any], *, seed: int | None = None) -> list[dict[str, Any]]:
    """The route table the core builds for ``scenario`` (without running it): one row
    per flow with its ``route`` and ``reverse_route`` as lists of node names, ``hops``,
    ``km``, ``delay_s``, and how it was chosen (``metric``, ``k``, ``policy``, ``path``,
    ``paths``), the rows of ``res.routes``; then one row per path of each pair a
    ``[[workload]]`` can draw (``workload`` names it, empty on a flow's row; ``name``
    is ``<workload>:<src>><dst>``, ``flow`` the pair's index). ``seed`` overrides
    ``sim.seed`` (the ``random`` policy's substream). Raises ``ScenarioError`` for an
    invalid scenario.

    >>> s = nsfnet()
    >>> _ = add_flow(s, "WA", "NY")
    >>> r = core_routes(s)[0]
    >>> r["hops"], r["km"], r["delay_s"]
    (7, 4692.0, 0.023462)
    """
    import json

    from burstlab import _core
    from burstlab.api import _to_json

    rows: list[dict[str, Any]] = json.loads(_core.routes(_to_json(scenario), "json", seed))
    for r in rows:
        r["route"] = r["route"].split(">")
        r["reverse_route"] = r["reverse_route"].split(">")
    return rows


def route_table(scenario: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per flow: its index, name, source, destination and route as the core
    resolves it (explicit or chosen by ``[routing]``; see :func:`core_routes` for the
    other columns and the rows of workloads' pairs, left out here).

    >>> s = nsfnet()
    >>> _ = add_flow(s, "WA", "NY")
    >>> route_table(s)[0]["route"]
    ['H_WA_1', 'E_WA', 'WA', 'IL', 'PA', 'NY', 'E_NY', 'H_NY_1']
    """
    return [{k: r[k] for k in ("flow", "name", "src", "dst", "route")}
            for r in core_routes(scenario) if not r["workload"]]
