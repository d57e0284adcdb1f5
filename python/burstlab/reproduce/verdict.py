"""One verdict rule for every claim of every paper, and intervals that respect ranges.

Read first: :func:`judge` (the rule), then :class:`Interval` and its constructors
(:func:`mean_interval`, :func:`proportion_interval`, :func:`ratio_interval`,
:func:`paired_difference`, :func:`exact`), then :data:`KINDS` (the band of each claim
kind). The rule, the bands and their justification are in ``docs/topics/verdicts.md``.

**Numbers.** A paper value ``v`` gets a band ``[v − t, v + t]`` with
``t = precision + kind band``: ``precision`` is the paper value's own precision
(half a unit of the last printed digit, or the stated uncertainty of a plot reading;
``precision`` in ``paper.toml``), the kind band is declared once per claim kind in
:data:`KINDS` (relative kinds scale it by ``|v|``; ``log`` kinds compare log10 values).
burstlab's value is a 95 % :class:`Interval` ``[lo, hi]``. Then:

- no interval (one replication, a point not run) → ``not comparable``;
- the interval meets the band and is no wider than it (half-width ≤ ``t``) →
  ``reproduces``;
- the interval meets the band but is wider → ``not comparable`` (agreement is not
  excluded, and the runs are too short to show it);
- the interval misses the band: ``same direction`` when the kind has a no-effect
  reference (1 for a ratio, 0 for a change) and the whole interval lies on the paper
  value's side of it; else ``differs``.

The rule is monotone: with the interval's width fixed, moving burstlab's value towards
the paper's never gives a worse verdict in the order ``differs`` < ``same direction``
< ``not comparable`` < ``reproduces`` (tests/test_verdict.py checks this property).

**Orderings** ("A beats B", "NewReno is best") are decided by paired differences under
common random numbers (:func:`paired_difference`): :func:`judge_order` says
``reproduces`` when every claimed difference is significantly positive (its 95 %
interval above 0), ``differs`` when any is significantly negative, ``same direction``
when some but not all are significantly positive and none negative, and
``not comparable`` when none is significant.
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
    """

    estimate: float
    lo: float
    hi: float
    n: int
    method: str
    level: float = LEVEL

    @property
    def defined(self) -> bool:
        """True when the interval exists (neither end NaN; an end may be infinite)."""
        return not (math.isnan(self.lo) or math.isnan(self.hi))

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2.0 if self.defined else math.nan

    def contains(self, x: float) -> bool:
        return self.defined and self.lo <= x <= self.hi

    def scaled(self, factor: float, offset: float = 0.0) -> Interval:
        """``factor · x + offset`` applied to estimate and ends (``factor`` > 0)."""
        if factor <= 0:
            raise ValueError(f"factor must be positive, got {factor}")
        return Interval(factor * self.estimate + offset, factor * self.lo + offset,
                        factor * self.hi + offset, self.n, self.method, self.level)

    def complement(self) -> Interval:
        """``1 − x`` (a drop from a ratio), ends swapped."""
        return Interval(1.0 - self.estimate, 1.0 - self.hi, 1.0 - self.lo, self.n,
                        self.method, self.level)

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
    """An estimate without an interval (one replication): never judged."""
    return Interval(float(estimate), math.nan, math.nan, n, "none")


def exact(value: float) -> Interval:
    """A value without sampling noise (a model evaluated at given parameters, a
    deterministic count): its interval is the value itself."""
    v = float(value)
    return Interval(v, v, v, 1, "exact") if math.isfinite(v) else none(v)


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
    mean never gets an interval below 0). Fewer than two values: no interval."""
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
    return Interval(m, lo, hi, k, "t", level)


def summary_interval(mean: float, lo: float, hi: float, n: int, *,
                     lower: float | None = None, upper: float | None = None) -> Interval:
    """An :class:`Interval` from a sweep summary's ``mean``, ``ci_lo``, ``ci_hi`` and
    ``n`` columns, cut to ``[lower, upper]``."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or n < 2:
        return none(mean, n)
    lo, hi = _bounded(mean, lo, hi, lower, upper)
    return Interval(float(mean), lo, hi, int(n), "t")


def proportion_interval(k: int, n: int, *, level: float = LEVEL,
                        method: str = "wilson") -> Interval:
    """``k`` successes in ``n`` trials: the proportion with its Wilson (1927) score
    interval, or with ``method="clopper-pearson"`` the exact interval of Clopper and
    Pearson (1934); both lie in [0, 1] (SciPy's ``binomtest``)."""
    if n <= 0:
        return none()
    if not 0 <= k <= n:
        raise ValueError(f"successes must be in [0, {n}], got {k}")
    from scipy.stats import binomtest

    how = {"wilson": "wilson", "clopper-pearson": "exact"}.get(method)
    if how is None:
        raise ValueError(f"method must be wilson or clopper-pearson, got {method!r}")
    ci = binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method=how)
    return Interval(k / n, float(ci.low), float(ci.high), int(n), method, level)


def ratio_interval(a: Interval, b: Interval) -> Interval:
    """``a / b`` of two independent positive means with a delta-method interval on the
    log scale: ``log r ± sqrt((h_a/a)² + (h_b/b)²)``, so the ratio's interval stays
    above 0 (to first order the same width as the linear delta method)."""
    if b.estimate > 0 and a.estimate == 0 and a.defined and a.hi == 0:
        return exact(0.0)  # a numerator that is 0 in every replication
    if not (a.estimate > 0 and b.estimate > 0):
        return none(a.estimate / b.estimate if b.estimate else math.nan, min(a.n, b.n))
    r = a.estimate / b.estimate
    if not (a.defined and b.defined):
        return none(r, min(a.n, b.n))
    rel = math.hypot(a.half_width / a.estimate, b.half_width / b.estimate)
    return Interval(r, r * math.exp(-rel), r * math.exp(rel), min(a.n, b.n), "delta-log",
                    a.level)


def difference_interval(a: Interval, b: Interval) -> Interval:
    """``a − b`` of two independent estimates: half-widths added in quadrature (the
    normal approximation; use :func:`paired_difference` for runs under common random
    numbers)."""
    est = a.estimate - b.estimate
    if not (a.defined and b.defined):
        return none(est, min(a.n, b.n))
    h = math.hypot(a.half_width, b.half_width)
    return Interval(est, est - h, est + h, min(a.n, b.n), "independent", a.level)


def paired_difference(a: npt.ArrayLike, b: npt.ArrayLike, *,
                      level: float = LEVEL) -> Interval:
    """The mean of ``a[i] − b[i]`` over pairs run with common random numbers (same seed
    or start draw), with its paired Student-t interval; pairs with a NaN are dropped."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"paired samples must have the same length, got {len(x)} and "
                         f"{len(y)}")
    d = x - y
    iv = mean_interval(d[np.isfinite(d)], level=level)
    return Interval(iv.estimate, iv.lo, iv.hi, iv.n, "paired-t" if iv.defined else "none",
                    level)


def paired_ratio(a: npt.ArrayLike, b: npt.ArrayLike, *,
                 level: float = LEVEL) -> Interval:
    """``mean(a) / mean(b)`` for pairs under common random numbers, with the interval of
    the paired log ratios' mean mapped back (positive; pairs with a non-positive value
    or a NaN are dropped)."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    if not ok.any():
        return none()
    r = float(x[ok].mean() / y[ok].mean())
    iv = mean_interval(np.log(x[ok] / y[ok]), level=level)
    if not iv.defined:
        return none(r, iv.n)
    return Interval(r, r * math.exp(iv.lo - iv.estimate), r * math.exp(iv.hi - iv.estimate),
                    iv.n, "paired-log-t", level)


def location_interval(x: npt.ArrayLike, mean: npt.ArrayLike,
                      lo: npt.ArrayLike, hi: npt.ArrayLike, *,
                      n: int) -> Interval:
    """Where a curve sampled on the grid ``x`` (positive, any order) peaks: the grid point
    of the largest mean, and as interval the span of the points not significantly below
    it (their interval's top at or above the best point's bottom). When that span
    reaches an end of the grid the optimum may lie beyond it, so the interval is open
    on that side (0 or ∞). Points without an interval give no interval."""
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
    a = 0.0 if tied.min() == np.flatnonzero(ok).min() else float(xs[tied.min()])
    b = math.inf if tied.max() == np.flatnonzero(ok).max() else float(xs[tied.max()])
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
    if isinstance(kind, Kind):
        return kind
    try:
        return KINDS[kind]
    except KeyError:
        raise ValueError(f"claim kind must be one of {', '.join(KINDS)}, got "
                         f"{kind!r}") from None


def tolerance(paper: float, kind: str | Kind, precision: float = 0.0) -> float:
    """The band's half-width around ``paper`` (on the log10 scale for ``log`` kinds;
    ``precision`` is then relative, e.g. 0.1 for ±10 %)."""
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
    ``fmt`` formats numbers in the note (default 3 significant digits)."""
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
    meets = lo <= p + t and hi >= p - t
    ci = f"burstlab's {f(sim.estimate)}, 95 % interval {sim.text(f)}"
    if meets:
        half = (hi - lo) / 2.0
        if half <= t:
            return Verdict("reproduces", f"{ci}, meets {band_txt}", band, gap)
        return Verdict("not comparable", f"{ci}, meets {band_txt} but is wider than it: "
                                         "too few replications to decide", band, gap)
    far = (lo - (p + t)) if lo > p + t else ((p - t) - hi)
    if k.log:
        miss = f"misses {band_txt} by a factor {_f(10 ** far)}"
    else:
        miss = f"misses {band_txt} by {f(far)}"
    ref = k.reference
    if ref is not None and paper != ref:
        side = 1 if paper > ref else -1
        if (side > 0 and sim.lo > ref) or (side < 0 and sim.hi < ref):
            return Verdict("same direction", f"{ci}, {miss}, on the paper's side of "
                                             f"{f(ref)}", band, gap)
        return Verdict("differs", f"{ci}, {miss}, and does not lie on the paper's side of "
                                  f"{f(ref)}", band, gap)
    return Verdict("differs", f"{ci}, {miss}", band, gap)


def judge_order(diffs: Sequence[tuple[str, Interval]]) -> Verdict:
    """An ordering claim as a list of ``(name, difference)``, each difference an interval
    of a quantity the paper says is positive ("A − B", "A/B − 1", paired under common
    random numbers). See the module docstring for the rule."""
    if not diffs:
        return Verdict("not comparable", "no comparison was run")
    txt = "; ".join(f"{name}: {_f(d.estimate)} {d.text()}".rstrip() for name, d in diffs)
    if any(not d.defined for _, d in diffs):
        return Verdict("not comparable", f"a comparison has no interval ({txt})")
    # An exact difference (a count from one deterministic trace) of 0 is a tie: the
    # claimed lead does not exist.
    neg = [name for name, d in diffs if d.hi < 0 or (d.method == "exact" and d.hi <= 0)]
    pos = [name for name, d in diffs if d.lo > 0]
    if neg:
        return Verdict("differs", f"significantly the other way: {', '.join(neg)} ({txt})")
    if len(pos) == len(diffs):
        return Verdict("reproduces", f"every difference is significantly positive ({txt})")
    if pos:
        return Verdict("same direction", f"{len(pos)} of {len(diffs)} differences are "
                                         f"significantly positive, none negative ({txt})")
    return Verdict("not comparable", f"no difference is significant ({txt})")


def order_differences(values: dict[str, float], order: Sequence[str]) -> list[tuple[str,
                                                                                  Interval]]:
    """The exact differences ``values[a] − values[b]`` for consecutive ``a, b`` of the
    claimed ``order`` (counts of one deterministic trace), for :func:`judge_order`."""
    return [(f"{a} − {b}", exact(values[a] - values[b]))
            for a, b in zip(order, order[1:], strict=False)]


def judge_event(observed: bool, claimed: bool, what: str) -> Verdict:
    """A yes/no event of one deterministic trace (a timeout after a given loss, a
    ranking of one trace) against the paper's statement of the same trace."""
    said = "occurs" if claimed else "does not occur"
    got = "occurs" if observed else "does not occur"
    if observed == claimed:
        return Verdict("reproduces", f"{what} {got} in burstlab's trace, as in the paper")
    return Verdict("differs", f"{what} {got} in burstlab's trace; the paper says it {said}")
