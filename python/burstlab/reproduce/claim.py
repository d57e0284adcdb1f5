"""A claim and its verdict: the bottom of :mod:`burstlab.reproduce`, importing none of it
but :mod:`.verdict`.

Read first: :data:`VERDICTS`, then :class:`Claim`, then the helpers every paper's claims
use instead of writing verdict strings: :func:`unjudged` (a claim its runs cannot decide:
a point this mode does not run, a missing experiment), :func:`missed` (a verdict that
misses the paper value's band) and :func:`worst_of`. :func:`write_claims_csv` writes
``claims.csv``. :func:`claim_role` and :func:`role_counts` say what a claim counts as
(validation, calibration on a fitted set-up, or an extension not counted).
"""

from __future__ import annotations

import csv
import dataclasses
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from burstlab.reproduce.verdict import RANK

_V = TypeVar("_V")

#: The verdicts a claim may return. Every claim is decided by
#: :mod:`burstlab.reproduce.verdict` (one rule; see ``docs/topics/verdicts.md``):
#: ``reproduces``: burstlab's 95 % interval meets the paper value's band and its
#: resolution is no wider than it; ``same direction``: it misses the band on the paper's
#: side of the no-effect value (or some, not all, claimed differences are significant);
#: ``differs``: it misses the band otherwise, or lies wholly on the other side of the
#: no-effect value (or a claimed lead is a tie); ``not comparable``: the runs cannot
#: decide (no interval, or one too wide for the band that meets it).
VERDICTS = ("reproduces", "same direction", "differs", "not comparable")

#: How a paper value was obtained.
HOW = ("printed", "read off plot", "stated")

#: Columns of ``claims.csv``.
CLAIM_COLUMNS = ("paper", "claim_id", "source", "statement", "paper_value",
                 "burstlab_value", "ci", "verdict", "note")

#: What quick mode shows for a claim whose verdict full mode does not confirm
#: (:mod:`burstlab.reproduce.modes`).
QUICK_NOT_COMPARABLE = "not comparable (quick)"

#: The verdicts by name, for code that branches on one (a cause explained only where a
#: claim differs, a note shortened where it reproduces).
REPRODUCES, SAME_DIRECTION, DIFFERS, NOT_COMPARABLE = VERDICTS

#: :func:`unjudged`'s reason when none is given: the mode lacks the claim's points.
NOT_RUN = "this mode does not run the point the claim needs"


@dataclass(frozen=True)
class Claim:
    """One comparison of a paper value with burstlab, with its verdict.

    Attributes:
        id: unique within the paper (``table1.sack_over_reno.log10p=-2``).
        source: where the paper value is.
        statement: what the paper says (short).
        paper_value: the paper's number or words, as text.
        burstlab_value: burstlab's simulated or model value, as text.
        ci: burstlab's 95 % confidence interval, as text (empty when not applicable).
        verdict: one of :data:`VERDICTS`.
        note: the reason for the verdict, in one sentence, with numbers.
        full: in quick mode, the claim's verdict in the paper's committed full-mode
            record (:mod:`burstlab.reproduce.modes`), or why there is none; empty in
            full mode.
        quick_note: in quick mode, where quick's verdict differs from full mode's, why
            quick shows :data:`QUICK_NOT_COMPARABLE` (both
            values and what quick reduced); empty otherwise.
    """

    id: str
    source: str
    statement: str
    paper_value: str
    burstlab_value: str
    verdict: str
    note: str
    ci: str = ""
    full: str = ""
    quick_note: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"claim {self.id}: verdict must be one of "
                             f"{', '.join(VERDICTS)}, got {self.verdict!r}")

    @property
    def shown(self) -> str:
        """The verdict a report shows: :data:`QUICK_NOT_COMPARABLE`
        where quick mode's verdict is not the full-mode record's, else :attr:`verdict`."""
        return QUICK_NOT_COMPARABLE if self.quick_note else self.verdict

    def row(self, paper: str) -> dict[str, str]:
        return {"paper": paper, "claim_id": self.id, "source": self.source,
                "statement": self.statement, "paper_value": self.paper_value,
                "burstlab_value": self.burstlab_value, "ci": self.ci,
                "verdict": self.verdict, "note": self.note}


def verdict_counts(verdicts: Iterable[str]) -> dict[str, int]:
    """``{verdict: count}`` over :data:`VERDICTS` (zeros included, in order)."""
    vs = list(verdicts)
    return {v: vs.count(v) for v in VERDICTS}


# ---------------------------------------------------------------------------------------
# Validation, calibration, extensions: what a claim counts as (issue 53, item 3).

#: What a claim counts as. ``validation``: a claim of the paper judged on the paper's
#: stated set-up (with burstlab's stated choices for what the paper leaves out);
#: ``calibration``: judged on a set-up fitted to the paper's own printed numbers, so
#: counted apart (a fit on some numbers judged on the others, or, for the numbers it was
#: fitted on, nothing left to judge); ``extension``: shown with the claims but not a claim
#: of the paper (another paper's model at this paper's set-up), never counted.
ROLES = ("validation", "calibration", "extension")
VALIDATION, CALIBRATION, EXTENSION = ROLES

#: A claim id judged on a fitted set-up ends in ``@<what was fitted>_fit``
#: (``fig2.drop_to_3000us.pb=0.1%@rtt0_fit``); an extension's id starts with
#: ``extension.``.
FIT_SUFFIX, EXTENSION_PREFIX = "_fit", "extension."

#: Claim ids renamed since a committed record was made (old → new), so an older record's
#: rows count, and meet quick mode's claims, under their present ids.
RENAMED = {"model.optimal_period": "extension.model.optimal_period"}


def claim_role(claim_id: str) -> str:
    """The role (:data:`ROLES`) of the claim ``claim_id`` (renamed ids included)."""
    cid = RENAMED.get(claim_id, claim_id)
    if cid.startswith(EXTENSION_PREFIX):
        return EXTENSION
    return CALIBRATION if "@" in cid and cid.rpartition("@")[2].endswith(FIT_SUFFIX) \
        else VALIDATION


def role_counts(rows: Iterable[tuple[str, str]]) -> dict[str, dict[str, int]]:
    """``{role: {verdict: count}}`` over ``(claim_id, verdict)`` pairs: the one source of
    every count a page, the README or ``modes --records`` shows."""
    by: dict[str, list[str]] = {r: [] for r in ROLES}
    for cid, v in rows:
        by[claim_role(cid)].append(v)
    return {r: verdict_counts(vs) for r, vs in by.items()}


def counts_text(rows: Iterable[tuple[str, str]], verdicts: Collection[str] = VERDICTS
                ) -> str:
    """One sentence of :func:`role_counts`: ``12 claims: 6 reproduces, …; calibration on
    a fitted set-up, counted apart: 5 (…); 1 extension, not counted``."""
    c = role_counts(rows)

    def part(d: dict[str, int]) -> str:
        return ", ".join(f"{n} {v}" for v, n in d.items() if v in verdicts)

    text = f"{sum(c[VALIDATION].values())} claims: {part(c[VALIDATION])}"
    if sum(c[CALIBRATION].values()):
        text += (f"; calibration (judged on a set-up fitted to the paper's own numbers, "
                 f"counted apart): {sum(c[CALIBRATION].values())} ({part(c[CALIBRATION])})")
    if sum(c[EXTENSION].values()):
        text += f"; {sum(c[EXTENSION].values())} extension(s), not the paper's claims, " \
                "not counted"
    return text


def unjudged(id: str, source: str, statement: str, paper_value: str, note: str = NOT_RUN,
             *, burstlab_value: str = "–", ci: str = "") -> Claim:
    """A claim the runs cannot decide (:data:`NOT_COMPARABLE`), with the reason: this mode
    does not run the points it needs, its experiment is missing, it has no interval."""
    return Claim(id=id, source=source, statement=statement, paper_value=paper_value,
                 burstlab_value=burstlab_value, verdict=NOT_COMPARABLE, note=note, ci=ci)


def shown_not_judged(claims: Iterable[Claim], why: str) -> list[Claim]:
    """``claims`` as a reduced mode shows them when its runs cannot stand for full
    mode's (shorter than the paper's structure needs): :data:`NOT_COMPARABLE`, with
    :data:`QUICK_NOT_COMPARABLE`, ``why`` and the verdict the runs gave in the note."""
    return [dataclasses.replace(c, verdict=NOT_COMPARABLE,
                                note=f"{QUICK_NOT_COMPARABLE}: {why} (judged: {c.verdict}); "
                                     f"{c.note}") for c in claims]


def missed(verdict: str) -> bool:
    """True when ``verdict`` says burstlab's interval misses the paper value's band
    (``differs`` or ``same direction``): where a claim explains a cause."""
    return verdict in ("differs", "same direction")


def worst_of(verdicts: Iterable[_V]) -> _V:
    """The worst of ``verdicts`` (verdict strings, or objects with a ``verdict``: a
    :class:`burstlab.reproduce.verdict.Verdict`, a check) in
    :data:`burstlab.reproduce.verdict.RANK`'s order (``differs`` < ``same direction`` <
    ``not comparable`` < ``reproduces``); the first of equals."""
    def rank(v: Any) -> int:
        return RANK[v if isinstance(v, str) else v.verdict]
    return min(verdicts, key=rank)


def write_claims_csv(paper: str, claims: Sequence[Claim], path: Path) -> Path:
    """``claims.csv``: one row per claim, columns :data:`CLAIM_COLUMNS`."""
    return write_claims_csv_rows([c.row(paper) for c in claims], path)


def write_claims_csv_rows(rows: Sequence[Mapping[str, str]], path: Path) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=CLAIM_COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow(dict(r))
    return path
