"""Reference OBS topologies: NSFNET, COST 239, Pan-European, USNET and ARPANET.

Read first: :func:`nsfnet`. Each function returns a scenario dict built by
:func:`burstlab.topologies.network.build_scenario` (its keyword arguments: hosts per
node, access links, wavelengths, rates, fibre delay per km, the ``[obs]`` table, run
length and seed); :func:`reference_graph` returns the bare graph (core nodes, ``km`` per
fibre). The data are small tables in ``burstlab/topologies/data/`` (see its README),
each headed by its source and licence.

=============  =====  =====  ===============================  =========================
topology       nodes  links  fibre km: min–max, total          source
=============  =====  =====  ===============================  =========================
nsfnet          14     21    312–3 408, 27 280                CAROBS (Kozák)
cost239         11     26    210–1 310, 14 954                COST 239 via XLRON
pan_european    28     41    218–1 500, 25 640                COST 266 core via CAROBS
usnet           24     43    great-circle 224–1 989, 32 895   XLRON's USNET
arpanet         29     32    great-circle 0–1 932, 16 094     Topology Zoo Arpanet19728
=============  =====  =====  ===============================  =========================
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from importlib import resources
from typing import TYPE_CHECKING, Any

from .network import TopologyError, build_scenario, haversine_km

if TYPE_CHECKING:
    import networkx as nx

__all__ = [
    "REFERENCE_TOPOLOGIES",
    "arpanet",
    "cost239",
    "nsfnet",
    "pan_european",
    "reference_graph",
    "topology",
    "usnet",
]


def _rows(filename: str) -> list[dict[str, str]]:
    text = resources.files("burstlab.topologies").joinpath("data", filename).read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    return list(csv.DictReader(lines))


def _coords(filename: str) -> dict[str, tuple[float, float]]:
    return {r["name"]: (float(r["lat"]), float(r["lon"])) for r in _rows(filename)}


def _table_graph(links: str, nodes: str | None = None) -> nx.Graph:
    """A graph from a ``a,b,km`` table; an empty ``km`` is the great-circle distance
    between the two nodes' coordinates in ``nodes``."""
    import networkx as nx

    pos = _coords(nodes) if nodes else {}
    g = nx.Graph()
    g.add_nodes_from(pos)  # the node order of the coordinates table, if any
    for r in _rows(links):
        a, b = r["a"], r["b"]
        if r["km"].strip():
            km = float(r["km"])
        else:
            (la, lo), (lb, lob) = pos[a], pos[b]
            km = round(haversine_km(la, lo, lb, lob), 1)
        g.add_edge(a, b, km=km)
    for n, (lat, lon) in pos.items():
        g.nodes[n]["lat"], g.nodes[n]["lon"] = lat, lon
    return g


def _arpanet_graph() -> nx.Graph:
    from .imported import read_graph

    path = resources.files("burstlab.topologies").joinpath("data", "Arpanet19728.gml")
    with resources.as_file(path) as p:
        return read_graph(p)


_GRAPHS: dict[str, Callable[[], nx.Graph]] = {
    "nsfnet": lambda: _table_graph("nsfnet.csv"),
    "cost239": lambda: _table_graph("cost239.csv", "cost239_nodes.csv"),
    "pan_european": lambda: _table_graph("pan_european.csv"),
    "usnet": lambda: _table_graph("usnet.csv", "usnet_nodes.csv"),
    "arpanet": _arpanet_graph,
}

#: The reference topologies by name.
REFERENCE_TOPOLOGIES = tuple(_GRAPHS)


def reference_graph(name: str) -> nx.Graph:
    """The core graph of a reference topology (edge attribute ``km``; nodes of USNET,
    COST 239 and ARPANET carry ``lat``/``lon``).

    >>> g = reference_graph("cost239")
    >>> g.number_of_nodes(), g.number_of_edges()
    (11, 26)
    """
    try:
        return _GRAPHS[name]()
    except KeyError:
        raise TopologyError(
            f"topology: unknown name {name!r}; known: {', '.join(REFERENCE_TOPOLOGIES)}"
        ) from None


def topology(name: str, **kwargs: Any) -> dict[str, Any]:
    """The scenario of reference topology ``name`` (see :data:`REFERENCE_TOPOLOGIES`)
    with the keyword arguments of :func:`~burstlab.topologies.network.build_scenario`.

    >>> s = topology("nsfnet", hosts=2)
    >>> s["name"], len(s["node"])        # 14 core, 14 edge and 28 host nodes
    ('nsfnet', 56)
    """
    g = reference_graph(name)
    return build_scenario(g, name=kwargs.pop("name", name), **kwargs)


def nsfnet(**kwargs: Any) -> dict[str, Any]:
    """NSFNET (the T1 backbone): 14 nodes, 21 links, 312–3 408 km per fibre (27 280 km
    in all).

    Source: the topology and lengths shipped with CAROBS, the OBS simulator of M. Kozák
    (Czech Technical University; github.com/lejmr/carobs, ``references/nsf``), which
    also gives the 14 × 14 traffic matrix of :func:`burstlab.topologies.nsfnet_matrix`.
    Variant: the 21-link graph. Other sources list 22 links (XLRON's
    ``nsfnet_deeprmsa``, after DeepRMSA, adds Nebraska–Georgia and halves the lengths)
    or 23; burstlab keeps CAROBS's 21 because its traffic matrix goes with them. Core
    nodes are named as CAROBS names them (US states; CA1, CA2 the two Californian
    nodes). Keyword arguments: :func:`~burstlab.topologies.network.build_scenario`.

    >>> g = core_graph(nsfnet())
    >>> g.number_of_nodes(), g.number_of_edges()
    (14, 21)
    """
    return topology("nsfnet", **kwargs)


def cost239(**kwargs: Any) -> dict[str, Any]:
    """COST 239 (the European Optical Network of the COST 239 project, Batchelor et
    al., Photonic Network Communications 2(1), 2000): 11 nodes, 26 links, 210–1 310 km
    (14 954 km in all).

    Lengths: the "published" COST239 table distributed with XLRON
    (``cost239_ptrnet_published``); its nodes carry numbers only, and burstlab names
    them by matching each length to the great-circle distance of the two cities (every
    length is 1.05–1.6 × that distance; the tests check it). XLRON's "real" variant
    swaps two pairs of lengths at Luxembourg and Brussels that then contradict the map.

    >>> g = core_graph(cost239())
    >>> g.number_of_nodes(), g.number_of_edges()
    (11, 26)
    """
    return topology("cost239", **kwargs)


def pan_european(**kwargs: Any) -> dict[str, Any]:
    """The Pan-European reference network: 28 nodes, 41 links, 218–1 500 km (25 640 km
    in all).

    Source: CAROBS (github.com/lejmr/carobs, ``references/paneurope``); the same 28
    cities and 41 links form the core Pan-European topology of COST 266 (De Maesschalck
    et al., Photonic Network Communications 5(3), 2003).

    >>> g = core_graph(pan_european())
    >>> g.number_of_nodes(), g.number_of_edges()
    (28, 41)
    """
    return topology("pan_european", **kwargs)


def usnet(**kwargs: Any) -> dict[str, Any]:
    """USNET: 24 nodes, 43 links; lengths are great-circle (haversine) km between the
    cities (224–1 989 km, 32 895 km in all).

    Adjacency and coordinates: XLRON's ``usnet_gcnrnn`` (github.com/micdoh/XLRON). Its
    per-link "distance" values are not kilometres (Seattle–Fargo is given 364), so
    burstlab uses the cities' great-circle distances instead: a lower bound on the
    fibre (a real route is longer, typically by 20–60 %).

    >>> g = core_graph(usnet())
    >>> g.number_of_nodes(), g.number_of_edges()
    (24, 43)
    """
    return topology("usnet", **kwargs)


def arpanet(**kwargs: Any) -> dict[str, Any]:
    """ARPANET of August 1972 from the Internet Topology Zoo (``Arpanet19728.gml``,
    Knight et al., IEEE JSAC 29(9), 2011; CC BY-SA 3.0): 29 nodes, 32 links,
    great-circle lengths from the sites' coordinates (0–1 932 km; co-located sites such
    as RAND and SDC are 0 km apart).

    Read through :func:`burstlab.topologies.from_graph`'s reader; nodes are named by
    their label, a label held by two nodes gets the node id appended (``AMES_9``,
    ``AMES_14``). The 20-node, 32-link "ARPA-2" of the routing literature is another
    network; this is the historic one.

    >>> g = core_graph(arpanet())
    >>> g.number_of_nodes(), g.number_of_edges()
    (29, 32)
    """
    return topology("arpanet", **kwargs)

