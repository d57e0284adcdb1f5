"""Settled measurements: warm-up detection, batch-means intervals, run-length control.

Read first: :func:`mser`, then :func:`batch_means`, then :func:`settle` (what a
reproduction calls on one run's time series) and :func:`run_length_control` (the
sequential loop: rerun with a doubled duration until the precision or the cap).

A simulated quantity a claim uses should be the steady-state mean of the run, not the
mean of its start-up transient. Three steps give it:

1. **Warm-up**: MSER-5 (White 1997, "An effective truncation heuristic for bias
   reduction in simulation output", *Simulation* 69(6):323–334; evaluated against four
   other rules by White, Cobb & Spratt 2000, "A comparison of five steady-state
   truncation heuristics for simulation", Proc. Winter Simulation Conference, 755–760).
   The series is cut into batches of 5 observations; the truncation point is the ``d``
   that minimises the marginal standard error ``MSER(d) = Σ_{j>d} (Z_j − Z̄_d)² /
   (k − d)²`` of the batch means ``Z_j`` kept, searched over the first half of the
   series. A minimum in the last searched batches means the series is still drifting:
   the run has not settled and says so.
2. **Precision**: non-overlapping batch means over the truncated series (Schmeiser 1982,
   "Batch size effects in the analysis of simulation output", *Operations Research*
   30(3):556–568, recommends 10–30 batches): the mean, and a Student-t interval with
   ``batches − 1`` degrees of freedom.
3. **Run length**: sequential control in the spirit of Akaroa2 (Ewing, Pawlikowski &
   McNickle 1999, "Akaroa2: exploiting network computing by distributing stochastic
   simulation", Proc. ESM): run, measure, and if the interval's relative half-width is
   above the target, run again twice as long, up to a cap. burstlab runs are
   deterministic, so a run of ``2T`` with the same seed extends the run of ``T``
   (:func:`run_length_control` reruns rather than continues).

A run that reaches its cap without settling returns ``settled=False``; a claim built on it
is "not comparable", never "differs".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

#: MSER-5's batch size (White, Cobb & Spratt 2000).
MSER_BATCH = 5
#: Batches of the batch-means interval (Schmeiser 1982: 10 to 30).
BATCHES = 10
#: Default target: 95 % interval half-width at most 10 % of the mean.
REL_PRECISION = 0.10


@dataclass(frozen=True)
class Mser:
    """MSER-5's answer for one series.

    Attributes:
        truncate: observations to discard from the start (a multiple of the batch size).
        statistic: ``MSER(d)`` at the minimum.
        reliable: False when the minimum lies in the last tenth of the searched range
            (the first half of the series): the series is still drifting at its end, so
            no truncation inside the run can remove the transient.

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> y = np.concatenate([np.linspace(0, 100, 50), 100 + rng.normal(0, 5, 450)])
    >>> mser(y).truncate, mser(y).reliable     # the 50-sample ramp is the warm-up
    (50, True)
    """

    truncate: int
    statistic: float
    reliable: bool


def mser(y: Sequence[float] | np.ndarray, batch: int = MSER_BATCH) -> Mser:
    """MSER-``batch`` truncation point of ``y`` (White 1997; MSER-5 for ``batch = 5``).

    Raises ValueError for fewer than ``4 * batch`` observations (too short to search).

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> y = np.concatenate([np.linspace(0, 100, 50), 100 + rng.normal(0, 5, 450)])
    >>> m = mser(y)
    >>> m.truncate, m.reliable, round(m.statistic, 4)
    (50, True, 0.0324)
    """
    x = np.asarray(y, dtype=float)
    if batch < 1:
        raise ValueError(f"batch: must be at least 1, got {batch}")
    k = len(x) // batch
    if k < 4:
        raise ValueError(f"series: MSER-{batch} needs at least {4 * batch} observations, "
                         f"got {len(x)}")
    if not np.all(np.isfinite(x)):
        raise ValueError("series: every observation must be finite")
    z = x[: k * batch].reshape(k, batch).mean(axis=1)
    # Suffix sums give every d's mean and sum of squares in one pass.
    n_keep = np.arange(k, 0, -1, dtype=float)  # k − d for d = 0 … k−1
    s1 = np.cumsum(z[::-1])[::-1]
    s2 = np.cumsum((z * z)[::-1])[::-1]
    sse = np.maximum(s2 - s1 * s1 / n_keep, 0.0)
    stat = sse / (n_keep * n_keep)
    d_max = k // 2  # White 1997: search the first half only
    d = int(np.argmin(stat[: d_max + 1]))
    reliable = d < max(1, d_max - max(1, d_max // 10))
    return Mser(truncate=d * batch, statistic=float(stat[d]), reliable=bool(reliable))


@dataclass(frozen=True)
class BatchMeans:
    """Mean of a series with its batch-means 95 % interval.

    Attributes:
        mean: the mean of the observations used (``batches × size`` of them).
        lo, hi: the 95 % Student-t interval.
        batches, size: number of batches and observations per batch.

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> y = np.concatenate([np.linspace(0, 100, 50), 100 + rng.normal(0, 5, 450)])
    >>> b = batch_means(y[50:])
    >>> round(b.mean, 2), round(b.half_width, 3), round(b.rel_half_width, 4), b.size
    (99.69, 0.432, 0.0043, 45)
    """

    mean: float
    lo: float
    hi: float
    batches: int
    size: int

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2

    @property
    def rel_half_width(self) -> float:
        """Half-width over ``|mean|`` (infinite for a zero mean)."""
        return self.half_width / abs(self.mean) if self.mean != 0 else math.inf


def batch_means(y: Sequence[float] | np.ndarray, batches: int = BATCHES,
                level: float = 0.95) -> BatchMeans:
    """Non-overlapping batch means of ``y``: ``batches`` batches of equal size (the
    last ``len(y) mod batches`` observations are left out, so every batch weighs the
    same). Raises ValueError with fewer than 2 batches or fewer observations than
    batches.

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> y = np.concatenate([np.linspace(0, 100, 50), 100 + rng.normal(0, 5, 450)])
    >>> b = batch_means(y[50:], batches=10)
    >>> round(b.mean, 2), round(b.lo, 2), round(b.hi, 2), b.batches, b.size
    (99.69, 99.26, 100.12, 10, 45)
    """
    from scipy import stats

    x = np.asarray(y, dtype=float)
    if batches < 2:
        raise ValueError(f"batches: must be at least 2, got {batches}")
    size = len(x) // batches
    if size < 1:
        raise ValueError(f"series: {batches} batches need at least {batches} observations, "
                         f"got {len(x)}")
    z = x[len(x) - size * batches:].reshape(batches, size).mean(axis=1)
    m = float(z.mean())
    h = float(stats.t.ppf(0.5 + level / 2, batches - 1) * z.std(ddof=1) / math.sqrt(batches))
    return BatchMeans(mean=m, lo=m - h, hi=m + h, batches=batches, size=size)


@dataclass(frozen=True)
class Settled:
    """One run's time series, measured after its warm-up.

    Attributes:
        settled: the warm-up was found (MSER reliable) and the interval's relative
            half-width is within ``rel_precision``.
        stationary: the warm-up was found (the series is not drifting at its end); a
            stationary run that misses the precision has a usable mean with a wide
            interval, a non-stationary one has no steady-state mean at all.
        reason: why not, in words (empty when settled).
        warmup_s: the detected warm-up (the time of the first observation kept).
        duration_s: the end of the series (the run's length).
        mean, lo, hi: the batch-means mean and 95 % interval after the warm-up.
        rel_half_width: half-width over the mean.

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> y = np.concatenate([np.linspace(0, 100, 50), 100 + rng.normal(0, 5, 450)])
    >>> s = settle(np.arange(1.0, 501.0), y)      # one value per second
    >>> s.settled, s.warmup_s, round(s.mean, 2), s.reason
    (True, 50.0, 99.69, '')
    """

    settled: bool
    stationary: bool
    reason: str
    warmup_s: float
    duration_s: float
    mean: float
    lo: float
    hi: float
    rel_half_width: float


def settle(times: Sequence[float] | np.ndarray, values: Sequence[float] | np.ndarray, *,
           rel_precision: float = REL_PRECISION, batches: int = BATCHES,
           mser_batch: int = MSER_BATCH) -> Settled:
    """``values[i]`` observed over the interval ending at ``times[i]`` (equal intervals,
    e.g. goodput per second): MSER warm-up, then batch means over the rest.

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> y = np.concatenate([np.linspace(0, 100, 50), 100 + rng.normal(0, 5, 450)])
    >>> s = settle(np.arange(1.0, 501.0), y)
    >>> s.settled, s.stationary, s.warmup_s, round(s.rel_half_width, 4)
    (True, True, 50.0, 0.0043)
    """
    t = np.asarray(times, dtype=float)
    v = np.asarray(values, dtype=float)
    if len(t) != len(v):
        raise ValueError(f"times and values: lengths differ ({len(t)} and {len(v)})")
    end = float(t[-1]) if len(t) else 0.0
    if len(v) < max(4 * mser_batch, 2 * batches):
        return Settled(False, False, f"only {len(v)} observations", math.nan, end,
                       math.nan, math.nan, math.nan, math.inf)
    m = mser(v, mser_batch)
    dt = float(t[1] - t[0]) if len(t) > 1 else 0.0
    warm = float(t[m.truncate] - dt) if m.truncate < len(t) else end
    kept = v[m.truncate:]
    if len(kept) < batches:
        return Settled(False, False, "too few observations after the warm-up", warm, end,
                       math.nan, math.nan, math.nan, math.inf)
    bm = batch_means(kept, batches)
    rel = bm.rel_half_width
    why = []
    if not m.reliable:
        why.append(f"no warm-up found (MSER-{mser_batch} minimum at the end of its search, "
                   f"{warm:g} s of {end:g} s): still drifting")
    if not rel <= rel_precision:
        why.append(f"95 % half-width {100 * rel:.1f} % of the mean > "
                   f"{100 * rel_precision:g} %")
    return Settled(not why, m.reliable, "; ".join(why), warm, end, bm.mean, bm.lo, bm.hi,
                   rel)


@dataclass
class RunLength:
    """What :func:`run_length_control` did.

    Attributes:
        result: the last run's :class:`Settled`.
        durations_s: every duration run, in order.
        stopped: ``"precision"`` (settled) or ``"cap"`` (the next doubling would pass
            the cap; ``result.settled`` is False).

    >>> import numpy as np
    >>> def measure(duration_s):   # a 50 s ramp, then noise around 100
    ...     t = np.arange(1.0, duration_s + 1)
    ...     noise = np.random.default_rng(int(duration_s)).normal(0, 5, len(t))
    ...     return t, np.minimum(2 * t, 100) + noise
    >>> rl = run_length_control(measure, start_s=100, cap_s=1600)
    >>> rl.durations_s, rl.stopped, rl.result.settled
    ([100.0, 200.0], 'precision', True)
    """

    result: Settled
    durations_s: list[float] = field(default_factory=list)
    stopped: str = ""


def run_length_control(measure: Callable[[float], tuple[np.ndarray, np.ndarray]], *,
                       start_s: float, cap_s: float,
                       rel_precision: float = REL_PRECISION,
                       batches: int = BATCHES) -> RunLength:
    """Runs ``measure(duration)`` (returning the run's ``(times, values)``) for
    ``start_s``, ``2 start_s``, … until :func:`settle` says settled, or until doubling
    would exceed ``cap_s`` (then the last run is at most ``cap_s`` long and the answer
    says ``stopped="cap"``).

    >>> import numpy as np
    >>> def measure(duration_s):   # a 50 s ramp, then noise around 100
    ...     t = np.arange(1.0, duration_s + 1)
    ...     noise = np.random.default_rng(int(duration_s)).normal(0, 5, len(t))
    ...     return t, np.minimum(2 * t, 100) + noise
    >>> run_length_control(measure, start_s=100, cap_s=1600).durations_s
    [100.0, 200.0]
    >>> def drifting(duration_s):  # grows for ever: never settles
    ...     t = np.arange(1.0, duration_s + 1)
    ...     return t, t
    >>> rl = run_length_control(drifting, start_s=100, cap_s=800)
    >>> rl.durations_s, rl.stopped, rl.result.stationary
    ([100.0, 200.0, 400.0, 800.0], 'cap', False)
    """
    if not 0 < start_s <= cap_s:
        raise ValueError(f"start_s, cap_s: need 0 < start_s <= cap_s, got {start_s}, {cap_s}")
    out = RunLength(result=Settled(False, False, "not run", math.nan, 0.0, math.nan,
                                   math.nan, math.nan, math.inf))
    d = float(start_s)
    while True:
        t, v = measure(d)
        out.durations_s.append(d)
        out.result = settle(t, v, rel_precision=rel_precision, batches=batches)
        if out.result.settled:
            out.stopped = "precision"
            return out
        if d >= cap_s:
            out.stopped = "cap"
            return out
        d = min(2 * d, float(cap_s))


def goodput_series(times_s: np.ndarray, delivered: np.ndarray,
                   bits_per_unit: float) -> tuple[np.ndarray, np.ndarray]:
    """A cumulative counter sampled at ``times_s`` (``sim.trace.goodput``'s
    ``delivered_segments``) as a rate per interval: ``(interval end times, rate in
    bits/s)``, the first interval starting at 0.

    >>> import numpy as np
    >>> goodput_series(np.array([1.0, 2.0, 3.0]), np.array([100, 250, 400]), 8000.0)
    (array([1., 2., 3.]), array([ 800000., 1200000., 1200000.]))
    """
    t = np.concatenate([[0.0], np.asarray(times_s, float)])
    c = np.concatenate([[0.0], np.asarray(delivered, float)])
    dt = np.diff(t)
    if np.any(dt <= 0):
        raise ValueError("times_s: must increase")
    return t[1:], np.diff(c) * bits_per_unit / dt
