"""Optimal burst assembly time and the throughput it gives: yu §III.A.4, eqs. 30–33.

Read first: yu §III.A.4. Larger ``Tb`` puts more segments in a burst (the
delayed-first-loss gain, ``sqrt(S)``) but lengthens ``RTT = RTT0 + 2·Tb``
(the delay penalty); the optimum balances them. The derivations take
``S ≈ λ·Tb`` (i.e. ``S − 1 ≈ S``) and assume ``1 < S < Wm``; check the
resulting ``S = min(λ·Tb + 1, Wm)`` before trusting an answer.

Units: times in seconds, λ in segments/s, ``Wm`` in segments, throughput in
segments/s.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

from .._validate import (
    Array,
    FloatOrArray,
    check_at_least_one,
    check_b,
    check_positive,
    check_probability,
    finish,
)

Form = Literal["printed", "derived"]


def _form(form: str) -> None:
    if form not in ("printed", "derived"):
        raise ValueError(f"form must be 'printed' or 'derived', got {form!r}")


def optimal_tb_unsaturated(rtt0: npt.ArrayLike) -> FloatOrArray:
    """``Tb_opt = RTT0 / 2`` seconds (yu eq. 30), maximising eq. 27 when ``W_X < Wm``.

    ``rtt0`` > 0 s. Independent of ``p``, λ and ``b``; meaningful only if
    ``λ·RTT0/2 + 1 < Wm``.
    """
    return finish(check_positive("rtt0", rtt0, "s") / 2.0)


def optimal_throughput_unsaturated(
    p: npt.ArrayLike, *, lam: npt.ArrayLike, rtt0: npt.ArrayLike, b: npt.ArrayLike = 1
) -> FloatOrArray:
    """``B_m = sqrt(3·λ·RTT0/(b·p)) / (4·RTT0)`` segments/s (yu eq. 31), eq. 27 at ``Tb = RTT0/2``.

    ``p`` in (0, 1), ``lam`` > 0 segments/s, ``rtt0`` > 0 s, ``b`` ∈ {1, 2}.
    """
    p_a = check_probability("p", p)
    lam_a = check_positive("lam", lam, "segments/s")
    rtt0_a = check_positive("rtt0", rtt0, "s")
    b_a = check_b(b)
    return finish(np.sqrt(3.0 * lam_a * rtt0_a / (b_a * p_a)) / (4.0 * rtt0_a))


def _sat_args(
    p: npt.ArrayLike, lam: npt.ArrayLike, wm: npt.ArrayLike, rtt0: npt.ArrayLike
) -> tuple[Array, Array, Array, Array]:
    return (
        check_probability("p", p),
        check_positive("lam", lam, "segments/s"),
        check_at_least_one("wm", wm),
        check_positive("rtt0", rtt0, "s"),
    )


def optimal_tb_saturated(
    p: npt.ArrayLike,
    *,
    lam: npt.ArrayLike,
    wm: npt.ArrayLike,
    rtt0: npt.ArrayLike,
    form: Form = "printed",
) -> FloatOrArray:
    """Optimal assembly time when the window saturates at ``Wm`` (yu eq. 32), seconds.

    ``form="printed"`` (default) is eq. 32 exactly as printed::

        Tb_opt = sqrt(p·Wm/(2λ) · (RTT0 + Wm/8 + 3/2))

    which *adds* ``RTT0`` (seconds) to ``Wm/8 + 3/2`` (rounds, a segment-count
    quantity): the printed equation mixes units, and its value depends on
    the time unit. With ``p = 0.01, Wm = 50, λ = 125 000 segments/s,
    RTT0 = 0.135 s`` it gives 3.97 ms (yu §V.A quotes ≈ 4 ms).

    ``form="derived"`` maximises eq. 28's small-``p`` form
    ``(S/p) / ((RTT0 + 2S/λ)(S/(p·Wm) + Wm/8 + 3/2))`` over ``S`` instead,
    which gives the dimensionally consistent product
    ``Tb_opt = sqrt(p·Wm·RTT0·(Wm/8 + 3/2)/(2λ))`` (1.45 ms for the numbers above).

    Either way the answer only holds if ``S = λ·Tb_opt + 1 < Wm``; for large λ
    it often is not, and the true optimum is then at ``S = Wm``.
    ``p`` in (0, 1), ``lam`` > 0 segments/s, ``wm`` >= 1 segments, ``rtt0`` > 0 s.
    """
    _form(form)
    p_a, lam_a, wm_a, rtt0_a = _sat_args(p, lam, wm, rtt0)
    rounds = wm_a / 8.0 + 1.5
    if form == "printed":
        return finish(np.sqrt(p_a * wm_a / (2.0 * lam_a) * (rtt0_a + rounds)))
    return finish(np.sqrt(p_a * wm_a * rtt0_a * rounds / (2.0 * lam_a)))


def optimal_throughput_saturated(
    p: npt.ArrayLike,
    *,
    lam: npt.ArrayLike,
    wm: npt.ArrayLike,
    rtt0: npt.ArrayLike,
    form: Form = "printed",
) -> FloatOrArray:
    """Throughput at the saturated-regime optimum (yu eq. 33), segments/s.

    ``form="printed"`` (default) is eq. 33 as printed::

        B_m = 1 / (p(Wm+12)/(4λ) + RTT0·p/Wm + sqrt(8p(RTT0 + Wm/8 + 3/2)/(λ·Wm)))

    It inherits eq. 32's unit mix and carries a stray ``p`` on ``RTT0/Wm``, so
    it can exceed ``Wm/RTT0``; treat it as the paper's number, not a bound.

    ``form="derived"`` evaluates the same small-``p`` eq. 28 at its optimum::

        B_m = 1 / (p(Wm+12)/(4λ) + RTT0/Wm + sqrt(8p·RTT0·(Wm/8 + 3/2)/(λ·Wm)))

    which never exceeds ``Wm/RTT0``.
    """
    _form(form)
    p_a, lam_a, wm_a, rtt0_a = _sat_args(p, lam, wm, rtt0)
    rounds = wm_a / 8.0 + 1.5
    first = p_a * (wm_a + 12.0) / (4.0 * lam_a)
    if form == "printed":
        den = (
            first
            + rtt0_a * p_a / wm_a
            + np.sqrt(8.0 * p_a * (rtt0_a + rounds) / (lam_a * wm_a))
        )
    else:
        den = (
            first
            + rtt0_a / wm_a
            + np.sqrt(8.0 * p_a * rtt0_a * rounds / (lam_a * wm_a))
        )
    return finish(1.0 / den)


__all__ = [
    "optimal_tb_saturated",
    "optimal_tb_unsaturated",
    "optimal_throughput_saturated",
    "optimal_throughput_unsaturated",
]
