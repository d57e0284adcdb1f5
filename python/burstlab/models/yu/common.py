"""Quantities shared by every TCP-over-OBS model of yu §II.A and §III.A.

Read first: yu §II.A (notation) and §III.A.2 (timeouts). Units throughout:
times in seconds, ``λ`` (``lam``) in segments/s, windows and bursts in
segments, throughput in segments/s.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .._validate import (
    Array,
    FloatOrArray,
    check_at_least_one,
    check_nonnegative,
    check_positive,
    check_probability,
    finish,
)
from ..pftk import _f


def _burst_segments(lam: Array, tb: Array, wm: Array) -> Array:
    return np.minimum(lam * tb + 1.0, wm)


def burst_segments(
    lam: npt.ArrayLike, tb: npt.ArrayLike, wm: npt.ArrayLike
) -> FloatOrArray:
    """Segments of one flow per burst, ``S = min(λ·Tb + 1, Wm)`` (yu §II.A).

    ``S`` is in segments, always in ``[1, Wm]``. It is not rounded: the models treat it
    as a continuous quantity, as the paper does.

    Parameters
    ----------
    lam : access bandwidth λ in segments/s, > 0.
    tb : assembly time Tb in seconds, >= 0.
    wm : maximum window Wm in segments, >= 1.
    """
    lam_a = check_positive("lam", lam, "segments/s")
    tb_a = check_nonnegative("tb", tb, "s")
    wm_a = check_at_least_one("wm", wm)
    return finish(_burst_segments(lam_a, tb_a, wm_a))


def round_trip_time(rtt0: npt.ArrayLike, tb: npt.ArrayLike) -> FloatOrArray:
    """``RTT = RTT0 + 2·Tb`` in seconds (yu eq. 27): data and ACKs are both assembled.

    ``rtt0`` (> 0 s) is the round-trip time without assembly, ``tb`` (>= 0 s)
    the assembly time.
    """
    rtt0_a = check_positive("rtt0", rtt0, "s")
    tb_a = check_nonnegative("tb", tb, "s")
    return finish(rtt0_a + 2.0 * tb_a)


def timeout_backoff_factor(p: npt.ArrayLike) -> FloatOrArray:
    """``f(p) = 1 + p + 2p² + 4p³ + 8p⁴ + 16p⁵ + 32p⁶`` (yu eq. 24; PFTK §2.3).

    Dimensionless; ``p`` is the loss probability in (0, 1).
    """
    return finish(_f(check_probability("p", p)))


def _top_duration(p: Array, rto: Array) -> Array:
    return rto * _f(p) / (1.0 - p)


def timeout_period_duration(p: npt.ArrayLike, rto: npt.ArrayLike) -> FloatOrArray:
    """``E[|TOP|] = RTO·f(p)/(1 − p)`` in seconds (yu eq. 24).

    Timeouts back off as 1, 2, 4, … 64 × RTO and stay at 64 × RTO (yu eq. 23).
    """
    return finish(
        _top_duration(check_probability("p", p), check_positive("rto", rto, "s"))
    )


def _top_segments(p: Array) -> Array:
    return p / (1.0 - p)


def timeout_period_segments(p: npt.ArrayLike) -> FloatOrArray:
    """``E[H] = p/(1 − p)``, segments sent in a timeout period (yu eq. 22)."""
    return finish(_top_segments(check_probability("p", p)))


def _timeout_ratio(w: Array, s: Array, p: Array) -> Array:
    # Q(W) = min(1, p^(W/S - 1)); exponent <= 0 means p^x >= 1, i.e. Q = 1.
    with np.errstate(over="ignore"):
        return np.minimum(1.0, np.power(p, np.maximum(w / s - 1.0, 0.0)))


def timeout_ratio(w: npt.ArrayLike, s: npt.ArrayLike, p: npt.ArrayLike) -> FloatOrArray:
    """TO/TD ratio ``Q(W) = min(1, p^(W/S − 1))`` (yu, definition above eq. 25).

    A timeout follows a triple-duplicate period only when all ``W/S`` bursts of
    its last round are lost; the first loss is given, hence the ``− 1``.

    Erratum (docs/reproductions/yu.md): eq. 25 prints ``p^((E[W]−1)/S)``; the definition just
    above it gives ``p^(W/S − 1)``, which is what this function computes, capped
    at 1 (when ``W <= S`` every burst loss is a timeout).

    ``w`` is the window at the loss (segments, > 0), ``s`` the burst size
    (segments, >= 1), ``p`` the burst loss probability in (0, 1).
    """
    w_a = check_positive("w", w, "segments")
    s_a = check_at_least_one("s", s)
    p_a = check_probability("p", p)
    return finish(_timeout_ratio(w_a, s_a, p_a))


class Params:
    """Validated, broadcast model parameters (internal helper).

    Attributes are float64 arrays of one common shape: ``p``, ``tb``, ``lam``,
    ``wm``, ``rtt0``, ``rto`` (``nan`` when not needed), ``b``, and the derived
    ``s = min(λ·Tb + 1, Wm)`` (yu §II.A) and ``rtt = RTT0 + 2·Tb`` (yu eq. 27).
    """

    __slots__ = ("b", "lam", "p", "rto", "rtt", "rtt0", "s", "tb", "wm")

    p: Array
    tb: Array
    lam: Array
    wm: Array
    rtt0: Array
    rto: Array
    b: Array
    s: Array
    rtt: Array

    def __init__(
        self,
        p: npt.ArrayLike,
        tb: npt.ArrayLike,
        lam: npt.ArrayLike,
        wm: npt.ArrayLike,
        rtt0: npt.ArrayLike,
        rto: npt.ArrayLike | None = None,
        b: npt.ArrayLike = 1,
    ) -> None:
        from .._validate import check_b

        parts = [
            check_probability("p", p),
            check_nonnegative("tb", tb, "s"),
            check_positive("lam", lam, "segments/s"),
            check_at_least_one("wm", wm),
            check_positive("rtt0", rtt0, "s"),
            check_positive("rto", rto, "s") if rto is not None else np.float64(np.nan),
            check_b(b),
        ]
        try:
            bc: list[Array] = [
                np.asarray(x, dtype=np.float64)
                for x in np.broadcast_arrays(
                    *[np.asarray(x, dtype=np.float64) for x in parts]
                )
            ]
        except ValueError as exc:
            raise ValueError(
                f"parameter arrays have incompatible shapes: {exc}"
            ) from exc
        self.p, self.tb, self.lam, self.wm, self.rtt0, self.rto, self.b = bc
        self.s = _burst_segments(self.lam, self.tb, self.wm)
        self.rtt = self.rtt0 + 2.0 * self.tb
