"""TCP Reno over OBS: yu §III.C, eqs. 35–53.

Read first: yu §III.C and figs. 3–4. Reno halves its window for every
segment of a lost burst it retransmits; if the window falls below 3 before
all ``S`` are resent, a timeout follows.

Log base: yu's ``log W_X`` counts window halvings, so it is ``log2``.

Case split (yu eqs. 52/53): with ``W = sqrt(2S/(bp))`` (the small-``p`` form
of eq. 41 that yu uses in eqs. 51–53), ``log2 W > S`` → TD loss only,
eq. 52; otherwise (``log2 W <= S``, ties included) → mixed TD and TO,
eq. 53.

Regime rule (ours): the window is saturated when Reno's own ``E[W_X]``
(eq. 41) ``>= Wm`` or ``S = Wm``; yu gives no saturated Reno model, so we then use SACK's
eq. 28 (all variants coincide once ``S = Wm``, yu fig. 11).

Units: throughput in segments/s; times in seconds; λ in segments/s.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .._validate import Array, FloatOrArray, finish
from .common import Params
from .sack import _saturated


def _expected_window(p: Array, s: Array, b: Array) -> Array:
    c = 0.5 + 0.5 / b
    return c + np.sqrt(c**2 + 2.0 * s / (b * p))


def _w_small_p(q: Params) -> Array:
    return np.sqrt(2.0 * q.s / (q.b * q.p))


def _td_only(q: Params) -> npt.NDArray[np.bool_]:
    return np.asarray(np.log2(_w_small_p(q)) > q.s)


def _eq52(q: Params) -> Array:
    return (q.s / q.p) / (q.rtt * (np.sqrt(2.0 * q.b * q.s / q.p) + q.s))


def _eq53(q: Params) -> Array:
    halvings: Array = np.log2(_w_small_p(q))
    return (q.s / q.p) / (q.rtt * (np.sqrt(2.0 * q.b * q.s / q.p) + halvings) + q.rto)


def _unsaturated(q: Params) -> Array:
    return np.where(_td_only(q), _eq52(q), _eq53(q))


def _is_saturated(q: Params) -> npt.NDArray[np.bool_]:
    return np.asarray((_expected_window(q.p, q.s, q.b) >= q.wm) | (q.s >= q.wm))


def reno_expected_window(
    p: npt.ArrayLike,
    tb: npt.ArrayLike,
    *,
    lam: npt.ArrayLike,
    wm: npt.ArrayLike,
    b: npt.ArrayLike = 1,
) -> FloatOrArray:
    """Reno's expected window at a loss, ``E[W_X]`` in segments (yu eq. 41).

    ``E[W_X] = 1/2 + 1/(2b) + sqrt((1/2 + 1/(2b))² + 2S/(bp))``, ignoring ``Wm``.
    """
    q = Params(p, tb, lam, wm, 1.0, None, b)
    return finish(_expected_window(q.p, q.s, q.b))


def reno_td_only(
    p: npt.ArrayLike,
    tb: npt.ArrayLike,
    *,
    lam: npt.ArrayLike,
    wm: npt.ArrayLike,
    b: npt.ArrayLike = 1,
) -> npt.NDArray[np.bool_] | bool:
    """True where ``log2 sqrt(2S/(bp)) > S``: Reno recovers a lost burst without a timeout (yu eq. 52)."""
    q = Params(p, tb, lam, wm, 1.0, None, b)
    r = _td_only(q)
    return bool(r) if r.ndim == 0 else r


def reno_throughput_td_only(
    p: npt.ArrayLike,
    tb: npt.ArrayLike,
    *,
    lam: npt.ArrayLike,
    wm: npt.ArrayLike,
    rtt0: npt.ArrayLike,
    b: npt.ArrayLike = 1,
) -> FloatOrArray:
    """Reno throughput, TD losses only, small ``p`` (yu eq. 52), segments/s.

    ``B = (S/p) / (RTT·(sqrt(2bS/p) + S))``. Valid where ``log2 sqrt(2S/(bp)) > S``.
    """
    return finish(_eq52(Params(p, tb, lam, wm, rtt0, None, b)))


def reno_throughput_td_to(
    p: npt.ArrayLike,
    tb: npt.ArrayLike,
    *,
    lam: npt.ArrayLike,
    wm: npt.ArrayLike,
    rtt0: npt.ArrayLike,
    rto: npt.ArrayLike,
    b: npt.ArrayLike = 1,
) -> FloatOrArray:
    """Reno throughput, mixed TD and TO losses, small ``p`` (yu eq. 53), segments/s.

    ``B = (S/p) / (RTT·(sqrt(2bS/p) + log2 sqrt(2S/(bp))) + RTO)``.
    Valid where ``log2 sqrt(2S/(bp)) < S``.
    """
    return finish(_eq53(Params(p, tb, lam, wm, rtt0, rto, b)))


def reno_throughput_unsaturated(
    p: npt.ArrayLike,
    tb: npt.ArrayLike,
    *,
    lam: npt.ArrayLike,
    wm: npt.ArrayLike,
    rtt0: npt.ArrayLike,
    rto: npt.ArrayLike,
    b: npt.ArrayLike = 1,
) -> FloatOrArray:
    """Reno throughput below ``Wm``: eq. 52 if ``log2 sqrt(2S/(bp)) > S``, else eq. 53 (segments/s)."""
    return finish(_unsaturated(Params(p, tb, lam, wm, rtt0, rto, b)))


def reno_throughput(
    p: npt.ArrayLike,
    tb: npt.ArrayLike,
    *,
    lam: npt.ArrayLike,
    wm: npt.ArrayLike,
    rtt0: npt.ArrayLike,
    rto: npt.ArrayLike,
    b: npt.ArrayLike = 1,
) -> FloatOrArray:
    """Reno throughput in segments/s: eq. 28 if ``E[W_X]`` (eq. 41) ``>= Wm`` or ``S = Wm``, else eq. 52/53.

    Eq. 52 is a small-``p`` form without timeouts, so for ``p`` above about 0.1
    or ``S`` close to ``Wm`` the switch from eq. 28 can make this non-monotone in ``p``.

    Parameters as :func:`burstlab.models.sack_throughput` (``p`` in (0, 1),
    ``tb`` >= 0 s, ``lam`` > 0 segments/s, ``wm`` >= 1 segments, ``rtt0`` and
    ``rto`` > 0 s, ``b`` ∈ {1, 2}).
    """
    q = Params(p, tb, lam, wm, rtt0, rto, b)
    return finish(np.where(_is_saturated(q), _saturated(q), _unsaturated(q)))
