"""Routing chosen by the core ([routing], a flow's routing): its routes equal networkx's on
seeded random graphs with deliberate ties, under the documented order (cost, then fewer
hops, then the lexicographically smallest sequence of node indices); the route table."""

from __future__ import annotations

import itertools
import random
from typing import Any

import networkx as nx
import pytest

import burstlab
from burstlab import topologies as T

#: Picoseconds of propagation per km of fibre (the core's 5 µs/km).
PS_PER_KM = 5_000_000


def _metric(weight: str, km: int) -> int:
    """An arc's metric as the core counts it for an integer-km fibre."""
    return {"hops": 1, "km": km * 1_000_000, "delay": km * PS_PER_KM}[weight]


def _order(g: nx.Graph, weight: str):  # type: ignore[no-untyped-def]
    """The core's order of paths, as a sort key: (cost, hops, node indices)."""
    index = {n: i for i, n in enumerate(g.nodes)}

    def key(p: list[str]) -> tuple[int, int, list[int]]:
        cost = sum(_metric(weight, g[a][b]["km"]) for a, b in itertools.pairwise(p))
        return cost, len(p) - 1, [index[n] for n in p]

    return key


def nx_first_k(g: nx.Graph, s: str, d: str, weight: str, k: int) -> list[list[str]]:
    """The first k loop-free paths under the core's order, from networkx's
    shortest_simple_paths (which yields paths by nondecreasing cost, ties in its own
    order): every path up to the k-th cost, sorted, cut at k."""
    key = _order(g, weight)

    def w(_a: Any, _b: Any, attrs: dict[str, Any]) -> int:
        return _metric(weight, attrs["km"]) * (1 << 32) + 1  # (cost, hops) as one integer

    paths: list[list[str]] = []
    for p in nx.shortest_simple_paths(g, s, d, weight=w):
        if len(paths) >= k and key(p)[:2] > key(paths[k - 1])[:2]:
            break
        paths.append(p)
        paths.sort(key=key)
    return paths[:k]


def random_graph(seed: int) -> nx.Graph:
    rng = random.Random(seed)
    n = rng.randint(4, 12)
    g = nx.connected_watts_strogatz_graph(n, 4 if n > 4 else 2, 0.5, seed=seed)
    # Shuffle the labels so that node order, index order and names disagree.
    labels = [f"N{i}" for i in range(n)]
    rng.shuffle(labels)
    g = nx.relabel_nodes(g, dict(zip(range(n), labels, strict=True)))
    for a, b in g.edges:
        g[a][b]["km"] = rng.choice([100, 200, 300])  # ties on purpose
    return g


@pytest.mark.parametrize("weight", ["hops", "km", "delay"])
def test_core_routes_equal_networkx_on_random_graphs(weight: str) -> None:
    """k = 1 and k = 3 (round robin, so the j-th flow of a pair shows path j): the core's
    routes are networkx's first paths under the documented order, and k = 1 equals
    T.shortest_route."""
    checked = 0
    for seed in range(25):
        g = random_graph(seed)
        rng = random.Random(1000 + seed)
        sc = T.build_scenario(g, name=f"rnd{seed}", duration="1ms")
        # Distinct pairs: round robin counts per pair.
        pairs = rng.sample(list(itertools.permutations(g.nodes, 2)), 6)
        for a, b in pairs:
            T.add_flow(sc, a, b, type="cbr", rate="1Mb/s", routing={"metric": weight})
            for _ in range(3):
                T.add_flow(sc, a, b, type="cbr", rate="1Mb/s",
                           routing={"metric": weight, "k": 3, "policy": "round_robin"})
        rows = T.core_routes(sc)
        for i, (a, b) in enumerate(pairs):
            first = rows[4 * i]
            assert first["route"][2:-2] == nx_first_k(g, a, b, weight, 1)[0]
            assert first["route"][2:-2] == T.shortest_route(T.core_graph(sc), a, b, weight)
            want = nx_first_k(g, a, b, weight, 3)
            for j in range(3):
                r = rows[4 * i + 1 + j]
                assert r["paths"] == len(want)
                assert r["route"][2:-2] == want[j % len(want)], (seed, a, b, j)
                checked += 1
    assert checked == 25 * 6 * 3


def test_random_policy_is_seeded_and_least_loaded_spreads() -> None:
    sc = T.cost239()
    for _ in range(20):
        T.add_flow(sc, "London", "Vienna", type="cbr", rate="1Mb/s",
                   routing={"metric": "km", "k": 4, "policy": "random"})
    a = [r["path"] for r in T.core_routes(sc, seed=1)]
    assert a == [r["path"] for r in T.core_routes(sc, seed=1)]
    assert a != [r["path"] for r in T.core_routes(sc, seed=2)]
    assert set(a) == {0, 1, 2, 3}
    # least_loaded, recomputed here: each flow takes the path whose busiest hop carries
    # the fewest earlier flows, ties to the smaller total, then the lower rank.
    sc = T.cost239()
    for _ in range(4):
        T.add_flow(sc, "London", "Vienna", type="cbr", rate="1Mb/s",
                   routing={"metric": "km", "k": 4, "policy": "round_robin"})
    paths = [r["route"] for r in T.core_routes(sc)]  # the pair's four paths, in order
    sc = T.cost239()
    for _ in range(6):
        T.add_flow(sc, "London", "Vienna", type="cbr", rate="1Mb/s",
                   routing={"metric": "km", "k": 4, "policy": "least_loaded"})
    load: dict[tuple[str, str], int] = {}
    for r in T.core_routes(sc):
        def key(j: int) -> tuple[int, int, int]:
            hops = [load.get(h, 0) for h in itertools.pairwise(paths[j])]
            return max(hops), sum(hops), j
        want = min(range(4), key=key)
        assert r["path"] == want and r["route"] == paths[want]
        for h in itertools.pairwise(r["route"]):
            load[h] = load.get(h, 0) + 1
    assert len({r["path"] for r in T.core_routes(sc)}) > 1


def test_run_writes_the_route_table(tmp_path: Any) -> None:
    sc = T.nsfnet(duration="5ms")
    T.add_flow(sc, "WA", "NY", type="tcp", segments=5, name="explicit")
    T.add_flow(sc, "WA", "NY", type="tcp", segments=5, name="chosen", routing={"metric": "km"})
    res = burstlab.run(sc)
    rt = res.routes
    assert list(rt["name"]) == ["explicit", "chosen"]
    assert list(rt["policy"]) == ["explicit", "first"]
    assert rt["route"][0] == rt["route"][1]  # add_flow's route is the core's km route
    assert rt["km"][0] == pytest.approx(
        nx.path_weight(T.core_graph(sc), rt["route"][0].split(">")[2:-2], "km"))
    files = {p.name for p in res.to_dir(tmp_path)}
    assert "routes.parquet" in files


def test_routing_errors_name_the_field() -> None:
    sc = T.nsfnet()
    T.add_flow(sc, "WA", "NY", type="cbr", rate="1Mb/s", routing={"k": 0})
    with pytest.raises(burstlab.ScenarioError, match=r"^flow\[0\]\.routing\.k: must be between 1 and 64"):
        T.core_routes(sc)
    sc = T.nsfnet(delay_per_km="4us")  # fibres written with delay, not length_km
    T.add_flow(sc, "WA", "NY", type="cbr", rate="1Mb/s", routing={"metric": "km"})
    with pytest.raises(burstlab.ScenarioError, match=r"^fibre\[0\]\.length_km: flow\[0\]\.routing\.metric"):
        T.core_routes(sc)
