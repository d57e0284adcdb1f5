"""Topologies as scenario dicts (pass them to :func:`burstlab.run`, edit them first).

Each function returns a plain dict with the structure of a TOML scenario (see
``examples/yu_path.toml``), so it can be inspected, tweaked and serialised. Quantities
are unit strings (``"10ms"``, ``"125MB/s"``) or numbers (seconds, bit/s, bytes).

The papers' set-ups (:mod:`.paths`):

- :func:`yu_path` — yu §V: sender – E1 – C1 – C2 – E2 – receiver.
- :func:`ozsarac_linear` — ozsarac §3: an FTP flow and a real-time UDP on/off source
  whose bursts contend on one wavelength.
- :func:`obs_chain` — a generic linear chain of OBS nodes between two hosts.

Networks (:mod:`.reference`, :mod:`.imported`, :mod:`.network`, :mod:`.traffic`; the
guide is docs/guide/networks.md):

- :func:`nsfnet`, :func:`cost239`, :func:`pan_european`, :func:`usnet`,
  :func:`arpanet` — reference topologies with fibre lengths in km, each core node with
  an edge node and hosts (:func:`~.network.build_scenario`'s policy);
- :func:`from_graph` — a GML or GraphML file (the Internet Topology Zoo's formats); a
  scenario file names one with ``[network] file = "…"`` (:mod:`.network_table`);
- :func:`add_flow` — a flow on the shortest route by km, hops or delay (or routed by
  the core: ``routing=``); :func:`core_routes` — the core's route table;
- :func:`traffic_matrix`, :func:`scale_total`, :func:`scale_link_load`,
  :func:`add_poisson_traffic` — an O-D matrix scaled to a load, as Poisson sources;
  :func:`add_workload` — the same matrix as a ``[[workload]]`` of TCP flows.
"""

from __future__ import annotations

from .imported import from_graph, read_graph
from .network import (
    TopologyError,
    add_flow,
    build_scenario,
    core_graph,
    edge_of,
    full_route,
    haversine_km,
    host_of,
    shortest_route,
)
from .paths import obs_chain, ozsarac_linear, yu_path
from .reference import (
    REFERENCE_TOPOLOGIES,
    arpanet,
    cost239,
    nsfnet,
    pan_european,
    reference_graph,
    topology,
    usnet,
)
from .routes import core_routes, route_table
from .traffic import (
    add_poisson_traffic,
    add_workload,
    link_loads,
    nsfnet_matrix,
    pair_routes,
    scale_link_load,
    scale_total,
    traffic_matrix,
)

__all__ = [
    "REFERENCE_TOPOLOGIES",
    "TopologyError",
    "add_flow",
    "add_poisson_traffic",
    "add_workload",
    "arpanet",
    "build_scenario",
    "core_graph",
    "core_routes",
    "cost239",
    "edge_of",
    "from_graph",
    "full_route",
    "haversine_km",
    "host_of",
    "link_loads",
    "nsfnet",
    "nsfnet_matrix",
    "obs_chain",
    "ozsarac_linear",
    "pair_routes",
    "pan_european",
    "read_graph",
    "reference_graph",
    "route_table",
    "scale_link_load",
    "scale_total",
    "shortest_route",
    "topology",
    "traffic_matrix",
    "usnet",
    "yu_path",
]
