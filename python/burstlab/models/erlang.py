"""Burst blocking in an OBS network: Erlang B and the Erlang reduced-load fixed point.

Read first: :func:`erlang_b`, then :func:`reduced_load_fixed_point`.

The model (Kelly, "Blocking probabilities in large circuit-switched networks", Adv.
Appl. Prob. 18, 1986; for OBS, Rosberg, Vu & Zukerman, "Performance analyses of optical
burst-switching networks", IEEE JSAC 21(7), 2003): bursts of route ``r`` arrive as a
Poisson process of rate ``λ_r`` and hold every fibre they cross for an exponential time
of mean ``h`` (the burst's length at the line rate); a directed fibre ``j`` has ``C_j``
data wavelengths and full wavelength conversion, and no buffers. Treating the fibres as
independent, fibre ``j`` blocks a burst with probability

    B_j = E(ρ_j, C_j),  E the Erlang B formula,

where ``ρ_j`` is the load offered to ``j`` reduced by the blocking elsewhere on the
route. Two thinnings:

- ``"upstream"`` (OBS, Rosberg et al. 2003): a burst blocked at a fibre is dropped
  there, but it did occupy the fibres before it, and never reaches those after it; so
  ``ρ_j = Σ_{r∋j} λ_r h Π_{i before j on r} (1 − B_i)`` and the load a fibre sees
  is what survived upstream. This is what a burst switch does.
- ``"all"`` (Kelly 1986, circuit switching): a call is set up on every link at once or
  on none, so ``ρ_j = Σ_{r∋j} λ_r h Π_{i∈r, i≠j} (1 − B_i)``.

The fixed point is found by repeated substitution (each sweep recomputes every ``ρ_j``
from the last ``B``, then every ``B_j``), stopping when no ``B_j`` moves by more than
``tol``. Route blocking is ``1 − Π_{j∈r}(1 − B_j)``.

Known limits (why it is an approximation, and where it errs):

- independence: bursts that reach a downstream fibre are those that found room
  upstream, so the fibres' occupancies are correlated (Kelly 1986 shows the
  approximation exact as capacities and loads grow together);
- Poisson offered load: the stream that survives an upstream fibre is smoother than
  Poisson (its peaks were cut there), so a downstream fibre sees less bursty traffic
  than assumed and the model overestimates its blocking. On NSFNET with 8 wavelengths
  (docs/guide/networks.md) the offered loads are right to 1 %, the blocking to 10 % on
  fibres fed by fresh bursts, and 8–30 % too high on fibres fed through loaded ones;
- exponential burst lengths and full conversion are assumed; with wavelength
  continuity, fibre delay lines, or offsets that differ between bursts (JET reserving
  ahead: voids, and priority to the bursts with more hops to go) the per-fibre system
  is no longer M/M/C/C;
- the fixed point of the ``"all"`` form is unique (Kelly 1986); for ``"upstream"``
  uniqueness is not proven in general, and the iteration is damped if it oscillates.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

__all__ = ["FixedPoint", "erlang_b", "reduced_load_fixed_point"]

Link = Hashable
Thinning = Literal["upstream", "all"]


def erlang_b(load: float, servers: int) -> float:
    """Erlang B: the blocking probability of an M/M/C/C system offered ``load`` Erlang
    with ``C = servers``, by the stable recursion ``B(0) = 1``,
    ``B(c) = A·B(c−1) / (c + A·B(c−1))``."""
    if isinstance(servers, bool) or not isinstance(servers, int | np.integer) or servers < 0:
        raise ValueError(f"servers: must be a non-negative integer, got {servers!r}")
    a = float(load)
    if not math.isfinite(a) or a < 0:
        raise ValueError(f"load: must be a finite non-negative number of Erlang, got {load!r}")
    b = 1.0
    for c in range(1, int(servers) + 1):
        b = a * b / (c + a * b)
    return b


@dataclass(frozen=True)
class FixedPoint:
    """The solution: per directed fibre its blocking ``B_j`` and reduced offered load
    ``ρ_j`` (Erlang); per route its end-to-end blocking; the sweeps it took."""

    link_blocking: dict[Link, float]
    link_load: dict[Link, float]
    route_blocking: dict[Hashable, float]
    iterations: int


def reduced_load_fixed_point(
    routes: Mapping[Hashable, Sequence[Link]],
    arrival_rate: Mapping[Hashable, float],
    capacity: Mapping[Link, int] | int,
    mean_holding: float,
    *,
    thinning: Thinning = "upstream",
    tol: float = 1e-12,
    max_iter: int = 10_000,
) -> FixedPoint:
    """Per-fibre burst blocking by the Erlang reduced-load fixed point (module docs).

    Args:
        routes: route id → the directed fibres it crosses, in order (e.g. node pairs).
        arrival_rate: route id → Poisson burst arrivals per second.
        capacity: fibre → data wavelengths, or one number for every fibre.
        mean_holding: mean burst length in seconds (bytes × 8 / line rate).
        thinning: ``"upstream"`` (OBS) or ``"all"`` (circuit switching).
    """
    if thinning not in ("upstream", "all"):
        raise ValueError(f"thinning: must be 'upstream' or 'all', got {thinning!r}")
    h = float(mean_holding)
    if not math.isfinite(h) or h <= 0:
        raise ValueError(f"mean_holding: must be a positive number of seconds, got {mean_holding!r}")
    load: dict[Hashable, float] = {}
    for r, path in routes.items():
        lam = float(arrival_rate.get(r, 0.0))
        if not math.isfinite(lam) or lam < 0:
            raise ValueError(f"arrival_rate[{r!r}]: must be finite and non-negative, got {lam!r}")
        if len(path) == 0:
            raise ValueError(f"routes[{r!r}]: a route crosses at least one fibre")
        if len(set(path)) != len(path):
            raise ValueError(f"routes[{r!r}]: crosses a fibre twice")
        load[r] = lam * h
    links = sorted({j for p in routes.values() for j in p}, key=repr)
    cap = {j: (capacity if isinstance(capacity, int) else capacity[j]) for j in links}
    for j, c in cap.items():
        if isinstance(c, bool) or not isinstance(c, int | np.integer) or c < 1:
            raise ValueError(f"capacity[{j!r}]: must be a positive integer, got {c!r}")
    b = dict.fromkeys(links, 0.0)
    rho = dict.fromkeys(links, 0.0)
    damping = 1.0
    prev_delta = math.inf
    sweeps = 0
    for sweeps in range(1, max_iter + 1):  # noqa: B007 - the count is returned
        rho = dict.fromkeys(links, 0.0)
        for r, path in routes.items():
            if thinning == "upstream":
                survive = 1.0
                for j in path:
                    rho[j] += load[r] * survive
                    survive *= 1.0 - b[j]
            else:
                for j in path:
                    others = math.prod(1.0 - b[i] for i in path if i != j)
                    rho[j] += load[r] * others
        delta = 0.0
        for j in links:
            new = erlang_b(rho[j], int(cap[j]))
            new = b[j] + damping * (new - b[j])
            delta = max(delta, abs(new - b[j]))
            b[j] = new
        if delta <= tol:
            break
        if delta > prev_delta:  # oscillating: damp the update
            damping = max(0.1, damping * 0.5)
        prev_delta = delta
    else:
        raise RuntimeError(f"reduced_load_fixed_point: no convergence to {tol} in {max_iter} sweeps")
    route_b = {r: 1.0 - math.prod(1.0 - b[j] for j in p) for r, p in routes.items()}
    return FixedPoint(link_blocking=b, link_load=rho, route_blocking=route_b, iterations=sweeps)
