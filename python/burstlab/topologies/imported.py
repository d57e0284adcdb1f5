"""Published graphs (GML, GraphML: the Internet Topology Zoo's formats) as scenarios.

Read first: :func:`from_graph`. The file is read with networkx; each node becomes a core
node, each edge a duplex fibre whose length is, by ``km``:

- ``"haversine"`` (default): the great-circle distance between the two nodes'
  ``Latitude``/``Longitude`` (the Zoo's attribute names; ``lat``/``lon`` and
  ``latitude``/``longitude`` are accepted too);
- the name of an edge attribute holding km (``km="LinkLength"``);
- a number: every fibre that long (no coordinates needed).

Nodes are named by their ``label`` (cleaned of spaces and punctuation); a label held by
more than one node gets the node's id appended (``AMES_9``). A directed file is read as
undirected (a fibre is duplex). Self-loops, duplicate edges (unless
``parallel="merge"``), a disconnected graph and a node without coordinates when
lengths need them are errors naming the node or edge. Of the Topology Zoo's 522 files
(its networks in GML and GraphML, in TL-System's copy on GitHub) 118 build
as they are and 148 with ``parallel="merge"``; with ``parallel="merge"`` and a fixed
``km`` 484 build, 36 are disconnected and 2 have a self-loop (most Zoo files have some
node without coordinates).

A scenario file names a graph with ``[network] file = "…"`` and these keywords
(:mod:`.network_table`, which calls :func:`from_graph`).
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .network import TopologyError, build_scenario, clean_name, haversine_km, validate_graph

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["from_graph", "read_graph"]

_LAT = ("Latitude", "latitude", "lat")
_LON = ("Longitude", "longitude", "lon")


def _load(path: Path) -> nx.Graph:
    import networkx as nx

    suffix = path.suffix.lower()
    try:
        if suffix == ".gml":
            # Key nodes by their GML id (labels may repeat); the label stays an attribute.
            try:
                return nx.read_gml(path, label="id")
            except nx.NetworkXError as e:
                if "duplicated" not in str(e):
                    raise
                # A graph not declared a multigraph lists an edge twice: read it as one,
                # so that read_graph names the edge by its labels (or merges it).
                text = path.read_text(encoding="utf-8")
                text = re.sub(r"\bgraph\s*\[", "graph [\n  multigraph 1", text, count=1)
                return nx.parse_gml(text, label="id")
        if suffix in (".graphml", ".xml"):
            return nx.read_graphml(path)
    except nx.NetworkXError as e:
        raise TopologyError(f"{path.name}: cannot read the graph: {e}") from None
    except Exception as e:  # a parser error (malformed GML or XML)
        raise TopologyError(f"{path.name}: cannot read the graph: {e}") from None
    raise TopologyError(f"path: {path.name}: unknown graph format {suffix!r} (use .gml or .graphml)")


def _coord(attrs: dict[str, Any], keys: tuple[str, ...]) -> float | None:
    for k in keys:
        v = attrs.get(k)
        if v is not None:
            try:
                f = float(v)
            except (TypeError, ValueError):
                return None
            return f if math.isfinite(f) else None
    return None


def read_graph(path: str | os.PathLike[str], *, km: str | float = "haversine",
               parallel: str = "error") -> nx.Graph:
    """The core graph of a GML or GraphML file: nodes named as the module docs say, edge
    attribute ``km``, node attributes ``lat``/``lon`` where the file gives them.

    ``parallel``: what to do with several edges between the same two nodes (the Zoo
    lists parallel circuits between PoPs): ``"error"`` (default) or ``"merge"`` (one
    fibre, the first edge's attributes).

    >>> g = read_graph("examples/germany5.gml")
    >>> sorted(g.nodes), g.number_of_edges()
    (['Berlin', 'Cologne', 'Frankfurt', 'Hamburg', 'Munich'], 6)
    """
    import networkx as nx

    if parallel not in ("error", "merge"):
        raise TopologyError(f"parallel: must be 'error' or 'merge', got {parallel!r}")
    p = Path(path)
    if not p.is_file():
        raise TopologyError(f"path: no such graph file: {p}")
    raw = _load(p)

    def label(n: Any) -> str:
        return str(raw.nodes[n].get("label") or n)

    for a, _b in nx.selfloop_edges(raw):
        raise TopologyError(f"{p.name}: self-loop at node {label(a)!r} (id {a})")
    if raw.is_multigraph():
        for a, b in raw.edges():
            n = raw.number_of_edges(a, b)
            if n > 1 and parallel == "error":
                raise TopologyError(
                    f"{p.name}: duplicate edge {label(a)}–{label(b)} (nodes {a} and {b}: {n} edges); "
                    "keep one fibre per node pair, or read with parallel='merge'"
                )
        raw = nx.DiGraph(raw) if raw.is_directed() else nx.Graph(raw)  # first edge's data kept
    if raw.is_directed():
        raw = raw.to_undirected()
    # Names: the label, cleaned; a repeated name gets the node id appended.
    base = {n: clean_name(d.get("label") or n) for n, d in raw.nodes(data=True)}
    count = Counter(base.values())
    name = {n: (f"{b}_{clean_name(n)}" if count[b] > 1 else b) for n, b in base.items()}
    if len(set(name.values())) != len(name):
        dup = next(v for v, c in Counter(name.values()).items() if c > 1)
        raise TopologyError(f"{p.name}: two nodes are both named {dup!r} after cleaning")
    g = nx.Graph()
    for n, d in raw.nodes(data=True):
        lat, lon = _coord(d, _LAT), _coord(d, _LON)
        attrs = {} if lat is None or lon is None else {"lat": lat, "lon": lon}
        g.add_node(name[n], **attrs)
    for a, b, d in raw.edges(data=True):
        na, nb = name[a], name[b]
        if isinstance(km, bool):
            raise TopologyError(f"km: must be 'haversine', an edge attribute name or a number, got {km!r}")
        if isinstance(km, int | float):
            length = float(km)
        elif km == "haversine":
            for n in (na, nb):
                if "lat" not in g.nodes[n]:
                    raise TopologyError(
                        f"{p.name}: node {n!r} has no Latitude/Longitude, needed for the length of "
                        f"edge {na}–{nb} (give km= an edge attribute or a fixed length)"
                    )
            length = round(haversine_km(g.nodes[na]["lat"], g.nodes[na]["lon"],
                                        g.nodes[nb]["lat"], g.nodes[nb]["lon"]), 1)
        else:
            v = d.get(km)
            try:
                length = float(v)  # type: ignore[arg-type]
            except (TypeError, ValueError):
                raise TopologyError(f"{p.name}: edge {na}–{nb} has no numeric attribute {km!r}") from None
        g.add_edge(na, nb, km=length)
    validate_graph(g, what=p.name)
    return g


def from_graph(path: str | os.PathLike[str], *, km: str | float = "haversine", parallel: str = "error",
               **kwargs: Any) -> dict[str, Any]:
    """The scenario of the graph in ``path`` (GML or GraphML), built like the reference
    topologies (keyword arguments of
    :func:`~burstlab.topologies.network.build_scenario`; ``name`` defaults to the file's
    stem). ``km`` chooses the fibre lengths (see the module docs), ``parallel`` what
    to do with duplicate edges (:func:`read_graph`).

    >>> s = from_graph("examples/germany5.gml")
    >>> s["name"], len(s["node"])       # 5 core nodes, each with an edge and a host
    ('germany5', 15)
    """
    g = read_graph(path, km=km, parallel=parallel)
    kwargs.setdefault("name", Path(path).stem)
    return build_scenario(g, **kwargs)
