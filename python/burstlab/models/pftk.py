"""Packet-switched baselines: PFTK (Padhye, Firoiu, Towsley, Kurose, SIGCOMM 1998) and yu eq. 60.

Read first: PFTK §2 ("Modeling TCP throughput: a simple model and its
empirical validation"). PFTK assumes a lost packet takes the rest of its round
with it; ``p`` is that loss-event probability, ``rtt`` the round-trip time
(no assembly), ``rto`` PFTK's ``T0``. Throughput in segments (packets)/s.

* approximate model, PFTK eq. 30::

    B = min(Wm/RTT, 1 / (RTT·sqrt(2bp/3) + T0·min(1, 3·sqrt(3bp/8))·p·(1 + 32p²)))

* full model, PFTK eqs. 31/32 (with eq. 13 for ``E[Wu]`` and §2.2 for ``Q̂``)::

    E[Wu] = (2+b)/(3b) + sqrt(8(1−p)/(3bp) + ((2+b)/(3b))²)
    Q̂(w)  = min(1, (1−(1−p)³)(1 + (1−p)³(1 − (1−p)^(w−3))) / (1 − (1−p)^w))
    f(p)  = 1 + p + 2p² + 4p³ + 8p⁴ + 16p⁵ + 32p⁶
    E[Wu] < Wm:  B = [(1−p)/p + E[Wu] + Q̂(E[Wu])/(1−p)]
                     / [RTT·(b·E[Wu]/2 + 1) + Q̂(E[Wu])·T0·f(p)/(1−p)]
    otherwise:   B = [(1−p)/p + Wm + Q̂(Wm)/(1−p)]
                     / [RTT·(b·Wm/8 + (1−p)/(p·Wm) + 2) + Q̂(Wm)·T0·f(p)/(1−p)]

  ``Q̂(w) = 1`` for ``w <= 3`` (fewer than three duplicate ACKs are possible).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ._validate import (
    Array,
    FloatOrArray,
    check_at_least_one,
    check_b,
    check_positive,
    check_probability,
    finish,
)


def _f(p: Array) -> Array:
    """PFTK's timeout back-off factor ``f(p)`` (PFTK §2.3; yu eq. 24 reuses it)."""
    return 1.0 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6


def _bcast(
    p: npt.ArrayLike,
    rtt: npt.ArrayLike,
    rto: npt.ArrayLike,
    wm: npt.ArrayLike,
    b: npt.ArrayLike,
) -> list[Array]:
    parts = [
        check_probability("p", p),
        check_positive("rtt", rtt, "s"),
        check_positive("rto", rto, "s"),
        check_at_least_one("wm", wm),
        check_b(b),
    ]
    try:
        return list(np.broadcast_arrays(*parts))
    except ValueError as exc:
        raise ValueError(f"parameter arrays have incompatible shapes: {exc}") from exc


def pftk_throughput_approx(
    p: npt.ArrayLike,
    *,
    rtt: npt.ArrayLike,
    rto: npt.ArrayLike,
    wm: npt.ArrayLike,
    b: npt.ArrayLike = 1,
) -> FloatOrArray:
    """PFTK approximate model (PFTK eq. 30), segments/s.

    ``p`` in (0, 1); ``rtt``, ``rto`` (T0) in seconds, > 0; ``wm`` >= 1 segments;
    ``b`` ∈ {1, 2}.
    """
    p_a, rtt_a, rto_a, wm_a, b_a = _bcast(p, rtt, rto, wm, b)
    to = (
        rto_a
        * np.minimum(1.0, 3.0 * np.sqrt(3.0 * b_a * p_a / 8.0))
        * p_a
        * (1.0 + 32.0 * p_a**2)
    )
    return finish(
        np.minimum(wm_a / rtt_a, 1.0 / (rtt_a * np.sqrt(2.0 * b_a * p_a / 3.0) + to))
    )


def pftk_expected_window(p: npt.ArrayLike, *, b: npt.ArrayLike = 1) -> FloatOrArray:
    """PFTK's unconstrained expected window ``E[Wu]`` (PFTK eq. 13), segments."""
    p_a = check_probability("p", p)
    b_a = check_b(b)
    return finish(_pftk_ew(p_a, b_a))


def _pftk_ew(p: Array, b: Array) -> Array:
    c = (2.0 + b) / (3.0 * b)
    return c + np.sqrt(8.0 * (1.0 - p) / (3.0 * b * p) + c**2)


def _q_hat(w: Array, p: Array) -> Array:
    q1 = 1.0 - p
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        val = (1.0 - q1**3) * (1.0 + q1**3 * (1.0 - q1 ** (w - 3.0))) / (1.0 - q1**w)
    return np.where(w <= 3.0, 1.0, np.minimum(1.0, val))


def pftk_timeout_probability(w: npt.ArrayLike, p: npt.ArrayLike) -> FloatOrArray:
    """``Q̂(w)``: probability that a loss in a window of ``w`` segments is a timeout (PFTK §2.2)."""
    w_a = check_positive("w", w, "segments")
    p_a = check_probability("p", p)
    return finish(_q_hat(w_a, p_a))


def pftk_throughput_full(
    p: npt.ArrayLike,
    *,
    rtt: npt.ArrayLike,
    rto: npt.ArrayLike,
    wm: npt.ArrayLike,
    b: npt.ArrayLike = 1,
) -> FloatOrArray:
    """PFTK full model (PFTK eqs. 31/32), segments/s; window-limited branch when ``E[Wu] >= Wm``.

    ``p`` in (0, 1); ``rtt``, ``rto`` (T0) in seconds, > 0; ``wm`` >= 1 segments;
    ``b`` ∈ {1, 2}.
    """
    p_a, rtt_a, rto_a, wm_a, b_a = _bcast(p, rtt, rto, wm, b)
    ew = _pftk_ew(p_a, b_a)
    to = rto_a * _f(p_a) / (1.0 - p_a)
    q_u = _q_hat(ew, p_a)
    unsat = ((1.0 - p_a) / p_a + ew + q_u / (1.0 - p_a)) / (
        rtt_a * (b_a * ew / 2.0 + 1.0) + q_u * to
    )
    q_m = _q_hat(wm_a, p_a)
    sat = ((1.0 - p_a) / p_a + wm_a + q_m / (1.0 - p_a)) / (
        rtt_a * (b_a * wm_a / 8.0 + (1.0 - p_a) / (p_a * wm_a) + 2.0) + q_m * to
    )
    return finish(np.where(ew < wm_a, unsat, sat))


def packet_switched_throughput(
    p: npt.ArrayLike, *, rtt0: npt.ArrayLike, b: npt.ArrayLike = 1
) -> FloatOrArray:
    """Square-root law without assembly, ``B = sqrt(3/(2bp)) / RTT0`` (yu eq. 60), segments/s.

    The leading term of PFTK; no ``Wm`` limit, no timeouts. ``p`` in (0, 1),
    ``rtt0`` > 0 s, ``b`` ∈ {1, 2}.
    """
    p_a = check_probability("p", p)
    rtt_a = check_positive("rtt0", rtt0, "s")
    b_a = check_b(b)
    return finish(np.sqrt(3.0 / (2.0 * b_a * p_a)) / rtt_a)
