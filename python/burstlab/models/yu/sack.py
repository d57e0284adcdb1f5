"""TCP SACK over OBS: yu §III.A, eqs. 1–29.

Read first: yu §III.A. A burst of ``S`` segments is lost with probability
``p``; SACK retransmits the whole lost burst in one round (yu fig. 1), so a
triple-duplicate period (TDP) carries ``S/p`` segments before its first loss
(the delayed-first-loss gain, yu eq. 4).

Units: throughput in segments/s; ``tb``, ``rtt0``, ``rto`` in seconds; ``lam``
(λ) in segments/s; ``wm`` in segments; ``p`` in (0, 1); ``b`` ∈ {1, 2}.
``RTT = RTT0 + 2·Tb`` and ``S = min(λ·Tb + 1, Wm)`` are computed here.

Regime rule (ours; yu only says the truth lies "in between" eqs. 26 and 28):
the window is *saturated* when the unconstrained expected window at a loss,
``E[W_X]`` of eq. 10, is at least ``Wm``, or when ``S = Wm`` (one burst holds
the whole window, so every burst loss is a timeout: yu §V.B, fig. 11); then
eq. 28 is used, else eq. 26.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .._validate import Array, FloatOrArray, finish
from .common import Params, _f, _timeout_ratio, _top_segments


def _expected_window(p: Array, s: Array, b: Array) -> Array:
    c = 2.0 * (b + 1.0) / (3.0 * b)
    return c + np.sqrt(c**2 + 8.0 * s / (3.0 * b * p))


def _unsaturated(q: Params) -> Array:
    ew = _expected_window(q.p, q.s, q.b)
    qto = _timeout_ratio(ew, q.s, q.p)
    num = (3.0 * ew - 1.0) / 2.0 + (1.0 - q.p) / q.p * q.s + qto * _top_segments(q.p)
    den = q.rtt * (q.b * ew / 2.0 + 1.0) + qto * q.rto * _f(q.p) / (1.0 - q.p)
    return num / den


def _saturated(q: Params) -> Array:
    qto = _timeout_ratio(q.wm, q.s, q.p)
    num = 1.5 * q.wm + (1.0 - q.p) / q.p * q.s + qto * _top_segments(q.p)
    den = q.rtt * (q.s / (q.p * q.wm) + q.wm / 8.0 + 1.5) + qto * q.rto * _f(q.p) / (
        1.0 - q.p
    )
    return num / den


def _is_saturated(q: Params) -> npt.NDArray[np.bool_]:
    # Regime rule: E[W_X] (eq. 10) >= Wm, or S = Wm (one burst carries the whole window,
    # so every loss is a timeout and the variants coincide, yu §V.B and fig. 11).
    return np.asarray((_expected_window(q.p, q.s, q.b) >= q.wm) | (q.s >= q.wm))


def sack_expected_window(
    p: npt.ArrayLike,
    tb: npt.ArrayLike,
    *,
    lam: npt.ArrayLike,
    wm: npt.ArrayLike,
    b: npt.ArrayLike = 1,
) -> FloatOrArray:
    """Expected window at a loss, ``E[W_X]`` in segments (yu eq. 10).

    ``E[W_X] = 2(b+1)/(3b) + sqrt((2(b+1)/(3b))² + 8S/(3bp))``, ignoring ``Wm``
    (compare with ``wm`` to choose the regime). Also used for NewReno, whose
    window dynamics between losses are SACK's (yu §III.B).
    """
    q = Params(p, tb, lam, wm, 1.0, None, b)
    return finish(_expected_window(q.p, q.s, q.b))


def sack_throughput_unsaturated(
    p: npt.ArrayLike,
    tb: npt.ArrayLike,
    *,
    lam: npt.ArrayLike,
    wm: npt.ArrayLike,
    rtt0: npt.ArrayLike,
    rto: npt.ArrayLike,
    b: npt.ArrayLike = 1,
) -> FloatOrArray:
    """SACK throughput when the window stays below ``Wm`` (yu eq. 26), segments/s.

    ``B = [(3E[W]−1)/2 + (1−p)/p·S + Q·p/(1−p)] / [RTT·(b·E[W]/2 + 1) + Q·RTO·f(p)/(1−p)]``
    with ``E[W]`` from eq. 10 and ``Q = Q(E[W]) = min(1, p^(E[W]/S − 1))``.

    Errata followed (docs/reproductions/yu.md): the denominator is ``RTT·(b·E[W]/2 + 1)``,
    i.e. ``(E[X] + 1)·RTT`` with ``E[X] = b·E[W]/2`` (eqs. 7 and 13), where the
    paper prints ``RTT·(b·E[W] + 1)``; ``Q`` uses the definition above eq. 25.
    The numerator's ``(3E[W]−1)/2`` is kept as printed (eq. 5 would give
    ``3E[W]/2``; the difference is half a segment per TDP).

    Valid for ``E[W] < Wm`` (see :func:`sack_throughput` for the combination).
    """
    return finish(_unsaturated(Params(p, tb, lam, wm, rtt0, rto, b)))


def sack_throughput_saturated(
    p: npt.ArrayLike,
    tb: npt.ArrayLike,
    *,
    lam: npt.ArrayLike,
    wm: npt.ArrayLike,
    rtt0: npt.ArrayLike,
    rto: npt.ArrayLike,
    b: npt.ArrayLike = 1,
) -> FloatOrArray:
    """SACK throughput when the window saturates at ``Wm`` (yu eq. 28), segments/s.

    ``B = [3Wm/2 + (1−p)/p·S + Q(Wm)·p/(1−p)] / [RTT·(S/(p·Wm) + Wm/8 + 3/2) + Q(Wm)·RTO·f(p)/(1−p)]``
    with ``Q(Wm) = min(1, p^(Wm/S − 1))`` (so every loss is a timeout when ``S = Wm``).
    Does not depend on ``b`` (as printed). Tends to ``Wm/RTT`` (eq. 29) as ``p → 0``.
    """
    return finish(_saturated(Params(p, tb, lam, wm, rtt0, rto, b)))


def sack_throughput(
    p: npt.ArrayLike,
    tb: npt.ArrayLike,
    *,
    lam: npt.ArrayLike,
    wm: npt.ArrayLike,
    rtt0: npt.ArrayLike,
    rto: npt.ArrayLike,
    b: npt.ArrayLike = 1,
) -> FloatOrArray:
    """SACK throughput in segments/s: yu eq. 28 if ``E[W_X]`` (eq. 10) ``>= Wm`` or ``S = Wm``, else eq. 26.

    Parameters
    ----------
    p : burst loss probability, in (0, 1).
    tb : assembly time Tb, seconds, >= 0.
    lam : access bandwidth λ, segments/s, > 0.
    wm : maximum window Wm, segments, >= 1.
    rtt0 : round-trip time without assembly, seconds, > 0 (``RTT = RTT0 + 2·Tb``).
    rto : retransmission timeout, seconds, > 0.
    b : segments acknowledged per ACK, 1 or 2.

    All arguments broadcast; scalars in give a ``numpy.float64`` out.
    """
    q = Params(p, tb, lam, wm, rtt0, rto, b)
    return finish(np.where(_is_saturated(q), _saturated(q), _unsaturated(q)))


def sack_throughput_small_p(
    p: npt.ArrayLike,
    tb: npt.ArrayLike,
    *,
    lam: npt.ArrayLike,
    wm: npt.ArrayLike,
    rtt0: npt.ArrayLike,
    b: npt.ArrayLike = 1,
) -> FloatOrArray:
    """Small-``p`` SACK throughput, first line of yu eq. 27, segments/s.

    ``B = (S/p) / (RTT·(sqrt(2bS/(3p)) + 1))``: timeouts ignored (``Q → 0``),
    window unsaturated. ``wm`` only bounds ``S``.
    """
    q = Params(p, tb, lam, wm, rtt0, None, b)
    return finish(
        (q.s / q.p) / (q.rtt * (np.sqrt(2.0 * q.b * q.s / (3.0 * q.p)) + 1.0))
    )


def sack_throughput_leading(
    p: npt.ArrayLike,
    tb: npt.ArrayLike,
    *,
    lam: npt.ArrayLike,
    wm: npt.ArrayLike,
    rtt0: npt.ArrayLike,
    b: npt.ArrayLike = 1,
) -> FloatOrArray:
    """Leading term of yu eq. 27, ``B = sqrt(3S/(2bp)) / (RTT0 + 2·Tb)``, segments/s.

    For ``S = 1`` (``Tb = 0``) this is the packet-switched square-root law,
    yu eq. 60 / PFTK's ``sqrt(3/(2bp))/RTT``.
    """
    q = Params(p, tb, lam, wm, rtt0, None, b)
    return finish(np.sqrt(3.0 * q.s / (2.0 * q.b * q.p)) / q.rtt)


def window_limited_throughput(
    tb: npt.ArrayLike, *, wm: npt.ArrayLike, rtt0: npt.ArrayLike
) -> FloatOrArray:
    """``B = Wm / RTT = Wm / (RTT0 + 2·Tb)`` in segments/s (yu eq. 29; the ``p → 0`` limit of eq. 28)."""
    q = Params(0.5, tb, 1.0, wm, rtt0)
    return finish(q.wm / q.rtt)
