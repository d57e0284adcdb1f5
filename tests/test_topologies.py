"""Reference topologies, imported graphs, routes and traffic matrices (burstlab.topologies)."""

from __future__ import annotations

import math
import random
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import burstlab
from burstlab import topologies as T
from burstlab.topologies.network import haversine_km

DATA = Path(T.__file__).parent / "data"

# name → (nodes, links, total km): the figures the docstrings and docs/guide/networks.md state.
EXPECTED = {
    "nsfnet": (14, 21, 27280.0),
    "cost239": (11, 26, 14954.0),
    "pan_european": (28, 41, 25640.0),
    "usnet": (24, 43, 32895.1),
    "arpanet": (29, 32, 16093.9),
}


def test_old_names_still_import() -> None:
    from burstlab.topologies import obs_chain, ozsarac_linear, yu_path  # noqa: F401

    assert burstlab.topologies.yu_path(0.001, 0.0)["name"] == "yu-path"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_reference_counts_and_lengths(name: str) -> None:
    g = T.reference_graph(name)
    nodes, links, total = EXPECTED[name]
    assert (g.number_of_nodes(), g.number_of_edges()) == (nodes, links)
    assert sum(d["km"] for *_, d in g.edges(data=True)) == pytest.approx(total, abs=0.05)
    assert nx.is_connected(g)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_reference_scenario_runs(name: str) -> None:
    """Every topology's scenario runs: one short TCP transfer across its two farthest
    nodes (by km) on the km-shortest route, delivered with the route it was given."""
    sc = getattr(T, name)(duration="1s", hosts=2)
    g = T.core_graph(sc)
    dist = dict(nx.all_pairs_dijkstra_path_length(g, weight="km"))
    a, b = max(((x, y) for x in dist for y in dist[x]), key=lambda p: (dist[p[0]][p[1]], p))
    flow = T.add_flow(sc, a, b, type="tcp", variant="sack", segments=50, name="far", src_host=2)
    assert flow["route"][0] == T.host_of(a, 2) and flow["route"][-1] == T.host_of(b, 1)
    res = burstlab.run(sc)
    row = res.flows.iloc[0]
    assert row["segments_delivered"] == 50
    # The hosts and edge nodes of the policy: one edge node per core node, 2 hosts each.
    kinds = [n["kind"] for n in sc["node"]]
    assert kinds.count("edge") == kinds.count("core") == g.number_of_nodes()
    assert kinds.count("host") == 2 * g.number_of_nodes()


def test_fibre_delay_follows_length() -> None:
    sc = T.nsfnet()
    wa_il = next(f for f in sc["fibre"] if {f["a"], f["b"]} == {"WA", "IL"})
    assert wa_il["length_km"] == 3408.0 and "delay" not in wa_il
    sc = T.nsfnet(delay_per_km="4.9us", wavelengths=4, core_rate="40Gb/s")
    wa_il = next(f for f in sc["fibre"] if {f["a"], f["b"]} == {"WA", "IL"})
    assert wa_il["delay"] == f"{round(3408 * 4.9e-6 * 1e9)}ns" and wa_il["wavelengths"] == 4
    assert T.core_graph(sc)["WA"]["IL"]["delay"] == pytest.approx(3408 * 4.9e-6)


def test_one_way_delay_of_a_route_is_its_km() -> None:
    """A single segment's one-way trip equals the route's km × 5 µs plus the access links
    and transmissions: the RTT the run measures matches the lengths."""
    sc = T.nsfnet(duration="2s", access="100Gb/s", access_delay="0s", core_rate="100Gb/s",
                  obs={"assembly": {"type": "length", "max_pkts": 1}, "ack_mode": "bypass"})
    T.add_flow(sc, "WA", "NY", type="tcp", segments=1, name="one")
    km = sum(T.core_graph(sc)[a][b]["km"] for a, b in zip(sc["flow"][0]["route"][2:-2],
                                                          sc["flow"][0]["route"][3:-2], strict=False))
    res = burstlab.run(sc)
    assert res.flows.iloc[0]["mean_rtt_s"] == pytest.approx(2 * km * 5e-6, rel=0.01)


def test_cost239_lengths_agree_with_geography() -> None:
    """Each COST 239 length lies between 1.05 and 1.6 × the great-circle distance of the
    two cities it is assigned to (a fibre cannot be shorter than the geodesic; a wrong
    assignment gives ratios below 1 or far above 2)."""
    g = T.reference_graph("cost239")
    for a, b, d in g.edges(data=True):
        gc = haversine_km(g.nodes[a]["lat"], g.nodes[a]["lon"], g.nodes[b]["lat"], g.nodes[b]["lon"])
        assert 1.05 <= d["km"] / gc <= 1.6, (a, b, d["km"], gc)


def test_haversine_known_distance() -> None:
    # London–Paris: 343.5 km on the mean sphere (the published great-circle figure).
    assert haversine_km(51.5, -0.12, 48.85, 2.35) == pytest.approx(343.5, abs=1.0)
    assert haversine_km(10, 20, 10, 20) == 0.0


def test_unknown_topology_name() -> None:
    with pytest.raises(T.TopologyError, match="unknown name 'nsfnet2'.*nsfnet"):
        T.topology("nsfnet2")
    assert issubclass(T.TopologyError, ValueError)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"hosts": 0}, "hosts"), ({"wavelengths": 0}, "wavelengths"), ({"edges": ["XX"]}, "edges"),
     ({"edge_km": -1.0}, "edge_km"), ({"edge_wavelengths": 0}, "edge_wavelengths"),
     ({"delay_per_km": "-1us"}, "delay_per_km")],
)
def test_bad_policy_arguments_name_the_field(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(T.TopologyError, match=f"^{field}:"):
        T.nsfnet(**kwargs)


# ---------------------------------------------------------------------------------------
# Imported graphs.


def test_from_graph_gml_zoo() -> None:
    sc = T.from_graph(DATA / "Arpanet19728.gml", duration="0.1s")
    assert sc["name"] == "Arpanet19728"
    names = T.core_graph(sc).nodes
    assert {"AMES_9", "AMES_14", "BBN_6", "BBN_19", "UCLA"} <= set(names)
    ucla_sri = T.reference_graph("arpanet")
    assert ucla_sri["UCSB"]["UCLA"]["km"] == pytest.approx(
        haversine_km(34.42083, -119.69819, 34.05223, -118.24368), abs=0.05)


def test_from_graph_graphml_runs() -> None:
    sc = T.from_graph(DATA / "Arpanet19706.graphml", duration="1s", wavelengths=2)
    g = T.core_graph(sc)
    assert (g.number_of_nodes(), g.number_of_edges()) == (9, 10)
    T.add_flow(sc, "HARVARD", "SRI", type="tcp", segments=20, name="h")
    assert burstlab.run(sc).flows.iloc[0]["segments_delivered"] == 20


def _write_gml(path: Path, nodes: list[tuple[int, str, float | None]], edges: list[tuple[int, int]],
               multigraph: bool = False) -> Path:
    lines = ["graph [", "  multigraph 1" if multigraph else ""]
    for i, label, lat in nodes:
        lines += ["  node [", f"    id {i}", f'    label "{label}"']
        if lat is not None:
            lines += [f"    Latitude {lat}", f"    Longitude {-70 - i}"]
        lines += ["  ]"]
    for a, b in edges:
        lines += ["  edge [", f"    source {a}", f"    target {b}", "  ]"]
    lines.append("]")
    path.write_text("\n".join(lines))
    return path


def test_from_graph_errors_name_the_node_or_edge(tmp_path: Path) -> None:
    ok = [(0, "A", 40.0), (1, "B", 41.0), (2, "C", 42.0)]
    p = _write_gml(tmp_path / "nocoord.gml", [(0, "A", 40.0), (1, "B", None), (2, "C", 42.0)], [(0, 1), (1, 2)])
    with pytest.raises(T.TopologyError, match="node 'B' has no Latitude/Longitude.*edge A–B"):
        T.from_graph(p)
    assert T.from_graph(p, km=100.0)["fibre"][0]["length_km"] == 100.0  # no coordinates needed
    p = _write_gml(tmp_path / "split.gml", [*ok, (3, "D", 43.0)], [(0, 1), (1, 2)])
    with pytest.raises(T.TopologyError, match="disconnected — node 'D'"):
        T.from_graph(p)
    p = _write_gml(tmp_path / "loop.gml", ok, [(0, 1), (1, 2), (2, 2)])
    with pytest.raises(T.TopologyError, match="self-loop at node 'C'"):
        T.from_graph(p)
    p = _write_gml(tmp_path / "dup.gml", ok, [(0, 1), (1, 2), (0, 1)], multigraph=True)
    with pytest.raises(T.TopologyError, match="duplicate edge A–B.*parallel='merge'"):
        T.from_graph(p)
    assert len(T.from_graph(p, parallel="merge")["fibre"]) == 2 + 3  # A–B once, B–C, 3 edge fibres
    with pytest.raises(T.TopologyError, match="^parallel:"):
        T.from_graph(p, parallel="keep")
    p = _write_gml(tmp_path / "dup2.gml", ok, [(0, 1), (1, 2), (1, 0)])  # not declared a multigraph
    with pytest.raises(T.TopologyError, match="duplicate edge A–B"):
        T.from_graph(p)
    assert T.core_graph(T.from_graph(p, parallel="merge")).number_of_edges() == 2
    with pytest.raises(T.TopologyError, match="no numeric attribute 'LinkLength'"):
        T.from_graph(_write_gml(tmp_path / "ok.gml", ok, [(0, 1), (1, 2)]), km="LinkLength")
    (tmp_path / "g.txt").write_text("x")
    with pytest.raises(T.TopologyError, match="unknown graph format"):
        T.from_graph(tmp_path / "g.txt")
    with pytest.raises(T.TopologyError, match="no such graph file"):
        T.from_graph(tmp_path / "missing.gml")
    (tmp_path / "dup.graphml").write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n'
        '<key attr.name="label" attr.type="string" for="node" id="d0"/>\n<graph edgedefault="undirected">\n'
        + "".join(f'<node id="n{i}"><data key="d0">{c}</data></node>\n' for i, c in enumerate("ABC"))
        + '<edge source="n0" target="n1"/><edge source="n1" target="n2"/><edge source="n1" target="n0"/>\n'
        "</graph></graphml>\n")
    with pytest.raises(T.TopologyError, match="duplicate edge A–B"):
        T.from_graph(tmp_path / "dup.graphml", km=10.0)
    (tmp_path / "bad.gml").write_text("graph [ node [ id 0 ")
    with pytest.raises(T.TopologyError, match="cannot read the graph"):
        T.from_graph(tmp_path / "bad.gml")


# ---------------------------------------------------------------------------------------
# Routes.


def _least(g: nx.Graph, s: str, d: str, weight: str | None) -> list[str]:
    """networkx's least paths, ties to fewer hops, then the smallest node indices."""
    index = {n: i for i, n in enumerate(g.nodes)}
    paths = nx.all_shortest_paths(g, s, d, weight=weight)
    return min(paths, key=lambda p: (len(p), [index[n] for n in p]))


def test_routes_equal_networkx_on_random_graphs() -> None:
    """The route function's km, delay and hops routes are networkx's shortest paths on
    random connected graphs (seeded), ties broken by the core's order: fewer hops, then
    the lexicographically smallest node-index sequence (tests/test_routing.py checks the
    core against it)."""
    rng = random.Random(5)
    for trial in range(30):
        n = rng.randint(4, 14)
        g = nx.connected_watts_strogatz_graph(n, 4 if n > 4 else 2, 0.4, seed=trial)
        g = nx.relabel_nodes(g, {i: f"N{i}" for i in g})
        for a, b in g.edges:
            g[a][b]["km"] = float(rng.choice([100, 200, 300, 450]))  # ties on purpose
        sc = T.build_scenario(g, name="rnd")
        cg = T.core_graph(sc)
        for _ in range(10):
            s, d = rng.sample(sorted(g.nodes), 2)
            assert T.shortest_route(cg, s, d, "km") == _least(g, s, d, "km")
            assert T.shortest_route(cg, s, d, "hops") == _least(g, s, d, None)
            km = nx.path_weight(g, T.shortest_route(cg, s, d, "delay"), "km")
            assert km == nx.shortest_path_length(g, s, d, weight="km")


def test_route_errors() -> None:
    g = T.core_graph(T.nsfnet())
    with pytest.raises(T.TopologyError, match="^weight:"):
        T.shortest_route(g, "WA", "NY", "cost")
    with pytest.raises(T.TopologyError, match="^src: unknown core node 'XX'"):
        T.shortest_route(g, "XX", "NY")
    g.add_node("ISLAND")
    with pytest.raises(T.TopologyError, match="^dst: no route from core node 'WA' to 'ISLAND'"):
        T.shortest_route(g, "WA", "ISLAND")
    sc = T.nsfnet()
    with pytest.raises(T.TopologyError, match="^dst_host: no host 'H_NY_3'"):
        T.add_flow(sc, "WA", "NY", dst_host=3)
    with pytest.raises(T.TopologyError, match="^dst: the flow's source and destination"):
        T.add_flow(sc, "WA", "WA")


def test_route_table_lists_each_flow() -> None:
    sc = T.cost239()
    T.add_flow(sc, "London", "Vienna", name="lv", type="tcp")
    T.add_flow(sc, "London", "Vienna", name="lv-hops", type="tcp", weight="hops")
    rows = T.route_table(sc)
    assert [r["name"] for r in rows] == ["lv", "lv-hops"]
    km = [nx.path_weight(T.core_graph(sc), r["route"][2:-2], "km") for r in rows]
    assert km[0] <= km[1] and len(rows[1]["route"]) <= len(rows[0]["route"])


# ---------------------------------------------------------------------------------------
# Traffic matrices.


def test_nsfnet_matrix_and_scaling() -> None:
    tm = T.nsfnet_matrix()
    assert len(tm) == 14 * 13 and tm[("NY", "PA")] == 403.05 and tm[("PA", "NY")] == 403.05
    scaled = T.scale_total(tm, 1000.0)
    assert sum(scaled.values()) == pytest.approx(1000.0)
    assert scaled[("NY", "PA")] / scaled[("CA1", "CA2")] == pytest.approx(403.05 / 63.35)
    sc = T.nsfnet()
    routes = T.pair_routes(sc, list(tm))
    at = T.scale_link_load(tm, routes, 5.0)
    assert max(T.link_loads(at, routes).values()) == pytest.approx(5.0)


def test_matrix_from_array_csv_and_header(tmp_path: Path) -> None:
    nodes = ["A", "B", "C"]
    arr = np.array([[0, 1, 2], [3, 0, 4], [5, 6, 0]])
    tm = T.traffic_matrix(arr, nodes)
    assert tm[("A", "C")] == 2 and tm[("C", "B")] == 6 and ("A", "A") not in tm
    (tmp_path / "m.csv").write_text("# a comment\nC,A,B\n0,5,6\n2,0,1\n4,3,0,\n")
    assert T.traffic_matrix(tmp_path / "m.csv", nodes) == tm
    (tmp_path / "plain.csv").write_text("0,1,2\n3,0,4\n5,6,0\n")
    assert T.traffic_matrix(tmp_path / "plain.csv", nodes) == tm


@pytest.mark.parametrize(
    ("matrix", "match"),
    [([[0, 1], [1, 0]], "must be 3 × 3 for the 3 nodes"),
     ([[0, 1, 2], [3, 0, -4], [5, 6, 0]], r"matrix\[1\]\[2\] \(B→C\): must be a finite non-negative"),
     ([[0, 1, 2], [3, 0, math.nan], [5, 6, 0]], r"matrix\[1\]\[2\].*nan"),
     ([[0, 1, 2], [3, 0, "x"], [5, 6, 0]], "not a number"),
     ({("A", "Z"): 1.0}, "unknown node 'Z'")],
)
def test_bad_matrices_name_the_cell(matrix: object, match: str) -> None:
    with pytest.raises(T.TopologyError, match=match):
        T.traffic_matrix(matrix, ["A", "B", "C"])  # type: ignore[arg-type]


def test_bad_scaling_targets() -> None:
    tm = T.traffic_matrix([[0, 1], [1, 0]], ["A", "B"])
    for bad in (-1.0, math.nan, 0.0, math.inf):
        with pytest.raises(T.TopologyError, match="^total:"):
            T.scale_total(tm, bad)
    with pytest.raises(T.TopologyError, match="all entries are zero"):
        T.scale_total({("A", "B"): 0.0}, 1.0)
    with pytest.raises(T.TopologyError, match="no route for the pair A→B"):
        T.link_loads(tm, {})


def test_poisson_traffic_runs_and_offers_its_rates() -> None:
    """Per-pair Poisson sources from a scaled matrix: each source sends its rate (to
    a few % over the run) on its km-shortest route."""
    sc = T.cost239(duration="0.2s", access="100Tb/s", core_rate="10Gb/s", wavelengths=16,
                   edge_wavelengths=64, obs={"assembly": {"type": "length", "max_pkts": 1}})
    nodes = [n for n in T.core_graph(sc).nodes]
    tm = T.traffic_matrix(np.ones((11, 11)), nodes)
    rates = T.scale_total(tm, 110_000.0)  # 1 000 bursts/s per pair
    flows = T.add_poisson_traffic(sc, rates, packet_size="1250B")
    assert len(flows) == 110 and all("reverse_route" not in f for f in flows)
    res = burstlab.run(sc)
    edge_out = res.obs_links[res.obs_links["from"].str.startswith("E_")]
    assert edge_out["bursts_offered"].sum() == pytest.approx(110_000 * 0.2, rel=0.02)
    assert edge_out["lost_contention"].sum() == 0


def test_a_saved_topology_runs_from_its_file(tmp_path: Path) -> None:
    """A built scenario saved as JSON runs from the file (the way to use a topology in a
    scenario file until the core reads graphs itself)."""
    import json

    sc = T.cost239(duration="0.5s")
    T.add_flow(sc, "London", "Vienna", type="tcp", segments=30, name="lv")
    (tmp_path / "cost239.json").write_text(json.dumps(sc))
    res = burstlab.run(tmp_path / "cost239.json")
    assert res.flows.iloc[0]["segments_delivered"] == 30
