"""Throughput gains and penalties of TCP over OBS: yu §IV, eqs. 55–61.

Read first: yu §IV. All ratios are dimensionless and > 0; a penalty ratio
above 1 means a loss of throughput, the DFL gain above 1 a gain. Arguments
follow the throughput models: ``tb``, ``rtt0``, ``rto`` in seconds, ``lam`` (λ)
in segments/s, ``wm`` in segments, ``p`` in (0, 1), ``b`` ∈ {1, 2};
``S = min(λ·Tb + 1, Wm)`` and ``RTT = RTT0 + 2·Tb``.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .._validate import FloatOrArray, check_nonnegative, check_positive, finish
from .common import Params


def loss_penalty_ratio(
    p: npt.ArrayLike,
    tb: npt.ArrayLike,
    *,
    lam: npt.ArrayLike,
    wm: npt.ArrayLike,
    b: npt.ArrayLike = 1,
) -> FloatOrArray:
    """Loss penalty ratio ``B(no loss)/B(p) ≈ Wm·sqrt(2bp/(3S))`` (yu eq. 55), small ``p``.

    Ratio of eq. 29 (``Wm/RTT``) to the leading term of eq. 27.
    """
    q = Params(p, tb, lam, wm, 1.0, None, b)
    return finish(q.wm * np.sqrt(2.0 * q.b * q.p / (3.0 * q.s)))


def delay_penalty_ratio(tb: npt.ArrayLike, *, rtt0: npt.ArrayLike) -> FloatOrArray:
    """Delay penalty ratio ``(RTT0 + 2·Tb)/RTT0`` (yu eq. 56); ``tb`` >= 0 s, ``rtt0`` > 0 s."""
    tb_a = check_nonnegative("tb", tb, "s")
    rtt0_a = check_positive("rtt0", rtt0, "s")
    return finish((rtt0_a + 2.0 * tb_a) / rtt0_a)


def retransmission_penalty_newreno(
    p: npt.ArrayLike,
    tb: npt.ArrayLike,
    *,
    lam: npt.ArrayLike,
    wm: npt.ArrayLike,
    b: npt.ArrayLike = 1,
    approximate: bool = False,
) -> FloatOrArray:
    """NewReno retransmission penalty ratio (yu eq. 57): eq. 27 over eq. 34.

    Exact ratio (default)::

        RPR = (sqrt(2bS/(3p)) + S) / (sqrt(2bS/(3p)) + 1) = 1 + (S − 1)/(sqrt(2bS/(3p)) + 1)

    yu prints the middle term with ``sqrt(2b/(3Sp))``, which does not follow
    from eqs. 27 and 34 nor lead to its own final form; we follow the ratio.
    ``approximate=True`` gives yu's final small-``p``, large-``S`` form
    ``1 + sqrt(3Sp/(2b))``. Equals 1 when ``S = 1``.
    """
    q = Params(p, tb, lam, wm, 1.0, None, b)
    if approximate:
        return finish(1.0 + np.sqrt(3.0 * q.s * q.p / (2.0 * q.b)))
    return finish(1.0 + (q.s - 1.0) / (np.sqrt(2.0 * q.b * q.s / (3.0 * q.p)) + 1.0))


def retransmission_penalty_reno(
    p: npt.ArrayLike,
    tb: npt.ArrayLike,
    *,
    lam: npt.ArrayLike,
    wm: npt.ArrayLike,
    rtt0: npt.ArrayLike,
    rto: npt.ArrayLike,
    b: npt.ArrayLike = 1,
) -> FloatOrArray:
    """Reno retransmission penalty ratio, small ``p`` (yu eqs. 58/59).

    With ``L = log2 sqrt(2S/(bp))`` (log base 2: window halvings):

    * ``L > S`` (TD only, eq. 58): ``sqrt(3)·(1 + sqrt(Sp/(2b)))``
    * ``L <= S`` (TD and TO, eq. 59): ``sqrt(3)·(1 + (RTO/RTT + L)·sqrt(p/(2bS)))``
    """
    q = Params(p, tb, lam, wm, rtt0, rto, b)
    big_l = np.log2(np.sqrt(2.0 * q.s / (q.b * q.p)))
    eq58 = np.sqrt(3.0) * (1.0 + np.sqrt(q.s * q.p / (2.0 * q.b)))
    eq59 = np.sqrt(3.0) * (
        1.0 + (q.rto / q.rtt + big_l) * np.sqrt(q.p / (2.0 * q.b * q.s))
    )
    return finish(np.where(big_l > q.s, eq58, eq59))


def dfl_gain_ratio(
    tb: npt.ArrayLike, *, lam: npt.ArrayLike, wm: npt.ArrayLike
) -> FloatOrArray:
    """Delayed-first-loss gain ratio ``sqrt(S)`` (yu eq. 61), for a fixed small ``p``.

    Eq. 27 over eq. 60 with the RTT difference ignored; ``S = min(λ·Tb + 1, Wm)``.
    """
    q = Params(0.5, tb, lam, wm, 1.0)
    return finish(np.sqrt(q.s))
