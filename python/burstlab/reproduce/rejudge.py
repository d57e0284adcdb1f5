"""The committed full-mode records judged again by the present verdict rule, from the
numbers they hold (issue 53): which verdicts move, why, and which cannot be re-judged
without the runs' store.

Read first: :func:`rejudge_row` (one ``claims.csv`` row), then :func:`rejudge_record`.
A record keeps, per claim, burstlab's estimate and 95 % interval and the paper's band in
its note (:func:`burstlab.reproduce.verdict.judge` writes ``burstlab's X, 95 % interval
[lo, hi], meets|misses the paper's band [a, b]``; ``ns-2.35's X`` where a claim judges
ns-2.35's runs), printed to three significant digits.
The stores themselves (hours of runs) are not in the repository, so what the record does
not hold is not guessed: an interval cut to its range hides its spread (the rule now
judges the spread before the cut, :meth:`~burstlab.reproduce.verdict.Interval.
resolution`), and a location found on an irregular grid needs the grid's neighbours.
Such a claim, where the present rule could move it, is listed as *needs its store*.

    python -m burstlab.reproduce.rejudge [PAPER ...]

What each row is judged as (its kind) is read off the claim code once, in :data:`KIND_OF`;
a row whose claim has no entry there is left as recorded.
"""

from __future__ import annotations

import argparse
import functools
import math
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from burstlab.reproduce import verdict as V
from burstlab.reproduce.claim import NOT_COMPARABLE, VERDICTS, worst_of

if TYPE_CHECKING:
    import pandas as pd

    from burstlab.reproduce.paper import PaperData

#: Per paper, ``(claim id pattern, kind)`` in order, the first match deciding: the kind
#: each claim's code passes to :func:`verdict.judge` (papers/*/claims.py, checks.py,
#: penalties.py). Claims decided by :func:`verdict.judge_order` or
#: :func:`verdict.judge_event` are not listed (``order`` for the ones re-judged here).
KIND_OF: dict[str, tuple[tuple[str, str], ...]] = {
    "yu": ((r"^table[12]\.", "ratio"), (r"^rtt\.", "quantity"),
           (r"^fig8a\.timeout_time$|^fig9a\.newreno_single_halving$", "quantity"),
           (r"^fig10a\.curves_coincide$", "ratio"),
           (r"^fig5\.optimal_tb$|^fig6\.optimum_matches_model", "location"),
           (r"model_matches$|^eq5[5-9]|^eq61\.|^eq58_59", "model")),
    "sodhatar": ((r"^size\..*_change", "change"), (r"^ranking\.newreno_best", "order")),
    "ozsarac": ((r"^table1\.gain\.|^ecwba\.vs_cwba$|^mcwba\.gain_linear$|^mesh\.fig6\.gain$"
                 r"|^mesh\.fig12\.|^dynamic\.table[456]\.gain$|^fig4_5\.ss_speedup$",
                 "change"),
                (r"^mesh\.table2\.share\.", "proportion"),
                (r"^fig3\.timer_optimum\.", "location"),
                (r"^fig3\.cwba_variant_independent$|^mcwba\.identical_above_tmax$", "ratio")),
    "hybrid": ((r"^slow\.timeouts$", "proportion"), (r"^fast\.wm64_enough$", "ratio"),
               (r"^both\.same_above_1e-3$", "ratio"), (r"^slow\.model$", "model"),
               (r"^(slow|fast)\.(ideal|mean_burst|segments_per_burst|segments_per_flow"
                r"|throughput_p1e-3|p1e-2_wm64|p1e-4_wm128)$", "quantity")),
    "zhou": ((r"^fig2\.optimal_period", "location"),
             (r"^fig2\.optimum_independent_of_pb$", "location"),
             (r"^fig2\.(drop_to_3000us|loss_cost)", "drop")),
}

#: Per paper, ``(claim id pattern, mode field, unit in s)``: the full mode's grid a
#: location claim was found on (its neighbours widen the interval by half a step,
#: :func:`verdict.location_interval`); yu's ``tb_per_decade`` gives a constant step.
#: zhou's ``optimum_independent_of_pb`` is a ratio of two locations whose intervals the
#: record does not hold: it needs its store.
GRID_OF: dict[str, tuple[tuple[str, str, float], ...]] = {
    "yu": ((r"^fig5\.optimal_tb$|^fig6\.optimum_matches_model", "tb_per_decade", 1.0),),
    "zhou": ((r"^fig2\.optimal_period@rtt0_fit$", "sens_periods_us", 1e-6),
             (r"^fig2\.optimal_period$", "periods_us", 1e-6)),
    "ozsarac": ((r"^fig3\.timer_optimum\.", "timer_ms", 1e-3),),
}

_JUDGED = re.compile(r"(?:burstlab|ns-2\.35)'s (?P<est>[^,]+?), 95 % interval \[(?P<lo>[^\]]+?), "
                     r"(?P<hi>[^\]]+?)\], (?P<how>meets|misses) the paper's band "
                     r"\[(?P<a>[^\]]+?), (?P<b>[^\]]+?)\]")
_UNITS = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}
_NUMBER = re.compile(r"^\s*([+\-−]?)(∞|[0-9.]+(?:e[+\-]?[0-9]+)?)\s*(\S*)")


def number(text: str) -> float:
    """A number as a note prints it (``+168 %``, ``4.39 Gb/s``, ``158 µs`` in seconds,
    ``∞``); NaN when it is none."""
    m = _NUMBER.match(text)
    if not m:
        return math.nan
    sign = -1.0 if m.group(1) in ("-", "−") else 1.0
    x = math.inf if m.group(2) == "∞" else float(m.group(2))
    return sign * x * _UNITS.get(m.group(3), 1.0)


@dataclass(frozen=True)
class Rejudged:
    """One record row judged again.

    Attributes:
        claim_id, recorded: the row's claim and its recorded verdict.
        now: its verdict under the present rule from the record's numbers, or
            :data:`NEEDS_STORE`, or the recorded verdict when the rule cannot move it.
        why: what moved it, or why it needs its store (empty when nothing moved).
    """

    claim_id: str
    recorded: str
    now: str
    why: str = ""

    @property
    def moved(self) -> bool:
        return self.now != self.recorded


#: What :attr:`Rejudged.now` says for a claim the record's numbers cannot decide.
NEEDS_STORE = "needs its store"


def _kind(paper: str, cid: str) -> str:
    for pat, kind in KIND_OF.get(paper, ()):
        if re.search(pat, cid):
            return kind
    return ""


def _grid(paper: str, cid: str) -> tuple[float, ...] | float | None:
    """The full mode's grid of a location claim (seconds), a constant step, or None."""
    for pat, field, unit in GRID_OF.get(paper, ()):
        if re.search(pat, cid):
            from burstlab.reproduce import load

            got = getattr(load(paper).modes["full"], field)
            if field == "tb_per_decade":
                return float(10 ** (1 / float(got)))
            return tuple(sorted(unit * float(x) for x in got))
    return None


def _half_step(x: float, grid: tuple[float, ...] | float, up: bool) -> float:
    """``x`` moved half a grid step (geometric) towards its neighbour: up or down; an
    open end (0, ∞) and a point off the grid stay as they are."""
    if not (0 < x < math.inf):
        return x
    if isinstance(grid, float):
        return x * math.sqrt(grid) if up else x / math.sqrt(grid)
    i = next((j for j, g in enumerate(grid) if math.isclose(g, x, rel_tol=2e-3)), None)
    if i is None:
        return x
    if up:
        return math.sqrt(x * grid[i + 1]) if i + 1 < len(grid) else math.inf
    return math.sqrt(x * grid[i - 1]) if i > 0 else 0.0


@functools.cache
def _data(paper: str) -> PaperData:
    from burstlab.reproduce import load

    return load(paper).load_data()


def _printed(paper: str, cid: str) -> float | None:
    """The printed-digit precision of a claim ``<value id>.<x name>=<x>`` whose paper
    value gives its digits (``printed`` in paper.toml), else None."""
    m = re.match(r"^(.*)\.[A-Za-z0-9_]+=([-+0-9.e]+)$", cid)
    if not m:
        return None
    data = _data(paper)
    if m[1] not in data or not data[m[1]].printed:
        return None
    return data[m[1]].precision_at(float(m[2]))


def _judge_one(m: re.Match[str], kind: V.Kind, grid: tuple[float, ...] | float | None,
               pct: bool, printed: float | None) -> tuple[str, str]:
    """One ``judge`` note's numbers under the present rule: (verdict, what decided)."""
    est, lo, hi = number(m["est"]), number(m["lo"]), number(m["hi"])
    a, b = number(m["a"]), number(m["b"])
    scale = 100.0 if pct else 1.0
    lower, upper = kind.lower * scale, kind.upper * scale
    if kind.log:
        if grid is None:
            return NEEDS_STORE, "a location whose grid the record does not name"
        lo, hi = _half_step(lo, grid, up=False), _half_step(hi, grid, up=True)
        p, t = math.sqrt(a * b), math.log10(b / a) / 2.0
        x = V.Interval(est, lo, hi, 2, "tied-with-best")
        v = V.judge(x, p, kind=kind.name, precision=max(10 ** (t - kind.band) - 1.0, 0.0))
        return v.verdict, f"widened by half a grid step: {v.note}"
    cut_band = (a <= lower and math.isfinite(lower)) or (b >= upper and math.isfinite(upper))
    if cut_band:
        return "", "the band is cut to the range: the paper value is not in the note"
    p, t = (a + b) / 2.0, (b - a) / 2.0
    band = kind.band * (abs(p) if kind.relative else scale)
    prec = max(t - band, 0.0) if printed is None else printed * scale
    k = V.Kind(kind.name, kind.band * (1.0 if kind.relative else scale), kind.relative,
               False, None if kind.reference is None else kind.reference * scale, "",
               lower, upper)
    cut = (lo <= lower + 1e-12 * scale) or (hi >= upper - 1e-12 * scale)
    # a ratio's interval is made on the log scale (ratio_interval, paired_ratio)
    x = V.log_interval(est, lo, hi, 2) if kind.name == "ratio" and lo > 0 else \
        V.Interval(est, lo, hi, 2, "t")
    v = V.judge(x, p, kind=k, precision=prec)
    if cut and v.verdict == "reproduces":
        return NEEDS_STORE, "its interval is cut to the range: its spread before the cut " \
                            "is not in the record"
    return v.verdict, v.note


def rejudge_row(paper: str, cid: str, recorded: str, note: str, ci: str = "",
                value: str = "") -> Rejudged:
    """One record row judged again by the present rule (see the module docstring)."""
    kind = _kind(paper, cid)
    if not kind:
        return Rejudged(cid, recorded, recorded)
    if kind == "order":
        return _rejudge_order(cid, recorded, ci, value)
    k = V.KINDS[kind]
    found = list(_JUDGED.finditer(note))
    if not found:
        return Rejudged(cid, recorded, recorded)
    pct = number(found[0]["est"]) == number(found[0]["est"]) and \
        found[0]["est"].strip().endswith("%")
    grid, printed = _grid(paper, cid), _printed(paper, cid)
    got = [_judge_one(m, k, grid, pct, printed) for m in found]
    if any(v == NEEDS_STORE for v, _ in got):
        why = next(w for v, w in got if v == NEEDS_STORE)
        return Rejudged(cid, recorded, NEEDS_STORE if recorded == "reproduces" or k.log
                        else recorded, why if (recorded == "reproduces" or k.log) else "")
    if any(v == "" for v, _ in got):
        return Rejudged(cid, recorded, recorded)
    now = worst_of(v for v, _ in got)
    why = "; ".join(w for v, w in got if v == now) if now != recorded else ""
    return Rejudged(cid, recorded, now, why)


def _rejudge_order(cid: str, recorded: str, ci: str, value: str) -> Rejudged:
    """sodhatar's "NewReno best": the paired leads in ``ci`` (``NewReno − Tahoe: [lo,
    hi] Mb/s; …``) with the tie margin :data:`verdict.TIE` of the other variant's mean
    (in ``value``: ``Tahoe 0.525, Reno 0.525, NewReno 0.524 Mb/s``)."""
    means = {k: float(x) for k, x in re.findall(r"(\w+) ([0-9.]+)", value)}
    diffs, ties = [], []
    for other, lo, hi in re.findall(r"NewReno − (\w+): \[([^,]+), ([^\]]+)\]", ci):
        lo_, hi_ = number(lo), number(hi)
        diffs.append((f"NewReno − {other}", V.Interval((lo_ + hi_) / 2, lo_, hi_, 2, "t")))
        ties.append(V.TIE * means.get(other, 0.0))
    if not diffs:
        return Rejudged(cid, recorded, recorded)
    v = V.judge_order(diffs, ties)
    return Rejudged(cid, recorded, v.verdict, v.note if v.verdict != recorded else "")


def rejudge_claims(paper: str, claims: pd.DataFrame) -> list[Rejudged]:
    """Every row of a record's ``claims.csv`` (``claims``) judged again."""
    return [rejudge_row(paper, str(r["claim_id"]), str(r["verdict"]), str(r["note"]),
                        str(r["ci"]), str(r["burstlab_value"]))
            for _, r in claims.iterrows()]


def rejudge_record(paper: str, root: Path | None = None) -> list[Rejudged]:
    """Every row of ``paper``'s committed record judged again (empty without a record)."""
    # The record's claims.csv read here rather than through modes.load_record: modes
    # imports this module (FullRecord.verdicts), and the two would import each other.
    import pandas as pd

    import burstlab.reproduce.papers as pkg

    f = (root or Path(pkg.__file__).parent) / paper / "full_mode" / "claims.csv"
    if not f.is_file():
        return []
    return rejudge_claims(paper, pd.read_csv(f, dtype=str, keep_default_na=False))


def shown(r: Rejudged) -> str:
    """The verdict a page shows for a re-judged row: :attr:`Rejudged.now`, and
    ``not comparable`` for one the record cannot decide without its store."""
    return r.now if r.now in VERDICTS else NOT_COMPARABLE


def main(argv: Sequence[str] | None = None) -> int:
    from burstlab.reproduce import paper_names

    ap = argparse.ArgumentParser(prog="python -m burstlab.reproduce.rejudge",
                                 description="judge the committed full-mode records again "
                                             "by the present verdict rule, from their "
                                             "numbers; list what moves")
    ap.add_argument("papers", nargs="*", help="papers (default: every paper)")
    args = ap.parse_args(argv)
    known = paper_names()
    bad = [p for p in args.papers if p not in known]
    if bad:
        print(f"error: papers must be among {', '.join(known)}, got {', '.join(bad)}",
              file=sys.stderr)
        return 2
    for p in args.papers or known:
        rows = rejudge_record(p)
        moved = [r for r in rows if r.moved]
        print(f"{p}: {len(rows)} rows, {len(moved)} moved or need the store")
        for r in moved:
            print(f"  {r.claim_id}: {r.recorded} → {r.now}: {r.why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
