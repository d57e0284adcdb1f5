"""TCP NewReno over OBS: yu §III.B, eq. 34.

Read first: yu §III.B and fig. 2. NewReno retransmits one segment of a lost
burst per partial ACK, so a TDP gains ``S`` extra rounds over SACK.

Units: throughput in segments/s; times in seconds; λ in segments/s; windows in
segments. ``RTT = RTT0 + 2·Tb`` and ``S = min(λ·Tb + 1, Wm)``.

Regime rule (ours): NewReno's window between losses evolves as SACK's (yu
§III.B: "the total packets transmitted in a TDP is the same as SACK"), so the
window is saturated when SACK's ``E[W_X]`` (eq. 10) ``>= Wm`` or ``S = Wm``. In that regime
yu says NewReno equals eq. 29; we use eq. 28, whose small-``p`` limit is
eq. 29 and which keeps the three variants identical once ``S = Wm`` (yu fig. 11).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .._validate import Array, FloatOrArray, finish
from .common import Params
from .sack import _is_saturated, _saturated


def _eq34(q: Params) -> Array:
    return (q.s / q.p) / (q.rtt * (np.sqrt(2.0 * q.b * q.s / (3.0 * q.p)) + q.s))


def newreno_throughput_unsaturated(
    p: npt.ArrayLike,
    tb: npt.ArrayLike,
    *,
    lam: npt.ArrayLike,
    wm: npt.ArrayLike,
    rtt0: npt.ArrayLike,
    b: npt.ArrayLike = 1,
) -> FloatOrArray:
    """NewReno throughput for small ``p``, window below ``Wm`` (yu eq. 34), segments/s.

    ``B = (S/p) / (RTT·(sqrt(2bS/(3p)) + S))``; timeouts are ignored. Equals the
    SACK small-``p`` form (eq. 27) when ``S = 1``.
    """
    return finish(_eq34(Params(p, tb, lam, wm, rtt0, None, b)))


def newreno_throughput(
    p: npt.ArrayLike,
    tb: npt.ArrayLike,
    *,
    lam: npt.ArrayLike,
    wm: npt.ArrayLike,
    rtt0: npt.ArrayLike,
    rto: npt.ArrayLike,
    b: npt.ArrayLike = 1,
) -> FloatOrArray:
    """NewReno throughput in segments/s: eq. 28 if SACK's ``E[W_X]`` (eq. 10) ``>= Wm`` or ``S = Wm``, else eq. 34.

    Eq. 34 is a small-``p`` form without timeouts, so for ``p`` well above 0.1
    (or ``S`` close to ``Wm`` at moderate ``p``) the switch from eq. 28 to eq. 34
    can make this non-monotone in ``p``.

    Parameters as :func:`burstlab.models.sack_throughput` (``p`` in (0, 1),
    ``tb`` >= 0 s, ``lam`` > 0 segments/s, ``wm`` >= 1 segments, ``rtt0`` and
    ``rto`` > 0 s, ``b`` ∈ {1, 2}); ``rto`` is only used in the saturated regime.
    """
    q = Params(p, tb, lam, wm, rtt0, rto, b)
    return finish(np.where(_is_saturated(q), _saturated(q), _eq34(q)))
