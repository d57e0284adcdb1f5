"""A mesh of OBS core nodes as a scenario: edge nodes, hosts, fibre delay from length, routes.

Read first: :func:`build_scenario` (the edge and host policy), then :func:`shortest_route`
(the one place routes are computed) and :func:`add_flow`.

A network topology is an undirected graph of **core** nodes joined by fibres of known
length. :func:`build_scenario` turns it into a burstlab scenario dict by one documented,
parameterised policy:

- every core node ``X`` (or only those listed in ``edges``) gets one OBS **edge** node
  ``E_X`` joined to it by a fibre of ``edge_km`` (default 0 km) with ``edge_wavelengths``
  data wavelengths (default: as many as the core fibres);
- every edge node gets ``hosts`` hosts ``H_X_1 … H_X_n``, each on its own duplex access
  link (``access`` rate, ``access_delay``);
- a core fibre of length ``km`` gets the propagation delay ``km × delay_per_km``
  (default 5 µs/km, light in silica); with the default the fibre is written with
  ``length_km`` (the core converts at 5 µs/km), otherwise with an explicit ``delay``;
- the ``[obs]`` table is the caller's (``obs=``), empty by default: the core's defaults
  (a 1 ms timer assembler per flow, JET, LAUC-VF, full wavelength conversion, BCP
  processing 10 µs per node and 5 µs switch set-up, so a burst's offset grows with its
  hops); there are no flows yet (:func:`add_flow`,
  :func:`burstlab.topologies.add_poisson_traffic`).

Routes: the core chooses routes (``[routing]``: ``metric`` = hops, km or delay, ``k``
shortest paths and a per-flow ``policy``; docs/guide/networks.md). :func:`shortest_route`
computes the core's least-cost route here, with the core's tie order: among paths of
equal cost the one with fewer hops, then the lexicographically smallest sequence of node
indices (the order the nodes are listed in, cores first in :func:`build_scenario`), km
counted in whole millimetres and delay in picoseconds as the core counts them
(tests/test_routing.py checks both against networkx and against each other).
:func:`add_flow` writes that route as an explicit ``route`` (the reverse route, for ACKs,
is the forward route reversed), or with ``routing=`` leaves the choice to the core;
:func:`~burstlab.topologies.routes.core_routes` reads the core's choice for every flow of
a scenario.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from burstlab.units import parse_time

Quantity = str | float | int

if TYPE_CHECKING:
    import networkx as nx

__all__ = [
    "EARTH_RADIUS_KM",
    "TopologyError",
    "add_flow",
    "build_scenario",
    "core_graph",
    "core_nodes",
    "edge_of",
    "full_route",
    "haversine_km",
    "host_of",
    "shortest_route",
    "validate_graph",
]

#: Mean Earth radius (IUGG), the sphere of the haversine distance.
EARTH_RADIUS_KM = 6371.0088

#: Weights a route may minimise.
WEIGHTS = ("km", "hops", "delay")

_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


class TopologyError(ValueError):
    """Bad topology input (a graph, a matrix, a name): the message names the node, edge
    or field. A ``ValueError``, so the command line prints it and exits with code 2."""


def clean_name(name: object) -> str:
    """A node name usable in a scenario: runs of characters other than letters, digits,
    ``_ . -`` become one ``_`` (``"San Francisco"`` → ``"San_Francisco"``)."""
    s = _NAME.sub("_", str(name)).strip("_")
    return s or "node"


def haversine_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance in km between two points given in degrees (haversine formula
    on a sphere of radius :data:`EARTH_RADIUS_KM`).

    >>> round(haversine_km(48.86, 2.35, 51.51, -0.13), 1)      # Paris to London
    343.5
    """
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(h)))


def edge_of(node: str) -> str:
    """The OBS edge node attached to core node ``node``.

    >>> edge_of("WA")
    'E_WA'
    """
    return f"E_{node}"


def host_of(node: str, i: int = 1) -> str:
    """Host ``i`` (from 1) behind the edge node of core node ``node``.

    >>> host_of("WA"), host_of("WA", 2)
    ('H_WA_1', 'H_WA_2')
    """
    return f"H_{node}_{i}"


def validate_graph(g: nx.Graph, *, what: str = "graph") -> None:
    """Raise :class:`TopologyError` for a graph burstlab cannot build: fewer than two
    nodes, a self-loop, duplicate edges, a disconnected graph, or a fibre without a
    finite non-negative ``km``. Messages name the node or edge."""
    import networkx as nx

    if g.is_directed():
        raise TopologyError(f"{what}: must be undirected (burstlab fibres are duplex)")
    if g.number_of_nodes() < 2:
        raise TopologyError(f"{what}: needs at least 2 nodes, got {g.number_of_nodes()}")
    for a, b in nx.selfloop_edges(g):
        raise TopologyError(f"{what}: self-loop at node '{a}' (edge {a}–{b})")
    if g.is_multigraph():
        for a, b in g.edges():
            if g.number_of_edges(a, b) > 1:
                raise TopologyError(
                    f"{what}: duplicate edge {a}–{b} ({g.number_of_edges(a, b)} edges "
                    "between the same nodes); keep one fibre per node pair"
                )
    if not nx.is_connected(g):
        comps = sorted(nx.connected_components(g), key=lambda c: (-len(c), sorted(map(str, c))))
        stray = sorted(map(str, comps[1]))
        raise TopologyError(
            f"{what}: disconnected — node '{stray[0]}' (with {len(stray) - 1} other(s)) "
            f"cannot reach node '{sorted(map(str, comps[0]))[0]}'"
        )
    for a, b, d in g.edges(data=True):
        km = d.get("km")
        if km is None or not isinstance(km, int | float) or not math.isfinite(km) or km < 0:
            raise TopologyError(f"{what}: edge {a}–{b}: km must be a finite non-negative length, got {km!r}")


def _positive_int(name: str, v: object, lo: int = 1) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < lo:
        raise TopologyError(f"{name}: must be an integer ≥ {lo}, got {v!r}")
    return v


def build_scenario(
    g: nx.Graph,
    *,
    name: str,
    hosts: int = 1,
    edges: Iterable[str] | None = None,
    access: Quantity = "10Gb/s",
    access_delay: Quantity = "1us",
    core_rate: Quantity = "10Gb/s",
    wavelengths: int = 8,
    edge_wavelengths: int | None = None,
    edge_km: float = 0.0,
    delay_per_km: Quantity = "5us",
    obs: Mapping[str, Any] | None = None,
    duration: Quantity = "1s",
    seed: int = 1,
) -> dict[str, Any]:
    """The scenario of core graph ``g`` (nodes: core node names; edge attribute ``km``).

    Args:
        hosts: hosts behind each edge node (``H_X_1 … H_X_<hosts>``).
        edges: the core nodes that get an edge node (default: all).
        access, access_delay: each host's duplex access link.
        core_rate: line rate of every data wavelength (core and edge fibres).
        wavelengths: data wavelengths per core fibre and direction.
        edge_wavelengths: those of the edge–core fibres (default ``wavelengths``).
        edge_km: length of each edge–core fibre.
        delay_per_km: propagation delay per km of fibre.
        obs: the ``[obs]`` table (copied).

    >>> import networkx as nx
    >>> g = nx.Graph()
    >>> g.add_edge("A", "B", km=100.0)
    >>> g.add_edge("B", "C", km=200.0)
    >>> s = build_scenario(g, name="abc")
    >>> [n["name"] for n in s["node"]]
    ['A', 'B', 'C', 'E_A', 'H_A_1', 'E_B', 'H_B_1', 'E_C', 'H_C_1']
    >>> s["fibre"][0]
    {'a': 'A', 'b': 'B', 'rate': '10Gb/s', 'wavelengths': 8, 'length_km': 100.0}
    """
    validate_graph(g)
    hosts = _positive_int("hosts", hosts)
    wavelengths = _positive_int("wavelengths", wavelengths)
    ew = wavelengths if edge_wavelengths is None else _positive_int("edge_wavelengths", edge_wavelengths)
    if not isinstance(edge_km, int | float) or not math.isfinite(edge_km) or edge_km < 0:
        raise TopologyError(f"edge_km: must be a finite non-negative length, got {edge_km!r}")
    try:
        per_km = parse_time(delay_per_km)
    except ValueError as e:
        raise TopologyError(f"delay_per_km: {e}") from None
    cores = [str(n) for n in g.nodes]
    chosen = cores if edges is None else [str(e) for e in edges]
    for x in chosen:
        if x not in g:
            raise TopologyError(f"edges: unknown core node '{x}' (nodes: {', '.join(cores)})")
    if len(set(chosen)) != len(chosen):
        raise TopologyError("edges: a core node is listed twice")
    default_km = math.isclose(per_km, 5e-6, rel_tol=0, abs_tol=1e-15)

    def fibre(a: str, b: str, km: float, k: int) -> dict[str, Any]:
        f: dict[str, Any] = {"a": a, "b": b, "rate": core_rate, "wavelengths": k}
        if default_km:
            f["length_km"] = float(km)
        else:
            f["delay"] = f"{round(km * per_km * 1e9)}ns"
        return f

    nodes = [{"name": x, "kind": "core"} for x in cores]
    fibres = [fibre(str(a), str(b), d["km"], wavelengths) for a, b, d in g.edges(data=True)]
    links = []
    for x in chosen:
        nodes.append({"name": edge_of(x), "kind": "edge"})
        fibres.append(fibre(edge_of(x), x, edge_km, ew))
        for i in range(1, hosts + 1):
            nodes.append({"name": host_of(x, i), "kind": "host"})
            links.append({"a": host_of(x, i), "b": edge_of(x), "rate": access, "delay": access_delay})
    return {
        "name": name,
        "sim": {"duration": duration, "seed": seed},
        "node": nodes,
        "link": links,
        "fibre": fibres,
        "obs": dict(obs or {}),
        "flow": [],
    }


def core_nodes(scenario: Mapping[str, Any]) -> list[str]:
    """The core nodes of a scenario, in the order they are listed."""
    return [n["name"] for n in scenario.get("node", []) if n.get("kind") == "core"]


def core_graph(scenario: Mapping[str, Any]) -> nx.Graph:
    """The graph of a scenario's core fibres, with edge attributes ``km`` (if the fibre
    has ``length_km``) and ``delay`` (seconds), in the order the fibres are listed.

    >>> g = core_graph(nsfnet())
    >>> g.number_of_nodes(), g.number_of_edges(), g["WA"]["IL"]["km"]
    (14, 21, 3408.0)
    """
    import networkx as nx

    cores = set(core_nodes(scenario))
    g = nx.Graph()
    g.add_nodes_from(core_nodes(scenario))
    for i, f in enumerate(scenario.get("fibre", [])):
        a, b = f.get("a"), f.get("b")
        if a in cores and b in cores:
            km = f.get("length_km")
            delay = parse_time(f["delay"]) if "delay" in f else (None if km is None else km * 5e-6)
            if delay is None:
                raise TopologyError(f"fibre[{i}]: needs delay or length_km")
            attrs: dict[str, Any] = {"delay": delay}
            if km is not None:
                attrs["km"] = float(km)
            g.add_edge(a, b, **attrs)
    return g


def _arc_metric(weight: str, attrs: Mapping[str, Any]) -> int:
    """An arc's metric as the core counts it: 1 per hop, whole millimetres of fibre, or
    picoseconds of delay (rounded half up, as ``ksp.rs`` and ``SimTime`` round)."""
    if weight == "hops":
        return 1
    x = attrs["km"] * 1e6 if weight == "km" else attrs["delay"] * 1e12
    return math.floor(x + 0.5)


def shortest_route(g: nx.Graph, src: str, dst: str, weight: str = "km") -> list[str]:
    """The least-cost path of core nodes from ``src`` to ``dst`` by ``weight`` (``km``,
    ``hops`` or ``delay``), with the core's tie order (see the module docs): the route
    ``[routing] metric = weight`` gives the flow in the core.

    >>> shortest_route(core_graph(nsfnet()), "WA", "NY")
    ['WA', 'IL', 'PA', 'NY']
    """
    import networkx as nx

    if weight not in WEIGHTS:
        raise TopologyError(f"weight: must be one of {', '.join(WEIGHTS)}, got {weight!r}")
    for field, n in (("src", src), ("dst", dst)):
        if n not in g:
            raise TopologyError(f"{field}: unknown core node '{n}'")
    if weight == "km" and any("km" not in d for _, _, d in g.edges(data=True)):
        bad = next((a, b) for a, b, d in g.edges(data=True) if "km" not in d)
        raise TopologyError(f"weight: 'km' needs fibre lengths; fibre {bad[0]}–{bad[1]} has none")
    index = {n: i for i, n in enumerate(g.nodes)}

    def cost(_a: Any, _b: Any, d: Mapping[str, Any]) -> int:  # (metric, hops) as one integer
        return _arc_metric(weight, d) * (1 << 32) + 1

    try:
        paths = list(nx.all_shortest_paths(g, src, dst, weight=cost))
    except nx.NetworkXNoPath:
        raise TopologyError(f"dst: no route from core node '{src}' to '{dst}'") from None
    best = min(paths, key=lambda p: [index[n] for n in p])
    return [str(n) for n in best]


def full_route(core_path: Sequence[str], src_host: int = 1, dst_host: int = 1) -> list[str]:
    """Host → edge → core path → edge → host, the form of ``[[flow]].route``.

    >>> full_route(["WA", "IL", "NY"])
    ['H_WA_1', 'E_WA', 'WA', 'IL', 'NY', 'E_NY', 'H_NY_1']
    """
    a, b = core_path[0], core_path[-1]
    return [host_of(a, src_host), edge_of(a), *core_path, edge_of(b), host_of(b, dst_host)]


def add_flow(
    scenario: dict[str, Any],
    src: str,
    dst: str,
    *,
    weight: str = "km",
    src_host: int = 1,
    dst_host: int = 1,
    graph: nx.Graph | None = None,
    routing: Mapping[str, Any] | None = None,
    **keys: Any,
) -> dict[str, Any]:
    """Append a ``[[flow]]`` from host ``src_host`` of core node ``src`` to host
    ``dst_host`` of ``dst``, on the shortest route by ``weight`` (written as an explicit
    ``route``, and for TCP the reversed path as ``reverse_route``), or, with ``routing``
    (a flow's ``routing`` table: ``metric``, ``k``, ``policy``), without a route: the
    core chooses it. Other keyword arguments are the flow's keys (``type``,
    ``variant``, ``rate``, …). Returns the flow table.

    >>> s = nsfnet()
    >>> flow = add_flow(s, "WA", "NY")
    >>> flow["route"]
    ['H_WA_1', 'E_WA', 'WA', 'IL', 'PA', 'NY', 'E_NY', 'H_NY_1']
    """
    if src == dst:
        raise TopologyError(f"dst: the flow's source and destination are both '{src}'")
    names = {n["name"] for n in scenario.get("node", [])}
    for field, n, i in (("src_host", src, src_host), ("dst_host", dst, dst_host)):
        if host_of(n, i) not in names:
            raise TopologyError(f"{field}: no host '{host_of(n, i)}' (node '{n}' has no edge node or fewer hosts)")
    if routing is not None:
        flow = {"src": host_of(src, src_host), "dst": host_of(dst, dst_host), **keys, "routing": dict(routing)}
        scenario.setdefault("flow", []).append(flow)
        return flow
    g = core_graph(scenario) if graph is None else graph
    path = full_route(shortest_route(g, src, dst, weight), src_host, dst_host)
    flow = {"src": path[0], "dst": path[-1], **keys, "route": path}
    if keys.get("type", "tcp") == "tcp":  # ACKs come back on the reversed route
        flow["reverse_route"] = path[::-1]
    scenario.setdefault("flow", []).append(flow)
    return flow
