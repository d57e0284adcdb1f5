"""The Erlang reduced-load fixed point (burstlab.models.erlang) and NSFNET burst blocking.

The network test: NSFNET (burstlab.topologies.nsfnet) with one Poisson burst source per
origin–destination pair (CAROBS's traffic matrix scaled so the busiest fibre is offered
6 Erlang), exponential bursts of mean 12 500 B (10 µs at 10 Gb/s), one packet per burst,
zero offset (JET then reserves each burst from its arrival: no voids), 8 data
wavelengths per core fibre with full conversion, 64 on the edge fibres (no loss there),
fixed km-shortest routes. Per directed core fibre, the simulated share of bursts lost is
compared with the fixed point's ``B_j`` (OBS thinning, Rosberg et al. 2003).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import burstlab
from burstlab import topologies as T
from burstlab.models.erlang import erlang_b, reduced_load_fixed_point

# ---------------------------------------------------------------------------------------
# The formulas.


def test_erlang_b_values() -> None:
    assert erlang_b(1.0, 1) == pytest.approx(0.5)
    assert erlang_b(2.0, 2) == pytest.approx(0.4)  # (2²/2) / (1 + 2 + 2)
    # E(A, C) = (A^C / C!) / Σ_{k≤C} A^k / k!, directly.
    for a, c in [(5.0, 8), (0.3, 3), (27.0, 32)]:
        direct = (a**c / math.factorial(c)) / sum(a**k / math.factorial(k) for k in range(c + 1))
        assert erlang_b(a, c) == pytest.approx(direct, rel=1e-12)
    assert erlang_b(0.0, 4) == 0.0 and erlang_b(3.0, 0) == 1.0


def test_single_link_is_erlang_b() -> None:
    fp = reduced_load_fixed_point({"r": ["j"]}, {"r": 2e5}, 4, 10e-6)
    assert fp.link_blocking["j"] == pytest.approx(erlang_b(2.0, 4), rel=1e-12)
    assert fp.route_blocking["r"] == pytest.approx(erlang_b(2.0, 4), rel=1e-12)


def test_tandem_upstream_and_all_thinning() -> None:
    """Two fibres in tandem, one route: with OBS thinning the second fibre is offered
    what the first let through, A(1 − B1); with Kelly's the first is offered A(1 − B2)."""
    a, c = 3.0, 4
    up = reduced_load_fixed_point({"r": ["x", "y"]}, {"r": a}, c, 1.0)
    b1 = erlang_b(a, c)
    assert up.link_blocking["x"] == pytest.approx(b1, rel=1e-12)
    assert up.link_blocking["y"] == pytest.approx(erlang_b(a * (1 - b1), c), rel=1e-10)
    kelly = reduced_load_fixed_point({"r": ["x", "y"]}, {"r": a}, c, 1.0, thinning="all")
    bx, by = kelly.link_blocking["x"], kelly.link_blocking["y"]
    assert bx == pytest.approx(by, rel=1e-12)
    assert bx == pytest.approx(erlang_b(a * (1 - by), c), rel=1e-10)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"mean_holding": 0.0}, "mean_holding"), ({"arrival_rate": {"r": -1.0}}, r"arrival_rate\['r'\]"),
     ({"arrival_rate": {"r": math.nan}}, r"arrival_rate\['r'\]"), ({"capacity": 0}, r"capacity\['j'\]"),
     ({"thinning": "some"}, "thinning"), ({"routes": {"r": []}}, r"routes\['r'\]")],
)
def test_bad_input_names_the_field(kwargs: dict[str, object], match: str) -> None:
    args: dict[str, object] = {"routes": {"r": ["j"]}, "arrival_rate": {"r": 1.0}, "capacity": 2,
                               "mean_holding": 1.0}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        reduced_load_fixed_point(**args)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="load"):
        erlang_b(-1.0, 2)


# ---------------------------------------------------------------------------------------
# NSFNET in the simulator against the fixed point.

K = 8  # data wavelengths per core fibre
PEAK = 6.0  # Erlang offered to the busiest fibre before thinning
HOLD = 12_500 * 8 / 10e9  # mean burst: 10 µs
REPS, DURATION, WARMUP = 4, 0.08, 0.001
T99 = {3: 5.841}  # Student t(0.995, n − 1)


def nsfnet_bursts() -> tuple[dict, dict, dict]:
    sc = T.nsfnet(access="100Tb/s", access_delay="1us", core_rate="10Gb/s", wavelengths=K,
                  edge_wavelengths=64, obs={"assembly": {"type": "length", "max_pkts": 1}},
                  duration=f"{DURATION}s")
    sc["sim"]["warmup"] = f"{WARMUP}s"
    tm = T.nsfnet_matrix()
    routes = T.pair_routes(sc, list(tm))
    rates = T.scale_link_load(tm, routes, PEAK / HOLD)
    T.add_poisson_traffic(sc, rates, packet_size=12_500)
    return sc, routes, rates


@pytest.fixture(scope="module")
def nsfnet_vs_model() -> list[dict]:
    sc, routes, rates = nsfnet_bursts()
    fibres = {p: list(zip(r, r[1:], strict=False)) for p, r in routes.items()}
    fp = reduced_load_fixed_point(fibres, rates, K, HOLD)
    cores = set(T.core_graph(sc).nodes)
    loss: dict[tuple[str, str], list[float]] = {}
    for rep in range(REPS):
        ol = burstlab.run(sc, seed=11, replication=rep).obs_links
        edge = ol[~(ol["from"].isin(cores) & ol["to"].isin(cores))]
        assert edge["lost_contention"].sum() == 0, "the edge fibres lose nothing"
        assert ol["mean_burst_bytes"][ol["bursts_offered"] > 0].mean() == pytest.approx(12_500, rel=0.02)
        for _, row in ol[ol["from"].isin(cores) & ol["to"].isin(cores)].iterrows():
            loss.setdefault((row["from"], row["to"]), []).append(row["lost_contention"] / row["bursts_offered"])
    rows = []
    for j, b in fp.link_blocking.items():
        x = np.array(loss[j])
        half = T99[REPS - 1] * x.std(ddof=1) / math.sqrt(REPS)
        rows.append({"fibre": j, "model": b, "sim": x.mean(), "half": half})
    return sorted(rows, key=lambda r: -r["model"])


def test_nsfnet_blocking_against_the_fixed_point(nsfnet_vs_model: list[dict]) -> None:
    """Where the model's blocking is above 1e-3, the simulated loss (99 % interval over 4
    replications) meets the band ±10 % around the model on every fibre except those
    the method's independence assumption is known to miss: fibres fed mostly by bursts
    that already crossed loaded fibres, where the survivors arrive more often than the
    product of (1 − B) predicts and the simulated loss is higher (GA→TX, NY→MI)."""
    outside = []
    for r in nsfnet_vs_model:
        if r["model"] <= 1e-3:
            continue
        lo, hi = r["sim"] - r["half"], r["sim"] + r["half"]
        if hi < 0.9 * r["model"] or lo > 1.1 * r["model"]:
            outside.append((r["fibre"], round(r["model"], 4), round(r["sim"], 4), round(r["half"], 4)))
    checked = sum(r["model"] > 1e-3 for r in nsfnet_vs_model)
    assert checked >= 14, checked
    assert {f for f, *_ in outside} <= {("GA", "TX"), ("NY", "MI")}, outside
    for f, model, sim, _half in outside:
        assert sim > model, f  # the known direction: the model underestimates there
