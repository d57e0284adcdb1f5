"""One verdict rule for every claim of every paper, and intervals that respect ranges.

Read first: :func:`judge` (the rule), then :class:`Interval` and its constructors
(:func:`mean_interval`, :func:`proportion_interval`, :func:`ratio_interval`,
:func:`paired_difference`, :func:`exact`), then :data:`KINDS` (the band of each claim
kind). The rule, the bands and their justification are in ``docs/topics/verdicts.md``.

**Numbers.** A paper value ``v`` gets a band ``[v − t, v + t]`` with
``t = precision + kind band``: ``precision`` is the paper value's own precision
(half a unit of the last printed digit, :func:`printed_precision`, or the stated
uncertainty of a plot reading; ``printed`` or ``precision`` in ``paper.toml``), the kind
band is declared once per claim kind in :data:`KINDS` (relative kinds scale it by
``|v|``; ``log`` kinds compare log10 values). burstlab's value is a 95 %
:class:`Interval` ``[lo, hi]``, possibly cut to its quantity's range. Then:

- no interval (one replication, a point not run) → ``not comparable``;
- the paper value shows an effect (it lies farther than its own precision from the
  kind's no-effect reference: 1 for a ratio, 0 for a change) and burstlab's whole
  interval lies on the other side of the reference → ``differs``, whatever the band;
- the interval meets the band and its *resolution* is no wider than the band
  (:meth:`Interval.resolution` ≤ ``t``: the half-width the same measurement would have
  at the paper's value, before any cut to a range) → ``reproduces``;
- the interval meets the band but its resolution is wider → ``not comparable``
  (agreement is not excluded, and the runs are too short to show it);
- the interval misses the band: ``same direction`` when the paper value shows an effect
  and the whole interval lies on its side of the reference; else ``differs`` (a paper
  value within its precision of the reference, "1.0" for a ratio, claims no effect, so a
  miss is an effect the paper does not have).

Comparisons with the band are made with a tolerance of :data:`ULPS` units in the last
place (:func:`at_most`), so a half-width equal to the band by construction is not
decided by rounding.

The rule is monotone: moving burstlab's value towards the paper's, the same measurement
(same replications and spread; the interval's ends may be cut to the range) never gives
a worse verdict in the order ``differs`` < ``same direction`` < ``not comparable`` <
``reproduces`` (tests/test_verdict.py checks this property over cut Student-t, Wilson
and log-scale intervals).

**Orderings** ("A beats B", "NewReno is best") are decided by paired differences under
common random numbers (:func:`paired_difference`): each claimed difference (positive in
the paper) has a tie margin ``m ≥ 0`` (:data:`TIE` of the compared quantity where a
caller gives one; 0 otherwise). A difference whose interval's top is at most ``m`` is a
*tie or the other way* (an exact 0 is a tie under any margin; a statistical interval
inside ``[−m, m]`` is a tie alike); one whose bottom is above ``m`` is a shown lead.
:func:`judge_order` says ``reproduces`` when every difference is a shown lead,
``differs`` when any is a tie or the other way, ``same direction`` when some but not all
are shown leads and none is against, and ``not comparable`` otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from burstlab.stats import t_ppf

#: Verdict order for monotonicity: a larger rank is a better verdict.
RANK = {"differs": 0, "same direction": 1, "not comparable": 2, "reproduces": 3}

#: The confidence level of every interval of the reproductions.
LEVEL = 0.95

#: Two numbers compared with a band (an interval's end with the band's, a resolution with
#: the band's half-width) are equal when they differ by at most this many units in the
#: last place of the larger: a half-width equal to the band by construction (0.1 + 0.005
#: against (hi − lo)/2) is then not decided by floating point.
ULPS = 64

#: The tie margin of an ordering claim, as a fraction of the compared quantity: the ratio
#: kind's band (5 %), the smallest difference the papers treat as an effect (yu §V.B.3
#: calls variants within a few per cent "similar performance").
TIE = 0.05


def at_most(a: float, b: float) -> bool:
    """``a ≤ b`` up to :data:`ULPS` units in the last place of the larger magnitude.

    >>> at_most(1.0, 1.0 + 1e-16), at_most(1.1, 1.0)
    (True, False)
    """
    if a <= b:
        return True
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    return a - b <= ULPS * math.ulp(max(abs(a), abs(b)))


def printed_precision(text: str) -> float:
    """Half a unit of the last printed digit of a number as the paper prints it:
    ``"1.0"`` → 0.05, ``"1.29"`` → 0.005, ``"82"`` → 0.5, ``"2.2e9"`` → 0.05e9. The
    digits decide, not the value: a table printing ``1.0`` beside ``1.07`` gives the
    first ±0.05 and the second ±0.005.

    >>> printed_precision("1.0"), printed_precision("1.29"), printed_precision("82")
    (0.05, 0.005, 0.5)
    """
    t = text.strip().replace("−", "-").lstrip("+-")
    mant, _, exp = t.lower().partition("e")
    try:
        float(mant)
        e = int(exp) if exp else 0
    except ValueError:
        raise ValueError(f"a printed number must be digits with an optional decimal "
                         f"point and exponent, got {text!r}") from None
    decimals = len(mant.partition(".")[2])
    return 0.5 * 10.0 ** (e - decimals)


# ---------------------------------------------------------------------------------------
# Intervals.


@dataclass(frozen=True)
class Interval:
    """burstlab's estimate of one quantity with its two-sided interval.

    Attributes:
        estimate: the point estimate (a mean, a proportion, a ratio …).
        lo, hi: the interval's ends (NaN when there is none: one replication).
        n: replications (or trials) behind it.
        method: how the interval was made (``t``, ``wilson``, ``clopper-pearson``,
            ``delta-log``, ``paired-t``, ``exact``, ``none``).
        level: its confidence level.
        scale: how the interval's width depends on where it lies, for
            :meth:`resolution`: ``add`` (a half-width ``spread`` wherever it lies: a
            Student-t interval before its cut), ``log`` (``x − pivot`` known to a factor
            ``e^±spread``: a delta-method ratio), ``binomial`` (a Wilson interval of
            ``n`` trials), or ``""`` (its own ends decide).
        spread: the half-width before any cut (``add``) or on the log scale (``log``).
        pivot: for ``log``, the value the interval shrinks towards (0 for a ratio,
            −1 for a gain ``ratio − 1``).

    >>> i = mean_interval([10.0, 12.0, 11.0, 13.0])
    >>> i.estimate, i.text(), i.method, i.n
    (11.5, '[9.45, 13.6]', 't', 4)
    >>> i.defined, round(i.half_width, 3), i.contains(12.0), i.scaled(1000).text()
    (True, 2.054, True, '[9.45e+03, 1.36e+04]')
    """

    estimate: float
    lo: float
    hi: float
    n: int
    method: str
    level: float = LEVEL
    scale: str = ""
    spread: float = math.nan
    pivot: float = 0.0

    @property
    def defined(self) -> bool:
        """True when the interval exists (neither end NaN; an end may be infinite)."""
        return not (math.isnan(self.lo) or math.isnan(self.hi))

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2.0 if self.defined else math.nan

    def contains(self, x: float) -> bool:
        return self.defined and self.lo <= x <= self.hi

    def resolution(self, x: float) -> float:
        """The half-width this measurement would have if its estimate were ``x``, before
        any cut to a range: what decides whether it can tell ``x`` from a value a band
        away. It does not move with the estimate (``add``: the Student-t half-width; a
        cut end does not make the runs more precise), or it follows ``x`` as the
        measurement's own width does (``log``: ``|x − pivot| · sinh(spread)``;
        ``binomial``: Wilson's half-width at the proportion ``x`` with the same ``n``),
        so a verdict that uses it is monotone in the estimate. Without a scale, the
        interval's own half-width."""
        if not self.defined:
            return math.nan
        if self.scale == "add" and math.isfinite(self.spread):
            return self.spread
        if self.scale == "log" and math.isfinite(self.spread):
            return abs(x - self.pivot) * math.sinh(self.spread)
        if self.scale == "binomial" and self.n > 0:
            return wilson_half_width(min(max(x, 0.0), 1.0), self.n, self.level)
        return self.half_width

    def scaled(self, factor: float, offset: float = 0.0) -> Interval:
        """``factor · x + offset`` applied to estimate and ends (``factor`` > 0)."""
        if factor <= 0:
            raise ValueError(f"factor must be positive, got {factor}")
        scale, spread, pivot = self.scale, self.spread, factor * self.pivot + offset
        if scale == "add":
            spread = factor * spread
        elif scale == "binomial" and (factor, offset) != (1.0, 0.0):
            scale, spread = "", math.nan  # no longer a proportion of n trials
        return Interval(factor * self.estimate + offset, factor * self.lo + offset,
                        factor * self.hi + offset, self.n, self.method, self.level,
                        scale, spread, pivot)

    def complement(self) -> Interval:
        """``1 − x`` (a drop from a ratio), ends swapped."""
        return Interval(1.0 - self.estimate, 1.0 - self.hi, 1.0 - self.lo, self.n,
                        self.method, self.level, self.scale, self.spread,
                        1.0 - self.pivot)

    def text(self, fmt: Any = None) -> str:
        """``[lo, hi]`` formatted with ``fmt`` (default 3 significant digits), or ``""``
        when there is no interval."""
        if not self.defined:
            return ""
        f = fmt or (lambda x: f"{x:.3g}")

        def g(x: float) -> str:
            return ("∞" if x > 0 else "−∞") if math.isinf(x) else str(f(x))
        return f"[{g(self.lo)}, {g(self.hi)}]"


def none(estimate: float = math.nan, n: int = 0) -> Interval:
    """An estimate without an interval (one replication): never judged.

    >>> none(3.0, n=1).defined, none(3.0, n=1).text()
    (False, '')
    """
    return Interval(float(estimate), math.nan, math.nan, n, "none")


def exact(value: float) -> Interval:
    """A value without sampling noise (a model evaluated at given parameters, a
    deterministic count): its interval is the value itself.

    >>> exact(2.0).text(), exact(2.0).method
    ('[2, 2]', 'exact')
    """
    v = float(value)
    return Interval(v, v, v, 1, "exact", LEVEL, "add", 0.0) if math.isfinite(v) else none(v)


def wilson_half_width(p: float, n: int, level: float = LEVEL) -> float:
    """The half-width of Wilson's (1927) score interval for a proportion ``p`` of ``n``
    trials: ``z/(1 + z²/n) · sqrt(p(1 − p)/n + z²/(4n²))``.

    >>> round(wilson_half_width(0.1, 100), 4)
    0.0596
    """
    z = _z(level)
    return z / (1.0 + z * z / n) * math.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n))


def _z(level: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(0.5 + level / 2.0)


def log_interval(r: float, lo: float, hi: float, n: int, *, method: str = "delta-log",
                 level: float = LEVEL) -> Interval:
    """A positive ratio ``r`` with its interval ``[lo, hi]`` made on the log scale (a
    ratio of a summary's columns): its resolution scales with the value
    (:meth:`Interval.resolution`). Non-finite or non-positive ends: no interval.

    >>> r = log_interval(1.5, 1.2, 1.9, n=5)
    >>> r.text(), r.scale
    ('[1.2, 1.9]', 'log')
    """
    if not (math.isfinite(lo) and math.isfinite(hi) and 0 < lo <= hi):
        return none(r, n)
    return Interval(float(r), float(lo), float(hi), int(n), method, level, "log",
                    math.log(hi / lo) / 2.0, 0.0)


def _bounded(est: float, lo: float, hi: float, lower: float | None,
             upper: float | None) -> tuple[float, float]:
    # Intersecting a confidence set with the parameter space keeps its coverage
    # (Mandelkern 2002, Statistical Science 17(2)).
    if lower is not None:
        lo, hi = max(lo, lower), max(hi, lower)
    if upper is not None:
        lo, hi = min(lo, upper), min(hi, upper)
    return lo, hi


def mean_interval(values: npt.ArrayLike, *, level: float = LEVEL,
                  lower: float | None = None, upper: float | None = None) -> Interval:
    """The mean of ``values`` (NaNs ignored) with its Student-t interval, cut to the
    quantity's range ``[lower, upper]`` (e.g. ``lower=0`` for a goodput: a two-run
    mean never gets an interval below 0). Fewer than two values: no interval.

    >>> mean_interval([10.0, 12.0, 11.0, 13.0]).text()
    '[9.45, 13.6]'
    >>> mean_interval([1.0, 3.0], lower=0).text()      # two runs of a goodput: cut at 0
    '[0, 14.7]'
    """
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    k = len(x)
    if k == 0:
        return none()
    m = float(x.mean())
    if k < 2:
        return none(m, k)
    h = t_ppf(0.5 + level / 2.0, k - 1) * float(x.std(ddof=1)) / math.sqrt(k)
    lo, hi = _bounded(m, m - h, m + h, lower, upper)
    return Interval(m, lo, hi, k, "t", level, "add", h)


def summary_interval(mean: float, lo: float, hi: float, n: int, *,
                     lower: float | None = None, upper: float | None = None) -> Interval:
    """An :class:`Interval` from a sweep summary's ``mean``, ``ci_lo``, ``ci_hi`` and
    ``n`` columns, cut to ``[lower, upper]``.

    >>> summary_interval(11.5, 9.4, 13.6, 4).text()     # goodput_bps_mean, _ci_lo, _ci_hi, n
    '[9.4, 13.6]'
    """
    if not (math.isfinite(lo) and math.isfinite(hi)) or n < 2:
        return none(mean, n)
    h = (hi - lo) / 2.0
    lo, hi = _bounded(mean, lo, hi, lower, upper)
    return Interval(float(mean), lo, hi, int(n), "t", LEVEL, "add", h)


def proportion_interval(k: int, n: int, *, level: float = LEVEL,
                        method: str = "wilson") -> Interval:
    """``k`` successes in ``n`` trials: the proportion with its Wilson (1927) score
    interval, or with ``method="clopper-pearson"`` the exact interval of Clopper and
    Pearson (1934); both lie in [0, 1] (SciPy's ``binomtest``).

    >>> proportion_interval(10, 100).text()
    '[0.0552, 0.174]'
    >>> proportion_interval(10, 100, method="clopper-pearson").text()
    '[0.049, 0.176]'
    """
    if n <= 0:
        return none()
    if not 0 <= k <= n:
        raise ValueError(f"successes must be in [0, {n}], got {k}")
    from scipy.stats import binomtest

    how = {"wilson": "wilson", "clopper-pearson": "exact"}.get(method)
    if how is None:
        raise ValueError(f"method must be wilson or clopper-pearson, got {method!r}")
    ci = binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method=how)
    return Interval(k / n, float(ci.low), float(ci.high), int(n), method, level, "binomial")


def ratio_interval(a: Interval, b: Interval) -> Interval:
    """``a / b`` of two independent positive means with a delta-method interval on the
    log scale: ``log r ± sqrt((h_a/a)² + (h_b/b)²)``, so the ratio's interval stays
    above 0 (to first order the same width as the linear delta method).

    >>> a = mean_interval([10.0, 12.0, 11.0, 13.0])
    >>> b = mean_interval([5.0, 6.0, 5.5, 6.5])
    >>> r = ratio_interval(a, b)
    >>> round(r.estimate, 3), r.text()
    (2.0, '[1.55, 2.57]')
    """
    if b.estimate > 0 and a.estimate == 0 and a.defined and a.hi == 0:
        return exact(0.0)  # a numerator that is 0 in every replication
    if not (a.estimate > 0 and b.estimate > 0):
        return none(a.estimate / b.estimate if b.estimate else math.nan, min(a.n, b.n))
    r = a.estimate / b.estimate
    if not (a.defined and b.defined):
        return none(r, min(a.n, b.n))
    rel = math.hypot(_spread(a) / a.estimate, _spread(b) / b.estimate)
    return Interval(r, r * math.exp(-rel), r * math.exp(rel), min(a.n, b.n), "delta-log",
                    a.level, "log", rel, 0.0)


def _spread(x: Interval) -> float:
    # A mean's half-width before its cut to the range (the cut does not make it precise).
    return x.spread if x.scale == "add" and math.isfinite(x.spread) else x.half_width


def difference_interval(a: Interval, b: Interval) -> Interval:
    """``a − b`` of two independent estimates: half-widths added in quadrature (the
    normal approximation; use :func:`paired_difference` for runs under common random
    numbers).

    >>> a = mean_interval([10.0, 12.0, 11.0, 13.0])
    >>> b = mean_interval([5.0, 6.0, 5.5, 6.5])
    >>> difference_interval(a, b).text()
    '[3.45, 8.05]'
    """
    est = a.estimate - b.estimate
    if not (a.defined and b.defined):
        return none(est, min(a.n, b.n))
    h = math.hypot(_spread(a), _spread(b))
    return Interval(est, est - h, est + h, min(a.n, b.n), "independent", a.level, "add", h)


def paired_difference(a: npt.ArrayLike, b: npt.ArrayLike, *,
                      level: float = LEVEL) -> Interval:
    """The mean of ``a[i] − b[i]`` over pairs run with common random numbers (same seed
    or start draw), with its paired Student-t interval; pairs with a NaN are dropped.

    >>> a, b = [10.0, 12.0, 11.0, 13.0], [9.0, 11.5, 10.0, 12.5]   # runs paired by seed
    >>> paired_difference(a, b).text()            # far narrower than the unpaired one
    '[0.291, 1.21]'
    """
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"paired samples must have the same length, got {len(x)} and "
                         f"{len(y)}")
    d = x - y
    iv = mean_interval(d[np.isfinite(d)], level=level)
    return Interval(iv.estimate, iv.lo, iv.hi, iv.n, "paired-t" if iv.defined else "none",
                    level, iv.scale, iv.spread)


def paired_ratio(a: npt.ArrayLike, b: npt.ArrayLike, *,
                 level: float = LEVEL) -> Interval:
    """``mean(a) / mean(b)`` for pairs under common random numbers, with the interval of
    the paired log ratios' mean mapped back (positive; pairs with a non-positive value
    or a NaN are dropped).

    >>> a, b = [10.0, 12.0, 11.0, 13.0], [9.0, 11.5, 10.0, 12.5]
    >>> r = paired_ratio(a, b)
    >>> round(r.estimate, 3), r.text()
    (1.07, '[1.01, 1.13]')
    """
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    if not ok.any():
        return none()
    r = float(x[ok].mean() / y[ok].mean())
    iv = mean_interval(np.log(x[ok] / y[ok]), level=level)
    if not iv.defined:
        return none(r, iv.n)
    return Interval(r, r * math.exp(iv.lo - iv.estimate), r * math.exp(iv.hi - iv.estimate),
                    iv.n, "paired-log-t", level, "log", iv.spread, 0.0)


def location_interval(x: npt.ArrayLike, mean: npt.ArrayLike,
                      lo: npt.ArrayLike, hi: npt.ArrayLike, *,
                      n: int) -> Interval:
    """Where a curve sampled on the grid ``x`` (positive, any order) peaks: the grid point
    of the largest mean, and as interval the span of the points not significantly below
    it (their interval's top at or above the best point's bottom), widened by half a grid
    step on each side (to the geometric midpoint with the next point): the grid does not
    sample between its points, so an optimum found on it is known to half a step at
    best (yu fig. 6's grid steps by ×2.15, more than the location band's factor 2 can
    resolve from one point). When that span reaches an end of the grid the optimum may
    lie beyond it, so the interval is open on that side (0 or ∞). Points without an
    interval give no interval.

    >>> x = [1, 2, 4, 8, 16]                  # a period in ms, on a ×2 grid
    >>> mean = [1, 3, 5, 4, 2]
    >>> lo, hi = [0.5, 2.5, 4.5, 3.5, 1.5], [1.5, 3.5, 5.5, 4.5, 2.5]
    >>> loc = location_interval(x, mean, lo, hi, n=5)
    >>> loc.estimate, loc.text()
    (4.0, '[2.83, 11.3]')
    """
    xs, m = np.asarray(x, dtype=float), np.asarray(mean, dtype=float)
    lw, hg = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    ok = np.isfinite(m)
    if not ok.any():
        return none()
    order = np.argsort(xs)
    xs, m, lw, hg, ok = xs[order], m[order], lw[order], hg[order], ok[order]
    i = int(np.nanargmax(np.where(ok, m, -np.inf)))
    if not (np.isfinite(lw[ok]).all() and np.isfinite(hg[ok]).all()):
        return none(float(xs[i]), n)
    tied = np.flatnonzero(ok & (hg >= lw[i]))
    pts = np.flatnonzero(ok)
    j, k = int(tied.min()), int(tied.max())
    # the neighbours on the grid of the points run (ok), for the half steps
    below, above = pts[pts < j], pts[pts > k]
    a = 0.0 if j == pts.min() else math.sqrt(float(xs[j]) * float(xs[below.max()]))
    b = math.inf if k == pts.max() else math.sqrt(float(xs[k]) * float(xs[above.min()]))
    return Interval(float(xs[i]), a, b, n, "tied-with-best")


# ---------------------------------------------------------------------------------------
# Claim kinds and their bands.


@dataclass(frozen=True)
class Kind:
    """A kind of claim and the band it allows around a paper value.

    Attributes:
        name: the kind's name (a key of :data:`KINDS`).
        band: the allowed distance from the paper value, beyond its own precision.
        relative: the band is a fraction of ``|paper value|``.
        log: compare log10 values (``band`` in decades); values must be positive.
        reference: the no-effect value (1 for a ratio, 0 for a change), or None when the
            kind has no direction.
        unit: how to print the band.
        lower, upper: the range of the kind's values (a proportion lies in [0, 1]); the
            band is cut to it.

    >>> k = KINDS["ratio"]
    >>> k.band, k.relative, k.reference, k.lower
    (0.05, True, 1.0, 0.0)
    """

    name: str
    band: float
    relative: bool = False
    log: bool = False
    reference: float | None = None
    unit: str = ""
    lower: float = -math.inf
    upper: float = math.inf


#: The claim kinds; their bands are justified in ``docs/topics/verdicts.md``.
KINDS: dict[str, Kind] = {k.name: k for k in (
    # a ratio of two throughputs (A over B); 1 means no difference.
    Kind("ratio", 0.05, relative=True, reference=1.0, lower=0.0),
    # a relative change or gain as a fraction, a/b − 1 (−0.82 = −82 %); 0 means no
    # change; a non-negative quantity cannot fall by more than 100 %.
    Kind("change", 0.10, reference=0.0, lower=-1.0),
    # a relative drop as a fraction, 1 − a/b (zhou's "drops 40 %"): the change with its
    # sign turned, so at most 1 (a quantity cannot drop by more than all of it) and
    # unbounded below (it may grow several-fold); same band as a change.
    Kind("drop", 0.10, reference=0.0, upper=1.0),
    # a probability or share in [0, 1] (a loss cost, a fraction of timeouts).
    Kind("proportion", 0.05, lower=0.0, upper=1.0),
    # a printed physical quantity (a throughput, a burst size, a count).
    Kind("quantity", 0.10, relative=True, lower=0.0),
    # the location of an optimum on a logarithmic axis (a period, a timer), in decades:
    # 0.301 is a factor of 2, one sample of a roughly logarithmic grid either side.
    Kind("location", math.log10(2.0), log=True),
    # a model against burstlab's simulation, which a paper says "approximately match"
    # (the ratio simulation/model; 1 is a perfect match).
    Kind("model", 0.25, relative=True),
)}


def kind_of(kind: str | Kind) -> Kind:
    """The :class:`Kind` named ``kind`` (a :class:`Kind` is returned as it is).

    >>> kind_of("proportion").upper, kind_of("location").log
    (1.0, True)
    """
    if isinstance(kind, Kind):
        return kind
    try:
        return KINDS[kind]
    except KeyError:
        raise ValueError(f"claim kind must be one of {', '.join(KINDS)}, got "
                         f"{kind!r}") from None


def tolerance(paper: float, kind: str | Kind, precision: float = 0.0) -> float:
    """The band's half-width around ``paper`` (on the log10 scale for ``log`` kinds;
    ``precision`` is then relative, e.g. 0.1 for ±10 %).

    >>> tolerance(2.0, "ratio"), round(tolerance(2.0, "ratio", precision=0.05), 3)
    (0.1, 0.15)
    """
    k = kind_of(kind)
    if precision < 0 or not math.isfinite(precision):
        raise ValueError(f"precision must be finite and ≥ 0, got {precision}")
    if k.log:
        return k.band + math.log10(1.0 + precision)
    return precision + (k.band * abs(paper) if k.relative else k.band)


@dataclass(frozen=True)
class Verdict:
    """The verdict on one claim and its reason (computed from the numbers).

    Attributes:
        verdict: one of ``reproduces``, ``same direction``, ``differs``,
            ``not comparable``.
        note: one sentence with the numbers that decided it.
        band: the paper's band ``(lo, hi)`` in the value's unit.
        gap: burstlab's estimate minus the paper value (log10 ratio for ``log`` kinds).

    >>> v = judge(exact(2.04), 2.0, kind="ratio")
    >>> v.verdict, v.band
    ('reproduces', (1.9, 2.1))
    """

    verdict: str
    note: str
    band: tuple[float, float] = (math.nan, math.nan)
    gap: float = math.nan


def _f(x: float) -> str:
    return f"{x:.3g}"


class RangeError(ValueError):
    """burstlab's interval leaves the range of its claim kind (a gain below −100 %, a
    share above 1): the interval was built without its range (use ``lower``/``upper``
    of :func:`mean_interval`, or :func:`ratio_interval`/:func:`proportion_interval`),
    or the claim is of another kind (a drop judged as a change)."""


def _check_range(sim: Interval, k: Kind) -> None:
    # Every interval a claim prints lies in its quantity's range (issue 37): judging is
    # where each claim's interval meets its kind, so the check lives here, and a
    # reproduction that builds an interval without its range stops instead of printing
    # it. A location's interval may be open towards 0 ("at or below the grid's end").
    lower = 0.0 if k.log else k.lower
    slack = 1e-9 * max(1.0, abs(sim.estimate)) if math.isfinite(sim.estimate) else 0.0
    ends = [sim.estimate] + ([sim.lo, sim.hi] if sim.defined else [])
    bad = [x for x in ends if math.isfinite(x) and not lower - slack <= x <= k.upper + slack]
    if bad:
        raise RangeError(f"a {k.name} lies in [{_f(lower)}, {_f(k.upper)}], but burstlab's "
                         f"estimate {_f(sim.estimate)} has interval {sim.text()} "
                         f"({sim.method}, n = {sim.n})")


def judge(sim: Interval, paper: float, *, kind: str | Kind, precision: float = 0.0,
          fmt: Any = None) -> Verdict:
    """THE verdict rule (module docstring): burstlab's interval ``sim`` against the
    paper value ``paper`` with its ``precision``, under the band of ``kind``.
    ``fmt`` formats numbers in the note (default 3 significant digits).

    >>> judge(mean_interval([1.99, 2.01, 2.0, 2.0, 2.02, 1.98]), 2.0, kind="ratio").verdict
    'reproduces'
    >>> v = judge(mean_interval([1.9, 2.1, 2.0, 2.05]), 2.0, kind="ratio")
    >>> v.verdict
    'not comparable'
    >>> print(v.note)
    burstlab's 2.01, 95 % interval [1.88, 2.15], meets the paper's band [1.9, 2.1] but is
    wider than it: too few replications to decide
    """
    f = fmt or _f
    k = kind_of(kind)
    paper = float(paper)
    if not math.isfinite(paper):
        return Verdict("not comparable", "the paper gives no number here")
    if not math.isfinite(sim.estimate):
        return Verdict("not comparable", "burstlab has no value here (the point is not run "
                                         "in this mode)")
    _check_range(sim, k)
    t = tolerance(paper, k, precision)
    tr: Callable[[float], float] = math.log10 if k.log else float
    if k.log:
        if paper <= 0 or sim.estimate <= 0:
            return Verdict("not comparable", "a location must be positive")
        band = (paper / 10 ** t, paper * 10 ** t)
    else:
        band = (max(paper - t, k.lower), min(paper + t, k.upper))
    gap = tr(sim.estimate) - tr(paper)
    band_txt = f"the paper's band [{f(band[0])}, {f(band[1])}]"
    if not sim.defined:
        return Verdict("not comparable", f"burstlab's {f(sim.estimate)} has no interval "
                                         f"({sim.n} replication(s)); {band_txt}",
                       band, gap)
    lo = tr(sim.lo) if sim.lo > 0 or not k.log else -math.inf
    hi = tr(sim.hi) if sim.hi > 0 or not k.log else -math.inf
    p = tr(paper)
    ci = f"burstlab's {f(sim.estimate)}, 95 % interval {sim.text(f)}"
    ref = k.reference if k.reference is not None else math.nan
    # The paper shows an effect when its value lies farther than its own precision from
    # the no-effect reference (a printed "1.0" for a ratio claims none): side ±1.
    side = 0 if not abs(paper - ref) > precision else (1 if paper > ref else -1)
    if (side > 0 and sim.hi < ref) or (side < 0 and sim.lo > ref):
        return Verdict("differs", f"{ci}, lies wholly on the other side of {f(ref)} "
                                  f"from the paper's {f(paper)} ({band_txt})", band, gap)
    meets = at_most(lo, p + t) and at_most(p - t, hi)
    if meets:
        res = (hi - lo) / 2.0 if k.log else sim.resolution(paper)
        if at_most(res, t):
            return Verdict("reproduces", f"{ci}, meets {band_txt}", band, gap)
        why = ("too few replications, or too coarse a grid, to decide" if k.log
               else "too few replications to decide")
        return Verdict("not comparable", f"{ci}, meets {band_txt} but is wider than it: "
                                         f"{why}", band, gap)
    far = (lo - (p + t)) if lo > p + t else ((p - t) - hi)
    if k.log:
        miss = f"misses {band_txt} by a factor {_f(10 ** far)}"
    else:
        miss = f"misses {band_txt} by {f(far)}"
    if side:
        if (side > 0 and sim.lo > ref) or (side < 0 and sim.hi < ref):
            return Verdict("same direction", f"{ci}, {miss}, on the paper's side of "
                                             f"{f(ref)}", band, gap)
        return Verdict("differs", f"{ci}, {miss}, and does not lie on the paper's side of "
                                  f"{f(ref)}", band, gap)
    if math.isfinite(ref):
        return Verdict("differs", f"{ci}, {miss}; the paper's {f(paper)} is within its "
                                  f"precision of {f(ref)}, no effect", band, gap)
    return Verdict("differs", f"{ci}, {miss}", band, gap)


def judge_order(diffs: Sequence[tuple[str, Interval]],
                tie: float | Sequence[float] = 0.0) -> Verdict:
    """An ordering claim as a list of ``(name, difference)``, each difference an interval
    of a quantity the paper says is positive ("A − B", "A/B − 1", paired under common
    random numbers), with its tie margin ``tie`` (one for all, or one per difference, in
    the differences' unit; 0 leaves only exact ties). See the module docstring for the
    rule: a difference whose interval's top is at most its margin is a tie or the other
    way (``differs``), exact or statistical alike.

    >>> d = paired_difference([3.0, 4.0, 5.0], [1.0, 1.5, 2.0])   # A − B, paired runs
    >>> judge_order([("A − B", d)]).verdict
    'reproduces'
    """
    if not diffs:
        return Verdict("not comparable", "no comparison was run")
    ms = [float(tie)] * len(diffs) if isinstance(tie, int | float) else [float(m) for m in tie]
    if len(ms) != len(diffs) or any(not (m >= 0 and math.isfinite(m)) for m in ms):
        raise ValueError(f"tie must be one margin ≥ 0 or one per difference, got {tie!r}")
    txt = "; ".join(f"{name}: {_f(d.estimate)} {d.text()}".rstrip() for name, d in diffs)
    if any(not d.defined for _, d in diffs):
        return Verdict("not comparable", f"a comparison has no interval ({txt})")
    other = [name for (name, d), m in zip(diffs, ms, strict=True) if d.hi < -m]
    ties = [name for (name, d), m in zip(diffs, ms, strict=True)
            if -m <= d.hi and at_most(d.hi, m)]
    pos = [name for (name, d), m in zip(diffs, ms, strict=True) if d.lo > m
           and not at_most(d.lo, m)]
    margin = (f" (tie margin {', '.join(_f(m) for m in ms)})" if any(ms) else "")
    if other or ties:
        why = "; ".join(x for x in (
            f"significantly the other way: {', '.join(other)}" if other else "",
            f"a tie (interval at most the margin, exact or statistical): "
            f"{', '.join(ties)}" if ties else "") if x)
        return Verdict("differs", f"{why} ({txt}){margin}")
    if len(pos) == len(diffs):
        return Verdict("reproduces", f"every difference is significantly positive ({txt})"
                                     f"{margin}")
    if pos:
        return Verdict("same direction", f"{len(pos)} of {len(diffs)} differences are "
                                         f"significantly positive, none negative ({txt})"
                                         f"{margin}")
    return Verdict("not comparable", f"no difference is significant ({txt}){margin}")


def order_differences(values: dict[str, float], order: Sequence[str]
                      ) -> tuple[list[tuple[str, Interval]], list[float]]:
    """The exact differences ``values[a] − values[b]`` for consecutive ``a, b`` of the
    claimed ``order`` (counts of one deterministic trace) and their tie margins
    (:data:`TIE` of the larger of the two), for ``judge_order(*order_differences(…))``.

    >>> diffs, ties = order_differences({"sack": 10, "reno": 7, "tahoe": 3},
    ...                                 ["sack", "reno", "tahoe"])
    >>> [(name, d.estimate) for name, d in diffs], [round(t, 2) for t in ties]
    ([('sack − reno', 3.0), ('reno − tahoe', 4.0)], [0.5, 0.35])
    >>> judge_order(diffs, ties).verdict
    'reproduces'
    """
    pairs = list(zip(order, order[1:], strict=False))
    return ([(f"{a} − {b}", exact(values[a] - values[b])) for a, b in pairs],
            [TIE * max(abs(values[a]), abs(values[b])) for a, b in pairs])


def judge_event(observed: bool, claimed: bool, what: str) -> Verdict:
    """A yes/no event of one deterministic trace (a timeout after a given loss, a
    ranking of one trace) against the paper's statement of the same trace.

    >>> judge_event(False, True, "a timeout").note
    "a timeout does not occur in burstlab's trace; the paper says it occurs"
    """
    said = "occurs" if claimed else "does not occur"
    got = "occurs" if observed else "does not occur"
    if observed == claimed:
        return Verdict("reproduces", f"{what} {got} in burstlab's trace, as in the paper")
    return Verdict("differs", f"{what} {got} in burstlab's trace; the paper says it {said}")
