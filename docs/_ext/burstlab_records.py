"""The reproduction pages' evidence, generated at every build from the committed records.

Each paper's full-mode record is two files under
``python/burstlab/reproduce/papers/<paper>/full_mode/``: ``claims.csv`` (one row per claim:
the paper's value, burstlab's with its interval, the verdict and its reason) and
``run.json`` (how and when it ran, and its verdict counts). This extension renders them
into the site, so that a page never shows numbers typed by hand:

- ``<!-- record-claims -->`` in ``reproductions/<paper>.md``: the record's counts, when and
  at which commit it ran, and its whole claims table.
- ``<!-- record-counts -->`` in ``reproductions/index.md``: one row per paper.

Each claim is shown with the verdict the present rule gives it from the record's numbers
(``FullRecord.verdicts``, :mod:`burstlab.reproduce.rejudge`) beside the verdict recorded,
and the counts are :func:`burstlab.reproduce.claim.role_counts` of those verdicts: the one
source the README's full-mode table (``modes --records``) and the site use too, which
``tests/test_records_pages.py`` checks. :func:`recorded_counts` checks the record itself:
``run.json``'s counts are those of its ``claims.csv``.
"""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PAPERS = ROOT / "python" / "burstlab" / "reproduce" / "papers"
VERDICTS = ("reproduces", "same direction", "differs", "not comparable")
CLAIMS_MARKER = "<!-- record-claims -->"
COUNTS_MARKER = "<!-- record-counts -->"


class RecordError(ValueError):
    """A committed record that contradicts itself."""


def papers() -> list[str]:
    """The papers with a committed full-mode record, by name."""
    return sorted(p.parent.parent.name for p in PAPERS.glob("*/full_mode/claims.csv"))


def claims(paper: str) -> list[dict[str, str]]:
    """The rows of ``paper``'s ``claims.csv``."""
    with (PAPERS / paper / "full_mode" / "claims.csv").open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def run_info(paper: str) -> dict[str, Any]:
    """``paper``'s ``run.json``."""
    return json.loads((PAPERS / paper / "full_mode" / "run.json").read_text(encoding="utf-8"))


def recorded_counts(paper: str) -> dict[str, int]:
    """Claims per recorded verdict, counted in ``claims.csv``; a :class:`RecordError`
    when ``run.json``'s counts differ, or a verdict is not one of :data:`VERDICTS`."""
    c = Counter(r["verdict"] for r in claims(paper))
    odd = sorted(set(c) - set(VERDICTS))
    if odd:
        raise RecordError(f"{paper}: claims.csv has verdicts {odd} outside {list(VERDICTS)}")
    got = {v: c.get(v, 0) for v in VERDICTS}
    said = run_info(paper).get("counts")
    if said is not None and {v: int(said.get(v, 0)) for v in VERDICTS} != got:
        raise RecordError(f"{paper}: run.json counts {said} but claims.csv has {got}")
    return got


def shown_verdicts(paper: str) -> dict[str, str]:
    """``claim_id -> verdict`` as pages show it: judged again by the present rule from
    the record's numbers (ids under their present names)."""
    from burstlab.reproduce.modes import load_record

    rec = load_record(paper)
    if rec is None:
        raise RecordError(f"{paper}: no full-mode record")
    return {cid: v[0] for cid, v in rec.verdicts().items()}


def counts(paper: str) -> dict[str, dict[str, int]]:
    """``{role: {verdict: count}}`` of the verdicts shown (``claim.role_counts``)."""
    from burstlab.reproduce.claim import role_counts

    recorded_counts(paper)  # the record must agree with itself first
    return role_counts(shown_verdicts(paper).items())


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|") or "—"


def _duration(s: float) -> str:
    return f"{s / 3600:.2f} h" if s >= 5400 else f"{s / 60:.1f} min"


def claims_markdown(paper: str) -> str:
    """The record of ``paper`` as Markdown: its provenance, counts and claims table."""
    from burstlab.reproduce.claim import RENAMED, claim_role, counts_text

    rows, info = claims(paper), run_info(paper)
    now = shown_verdicts(paper)
    head = (f"The committed full-mode record (`{PAPERS.relative_to(ROOT)}/{paper}/full_mode/`): "
            f"run at commit `{str(info.get('commit', ''))[:10]}`, {info.get('when', '')}, "
            f"{_duration(float(info.get('wall_s', 0)))} wall, "
            f"{_duration(float(info.get('cpu_s', 0)))} CPU. Verdicts as the present rule "
            f"judges the record's numbers: {counts_text(now.items())}.")
    table = ["| claim | role | source | statement | paper | burstlab | 95 % interval | verdict "
             "| recorded verdict | why (recorded) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    moved = 0
    for r in rows:
        cid = RENAMED.get(r["claim_id"], r["claim_id"])
        v = now.get(cid, r["verdict"])
        moved += v != r["verdict"]
        cells = [cid, claim_role(cid), r.get("source", ""), r.get("statement", ""),
                 r.get("paper_value", ""), r.get("burstlab_value", ""), r.get("ci", ""), v,
                 r["verdict"] if v != r["verdict"] else "same", r.get("note", "")]
        table.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    tail = (f"\n{moved} verdict(s) moved since the record was judged "
            "(docs/topics/verdicts.md says why a verdict moves).\n" if moved else "")
    return head + "\n\n" + "\n".join(table) + "\n" + tail


def counts_markdown() -> str:
    """One row per paper: claims and verdict counts of its full-mode record."""
    from burstlab.reproduce.claim import CALIBRATION, EXTENSION, VALIDATION

    out = ["| paper | claims | " + " | ".join(VERDICTS) + " | calibration | extensions "
           "| full-mode CPU | commit |",
           "|---|---|" + "---|" * len(VERDICTS) + "---|---|---|---|"]
    for p in papers():
        c, info = counts(p), run_info(p)
        n = c[VALIDATION]
        out.append(f"| [{p}]({p}.md) | {sum(n.values())} | "
                   + " | ".join(str(n[v]) for v in VERDICTS)
                   + f" | {sum(c[CALIBRATION].values()) or ''} | {sum(c[EXTENSION].values()) or ''}"
                   f" | {_duration(float(info.get('cpu_s', 0)))} "
                   f"| `{str(info.get('commit', ''))[:10]}` |")
    return "\n".join(out) + "\n"


def _source_read(app: Any, docname: str, source: list[str]) -> None:
    if docname == "reproductions/index" and COUNTS_MARKER in source[0]:
        source[0] = source[0].replace(COUNTS_MARKER, counts_markdown())
    elif docname.startswith("reproductions/") and CLAIMS_MARKER in source[0]:
        source[0] = source[0].replace(CLAIMS_MARKER, claims_markdown(docname.split("/", 1)[1]))


def setup(app: Any) -> dict[str, Any]:
    app.connect("source-read", _source_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
