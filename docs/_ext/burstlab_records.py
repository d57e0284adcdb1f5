"""The reproduction pages' evidence, generated at every build from the committed records.

Each paper's full-mode record is two files under
``python/burstlab/reproduce/papers/<paper>/full_mode/``: ``claims.csv`` (one row per claim:
the paper's value, burstlab's with its interval, the verdict and its reason) and
``run.json`` (how and when it ran, and its verdict counts). This extension renders them
into the site, so that a page never shows numbers typed by hand:

- ``<!-- record-claims -->`` in ``reproductions/<paper>.md``: the record's counts, when and
  at which commit it ran, and its whole claims table.
- ``<!-- record-counts -->`` in ``reproductions/index.md``: one row per paper.

The counts are those of ``claims.csv``; :func:`counts` refuses a record whose
``run.json`` says otherwise, and ``tests/test_records_pages.py`` checks the README's
full-mode table against the same function.
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


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|") or "—"


def _duration(s: float) -> str:
    return f"{s / 3600:.2f} h" if s >= 5400 else f"{s / 60:.1f} min"


def claims_markdown(paper: str) -> str:
    """The record of ``paper`` as Markdown: its provenance, counts and claims table."""
    rows, info, n = claims(paper), run_info(paper), counts(paper)
    head = (f"The committed full-mode record (`{PAPERS.relative_to(ROOT)}/{paper}/full_mode/`): "
            f"run at commit `{str(info.get('commit', ''))[:10]}`, {info.get('when', '')}, "
            f"{_duration(float(info.get('wall_s', 0)))} wall, "
            f"{_duration(float(info.get('cpu_s', 0)))} CPU. "
            f"{len(rows)} claims: " + ", ".join(f"{n[v]} {v}" for v in VERDICTS) + ".")
    table = ["| claim | source | statement | paper | burstlab | 95 % interval | verdict | why |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        table.append("| " + " | ".join(_cell(r.get(k, "")) for k in (
            "claim_id", "source", "statement", "paper_value", "burstlab_value", "ci",
            "verdict", "note")) + " |")
    return head + "\n\n" + "\n".join(table) + "\n"


def counts_markdown() -> str:
    """One row per paper: claims and verdict counts of its full-mode record."""
    out = ["| paper | claims | " + " | ".join(VERDICTS) + " | full-mode CPU | commit |",
           "|---|---|" + "---|" * len(VERDICTS) + "---|---|"]
    for p in papers():
        n, info = counts(p), run_info(p)
        out.append(f"| [{p}]({p}.md) | {sum(n.values())} | "
                   + " | ".join(str(n[v]) for v in VERDICTS)
                   + f" | {_duration(float(info.get('cpu_s', 0)))} "
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
