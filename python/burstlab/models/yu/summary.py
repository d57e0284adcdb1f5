"""One-call evaluation of a TCP variant with the quantities behind its throughput.

Used by the ``burstlab model throughput`` command; handy in notebooks too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .._validate import FloatOrArray, finish
from . import reno as _reno
from . import sack as _sack
from .common import Params, _timeout_ratio
from .newreno import _eq34

VARIANTS = ("sack", "newreno", "reno")


@dataclass(frozen=True)
class ThroughputBreakdown:
    """Throughput of one variant and how it was obtained (all fields broadcast together).

    Attributes
    ----------
    variant : "sack", "newreno" or "reno".
    s : segments per burst, ``S = min(λ·Tb + 1, Wm)``.
    rtt : ``RTT0 + 2·Tb``, seconds.
    expected_window : the variant's unconstrained ``E[W_X]``, segments (eq. 10
        for SACK/NewReno, eq. 41 for Reno).
    saturated : True where ``E[W_X] >= Wm`` or ``S = Wm`` (then eq. 28 is used).
    timeout_ratio : TO/TD ratio ``Q`` the formula uses: ``Q(min(E[W_X], Wm))``
        of yu eq. 25 for SACK and saturated regimes, 1 for Reno's TD+TO case
        (eq. 53: every TDP ends in a timeout), and for the small-``p`` eqs. 34
        and 52 (which ignore timeouts) the eq. 25 value for information.
    equation : the yu equation used, per element ("26", "28", "34", "52", "53").
    throughput : segments/s.
    """

    variant: str
    s: FloatOrArray
    rtt: FloatOrArray
    expected_window: FloatOrArray
    saturated: npt.NDArray[np.bool_]
    timeout_ratio: FloatOrArray
    equation: npt.NDArray[np.str_]
    throughput: FloatOrArray


def evaluate(
    variant: str,
    p: npt.ArrayLike,
    tb: npt.ArrayLike,
    *,
    lam: npt.ArrayLike,
    wm: npt.ArrayLike,
    rtt0: npt.ArrayLike,
    rto: npt.ArrayLike,
    b: npt.ArrayLike = 1,
) -> ThroughputBreakdown:
    """Evaluate ``variant`` ("sack", "newreno" or "reno") and explain the result.

    Same parameters and units as :func:`burstlab.models.sack_throughput`.
    """
    if variant not in VARIANTS:
        raise ValueError(
            f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}"
        )
    q = Params(p, tb, lam, wm, rtt0, rto, b)
    sat_b = _sack._saturated(q)
    if variant == "reno":
        ew = _reno._expected_window(q.p, q.s, q.b)
        sat = (ew >= q.wm) | (q.s >= q.wm)
        td = _reno._td_only(q)
        unsat_b = _reno._unsaturated(q)
        unsat_eq = np.where(td, "52", "53")
        q_unsat = np.where(td, _timeout_ratio(ew, q.s, q.p), 1.0)
    else:
        ew = _sack._expected_window(q.p, q.s, q.b)
        sat = (ew >= q.wm) | (q.s >= q.wm)
        if variant == "sack":
            unsat_b = _sack._unsaturated(q)
            unsat_eq = np.full(q.p.shape, "26")
        else:
            unsat_b = _eq34(q)
            unsat_eq = np.full(q.p.shape, "34")
        q_unsat = _timeout_ratio(ew, q.s, q.p)
    q_sat = _timeout_ratio(q.wm, q.s, q.p)
    return ThroughputBreakdown(
        variant=variant,
        s=finish(q.s),
        rtt=finish(q.rtt),
        expected_window=finish(ew),
        saturated=np.asarray(sat),
        timeout_ratio=finish(np.where(sat, q_sat, q_unsat)),
        equation=np.asarray(np.where(sat, "28", unsat_eq)),
        throughput=finish(np.where(sat, sat_b, unsat_b)),
    )


def throughput(
    variant: str,
    p: npt.ArrayLike,
    tb: npt.ArrayLike,
    *,
    lam: npt.ArrayLike,
    wm: npt.ArrayLike,
    rtt0: npt.ArrayLike,
    rto: npt.ArrayLike,
    b: npt.ArrayLike = 1,
) -> FloatOrArray:
    """Throughput in segments/s of ``variant`` ("sack", "newreno", "reno"); see :func:`evaluate`."""
    return evaluate(variant, p, tb, lam=lam, wm=wm, rtt0=rtt0, rto=rto, b=b).throughput
