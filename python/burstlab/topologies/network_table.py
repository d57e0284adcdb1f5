"""A scenario file that names a graph: the ``[network]`` table (docs/guide/networks.md,
"A graph in a scenario file").

Read first: :func:`expand_network`. A scenario may give its topology as a GML or
GraphML file instead of listing nodes, links and fibres::

    [network]
    file = "nsfnet.gml"        # relative to the scenario file's folder
    wavelengths = 16           # any keyword of from_graph (below)

The table is replaced by the scenario :func:`~burstlab.topologies.from_graph` builds
from the file with those keywords (its cores, one edge node per core, hosts, fibres
and access links), before the core sees the scenario: where scenario files and dicts
enter the package (``burstlab.api``), so ``burstlab run``, ``sweep``, ``validate``,
``export`` and :func:`burstlab.run` all take it. The rest of the scenario stays: its
``name`` (default: the file's stem), ``[sim]`` (over the built one's defaults,
``duration = "1s"``, ``seed = 1``), ``[obs]``, ``[routing]``, flows and workloads;
``[[node]]``, ``[[link]]`` and ``[[fibre]]`` tables it lists too are added after the
graph's (more hosts, say).

Errors name the field: ``network.file`` for a file that is missing, unreadable, not a
graph, disconnected, with a self-loop, duplicate edges or a node without coordinates
(from_graph's messages), ``network.<key>`` for a bad or unknown keyword.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from burstlab import _core
from burstlab.units import parse_rate, parse_time

from .imported import from_graph
from .network import TopologyError

__all__ = ["NETWORK_KEYS", "expand_network"]

#: The keys of ``[network]`` besides ``file``: :func:`from_graph`'s (``km``,
#: ``parallel``) and :func:`~burstlab.topologies.build_scenario`'s (the edge and host
#: policy, rates, wavelengths, delay per km). ``name``, ``obs``, ``duration`` and
#: ``seed`` are the scenario's own ``name``, ``[obs]`` and ``[sim]``.
NETWORK_KEYS = frozenset({
    "km", "parallel", "hosts", "edges", "access", "access_delay", "core_rate",
    "wavelengths", "edge_wavelengths", "edge_km", "delay_per_km",
})

#: The most hosts per edge node a scenario file may ask for: each is a node and a link
#: built here, so a mistyped ``hosts = 1e9`` is refused instead of filling memory.
MAX_HOSTS = 10_000

#: The scenario's list tables and the spellings the core accepts for each.
_LISTS = (("node", ("node", "nodes")), ("link", ("link", "links")),
          ("fibre", ("fibre", "fibres", "fiber", "fibers")))


def _error(field: str, reason: str) -> _core.ScenarioError:
    return _core.ScenarioError(f"{field}: {reason}")


def _field_of(msg: str) -> str:
    """The ``network.*`` field a from_graph / build_scenario message is about: the
    keyword it starts with, else the file."""
    head, sep, rest = msg.partition(":")
    if sep and head in NETWORK_KEYS:
        return f"network.{head}:{rest}"
    if sep and head == "path":
        return f"network.file:{rest}"
    return f"network.file: {msg}"


def expand_network(spec: Mapping[str, Any], base: str | os.PathLike[str] | None = None
                   ) -> dict[str, Any]:
    """``spec`` with its ``network`` table replaced by the scenario of the graph it
    names (``spec`` itself, as a dict, when it has none). A relative ``network.file``
    is taken from ``base`` (the scenario file's folder; default: the working
    directory).

    Raises:
        ScenarioError: naming ``network.file`` or the ``network`` key at fault.
    """
    if "network" not in spec:
        return dict(spec)
    net = spec["network"]
    if not isinstance(net, Mapping):
        raise _error("network", f"must be a table with a graph file (network.file), got "
                     f"{type(net).__name__}")
    if "file" not in net:
        raise _error("network.file", "missing: name the GML or GraphML file of the graph")
    file = net["file"]
    if not isinstance(file, str | os.PathLike) or not os.fspath(file):
        raise _error("network.file", f"must be a file path, got {file!r}")
    unknown = sorted(set(net) - NETWORK_KEYS - {"file"})
    if unknown:
        raise _error(f"network.{unknown[0]}", "unknown key; [network] takes file and "
                     + ", ".join(sorted(NETWORK_KEYS)))
    path = Path(os.fspath(file)).expanduser()
    if not path.is_absolute():
        path = Path(base if base is not None else ".") / path
    kwargs = {k: net[k] for k in NETWORK_KEYS if k in net}
    edges = kwargs.get("edges")
    if edges is not None and (not isinstance(edges, list | tuple)
                              or not all(isinstance(e, str) for e in edges)):
        raise _error("network.edges", f"must be a list of core node names, got {edges!r}")
    # Values that go only into the built links and fibres: checked here, so that an
    # error names the key the file wrote, not link[0].rate.
    for key, parse in (("access", parse_rate), ("core_rate", parse_rate),
                       ("access_delay", parse_time), ("delay_per_km", parse_time)):
        if key in kwargs:
            try:
                parse(kwargs[key])
            except (TypeError, ValueError) as e:
                raise _error(f"network.{key}", str(e)) from None
    hosts = kwargs.get("hosts", 1)
    if isinstance(hosts, int) and not isinstance(hosts, bool) and hosts > MAX_HOSTS:
        raise _error("network.hosts", f"at most {MAX_HOSTS} hosts per edge node, got {hosts}")
    name = spec.get("name", path.stem)
    try:
        built = from_graph(path, name=name, **kwargs)
    except TopologyError as e:
        raise _core.ScenarioError(_field_of(str(e))) from None
    except TypeError as e:  # a value of the wrong type deep in build_scenario
        raise _error("network", str(e)) from None
    out: dict[str, Any] = {k: v for k, v in spec.items() if k != "network"}
    out["name"] = built["name"]
    sim = spec.get("sim")
    if sim is None:
        out["sim"] = built["sim"]
    elif isinstance(sim, Mapping):
        out["sim"] = {**built["sim"], **sim}
    # otherwise not a table: left for the core, which names it
    for canon, spellings in _LISTS:
        rows = list(built[canon])
        for key in spellings:
            if key in out:
                more = out.pop(key)
                if not isinstance(more, list | tuple):
                    raise _error(key, "must be a list of tables (added to the graph's)")
                rows += list(more)
        out[canon] = rows
    if "obs" not in out:
        out["obs"] = built["obs"]
    return out
