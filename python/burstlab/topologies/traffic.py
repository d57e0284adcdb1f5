"""Traffic matrices: origin–destination weights scaled to a target load, as per-pair rates.

Read first: :func:`traffic_matrix`, then :func:`scale_total` / :func:`scale_link_load`
and :func:`add_poisson_traffic`.

A traffic matrix here is a ``dict`` mapping an ordered pair of core nodes ``(a, b)``,
``a != b``, to a non-negative rate (per second, in whatever unit the caller works in:
bursts/s, bit/s, flow arrivals/s). :func:`traffic_matrix` reads one from a CSV file, an
array or a mapping and checks it against the topology's nodes; the diagonal (traffic
that stays in a node) is ignored. Scaling keeps the proportions:

- :func:`scale_total` makes the rates sum to a target;
- :func:`scale_link_load` makes the busiest fibre carry a target load, given each
  pair's route (the routes of :func:`burstlab.topologies.network.shortest_route`).

The result is what a flow generator takes: :func:`add_poisson_traffic` adds one Poisson
UDP source (``[[flow]] type = "poisson"``, exponential packet sizes; with one packet
per burst, Poisson bursts) per pair on its route, and a later ``[[workload]]`` can take
the same per-pair rates as its arrival rates.
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from burstlab.units import parse_size

from .network import TopologyError, add_flow, core_graph, core_nodes, shortest_route

if TYPE_CHECKING:
    import networkx as nx

__all__ = [
    "Pair",
    "add_poisson_traffic",
    "link_loads",
    "nsfnet_matrix",
    "pair_routes",
    "scale_link_load",
    "scale_total",
    "traffic_matrix",
]

Pair = tuple[str, str]
MatrixLike = str | os.PathLike[str] | Sequence[Sequence[float]] | np.ndarray | Mapping[Pair, float]


def _number(field: str, v: object) -> float:
    try:
        f = float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise TopologyError(f"{field}: not a number: {v!r}") from None
    if not math.isfinite(f) or f < 0:
        raise TopologyError(f"{field}: must be a finite non-negative rate, got {v!r}")
    return f


def _read_csv(path: Path) -> tuple[list[str] | None, list[list[str]]]:
    if not path.is_file():
        raise TopologyError(f"matrix: no such file: {path}")
    with path.open(newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.reader(ln for ln in fh if not ln.lstrip().startswith("#"))]
    rows = [[c.strip() for c in r] for r in rows if any(c.strip() for c in r)]
    for r in rows:  # a trailing comma leaves an empty last cell
        while r and r[-1] == "":
            r.pop()
    if not rows:
        raise TopologyError(f"matrix: {path.name} is empty")
    try:
        [float(c) for c in rows[0]]
        return None, rows
    except ValueError:
        return rows[0], rows[1:]


def traffic_matrix(matrix: MatrixLike, nodes: Sequence[str] | Mapping[str, Any]) -> dict[Pair, float]:
    """Read an origin–destination matrix over ``nodes`` (the core node names in order,
    or a scenario whose core nodes are taken).

    ``matrix`` is a CSV file (rows of numbers, ``#`` comment lines; an optional header
    row of node names fixes the order of rows and columns, else it is ``nodes``'s), a
    square array, or a mapping ``{(a, b): rate}``. Its size must match the nodes.
    Negative, NaN or infinite entries are errors naming the cell."""
    names = core_nodes(nodes) if isinstance(nodes, Mapping) else [str(n) for n in nodes]
    if len(names) < 2:
        raise TopologyError(f"nodes: a traffic matrix needs at least 2 nodes, got {len(names)}")
    known = set(names)
    out: dict[Pair, float] = {}
    if isinstance(matrix, Mapping):
        for key, v in matrix.items():
            if not (isinstance(key, tuple) and len(key) == 2):
                raise TopologyError(f"matrix: keys must be (src, dst) pairs, got {key!r}")
            a, b = map(str, key)
            for n in (a, b):
                if n not in known:
                    raise TopologyError(f"matrix[{a!r}, {b!r}]: unknown node {n!r}")
            if a != b:
                out[(a, b)] = _number(f"matrix[{a!r}, {b!r}]", v)
        return out
    order = names
    if isinstance(matrix, str | os.PathLike):
        header, rows = _read_csv(Path(matrix))
        if header is not None:
            if sorted(header) != sorted(names):
                missing = sorted(known - set(header)) or sorted(set(header) - known)
                raise TopologyError(
                    f"matrix: the header's nodes differ from the topology's ({len(header)} vs "
                    f"{len(names)} nodes; first difference {missing[0]!r})"
                )
            order = header
        cells: Sequence[Sequence[Any]] = rows
    else:
        cells = np.asarray(matrix, dtype=object).tolist()
    size = len(order)
    if len(cells) != size or any(len(r) != size for r in cells):
        shape = f"{len(cells)} rows of " + "/".join(sorted({str(len(r)) for r in cells}) or ["0"])
        raise TopologyError(f"matrix: must be {size} × {size} for the {size} nodes, got {shape} columns")
    for i, a in enumerate(order):
        for j, b in enumerate(order):
            if i != j:
                out[(a, b)] = _number(f"matrix[{i}][{j}] ({a}→{b})", cells[i][j])
    return out


def nsfnet_matrix() -> dict[Pair, float]:
    """CAROBS's NSFNET traffic matrix (relative weights; ``data/nsfnet_tm.csv``) over
    :func:`burstlab.topologies.nsfnet`'s nodes."""
    from .reference import reference_graph

    path = resources.files("burstlab.topologies").joinpath("data", "nsfnet_tm.csv")
    with resources.as_file(path) as p:
        return traffic_matrix(p, list(reference_graph("nsfnet").nodes))


def _check_target(field: str, target: object) -> float:
    t = _number(field, target)
    if t <= 0:
        raise TopologyError(f"{field}: must be positive, got {target!r}")
    return t


def scale_total(tm: Mapping[Pair, float], total: float) -> dict[Pair, float]:
    """``tm`` scaled so that its rates sum to ``total``."""
    t = _check_target("total", total)
    s = sum(tm.values())
    if s <= 0:
        raise TopologyError("matrix: all entries are zero; nothing to scale")
    return {k: v * t / s for k, v in tm.items()}


def pair_routes(scenario_or_graph: Mapping[str, Any] | nx.Graph, pairs: Sequence[Pair],
                weight: str = "km") -> dict[Pair, list[str]]:
    """Each pair's core route (:func:`~burstlab.topologies.network.shortest_route`)."""
    g = core_graph(scenario_or_graph) if isinstance(scenario_or_graph, Mapping) else scenario_or_graph
    return {p: shortest_route(g, p[0], p[1], weight) for p in pairs}


def link_loads(tm: Mapping[Pair, float], routes: Mapping[Pair, Sequence[str]]) -> dict[Pair, float]:
    """The rate offered to each directed core fibre ``(a, b)``: the sum of the rates of
    the pairs routed over it (no thinning by loss upstream)."""
    load: dict[Pair, float] = {}
    for p, r in tm.items():
        if r == 0:
            continue
        if p not in routes:
            raise TopologyError(f"routes: no route for the pair {p[0]}→{p[1]}")
        path = routes[p]
        for a, b in zip(path, path[1:], strict=False):
            load[(a, b)] = load.get((a, b), 0.0) + r
    return load


def scale_link_load(tm: Mapping[Pair, float], routes: Mapping[Pair, Sequence[str]],
                    target: float) -> dict[Pair, float]:
    """``tm`` scaled so that the busiest directed fibre is offered ``target`` (in the
    rates' unit, e.g. Erlang when the rates are arrivals × mean holding time)."""
    t = _check_target("target", target)
    peak = max(link_loads(tm, routes).values(), default=0.0)
    if peak <= 0:
        raise TopologyError("matrix: all entries are zero; nothing to scale")
    return {k: v * t / peak for k, v in tm.items()}


def add_poisson_traffic(
    scenario: dict[str, Any],
    rates: Mapping[Pair, float],
    *,
    packet_size: str | float = "12500B",
    weight: str = "km",
    host: int = 1,
    **keys: Any,
) -> list[dict[str, Any]]:
    """Add one Poisson UDP source per pair with a positive rate: ``rates[(a, b)]`` packets
    per second of exponentially distributed size (mean ``packet_size``), from host
    ``host`` of ``a`` to that of ``b``, on the shortest route by ``weight``. Other
    keyword arguments are flow keys (``start``, ``stop``, ``class``). With
    ``obs.assembly = {type = "length", max_pkts = 1}`` every packet is one burst: a
    Poisson burst process per pair. Returns the flows added, named ``a>b``."""
    size = parse_size(packet_size)
    if size <= 0:
        raise TopologyError(f"packet_size: must be positive, got {packet_size!r}")
    g = core_graph(scenario)
    added = []
    for (a, b), r in rates.items():
        r = _number(f"rates[{a!r}, {b!r}]", r)
        if r == 0:
            continue
        bps = r * size * 8
        added.append(add_flow(scenario, a, b, weight=weight, src_host=host, dst_host=host, graph=g,
                              type="poisson", name=f"{a}>{b}", rate=bps,
                              packet_size=int(round(size)), **keys))
    return added
