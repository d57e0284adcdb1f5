"""The reproduction pages' evidence, generated at every build from the committed records.

Each paper's full-mode record is two files under
``python/burstlab/reproduce/papers/<paper>/full_mode/``: ``claims.csv`` (one row per claim:
the paper's value, burstlab's with its interval, the verdict and its reason) and
``run.json`` (how and when it ran, and its verdict counts). This extension renders them
into the site, so that a page never shows numbers typed by hand:

- ``<!-- record-claims -->`` in ``reproductions/<paper>.md``: the record's counts, when and
  at which commit it ran, and its whole claims table.
- ``<!-- record-counts -->`` in ``reproductions/index.md``: one row per paper.

The counts shown are :func:`shown_counts`: the record's verdicts judged again by the
present verdict rule from its numbers (``burstlab.reproduce.modes.FullRecord.verdicts``,
docs/topics/verdicts.md), split by role (``burstlab.reproduce.claim.role_counts``:
validation; calibration on a fitted set-up, counted apart; extensions, not counted), the
one source that ``modes --records`` and the README use too. :func:`counts` is the record
as written: it refuses a record whose ``run.json`` contradicts its ``claims.csv``, and
``tests/test_records_pages.py`` checks the README's full-mode table against
:func:`shown_counts`.
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


def counts(paper: str) -> dict[str, int]:
    """Claims per verdict, counted in ``claims.csv``; a :class:`RecordError` when
    ``run.json``'s counts differ, or a verdict is not one of :data:`VERDICTS`."""
    c = Counter(r["verdict"] for r in claims(paper))
    odd = sorted(set(c) - set(VERDICTS))
    if odd:
        raise RecordError(f"{paper}: claims.csv has verdicts {odd} outside {list(VERDICTS)}")
    got = {v: c.get(v, 0) for v in VERDICTS}
    said = run_info(paper).get("counts")
    if said is not None and {v: int(said.get(v, 0)) for v in VERDICTS} != got:
        raise RecordError(f"{paper}: run.json counts {said} but claims.csv has {got}")
    return got


def shown_counts(paper: str) -> dict[str, dict[str, int]]:
    """``{role: {verdict: count}}`` of ``paper``'s record judged by the present rule."""
    from burstlab.reproduce.claim import role_counts
    from burstlab.reproduce.modes import load_record

    counts(paper)  # the record does not contradict itself
    rec = load_record(paper)
    assert rec is not None
    return role_counts((cid, v) for cid, (v, _, _) in rec.verdicts().items())


def shown_verdicts(paper: str) -> dict[str, str]:
    """``claim_id -> verdict`` as the pages show it (judged by the present rule), under
    the ids of ``claims.csv``."""
    from burstlab.reproduce.modes import load_record
    from burstlab.reproduce.rejudge import rejudge_claims, shown

    rec = load_record(paper)
    assert rec is not None
    return {r.claim_id: shown(r) for r in rejudge_claims(paper, rec.claims)}


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|") or "—"


def _duration(s: float) -> str:
    return f"{s / 3600:.2f} h" if s >= 5400 else f"{s / 60:.1f} min"


def claims_markdown(paper: str) -> str:
    """The record of ``paper`` as Markdown: its provenance, counts and claims table."""
    from burstlab.reproduce.claim import counts_text

    rows, info, now = claims(paper), run_info(paper), shown_verdicts(paper)
    moved = sum(1 for r in rows if now[r["claim_id"]] != r["verdict"])
    head = (f"The committed full-mode record (`{PAPERS.relative_to(ROOT)}/{paper}/full_mode/`): "
            f"run at commit `{str(info.get('commit', ''))[:10]}`, {info.get('when', '')}, "
            f"{_duration(float(info.get('wall_s', 0)))} wall, "
            f"{_duration(float(info.get('cpu_s', 0)))} CPU. Judged by the present rule "
            f"from its numbers ({moved} verdict(s) moved since it was written, shown with "
            f"the recorded one; docs/topics/verdicts.md): "
            + counts_text((r["claim_id"], now[r["claim_id"]]) for r in rows) + ".")
    table = ["| claim | source | statement | paper | burstlab | 95 % interval | verdict | why |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        v = now[r["claim_id"]]
        r = {**r, "verdict": v if v == r["verdict"] else f"{v} (recorded: {r['verdict']})"}
        table.append("| " + " | ".join(_cell(r.get(k, "")) for k in (
            "claim_id", "source", "statement", "paper_value", "burstlab_value", "ci",
            "verdict", "note")) + " |")
    return head + "\n\n" + "\n".join(table) + "\n"


def counts_markdown() -> str:
    """One row per paper: validation claims and their verdict counts (judged by the
    present rule), calibration claims apart, of its full-mode record."""
    out = ["| paper | claims | " + " | ".join(VERDICTS)
           + " | calibration | full-mode CPU | commit |",
           "|---|---|" + "---|" * len(VERDICTS) + "---|---|---|"]
    for p in papers():
        c, info = shown_counts(p), run_info(p)
        n, cal = c["validation"], c["calibration"]
        out.append(f"| [{p}]({p}.md) | {sum(n.values())} | "
                   + " | ".join(str(n[v]) for v in VERDICTS)
                   + f" | {sum(cal.values()) or ''} | {_duration(float(info.get('cpu_s', 0)))} "
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
